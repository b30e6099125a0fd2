//===- TileToTileGPUPass.cpp - The convert-tile-to-tilegpu pass -----------===//

#include "warpforge/Conversion/TileToTileGPU/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace warpforge {
#define GEN_PASS_DEF_CONVERTTILETOTILEGPU
#include "warpforge/Conversion/TileToTileGPU/Passes.h.inc"
} // namespace warpforge

using namespace mlir;
using namespace warpforge;

namespace {
struct ConvertTileToTileGPUPass
    : public warpforge::impl::ConvertTileToTileGPUBase<
          ConvertTileToTileGPUPass> {
  using ConvertTileToTileGPUBase::ConvertTileToTileGPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module)))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    Builder builder(context);
    module->setAttr(tilegpu::TileGPUDialect::kNumWarps,
                    builder.getI32IntegerAttr(numWarps));
    module->setAttr(tilegpu::TileGPUDialect::kThreadsPerWarp,
                    builder.getI32IntegerAttr(threadsPerWarp));
    module->setAttr(tilegpu::TileGPUDialect::kTarget,
                    builder.getStringAttr(target));

    TileGPUTypeConverter typeConverter(context, numWarps, threadsPerWarp);
    RewritePatternSet patterns(context);
    ConversionTarget conversionTarget(*context);
    populateTileToTileGPUPatterns(typeConverter, patterns, conversionTarget);
    if (failed(applyPartialConversion(module, conversionTarget,
                                      std::move(patterns))))
      signalPassFailure();
  }

  LogicalResult checkOptions(ModuleOp module) {
    if (numWarps < 1 || numWarps > 32 || !llvm::isPowerOf2_32(numWarps))
      return module.emitError() << "convert-tile-to-tilegpu: num-warps must "
                                   "be a power of two from 1 to 32, got "
                                << static_cast<int>(numWarps);
    // Blocked layouts spread a warp's 32 lanes (their verifier's rule).
    if (threadsPerWarp != 32)
      return module.emitError() << "convert-tile-to-tilegpu: "
                                   "threads-per-warp must be 32, got "
                                << static_cast<int>(threadsPerWarp);
    StringRef arch = target;
    unsigned capability;
    if (!arch.consume_front("cuda:") || arch.getAsInteger(10, capability))
      return module.emitError() << "convert-tile-to-tilegpu: target must be "
                                   "cuda:<compute capability> (e.g. cuda:90), "
                                   "got '"
                                << target << "'";
    return success();
  }
};
} // namespace
