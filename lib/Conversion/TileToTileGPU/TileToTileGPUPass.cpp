//===- TileToTileGPUPass.cpp - The convert-tile-to-tilegpu pass -----------===//

#include "warpforge/Conversion/TileToTileGPU/Passes.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

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
  // Reads the (protected) options as CompileOptions.
  template <typename Options>
  friend CompileOptions warpforge::toCompileOptions(const Options &, int);

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkOptions(module)) || failed(checkTensorTypes(module)) ||
        failed(tile::verifyNoEmptyTensors(module, "convert-tile-to-tilegpu")))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    // The CTAs each program runs on are what tile-cluster-split made of
    // the kernel (its tile.num-ctas), not what was asked: without the
    // split (declined, or not run) a program is one CTA.
    CompileOptions options =
        toCompileOptions(*this, *tilegpu::parseCudaTarget(target));
    auto split =
        module->getAttrOfType<IntegerAttr>(tile::TileDialect::kNumCtas);
    options.numCtas = split ? split.getInt() : 1;
    tilegpu::setCompileOptions(module, options, threadsPerWarp);

    // Layouts for the warps that run the kernel's tensor code: with warp
    // specialization, all the consumer groups' (the module's num-warps).
    TileGPUTypeConverter typeConverter(context, tilegpu::getNumWarps(module),
                                       threadsPerWarp,
                                       getMaxSizePerThread(module));
    RewritePatternSet patterns(context);
    ConversionTarget conversionTarget(*context);
    populateTileToTileGPUPatterns(typeConverter, patterns, conversionTarget);
    if (failed(applyPartialConversion(module, conversionTarget,
                                      std::move(patterns))))
      signalPassFailure();
  }

  /// Elements per thread that fill one 16-byte access of the narrowest
  /// element type the kernel loads or stores (4 when it accesses none):
  /// 8 for f16, 16 for i8.
  static unsigned getMaxSizePerThread(ModuleOp module) {
    unsigned narrowest = 4;
    module.walk([&](Operation *op) {
      if (!isa<tile::LoadOp, tile::StoreOp>(op))
        return;
      Type ptr = getElementTypeOrSelf(op->getOperand(0).getType());
      auto ptrType = dyn_cast<tile::PointerType>(ptr);
      if (!ptrType || !ptrType.getPointeeType().isIntOrFloat())
        return;
      unsigned bytes =
          std::max(1u, ptrType.getPointeeType().getIntOrFloatBitWidth() / 8);
      narrowest = std::min(narrowest, bytes);
    });
    return 16 / narrowest;
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
    if (!tilegpu::parseCudaTarget(target))
      return module.emitError() << "convert-tile-to-tilegpu: target must be "
                                   "cuda:<compute capability> (e.g. cuda:90), "
                                   "got '"
                                << target << "'";
    if (numCtas > 1 && *tilegpu::parseCudaTarget(target) < 90)
      return module.emitError()
             << "convert-tile-to-tilegpu: num-ctas = "
             << static_cast<int>(numCtas)
             << " needs thread-block clusters, which sm_90 and later have; the "
                "target is "
             << target;
    if (numStages < 1)
      return module.emitError() << "convert-tile-to-tilegpu: num-stages must "
                                   "be at least 1, got "
                                << static_cast<int>(numStages);
    if (numCtas != 1 && numCtas != 2 && numCtas != 4)
      return module.emitError()
             << "convert-tile-to-tilegpu: num-ctas must be 1, 2 or 4, got "
             << static_cast<int>(numCtas);
    if (numConsumerGroups < 0)
      return module.emitError()
             << "convert-tile-to-tilegpu: num-consumer-groups must be at "
             << "least 0, got " << static_cast<int>(numConsumerGroups);
    if (numConsumerGroups > 0 && numBuffersWarpSpec < 1)
      return module.emitError()
             << "convert-tile-to-tilegpu: num-consumer-groups = "
             << static_cast<int>(numConsumerGroups)
             << " needs num-buffers-warp-spec of at least 1";
    // Ping-pong is two groups, each the kernel's num-warps.
    if (pingPong && numConsumerGroups != 2)
      return module.emitError()
             << "convert-tile-to-tilegpu: ping-pong runs two consumer "
             << "groups, got num-consumer-groups = "
             << static_cast<int>(numConsumerGroups);
    if (numBuffersWarpSpec < 0)
      return module.emitError() << "convert-tile-to-tilegpu: "
                                   "num-buffers-warp-spec must not be "
                                   "negative, got "
                                << static_cast<int>(numBuffersWarpSpec);
    // PTX's .maxnreg: ptxas takes no fewer than 16, and no thread has more
    // than 255.
    if (maxnreg != 0 && (maxnreg < 16 || maxnreg > 255))
      return module.emitError() << "convert-tile-to-tilegpu: maxnreg must be "
                                   "0 (no cap) or 16 to 255, got "
                                << static_cast<int>(maxnreg);
    return success();
  }
};
} // namespace

ConvertTileToTileGPUOptions
warpforge::getConvertTileToTileGPUOptions(const CompileOptions &options) {
  ConvertTileToTileGPUOptions pass;
  setCompileOptionFields(options, pass);
  pass.target = tilegpu::formatCudaTarget(options.computeCapability);
  return pass;
}
