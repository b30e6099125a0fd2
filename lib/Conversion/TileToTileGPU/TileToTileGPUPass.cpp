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
    if (failed(checkOptions(module)) || failed(checkTensorTypes(module)))
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

  /// Layouts distribute tensors of rank 1 or more with static shapes.
  static LogicalResult checkTensorTypes(ModuleOp module) {
    auto check = [](Operation *op, Type type) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || tensor.getEncoding() ||
          (tensor.getRank() > 0 && tensor.hasStaticShape()))
        return success();
      return op->emitError() << "convert-tile-to-tilegpu: " << type
                             << " has no GPU layout; tensors need a rank of "
                                "1 or more and a static shape";
    };
    WalkResult result = module.walk([&](Operation *op) -> WalkResult {
      SmallVector<Type> types(op->getResultTypes());
      for (Region &region : op->getRegions())
        for (Block &block : region)
          llvm::append_range(types, block.getArgumentTypes());
      if (auto func = dyn_cast<tile::FuncOp>(op)) {
        llvm::append_range(types, func.getFunctionType().getInputs());
        llvm::append_range(types, func.getFunctionType().getResults());
      }
      for (Type type : types)
        if (failed(check(op, type)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
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
