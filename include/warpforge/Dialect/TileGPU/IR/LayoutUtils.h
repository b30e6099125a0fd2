//===- LayoutUtils.h - Queries on distributed layouts -----------*- C++ -*-===//
//
// Which elements of a tensor each thread holds, in which order, for the
// distributed layouts that have a regular block structure (blocked and
// slices of it).  Lowerings compute an element's coordinates as
//
//   coord[d] = (threadBase[d] + elementOffset[e][d]) mod shape[d]
//
// where threadBase depends only on the thread (its lane and warp indices
// along d, times sizePerThread[d]) and elementOffset only on the element's
// position in the thread's list, known at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_DIALECT_TILEGPU_IR_LAYOUTUTILS_H
#define WARPFORGE_DIALECT_TILEGPU_IR_LAYOUTUTILS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

namespace warpforge::tilegpu {

class BlockedEncodingAttr;

/// True for layouts whose element placement the helpers below describe:
/// blocked layouts and (nested) slices of them.
bool isBlockedLike(mlir::Attribute layout);

/// The blocked layout at the root of a chain of slices, and the dims
/// removed on the way, in the root's numbering, ascending.
BlockedEncodingAttr getRootBlocked(mlir::Attribute layout,
                                   llvm::SmallVectorImpl<unsigned> *removedDims
                                   = nullptr);

/// `shape` with size-1 dimensions inserted where slices removed them, so
/// that it indexes the root blocked layout.
llvm::SmallVector<int64_t> getRootShape(mlir::Attribute layout,
                                        llvm::ArrayRef<int64_t> shape);

/// The layout's per-dimension properties in the tensor's own dimensions
/// (slice layouts drop their removed dims).
llvm::SmallVector<unsigned> getSizePerThread(mlir::Attribute layout);
llvm::SmallVector<unsigned> getThreadsPerWarp(mlir::Attribute layout);
llvm::SmallVector<unsigned> getWarpsPerCTA(mlir::Attribute layout);
/// Dimensions from the fastest varying.
llvm::SmallVector<unsigned> getOrder(mlir::Attribute layout);

/// The shape covered by one pass of all the CTA's threads, in the root's
/// dimensions.
llvm::SmallVector<int64_t> getRootCTATile(BlockedEncodingAttr layout);

/// Elements a thread holds along each root dimension of a `shape` tensor.
llvm::SmallVector<unsigned> getRootElemsPerThread(mlir::Attribute layout,
                                                  llvm::ArrayRef<int64_t> shape);
/// Elements a thread holds in all.
unsigned getTotalElemsPerThread(mlir::Attribute layout,
                                llvm::ArrayRef<int64_t> shape);
unsigned getTotalElemsPerThread(mlir::RankedTensorType type);

/// For each element of a thread's list, in list order, its offset from the
/// thread's base coordinate along each root dimension.  Elements advance
/// fastest along order[0]; within a dimension, the sizePerThread
/// consecutive elements come before the repetitions of the CTA tile.
llvm::SmallVector<llvm::SmallVector<int64_t>>
getRootElementOffsets(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape);

/// Number of consecutive elements of the thread's list that are contiguous
/// along `order[0]` of the root layout (the widest vector a thread can
/// access at once, before alignment is considered).
unsigned getContiguousElemsPerThread(mlir::Attribute layout,
                                     llvm::ArrayRef<int64_t> shape);

/// The layout of `tile.trans` with `order` of a tensor in `layout`: the
/// same threads hold the same elements, so the transposition is free in
/// registers (result dim i is source dim order[i]).
BlockedEncodingAttr permuteBlocked(BlockedEncodingAttr layout,
                                   llvm::ArrayRef<int32_t> order);

/// The coordinates, in the tensor's own dims, of each element thread `tid`
/// (0 .. 32 * warps - 1) of the CTA holds, in list order: what the
/// lowering's emitIndices computes at run time, evaluated at compile time
/// (to decide whether two layouts place elements alike).
llvm::SmallVector<llvm::SmallVector<int64_t>>
getThreadElementCoords(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape,
                       unsigned tid);

/// The tensor type with its encoding replaced.
mlir::RankedTensorType withEncoding(mlir::RankedTensorType type,
                                    mlir::Attribute encoding);

} // namespace warpforge::tilegpu

#endif // WARPFORGE_DIALECT_TILEGPU_IR_LAYOUTUTILS_H
