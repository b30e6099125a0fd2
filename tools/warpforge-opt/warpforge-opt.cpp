//===- warpforge-opt.cpp - The warpforge optimizer driver -----------------===//
//
// mlir-opt with warpforge's dialects, passes and named pipelines: every stage
// the JIT runs can be reproduced and inspected from the command line.  With
// --emit=llvm-ir or --emit=ptx, the module the passes produce (in the LLVM
// and NVVM dialects) goes through the NVPTX backend and the tool prints its
// LLVM IR or PTX instead of MLIR.
// The test passes (test/lib) print analysis results for lit tests.
//
//===----------------------------------------------------------------------===//

#include "warpforge/API/ParserGuards.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Pipelines/Pipelines.h"
#include "warpforge/Target/NVPTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "TestPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace {
enum class EmitKind { MLIR, LLVMIR, PTX };

llvm::cl::OptionCategory targetCategory("warpforge NVPTX backend options");

llvm::cl::opt<EmitKind> emitKind(
    "emit", llvm::cl::desc("What to print after the passes"),
    llvm::cl::init(EmitKind::MLIR),
    llvm::cl::values(
        clEnumValN(EmitKind::MLIR, "mlir", "the MLIR module (the default)"),
        clEnumValN(EmitKind::LLVMIR, "llvm-ir",
                   "optimized LLVM IR for the NVPTX backend (the module "
                   "must be in the LLVM and NVVM dialects)"),
        clEnumValN(EmitKind::PTX, "ptx", "PTX assembly")),
    llvm::cl::cat(targetCategory));

llvm::cl::opt<int> computeCapability(
    "compute-capability",
    llvm::cl::desc("With --emit=llvm-ir/ptx: the GPU's compute capability, "
                   "major * 10 + minor (90: sm_90a); default: the module's "
                   "tilegpu.target, else 90"),
    llvm::cl::init(90), llvm::cl::cat(targetCategory));

llvm::cl::opt<int> targetOptLevel(
    "target-opt-level",
    llvm::cl::desc("With --emit=llvm-ir/ptx: LLVM's optimization level, 0-3"),
    llvm::cl::init(3), llvm::cl::cat(targetCategory));

llvm::cl::opt<bool> targetFpFusion(
    "target-fp-fusion",
    llvm::cl::desc("With --emit=llvm-ir/ptx: let a floating-point multiply "
                   "and add fuse into one fma (the JIT's enable_fp_fusion)"),
    llvm::cl::init(false), llvm::cl::cat(targetCategory));

llvm::cl::opt<bool> targetReflectFtz(
    "target-reflect-ftz",
    llvm::cl::desc("With --emit=llvm-ir/ptx: libdevice's functions flush "
                   "denormals to zero (the JIT's enable_reflect_ftz)"),
    llvm::cl::init(false), llvm::cl::cat(targetCategory));

/// The last step of the pipeline under --emit=llvm-ir/ptx: compiles the
/// module and writes the result to `output`.  Errors are emitted as
/// diagnostics, located at the op they concern, and fail the pass.
class EmitTargetPass
    : public PassWrapper<EmitTargetPass, OperationPass<ModuleOp>> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitTargetPass)

  EmitTargetPass(EmitKind kind, warpforge::nvptx::TargetOptions options,
                 llvm::raw_ostream &output)
      : kind(kind), options(std::move(options)), output(output) {}

  StringRef getArgument() const final { return "warpforge-emit-target"; }
  StringRef getDescription() const final {
    return "Print the module as LLVM IR or PTX (warpforge-opt --emit)";
  }

  void runOnOperation() final {
    markAllAnalysesPreserved();
    // The module's target (stamped by convert-tile-to-tilegpu, kept through
    // the lowering) is the target's one home; the flag overrides it.
    if (!computeCapability.getNumOccurrences())
      if (auto target = getOperation()->getAttrOfType<StringAttr>(
              warpforge::tilegpu::attr::kTarget))
        if (auto cc = warpforge::tilegpu::parseCudaTarget(target.getValue()))
          options.computeCapability = *cc;
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        warpforge::nvptx::compileToLLVMIR(getOperation(), llvmContext,
                                          options);
    if (!llvmModule)
      return signalPassFailure();
    if (kind == EmitKind::LLVMIR) {
      llvmModule->print(output, /*AAW=*/nullptr);
      return;
    }
    auto fail = [&](llvm::Error error) {
      emitError(getOperation().getLoc()) << llvm::toString(std::move(error));
      signalPassFailure();
    };
    auto targetMachine = warpforge::nvptx::createTargetMachine(options);
    if (!targetMachine)
      return fail(targetMachine.takeError());
    llvm::Expected<std::string> ptx =
        warpforge::nvptx::emitPTX(*llvmModule, **targetMachine);
    if (!ptx)
      return fail(ptx.takeError());
    output << *ptx;
  }

private:
  EmitKind kind;
  warpforge::nvptx::TargetOptions options;
  llvm::raw_ostream &output;
};

/// MlirOptMain with the backend appended to the pipeline: the MLIR it would
/// print is dropped, the backend writes to the output file instead.
/// (--show-dialects and --list-passes are handled inside MlirOptMain.)
LogicalResult emitTarget(StringRef inputFilename, StringRef outputFilename,
                         DialectRegistry &registry) {
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }

  warpforge::nvptx::TargetOptions options;
  options.computeCapability = computeCapability;
  options.optLevel = targetOptLevel;
  options.fpFusion = targetFpFusion;
  options.reflectFtz = targetReflectFtz;
  MlirOptMainConfig userPipeline = config;
  config.setPassPipelineSetupFn([&](PassManager &pm) -> LogicalResult {
    if (failed(userPipeline.setupPassPipeline(pm)))
      return failure();
    pm.addPass(
        std::make_unique<EmitTargetPass>(emitKind, options, output->os()));
    return success();
  });
  if (failed(MlirOptMain(llvm::nulls(), std::move(input), registry, config)))
    return failure();
  output->keep();
  return success();
}
/// LLVM's optimizer and code generator, linked in for --emit, register
/// hundreds of tuning flags while the program loads.  Hide them from --help
/// (they still work; --help-hidden lists them), which then shows MLIR's
/// options, registered at run time after this, the backend's, and LLVM's
/// generic ones (--help, --version, --color).
void hideLLVMTuningOptions() {
  auto &options = llvm::cl::getRegisteredOptions();
  llvm::SmallPtrSet<llvm::cl::OptionCategory *, 4> shown = {&targetCategory};
  for (llvm::StringRef generic : {"help", "version", "color"})
    if (llvm::cl::Option *option = options.lookup(generic))
      shown.insert(option->Categories.begin(), option->Categories.end());
  for (auto &entry : options) {
    llvm::cl::Option *option = entry.second;
    if (llvm::none_of(option->Categories, [&](llvm::cl::OptionCategory *c) {
          return shown.contains(c);
        }))
      option->setHiddenFlag(llvm::cl::Hidden);
  }
}
} // namespace

namespace warpforge::test {
void registerTestSimulateCTAPass();
} // namespace warpforge::test

int main(int argc, char **argv) {
  hideLLVMTuningOptions();
  warpforge::registerWarpforgePassesAndPipelines();
  warpforge::test::registerTestSimulateCTAPass();
  warpforge::test::registerWarpforgeTestPasses();
  DialectRegistry registry;
  warpforge::registerWarpforgeDialects(registry);
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "warpforge optimizer driver\n", registry);
  // Inputs the MLIR parser would crash on get an error instead (a file;
  // standard input is read once, by the parser).
  if (inputFilename != "-") {
    if (auto buffer = llvm::MemoryBuffer::getFile(inputFilename)) {
      llvm::StringRef text = (*buffer)->getBuffer();
      if (auto crash = warpforge::findParserCrash(text)) {
        llvm::StringRef before = text.take_front(crash->first);
        size_t lineStart = before.rfind('\n');
        llvm::errs() << inputFilename << ":" << before.count('\n') + 1 << ":"
                     << crash->first -
                            (lineStart == llvm::StringRef::npos
                                 ? 0
                                 : lineStart + 1) +
                            1
                     << ": error: " << crash->second << "\n";
        return 1;
      }
    }
  }
  if (emitKind == EmitKind::MLIR)
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  llvm::InitLLVM initLLVM(argc, argv);
  return asMainReturnCode(emitTarget(inputFilename, outputFilename, registry));
}
