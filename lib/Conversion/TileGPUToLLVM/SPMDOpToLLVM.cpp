//===- SPMDOpToLLVM.cpp - Program ids and CTA barriers --------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

using namespace mlir;
using namespace warpforge;

namespace {

/// Program ids are CTA ids (`%ctaid`), program counts the grid (`%nctaid`).
/// With clusters (tilegpu.num-ctas > 1, clusters of C CTAs along x) a
/// program is a cluster: along x its id is `%clusterid.x` and the count
/// `%nclusterid.x`; y and z are the CTA's, as clusters do not span them.
template <typename SourceOp, typename X, typename Y, typename Z,
          typename ClusterX>
struct GridQueryConversion : public OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case tile::ProgramDim::X:
      if (tilegpu::getNumCtas(op->template getParentOfType<ModuleOp>()) > 1)
        v = ClusterX::create(rewriter, op.getLoc(), i32);
      else
        v = X::create(rewriter, op.getLoc(), i32);
      break;
    case tile::ProgramDim::Y:
      v = Y::create(rewriter, op.getLoc(), i32);
      break;
    case tile::ProgramDim::Z:
      v = Z::create(rewriter, op.getLoc(), i32);
      break;
    }
    rewriter.replaceOp(op, v);
    return success();
  }
};

/// A CTA's rank in its cluster (`%cluster_ctarank`); 0 without clusters.
struct ClusterCtaRankOpConversion
    : public OpConversionPattern<tile::ClusterCtaRankOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ClusterCtaRankOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    if (tilegpu::getNumCtas(op->getParentOfType<ModuleOp>()) > 1)
      rewriter.replaceOp(op, NVVM::ClusterId::create(rewriter, op.getLoc(), i32));
    else
      rewriter.replaceOp(op, LLVM::ConstantOp::create(
                                 rewriter, op.getLoc(), i32,
                                 rewriter.getI32IntegerAttr(0)));
    return success();
  }
};

struct BarrierOpConversion : public OpConversionPattern<tile::BarrierOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// griddepcontrol: PTX 7.8, sm_90 and later (no instruction to fall back
/// on before: the kernel must not be compiled for an older target).
struct GridDependencyOpConversion
    : public OpConversionPattern<tile::GridDependencyOp> {
  GridDependencyOpConversion(const TypeConverter &converter,
                             MLIRContext *context, const TargetInfo &targetInfo)
      : OpConversionPattern(converter, context), targetInfo(targetInfo) {}

  LogicalResult
  matchAndRewrite(tile::GridDependencyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!targetInfo.supportsGridDependencyControl())
      return op.emitError("programmatic dependent launch (")
             << (op.getAction() == "wait" ? "gdc_wait" : "gdc_launch_dependents")
             << ") needs sm_90 or later; the target is sm_"
             << targetInfo.getComputeCapability();
    auto kind = op.getAction() == "wait"
                    ? NVVM::GridDepActionKind::wait
                    : NVVM::GridDepActionKind::launch_dependents;
    NVVM::GriddepcontrolOp::create(rewriter, op.getLoc(), kind);
    rewriter.eraseOp(op);
    return success();
  }

  const TargetInfo &targetInfo;
};

} // namespace

void warpforge::populateSPMDOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<GridQueryConversion<tile::GetProgramIdOp, NVVM::BlockIdXOp,
                                   NVVM::BlockIdYOp, NVVM::BlockIdZOp,
                                   NVVM::ClusterIdXOp>,
               GridQueryConversion<tile::GetNumProgramsOp, NVVM::GridDimXOp,
                                   NVVM::GridDimYOp, NVVM::GridDimZOp,
                                   NVVM::ClusterDimXOp>,
               ClusterCtaRankOpConversion, BarrierOpConversion>(
      converter, patterns.getContext());
  patterns.add<GridDependencyOpConversion>(converter, patterns.getContext(),
                                           targetInfo);
}
