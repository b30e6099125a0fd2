//===- Pipelines.cpp - Named pass pipelines -------------------------------===//

#include "warpforge/Pipelines/Pipelines.h"

#include "warpforge/Conversion/TileToTileGPU/Passes.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/Tile/Transforms/Passes.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
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
  // tl.range(..., loop_unroll_factor=N), after LICM as in Triton.
  pm.addPass(tile::createTileLoopUnroll());
  pm.addPass(createSymbolDCEPass());
}

warpforge::CompileOptions
warpforge::CompileOptionsPipelineOptions::toCompileOptions() const {
  return warpforge::toCompileOptions(*this, computeCapability);
}

void warpforge::buildTileToTileGPUPipeline(OpPassManager &pm,
                                           const CompileOptions &options) {
  // num_ctas: each program's tiles divided among its cluster's CTAs, while
  // the kernel is still tile IR (no layouts).
  pm.addPass(tile::createTileClusterSplit({options.numCtas}));
  pm.addPass(createConvertTileToTileGPU(
      getConvertTileToTileGPUOptions(options)));
  // Folds the chains of conversions the conversion leaves where an op needs
  // a layout other than its operand's default one.
  pm.addPass(createCanonicalizerPass());
}

void warpforge::buildTileGPUOptimizePipeline(OpPassManager &pm) {
  // Loads and stores along their addresses' contiguous dimension.
  pm.addPass(tilegpu::createTileGPUCoalesce());
  pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Dots on Hopper's wgmma; then the conversions around them.
  pm.addPass(tilegpu::createTileGPUAccelerateMatmul());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(tilegpu::createTileGPURemoveLayoutConversions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Warp specialization (num_consumer_groups, tl.range(...,
  // warp_specialize=True)): a producer partition of TMA loads and the
  // consumer warps, joined by a channel, which stays abstract until
  // tilegpu-to-llvm.  Its three steps (tilegpu-warp-specialize's), each
  // dumped on its own.
  pm.addPass(tilegpu::createTileGPUWSTaskPartition());
  pm.addPass(tilegpu::createTileGPUWSBufferAllocation());
  pm.addPass(tilegpu::createTileGPUWSCodePartition());
  pm.addPass(createCanonicalizerPass());
  // The compiler's tensor maps that every program would make alike are
  // encoded by the launcher instead (kernel arguments).
  pm.addPass(tilegpu::createTileGPUHostTensorMaps());
  // Loops with several products: each waited for where it is first used.
  pm.addPass(tilegpu::createTileGPUOverlapProducts());
  // K loops feeding wgmma: cp.async into multi-buffered shared memory
  // (tilegpu.num-stages buffers), one product in flight.
  pm.addPass(tilegpu::createTileGPUSoftwarePipeline());
  pm.addPass(tilegpu::createTileGPULowerTMA());
  // A loop's rescale by a vector of ones (an online softmax whose maximum
  // did not move) skipped warp by warp.
  pm.addPass(tilegpu::createTileGPUSkipUnitScales());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void warpforge::buildTileGPUToLLVMPipeline(OpPassManager &pm) {
  // Channels between warp partitions become full/empty mbarrier rings.
  pm.addPass(tilegpu::createTileGPULowerChannels());
  // Lone TMA loads start before the loops they do not depend on; it must
  // know what the allocator will place, so it runs right before it.
  pm.addPass(createTileGPUIssueTMALoadsEarly());
  pm.addPass(createTileGPUAllocateSharedMemory());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertTileGPUToLLVM());
  // The typed NVVM ops that have no LLVM intrinsic (mbarrier waits,
  // predicated TMA copies, ...) become MLIR's own inline PTX.
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

namespace {
template <void (*Build)(OpPassManager &)>
void withoutOptions(OpPassManager &pm, const warpforge::CompileOptions &) {
  Build(pm);
}
} // namespace

llvm::ArrayRef<warpforge::NamedPipeline> warpforge::getNamedPipelines() {
  static const NamedPipeline pipelines[] = {
      {"tile-optimize",
       "Check kernel rules, inline device functions and simplify tile IR",
       "tile", withoutOptions<buildTileOptimizePipeline>},
      {"tile-to-tilegpu",
       "Give every tensor a GPU layout and stamp the compile options "
       "(num-warps, num-stages, ...) on the module",
       "tilegpu-converted", buildTileToTileGPUPipeline,
       /*takesOptions=*/true},
      {"tilegpu-optimize",
       "Coalesce accesses, remove layout conversions, put dots on wgmma, "
       "warp-specialize and software-pipeline their loops",
       "tilegpu", withoutOptions<buildTileGPUOptimizePipeline>},
      {"tilegpu-to-llvm",
       "Lower channels, assign shared memory and lower tilegpu IR to the "
       "LLVM and NVVM dialects",
       "llvm-dialect", withoutOptions<buildTileGPUToLLVMPipeline>},
  };
  return pipelines;
}

const warpforge::NamedPipeline *
warpforge::lookupNamedPipeline(llvm::StringRef name) {
  for (const NamedPipeline &p : getNamedPipelines())
    if (name == p.name)
      return &p;
  return nullptr;
}

void warpforge::registerWarpforgePassesAndPipelines() {
  static bool registered = [] {
    registerTransformsPasses();
    tile::registerTilePasses();
    registerTileToTileGPUPasses();
    tilegpu::registerTileGPUPasses();
    registerTileGPUToLLVMPasses();
    // The upstream conversion tilegpu-to-llvm runs first, for lit tests of
    // lowerings that take structured control flow.
    registerPass([] { return createSCFToControlFlowPass(); });
    for (const NamedPipeline &p : getNamedPipelines()) {
      auto build = p.build;
      if (p.takesOptions)
        PassPipelineRegistration<CompileOptionsPipelineOptions>(
            p.name, p.description,
            [build](OpPassManager &pm,
                    const CompileOptionsPipelineOptions &options) {
              build(pm, options.toCompileOptions());
            });
      else
        PassPipelineRegistration<>(
            p.name, p.description,
            [build](OpPassManager &pm) { build(pm, CompileOptions{}); });
    }
    return true;
  }();
  (void)registered;
}

void warpforge::registerWarpforgeDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, tilegpu::TileGPUDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, func::FuncDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect,
                  ub::UBDialect>();
  // The GPU lowering ends in the LLVM and NVVM dialects, which the NVPTX
  // backend translates to LLVM IR.  Registering the translations adds the
  // dialects (without their large headers here).
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
