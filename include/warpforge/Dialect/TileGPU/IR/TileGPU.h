//===- TileGPU.h - The tilegpu dialect --------------------------*- C++ -*-===//

#ifndef WARPFORGE_DIALECT_TILEGPU_IR_TILEGPU_H
#define WARPFORGE_DIALECT_TILEGPU_IR_TILEGPU_H

#include "warpforge/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPUDialect.h.inc"

namespace warpforge::tilegpu {
class DistributedLayoutAttr;
} // namespace warpforge::tilegpu

#include "warpforge/Dialect/TileGPU/IR/TileGPUAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUTypes.h.inc"

namespace warpforge::tilegpu {

/// The side-effect resource of shared memory.
struct SharedMemory : public mlir::SideEffects::Resource::Base<SharedMemory> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};

} // namespace warpforge::tilegpu

#define GET_OP_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUOps.h.inc"

#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#endif // WARPFORGE_DIALECT_TILEGPU_IR_TILEGPU_H
