//===- SPMDOpToLLVM.cpp - Program ids and CTA barriers --------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace warpforge;

namespace {

/// Program ids are CTA ids (`%ctaid`), program counts the grid (`%nctaid`).
template <typename SourceOp, typename X, typename Y, typename Z>
struct GridQueryConversion : public OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value v;
    switch (op.getAxis()) {
    case tile::ProgramDim::X:
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

} // namespace

void warpforge::populateSPMDOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<GridQueryConversion<tile::GetProgramIdOp, NVVM::BlockIdXOp,
                                   NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryConversion<tile::GetNumProgramsOp, NVVM::GridDimXOp,
                                   NVVM::GridDimYOp, NVVM::GridDimZOp>,
               BarrierOpConversion>(converter, patterns.getContext());
}
