//===- Pipelines.cpp - Named pass pipelines -------------------------------===//

#include "warpforge/Pipelines/Pipelines.h"

#include "warpforge/Conversion/TileToTileGPU/Passes.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/Tile/Transforms/Passes.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void warpforge::buildTileOptimizePipeline(OpPassManager &pm) {
  pm.addPass(tile::createTileVerifyKernels());
  pm.addPass(createInlinerPass());
  // The inliner leaves a call it cannot inline; nothing after this handles
  // calls, so fail there, at the call.
  pm.addPass(tile::createTileVerifyKernels({/*requireInlined=*/true}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(tile::createTileCombine());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  pm.addPass(createSymbolDCEPass());
}

void warpforge::buildTileToTileGPUPipeline(
    OpPassManager &pm, const TileToTileGPUPipelineOptions &options) {
  ConvertTileToTileGPUOptions conversion;
  conversion.numWarps = options.numWarps;
  pm.addPass(createConvertTileToTileGPU(conversion));
  // Folds the chains of conversions the conversion leaves where an op needs
  // a layout other than its operand's default one.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

llvm::ArrayRef<warpforge::NamedPipeline> warpforge::getNamedPipelines() {
  static const NamedPipeline pipelines[] = {
      {"tile-optimize",
       "Check kernel rules, inline device functions and simplify tile IR",
       buildTileOptimizePipeline},
      {"tile-to-tilegpu",
       "Give every tensor a GPU layout (option num-warps, default 4) and "
       "remove the layout conversions that are not needed",
       [](OpPassManager &pm) { buildTileToTileGPUPipeline(pm, {}); },
       [](const NamedPipeline &p) {
         PassPipelineRegistration<TileToTileGPUPipelineOptions>(
             p.name, p.description, buildTileToTileGPUPipeline);
       }},
  };
  return pipelines;
}

void warpforge::registerWarpforgePassesAndPipelines() {
  static bool registered = [] {
    registerTransformsPasses();
    tile::registerTilePasses();
    registerTileToTileGPUPasses();
    tilegpu::registerTileGPUPasses();
    for (const NamedPipeline &p : getNamedPipelines()) {
      if (p.registerWithOptions)
        p.registerWithOptions(p);
      else
        PassPipelineRegistration<>(p.name, p.description, p.build);
    }
    return true;
  }();
  (void)registered;
}

void warpforge::registerWarpforgeDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, tilegpu::TileGPUDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  ub::UBDialect>();
}
