//===- Utility.h - Helpers for lowering tilegpu to LLVM ---------*- C++ -*-===//

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

//===----------------------------------------------------------------------===//
// Thread identity
//===----------------------------------------------------------------------===//

/// The thread's index in the CTA (tid.x), i32.
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

/// i1 that is true when the running thread is the first holder of its
/// elements (layouts that wrap or slices hold each element in several
/// threads; stores and atomics must happen once).  Null when every thread
/// is (no predicate needed).
mlir::Value emitOwnerPredicate(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type);

//===----------------------------------------------------------------------===//
// Warps and shared memory
//===----------------------------------------------------------------------===//

/// `shfl.sync.bfly` of an i32/f32-or-other scalar (wider or narrower
/// values are split or extended).
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, unsigned laneMask);
/// `shfl.sync.idx` from lane `srcLane`.
mlir::Value shuffleIdx(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Value srcLane);

/// A CTA-wide barrier (bar.sync 0).
void emitBarrier(mlir::OpBuilder &b, mlir::Location loc);

/// `fence.proxy.async.shared::cta`: the thread's generic shared-memory
/// writes become visible to the async proxy (wgmma, TMA).
void emitAsyncProxyFence(mlir::OpBuilder &b, mlir::Location loc);

/// The kernel's dynamic shared memory, `!llvm.ptr<3>`: declared once per
/// module as the external global `warpforge_smem`.
mlir::Value getSharedMemoryBase(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Operation *op);

/// The scratch buffer the allocator gave `op` (`tilegpu.scratch`), as an
/// `!llvm.ptr<3>`.  The op must have been given one.
mlir::Value getScratchBase(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Operation *op);

/// `base + index` elements of `elemType`, in any address space.
mlir::Value gep(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elemType,
                mlir::Value base, mlir::Value index);

/// Stores `values` (one type, one or more of them) at the shared-memory
/// `ptr` in one access, aligned to its size when it is a vector.
void storeVector(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                 llvm::ArrayRef<mlir::Value> values);
/// Loads `vec` elements of `elemType` at `ptr` in one access.
llvm::SmallVector<mlir::Value> loadVector(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value ptr,
                                          mlir::Type elemType, unsigned vec);

/// Loads and stores of shared memory; with `pred`, only where it is true
/// (the load gives zero elsewhere).
void storeShared(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                 mlir::Value value, mlir::Value pred = nullptr);
mlir::Value loadShared(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value ptr, mlir::Type type,
                       mlir::Value pred = nullptr);

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
// Shared-memory buffers (memdescs)
//===----------------------------------------------------------------------===//

/// The byte offset of element `coords` of a 2-D `shape` buffer in the
/// `#tilegpu.nvmma_shared` `layout`.  With `transposed` dim 0 is the
/// contiguous one, else dim 1; call its size Lc, the other Lo, the element
/// bytes eb and W = S / eb for S = swizzlingByteWidth.  The contiguous dim
/// is cut into Lc / W column blocks, block j a dense Lo x S-byte array at
/// j * Lo * S; element (o, c) sits at
///   u = (c / W) * Lo * S + o * S + (c % W) * eb
/// and physically at u ^ (((u >> 7) & (S / 16 - 1)) << 4): the 16-byte
/// chunks of each 128-byte line permuted by the line's index within the
/// 8-line (S = 128), 4-pair (64) or 2-quad (32) swizzle atom, as wgmma and
/// TMA read them.  S = 0: dense, the contiguous dim fastest.
int64_t getNVMMAOffset(llvm::ArrayRef<int64_t> coords,
                       llvm::ArrayRef<int64_t> shape,
                       tilegpu::NVMMASharedEncodingAttr layout);
/// The unswizzled offset u above of element (o, c) in a buffer of `lo`
/// rows of `swizzleBytes`-byte lines (S > 0): what wgmma descriptors
/// address (the hardware applies the XOR).
int64_t getNVMMAUnswizzledOffset(int64_t o, int64_t c, int64_t lo,
                                 int64_t swizzleBytes, int64_t elemBytes);
/// The same at run time, coordinates and result i32.
mlir::Value emitNVMMAOffset(mlir::OpBuilder &b, mlir::Location loc,
                            llvm::ArrayRef<mlir::Value> coords,
                            llvm::ArrayRef<int64_t> shape,
                            tilegpu::NVMMASharedEncodingAttr layout);

/// The buffer a memdesc value addresses: sub-tiles (memdesc_subslice) are
/// placed by the strides of the buffer they are cut from.
mlir::Value getAddressedBuffer(mlir::Value memdesc);

/// The element strides of a `#tilegpu.shared` buffer of `shape`.
llvm::SmallVector<int64_t> getDenseStrides(llvm::ArrayRef<int64_t> shape,
                                           tilegpu::SharedEncodingAttr layout);

/// Succeeds when the lowering can place the elements of `memdesc`: whole
/// bytes in the `#tilegpu.shared` layout or a 2-D `#tilegpu.nvmma_shared`
/// one; else reports why at `op`.
mlir::LogicalResult checkSharedElementAccess(mlir::Operation *op,
                                             mlir::Value memdesc);

/// The widest vector, in elements of the thread's list, in which a thread
/// holding `tensorType` can access shared buffer `memdesc`: consecutive
/// in the list and in the buffer, at most 16 bytes and aligned to its size
/// (swizzling permutes aligned 16-byte chunks, which keeps such a vector
/// in one piece).  A power of two; 1 when nothing better is known.
unsigned getSharedVectorElems(mlir::Value memdesc,
                              mlir::RankedTensorType tensorType);

/// The `!llvm.ptr<3>` of the first element of each vector of `vec`
/// elements (list elements 0, vec, 2 * vec, ...) of the thread's
/// `tensorType` tensor in shared buffer `memdesc`, lowered to `base`.
llvm::SmallVector<mlir::Value>
emitSharedVectorAddresses(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value memdesc, mlir::Value base,
                          mlir::RankedTensorType tensorType, unsigned vec);

/// The per-element predicates of the lowered mask `llMask` of a `type`
/// tensor (a blocked-like or wgmma layout; empty for a null mask), each
/// element's replaced by that of the first element of the thread's list
/// whose mask is equal to it in every thread of the CTA, as the mask's
/// `constancy` (per dimension, aligned runs of equal values, from the axis
/// analysis) proves.  Only the representatives' comparisons stay live: with
/// a K-tail mask `k < K - k0` and K a multiple of 16, rows k and k + 8 of a
/// thread share one predicate.
llvm::SmallVector<mlir::Value>
unpackMaskElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value llMask,
                   mlir::RankedTensorType type,
                   llvm::ArrayRef<int64_t> constancy);

/// The row-major linear index (i32) of `coords` in a `shape` tensor.
mlir::Value linearize(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> coords,
                      llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

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
  unsigned distinctWarps = 1; // powers of two, <= warps
  unsigned laneStride = 1;    // lane-id distance of neighbours along axis
  unsigned warpStride = 1;    // warp-id distance of neighbours along axis
};
AxisDistribution getAxisDistribution(mlir::RankedTensorType type,
                                     unsigned axis);

/// The running thread's lane and warp index along the distribution's axis.
std::pair<mlir::Value, mlir::Value>
getLaneAndWarpAlongAxis(mlir::OpBuilder &b, mlir::Location loc,
                        const AxisDistribution &axis);

/// Inlines a reduce or scan combiner (`combiner` takes N left values then N
/// right values and returns N) on scalars; returns the combined values.
/// The cloned arith/math ops are lowered by their own patterns afterwards.
llvm::SmallVector<mlir::Value> emitCombine(mlir::OpBuilder &b,
                                           mlir::Region &combiner,
                                           mlir::ValueRange lhs,
                                           mlir::ValueRange rhs);

/// Module attribute helpers.
unsigned getNumWarps(mlir::ModuleOp module);

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_UTILITY_H
