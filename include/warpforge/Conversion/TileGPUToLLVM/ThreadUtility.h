//===- ThreadUtility.h - Thread ids, indices, shuffles ----------*- C++ -*-===//
//
// Which thread is running, which elements of a distributed tensor it
// holds, and how values move between the lanes of a warp.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_THREADUTILITY_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_THREADUTILITY_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

namespace warpforge {

/// The warps of the module `op` is in (or is): `tilegpu.num-warps`, which
/// convert-tilegpu-to-llvm requires; the one reader of the attribute in the
/// lowering.
unsigned getNumWarps(mlir::Operation *op);
/// The warps that run code at a point of the kernel: all of the kernel's
/// (outside any tilegpu.warp_specialize op), the default warps (in its
/// default region) or one partition's.  `barrierId` is the named barrier
/// (bar.sync id, threads) that synchronizes just them: 0 (the CTA's) outside
/// warp_specialize, 1 in the default region, 2 + i in partition i.
struct WarpGroupContext {
  unsigned firstWarp = 0;
  unsigned numWarps = 0;
  unsigned barrierId = 0;
};
/// The warps that run the code at `b`'s insertion point.
WarpGroupContext getWarpGroupContext(mlir::OpBuilder &b);

/// The threads of the CTA the op at `b`'s insertion point runs on (in a
/// tilegpu.warp_specialize region: that region's threads).
unsigned getNumThreads(mlir::OpBuilder &b);

//===----------------------------------------------------------------------===//
// Thread identity
//===----------------------------------------------------------------------===//

/// The thread's index among the threads running the code at `b` (tid.x,
/// less the first thread of its tilegpu.warp_specialize region), i32.
mlir::Value getThreadId(mlir::OpBuilder &b, mlir::Location loc);

/// Lane (0..31) and warp index of the running thread, i32.
std::pair<mlir::Value, mlir::Value> getLaneAndWarpId(mlir::OpBuilder &b,
                                                     mlir::Location loc);

/// The warp index read from lane 0 by a shuffle: the same value, which
/// ptxas then knows is the same in every lane, so what is computed from
/// it (e.g. wgmma descriptors) can live in uniform registers.
mlir::Value getUniformWarpId(mlir::OpBuilder &b, mlir::Location loc);

/// Splits `linear` (lanes or warps) into per-dimension indices for sizes
/// `sizes` laid out along `order` (order[0] fastest).
llvm::SmallVector<mlir::Value>
delinearize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value linear,
            llvm::ArrayRef<unsigned> sizes, llvm::ArrayRef<unsigned> order);

/// The running thread's first coordinate along each root dimension of a
/// blocked-like layout: (warp_d * threadsPerWarp[d] + lane_d) *
/// sizePerThread[d].
llvm::SmallVector<mlir::Value> getThreadBase(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Attribute layout);

/// The coordinates (i32, in the tensor's own dims) of each element the
/// running thread holds, in list order.
llvm::SmallVector<llvm::SmallVector<mlir::Value>>
emitIndices(mlir::OpBuilder &b, mlir::Location loc,
            mlir::RankedTensorType type);

//===----------------------------------------------------------------------===//
// Warp shuffles
//===----------------------------------------------------------------------===//

/// `shfl.sync.bfly` of an i32/f32-or-other scalar (wider or narrower
/// values are split or extended).
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, unsigned laneMask);
/// `shfl.sync.idx` from lane `srcLane`.
mlir::Value shuffleIdx(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Value srcLane);

//===----------------------------------------------------------------------===//
// Along one dimension
//===----------------------------------------------------------------------===//

/// The row-major linear index (i32) of `coords` in a `shape` tensor.
mlir::Value linearize(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> coords,
                      llvm::ArrayRef<int64_t> shape);

/// How the distinct elements of a blocked-like tensor are spread along one
/// of its dimensions.  Along `axis`, the elements a thread holds come in
/// `reps` runs of `elemsPerRep` consecutive ones, one run per repetition of
/// the CTA tile.  When the tensor is smaller than the CTA tile along the
/// axis, only the first `distinctLanes` lanes (and `distinctWarps` warps)
/// along it hold distinct elements; the others hold copies of lane
/// (warp) index modulo that count.
struct AxisDistribution {
  unsigned rootDim = 0;       // the axis in the root blocked layout
  unsigned elemsPerRep = 1;   // consecutive elements per run
  unsigned reps = 1;          // runs per thread
  unsigned lanes = 1;         // threadsPerWarp along the axis
  unsigned warps = 1;         // warpsPerCTA along the axis
  unsigned distinctLanes = 1; // powers of two, <= lanes
  unsigned distinctWarps = 1; // <= warps (powers of two but for 12 warps)
  unsigned laneStride = 1;    // lane-id distance of neighbours along axis
  unsigned warpStride = 1;    // warp-id distance of neighbours along axis
};
AxisDistribution getAxisDistribution(mlir::RankedTensorType type,
                                     unsigned axis);

/// `v` modulo `n` (i32): a mask for a power of two, a remainder otherwise
/// (12 warps: three consumer warpgroups).
mlir::Value wrapIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                      int64_t n);

/// The running thread's lane and warp index along the distribution's axis.
std::pair<mlir::Value, mlir::Value>
getLaneAndWarpAlongAxis(mlir::OpBuilder &b, mlir::Location loc,
                        const AxisDistribution &axis);

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_THREADUTILITY_H
