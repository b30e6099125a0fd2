//===- Optimize.cpp - LLVM's optimization pipeline for NVPTX --------------===//

#include "LLVMErrorTrap.h"
#include "warpforge/Target/NVPTX.h"

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

using namespace llvm;

namespace warpforge::nvptx {

Error optimizeModule(Module &module, TargetMachine &targetMachine,
                     int optLevel) {
  static const OptimizationLevel levels[] = {
      OptimizationLevel::O0, OptimizationLevel::O1, OptimizationLevel::O2,
      OptimizationLevel::O3};
  if (optLevel < 0 || optLevel > 3)
    return createStringError(inconvertibleErrorCode(),
                             "optimization level %d is out of range: "
                             "expected 0 to 3",
                             optLevel);
  OptimizationLevel level = levels[optLevel];

  return runCatchingLLVMErrors(module.getContext(), [&] {
    // What clang enables at each level.  The NVPTX cost model keeps the loop
    // vectorizer from widening scalar loops; SLP merges adjacent accesses.
    PipelineTuningOptions tuning;
    tuning.LoopUnrolling = optLevel >= 1;
    tuning.LoopInterleaving = tuning.LoopVectorization = optLevel >= 2;
    tuning.SLPVectorization = optLevel >= 2;

    // Sparse conditional constant propagation (IPSCCP before inlining, SCCP
    // after) is skipped.  Our modules reach LLVM with their constants
    // already propagated by MLIR's canonicalization, and their values are
    // wide structs (a thread's tile: the 128x256 matmul's accumulator is
    // 128 floats), whose per-field lattices made these two passes 13 of
    // the pipeline's 41 ms for that kernel (opt -time-passes, 2-core CPU,
    // 2026-11-27).  InstCombine, GVN and SimplifyCFG fold what constants
    // are left, NVVMReflect's included.  Checked on 2026-11-27: the PTX of
    // the benchmark kernels (matmul, softmax, layer norm, attention
    // forward, plain and warp-specialized) is byte-identical; tutorial
    // 06's backward and libdevice's pow with a constant exponent come out
    // with the same instructions in another order or block layout (IPSCCP
    // had specialized pow's special-case branches for the constant).
    PassInstrumentationCallbacks instrumentation;
    instrumentation.registerShouldRunOptionalPassCallback(
        [](StringRef pass, Any) {
          return pass != "IPSCCPPass" && pass != "SCCPPass";
        });

    LoopAnalysisManager loopAnalyses;
    FunctionAnalysisManager functionAnalyses;
    CGSCCAnalysisManager cgsccAnalyses;
    ModuleAnalysisManager moduleAnalyses;
    // With the target machine, the builder adds the target's passes
    // (NVVMReflect, address-space inference) at their extension points.
    PassBuilder builder(&targetMachine, tuning, std::nullopt,
                        &instrumentation);
    builder.registerModuleAnalyses(moduleAnalyses);
    builder.registerCGSCCAnalyses(cgsccAnalyses);
    builder.registerFunctionAnalyses(functionAnalyses);
    builder.registerLoopAnalyses(loopAnalyses);
    builder.crossRegisterProxies(loopAnalyses, functionAnalyses, cgsccAnalyses,
                                 moduleAnalyses);

    ModulePassManager passes =
        level == OptimizationLevel::O0
            ? builder.buildO0DefaultPipeline(level)
            : builder.buildPerModuleDefaultPipeline(level);
    passes.run(module, moduleAnalyses);
  });
}

} // namespace warpforge::nvptx
