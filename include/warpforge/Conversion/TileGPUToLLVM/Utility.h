//===- Utility.h - Helpers for lowering tilegpu to LLVM ---------*- C++ -*-===//
//
// What most patterns use: constants, the per-thread representation of
// tensors, elements as they are in memory.  The other helpers are by
// concern: ThreadUtility.h (thread ids, element indices, shuffles),
// SharedMemoryUtility.h, MaskUtility.h; PTXBuilder.h for inline PTX.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_UTILITY_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_UTILITY_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

namespace warpforge {

//===----------------------------------------------------------------------===//
// Constants and small arithmetic on i32
//===----------------------------------------------------------------------===//

mlir::Value i32Val(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value i64Val(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value intVal(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                   int64_t v);
mlir::Value boolVal(mlir::OpBuilder &b, mlir::Location loc, bool v);
/// A zero of any integer, float or pointer type.
mlir::Value zeroVal(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);

/// Two 16-bit values in one i32 register (the first in the low half), as
/// wgmma and stmatrix take them, and back.
mlir::Value packPair(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lo,
                     mlir::Value hi);
std::pair<mlir::Value, mlir::Value> unpackPair(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value word,
                                               mlir::Type elemType);

/// `base + index` elements of `elemType`, in any address space.
mlir::Value gep(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elemType,
                mlir::Value base, mlir::Value index);

//===----------------------------------------------------------------------===//
// Per-thread tensors
//===----------------------------------------------------------------------===//

/// The elements of a lowered tensor (an LLVM struct), in order.
llvm::SmallVector<mlir::Value> unpackLLElements(mlir::Location loc,
                                                mlir::Value llvmStruct,
                                                mlir::OpBuilder &b);

/// Packs `values` into the lowered form of `tensorType`.
mlir::Value packLLElements(mlir::Location loc,
                           const mlir::TypeConverter *converter,
                           mlir::ValueRange values, mlir::OpBuilder &b,
                           mlir::Type tensorType);

/// The elements of several lowered tensors of one layout (a reduce's or
/// scan's operands), as one tuple per element: [element][operand].
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
unpackOperandTuples(mlir::Location loc, mlir::ValueRange llvmStructs,
                    mlir::OpBuilder &b);
/// The inverse: packs operand `i` of every tuple into the lowered form of
/// `resultTypes[i]`; a result that is not a tensor (a reduction to a
/// scalar) takes operand `i` of the single tuple.
llvm::SmallVector<mlir::Value>
packOperandTuples(mlir::Location loc, const mlir::TypeConverter *converter,
                  llvm::ArrayRef<llvm::SmallVector<mlir::Value>> tuples,
                  mlir::TypeRange resultTypes, mlir::OpBuilder &b);

//===----------------------------------------------------------------------===//
// Elements in memory
//===----------------------------------------------------------------------===//

/// Bits an element of lowered type `type` occupies in memory (booleans are
/// bytes, pointers 64 bits).
unsigned memoryBits(mlir::Type type);
/// Element `v` as the `bits`-wide integer it is in memory, and back.
mlir::Value toMemoryInt(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        unsigned bits);
mlir::Value fromMemoryInt(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value v, mlir::Type type);

/// The element type a tensor element has after lowering (pointers become
/// LLVM pointers).
mlir::Type getLoweredElementType(const mlir::TypeConverter *converter,
                                 mlir::Type tensorType);

/// Shared memory holds i1 as a byte; other types as they are.
mlir::Value toSharedStorage(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value v);
mlir::Value fromSharedStorage(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value v, mlir::Type type);
/// Bytes one element of (lowered) `type` takes in shared memory.
unsigned getSharedStorageBytes(mlir::Type type);

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

/// Inlines a reduce or scan combiner (`combiner` takes N left values then N
/// right values and returns N) on scalars; returns the combined values.
/// The cloned arith/math ops are lowered by their own patterns afterwards.
llvm::SmallVector<mlir::Value> emitCombine(mlir::OpBuilder &b,
                                           mlir::Region &combiner,
                                           mlir::ValueRange lhs,
                                           mlir::ValueRange rhs);

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_UTILITY_H
