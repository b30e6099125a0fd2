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
class NVMMASharedEncodingAttr;
class WgmmaEncodingAttr;

/// True for layouts whose element placement the helpers below describe:
/// blocked layouts and (nested) slices of them.
bool isBlockedLike(mlir::Attribute layout);

/// The layout at the root of a chain of slices (the layout itself when it
/// is no slice), and the dims removed on the way, in the root's numbering,
/// ascending.
mlir::Attribute getRootLayout(mlir::Attribute layout,
                              llvm::SmallVectorImpl<unsigned> *removedDims
                              = nullptr);
/// The wgmma accumulator layout at the root of a chain of slices (or the
/// layout itself); null when the root is another layout.
WgmmaEncodingAttr getRootWgmma(mlir::Attribute layout);
/// wgmma accumulator layouts and (nested) slices of them: the elements a
/// softmax or an epilogue computes on without leaving the accumulator's
/// registers (a row reduction gives a slice along dim 1, expanded back
/// and broadcast against the accumulator).  Their element lists follow the
/// same rule as blocked layouts' (base + offset, modulo the root shape),
/// with the accumulator's base and offsets below.
bool isWgmmaRooted(mlir::Attribute layout);
/// isBlockedLike or isWgmmaRooted: the layouts the view, reduction and
/// element-wise lowerings take.
bool isRegularDistributed(mlir::Attribute layout);
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

/// `layout` (blocked, or slices of one) for a CTA of `numWarps` warps:
/// the same per-thread and per-warp shape with warpsPerCTA scaled along the
/// slowest dimensions (what a warp partition with fewer warps than the
/// kernel uses for the address math it clones).  Null for other layouts.
mlir::Attribute getBlockedLikeForWarps(mlir::Attribute layout,
                                       unsigned numWarps);

/// The coordinates, in the tensor's own dims, of each element thread `tid`
/// (0 .. 32 * warps - 1) of the CTA holds, in list order: what the
/// lowering's emitIndices computes at run time, evaluated at compile time
/// (to decide whether two layouts place elements alike).
llvm::SmallVector<llvm::SmallVector<int64_t>>
getThreadElementCoords(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape,
                       unsigned tid);
/// getThreadElementCoords of threads 0 .. numThreads - 1, indexed by
/// thread (the element offsets, the same for all, computed once).
llvm::SmallVector<llvm::SmallVector<llvm::SmallVector<int64_t>>>
getCTAElementCoords(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape,
                    unsigned numThreads);

//===----------------------------------------------------------------------===//
// wgmma accumulator and register-operand layouts
//
// A `#tilegpu.wgmma<warpsPerCTA = [wM, wN], instrShape = [64, n, k]>` tensor
// of shape [M, N] is covered by a CTA tile of 16*wM x n*wN; warp w works on
// rows (w % wM) * 16 + [0, 16) and columns (w / wM) * n + [0, n) of each
// tile (the four warps of a warpgroup are consecutive along M).  Within a
// warp, lane l holds, for each of the n/8 column groups j, the four
// elements (l/4 + 8*i, 8*j + 2*(l%4) + e) for i, e in {0, 1}, in the order
// (0,0) (0,1) (1,0) (1,1): the registers of one wgmma instruction.  A
// thread's list is: for each tile repetition along M, along N, the n/2
// elements of that instruction.
//
// A `#tilegpu.dot_op<opIdx = 0, parent = wgmma, kWidth>` tensor [M, K] (the
// A operand of the RS form, 16-bit elements) has the rows of the parent and,
// per 16-wide K step s, the elements (l/4 + 8*i, 16*s + 8*h + 2*(l%4) + e)
// in the order (i,h) = (0,0) (1,0) (0,1) (1,1), e fastest: the four
// registers of the instruction's A fragment.  The list runs over the M
// repetitions, then the K steps.
//===----------------------------------------------------------------------===//

/// True for layouts whose elements the lowering can place: blocked-like,
/// wgmma, and wgmma register operands.
bool isLowerableDistributed(mlir::Attribute layout);

/// The layout operand `opIdx` (0: A, 1: B) of a product on CUDA cores
/// (FMA) takes when its result has the blocked layout `acc` and the inner
/// dimension has `k` elements: acc's thread and warp arrangement, with the
/// whole K dimension in each thread (A's last dimension, B's next to
/// last).  Each thread then holds, for every accumulator element it owns,
/// the row of A and the column of B that element needs: A is replicated
/// across the threads along N, B across those along M.
BlockedEncodingAttr getFmaOperandLayout(BlockedEncodingAttr acc,
                                        unsigned opIdx, int64_t k);
/// Whether a product of `a` and `b` into `d` is in the form the FMA
/// lowering takes: operands in the FMA layouts of the blocked accumulator,
/// floats in the accumulator's type.
bool isFmaDotForm(mlir::RankedTensorType a, mlir::RankedTensorType b,
                  mlir::RankedTensorType d);

/// Repetitions of the wgmma CTA tile along M and N in a `shape` tensor.
std::pair<int64_t, int64_t> getWgmmaReps(WgmmaEncodingAttr layout,
                                         llvm::ArrayRef<int64_t> shape);

/// Offsets (row, col), from the thread's base (getWgmmaThreadBase), of
/// each element in the thread's list of a wgmma (or mma.sync) accumulator
/// or register operand.
llvm::SmallVector<std::pair<int64_t, int64_t>>
getWgmmaElementOffsets(mlir::Attribute layout, llvm::ArrayRef<int64_t> shape);

/// Thread `tid`'s base (row, col) in a wgmma-family accumulator or operand
/// layout: accumulators (warpM*16 + lane/4, warpN*n + 2*(lane%4)); operand
/// A (warpM*16 + lane/4, kWidth*(lane%4)); operand B, mma.sync only,
/// (kWidth*(lane%4), warpN*n + lane/4), with warpM = warp % wM, warpN =
/// warp / wM and n = instrShape[1].
std::pair<int64_t, int64_t> getWgmmaThreadBase(mlir::Attribute layout,
                                               unsigned tid);

/// Whether a wgmma-family layout is filled per warp by mma.sync
/// (instrShape[0] = 16) rather than per warpgroup by wgmma (64).
bool isMmaSync(WgmmaEncodingAttr layout);

/// Whether a product of `a` and `b` into `d` is in the form the mma.sync
/// lowering takes: an mma.sync accumulator and its A and B operand layouts
/// of one kWidth.
bool isMmaDotForm(mlir::RankedTensorType a, mlir::RankedTensorType b,
                  mlir::RankedTensorType d);

/// The K of one wgmma instruction for operands of type `t`: 16 for 16-bit
/// types, 32 for fp8 and int8, 8 for f32 (tf32); 0 when wgmma has no form
/// for them.
unsigned getWgmmaInstrK(mlir::Type t);

/// Whether wgmma has an N of `n` for operands of type `t`: a multiple of 8
/// up to 256, and for integer types 8, 16, 24 or a multiple of 16.
bool isWgmmaInstrN(mlir::Type t, int64_t n);

/// The wgmma layout of a wgmma tensor or of a wgmma register operand.
WgmmaEncodingAttr getWgmmaParent(mlir::Attribute layout);

/// Number of warps a distributed layout spreads over.
unsigned getWarpCount(mlir::Attribute layout);

/// The tensor type with its encoding replaced.
mlir::RankedTensorType withEncoding(mlir::RankedTensorType type,
                                    mlir::Attribute encoding);

//===----------------------------------------------------------------------===//
// The NVMMA shared-memory layout
//
// Where element (o, c) of a 2-D `#tilegpu.nvmma_shared` buffer sits.  With
// `transposed` dim 0 is the contiguous one, else dim 1; call its size Lc,
// the other Lo, the element bytes eb and W = S / eb for S =
// swizzlingByteWidth.  The contiguous dim is cut into Lc / W column blocks,
// block j a dense Lo x S-byte array at j * Lo * S; element (o, c) sits at
//   u = (c / W) * Lo * S + o * S + (c % W) * eb
// and physically at u ^ (((u >> 7) & (S / 16 - 1)) << 4): the 16-byte
// chunks of each 128-byte line permuted by the line's index within the
// 8-line (S = 128), 4-pair (64) or 2-quad (32) swizzle atom, as wgmma and
// TMA read them.  S = 0: dense, the contiguous dim fastest.  The lowering
// emits the same computation at run time (emitNVMMAOffset).
//===----------------------------------------------------------------------===//

/// The parameters above of a 2-D buffer of `shape` in `layout`.
struct NVMMAGeometry {
  NVMMAGeometry(llvm::ArrayRef<int64_t> shape, NVMMASharedEncodingAttr layout);
  unsigned contigDim, otherDim;
  int64_t lc, lo, eb, swizzle; // Lc, Lo, eb, S
  int64_t width() const { return swizzle / eb; } // W: elements per line
};

/// The shared layout a tensor descriptor's blocks of `blockType` land in
/// (`tma::encodingFor`): NVMMA, untransposed, swizzled by the rule's width,
/// for 2-D blocks with rows of 32 bytes or more; else dense, row-major.
mlir::Attribute getTMASharedEncoding(mlir::RankedTensorType blockType);

class MemDescType;
/// The memdesc of one mutable buffer holding a block of `blockType`.
MemDescType getTMABufferType(mlir::RankedTensorType blockType,
                             int64_t numBuffers = 1);

/// The byte offset of element `coords` of a 2-D `shape` buffer in `layout`.
int64_t getNVMMAOffset(llvm::ArrayRef<int64_t> coords,
                       llvm::ArrayRef<int64_t> shape,
                       NVMMASharedEncodingAttr layout);

/// The unswizzled offset u above of element (o, c) in a buffer of `lo`
/// rows of `swizzleBytes`-byte lines (S > 0): what wgmma descriptors
/// address (the hardware applies the XOR).
int64_t getNVMMAUnswizzledOffset(int64_t o, int64_t c, int64_t lo,
                                 int64_t swizzleBytes, int64_t elemBytes);

} // namespace warpforge::tilegpu

#endif // WARPFORGE_DIALECT_TILEGPU_IR_LAYOUTUTILS_H
