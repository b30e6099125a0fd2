//===- Patterns.h - Patterns lowering tilegpu to LLVM -----------*- C++ -*-===//
//
// The lowering is split by kind of op, one file each; the pass collects them
// all.  Every pattern works on values in the per-thread representation
// TypeConverter defines.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_PATTERNS_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_PATTERNS_H

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"

#include <functional>

namespace warpforge {

/// Tensors become LLVM structs of the elements the running thread holds
/// (in the order LayoutUtils.h gives), `!tile.ptr<T, as>` an `!llvm.ptr<as>`,
/// a shared-memory descriptor the `!llvm.ptr<3>` of its first byte, an
/// async token an i32.
class TileGPUToLLVMTypeConverter : public mlir::LLVMTypeConverter {
public:
  explicit TileGPUToLLVMTypeConverter(mlir::MLIRContext *context);
};

/// A pattern whose lowering depends on the target: the instructions it
/// emits exist on some GPUs only.
template <typename SourceOp>
class TargetOpConversionPattern : public mlir::OpConversionPattern<SourceOp> {
public:
  TargetOpConversionPattern(const mlir::TypeConverter &converter,
                            mlir::MLIRContext *context,
                            const TargetInfo &targetInfo)
      : mlir::OpConversionPattern<SourceOp>(converter, context),
        targetInfo(targetInfo) {}

protected:
  /// Fails with an error at `op` when the target lacks `feature` (its
  /// `supported` fact), instead of emitting PTX that ptxas rejects.
  mlir::LogicalResult requireFeature(mlir::Operation *op, bool supported,
                                     llvm::StringRef feature) const {
    if (supported)
      return mlir::success();
    return op->emitError(feature)
           << " is not available on target " << targetInfo.getTargetName();
  }

  const TargetInfo &targetInfo;
};

void populateFuncOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo);
void populateSPMDOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo);
void populateElementwiseOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns,
                                         const TargetInfo &targetInfo);
void populateViewOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo);
/// The widest vector, in elements, a thread may use for a load or store
/// through the pointer tensor `ptr` under `mask` (which may be null): the
/// elements must be contiguous in memory and aligned to the vector, and the
/// mask constant across it.  The axis analysis answers it; 1 is always safe.
using VectorSizeQuery =
    std::function<unsigned(mlir::Value ptr, mlir::Value mask)>;
/// Per dimension of the mask tensor `mask`, the length of the aligned runs
/// along which its value is constant (1 when nothing is known): elements in
/// one run share one predicate.
using MaskConstancyQuery =
    std::function<llvm::SmallVector<int64_t>(mlir::Value mask)>;
/// What the axis analysis tells the lowerings of memory accesses.
struct AccessQueries {
  VectorSizeQuery vectorSize;
  MaskConstancyQuery maskConstancy;
};

void populateLoadStoreOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       const TargetInfo &targetInfo,
                                       AccessQueries queries);
void populateReduceOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo);
void populateScanOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo);
void populateConvertLayoutOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, mlir::RewritePatternSet &patterns,
    const TargetInfo &targetInfo);
void populateSharedMemoryOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns,
                                          const TargetInfo &targetInfo);
/// tilegpu.warp_group_dot and tilegpu.warp_group_dot_wait (Hopper wgmma,
/// inline PTX).
/// tile.dot on the CUDA cores: an FMA per accumulator element and K step,
/// for the dots tilegpu-accelerate-matmul left in FMA layouts.
void populateFmaDotOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
/// tile.dot on mma.sync (sm_80 and later): the dots
/// tilegpu-accelerate-matmul left in mma.sync layouts (inline PTX).
void populateMmaDotOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo);
void populateDotOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const TargetInfo &targetInfo);
/// cp.async copies into shared memory (vector widths and shared predicates
/// from `queries`, as for loads), their groups and waits, and the
/// async-proxy fence.
void populateAsyncCopyOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns,
                                       const TargetInfo &targetInfo,
                                       AccessQueries queries);
/// mbarriers: init, expect, arrive, wait, inval (typed NVVM ops).
void populateBarrierOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     const TargetInfo &targetInfo);
/// TMA copies and stores through tensor descriptors, the bulk-group wait,
/// and tensor maps made on the device (tile.make_tensor_descriptor).
void populateTMAOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const TargetInfo &targetInfo);
/// `threadIdx.x == 0`, the thread that initializes mbarriers and issues
/// TMA copies.
mlir::Value emitIsThreadZero(mlir::OpBuilder &b, mlir::Location loc);
/// On a `tile.make_tensor_descriptor`: its tensor map's byte offset in the
/// program's global scratch.
inline constexpr llvm::StringLiteral kGlobalScratchOffsetAttr =
    "tilegpu.global_scratch_offset";

/// tile.assert (`__assertfail`) and tile.print (`vprintf`).
/// tilegpu.warp_specialize, first step (WarpSpecializeOpToLLVM.cpp): the
/// op keeps its regions while their ops are converted; `target` learns
/// when it is legal.
void populateWarpSpecializeOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, mlir::RewritePatternSet &patterns,
    mlir::ConversionTarget &target);
/// Second step, after the conversion: each op becomes a dispatch on the
/// warp index into its regions' blocks.
void lowerWarpSpecializeOps(mlir::ModuleOp module);
/// The most warps the tilegpu.warp_specialize ops under `root` add to the
/// kernel's (0 without any).
int32_t getPartitionWarps(mlir::Operation *root);
/// Whether one of them moves registers (setmaxnreg).
bool hasRegisterRequests(mlir::Operation *root);
/// The registers every thread of a kernel of `threads` threads starts with
/// when warp partitions move registers (`.maxnreg`): its even share of the
/// SM's 64K, in steps of 8, at most 248.
inline int32_t getEvenRegisterShare(int32_t threads) {
  return std::min<int32_t>(248, 65536 / threads / 8 * 8);
}

void populateDebugOpToLLVMPatterns(TileGPUToLLVMTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const TargetInfo &targetInfo);

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_PATTERNS_H
