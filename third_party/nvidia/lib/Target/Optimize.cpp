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

    // Passes skipped, each of which changes nothing in our modules but
    // costs time on them (opt -time-passes on the 128x256x64 matmul,
    // 2-core CPU, 2026-11-27; 41 ms for the whole pipeline before):
    // - IPSCCP and SCCP (13 ms): the constants were propagated in MLIR,
    //   and our values are wide structs (a thread's tile: the matmul's
    //   accumulator is 128 floats) whose per-field lattices are slow.
    //   InstCombine, GVN and SimplifyCFG fold what constants are left,
    //   NVVMReflect's included.
    // - The SLP vectorizer (5 ms): the lowering already emits the vector
    //   loads, stores and packed conversions it would form.
    // - Dead-store elimination (3 ms): shared and global stores are
    //   inline PTX or intrinsics, and no allocas are left.
    // Skipping an optimization cannot make a kernel wrong, only slower;
    // checked on 2026-11-27: the PTX of the benchmark kernels (matmul,
    // softmax, layer norm, attention forward, plain and warp-specialized),
    // fp16/fp32 element-wise and reduction kernels and libdevice math
    // (erf, exp, log, sin, tanh, ...) is byte-identical, and tutorial 06's
    // backward and libdevice's pow with a constant exponent have the same
    // instructions in another order or block layout (IPSCCP had
    // specialized pow's special-case branches for the constant).
    PassInstrumentationCallbacks instrumentation;
    instrumentation.registerShouldRunOptionalPassCallback(
        [](StringRef pass, Any) {
          return pass != "IPSCCPPass" && pass != "SCCPPass" &&
                 pass != "SLPVectorizerPass" && pass != "DSEPass";
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
