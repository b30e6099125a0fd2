//===- Tile.h - The tile dialect --------------------------------*- C++ -*-===//

#ifndef WARPFORGE_DIALECT_TILE_IR_TILE_H
#define WARPFORGE_DIALECT_TILE_IR_TILE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "warpforge/Dialect/Tile/IR/TileDialect.h.inc"
#include "warpforge/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "warpforge/Dialect/Tile/IR/TileTypes.h.inc"

namespace warpforge::tile {

/// The side-effect resource of global memory.
struct GlobalMemory : public mlir::SideEffects::Resource::Base<GlobalMemory> {
  llvm::StringRef getName() final { return "<GlobalMemory>"; }
};

/// For a pointer, its pointee type; for a tensor of pointers, the tensor of
/// pointees with the same shape.  Any other type is returned unchanged.
mlir::Type getPointeeType(mlir::Type ptrLike);

/// i1 for a scalar, a tensor of i1 with the same shape for a tensor.
mlir::Type getI1SameShape(mlir::Type type);

/// The most elements a kernel's tensor may hold (the frontend's cap): the
/// lowering gives each thread its share of the elements one by one.
inline constexpr int64_t kMaxTensorElements = int64_t(1) << 20;

/// Fails with an error at the first op under `root` with a tensor operand
/// or result that has a zero-sized dimension (kernels' tensors hold at
/// least one element per dimension, and the layouts and lowerings divide by
/// the sizes) or more than kMaxTensorElements elements (the lowering would
/// unroll for minutes and gigabytes).  `pass` names who checks.
mlir::LogicalResult verifyNoEmptyTensors(mlir::Operation *root,
                                         llvm::StringRef pass);

} // namespace warpforge::tile

#define GET_OP_CLASSES
#include "warpforge/Dialect/Tile/IR/TileOps.h.inc"

#endif // WARPFORGE_DIALECT_TILE_IR_TILE_H
