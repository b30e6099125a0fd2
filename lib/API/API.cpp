//===- API.cpp - The core library's public interface ----------------------===//

#include "warpforge/API/API.h"
#include "warpforge/API/ParserGuards.h"
#include "warpforge/Pipelines/Pipelines.h"
#include "warpforge/Target/NVPTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"


using namespace mlir;

namespace warpforge::api {
namespace {

/// The first file:line:col inside `loc`, looking through names, call sites
/// and fusions (the frontend attaches Python locations with those).
std::optional<FileLineColLoc> findFileLoc(Location loc) {
  std::optional<FileLineColLoc> found;
  loc->walk([&](Location l) {
    if (auto file = dyn_cast<FileLineColLoc>(l)) {
      found = file;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

const char *severityName(DiagnosticSeverity s) {
  switch (s) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

Diagnostic makeDiagnostic(const char *severity, const std::string &message,
                          const std::string &file = "", unsigned line = 0,
                          unsigned column = 0) {
  Diagnostic d;
  d.severity = severity;
  d.message = message;
  d.file = file;
  d.line = line;
  d.column = column;
  llvm::raw_string_ostream os(d.formatted);
  if (!d.file.empty())
    os << d.file << ":" << d.line << ":" << d.column << ": ";
  os << d.severity << ": " << d.message;
  return d;
}

Diagnostic convert(Location loc, DiagnosticSeverity severity,
                   const std::string &message) {
  if (auto file = findFileLoc(loc))
    return makeDiagnostic(severityName(severity), message,
                          file->getFilename().str(), file->getLine(),
                          file->getColumn());
  return makeDiagnostic(severityName(severity), message);
}

nvptx::TargetOptions toNVPTX(const TargetOptions &options) {
  nvptx::TargetOptions converted;
  converted.computeCapability = options.computeCapability;
  converted.optLevel = options.optLevel;
  converted.maxRegisters = options.maxRegisters;
  converted.fpFusion = options.fpFusion;
  converted.reflectFtz = options.reflectFtz;
  converted.ptxasPath = options.ptxasPath;
  converted.temporaryPrefix = options.temporaryPrefix;
  return converted;
}

Result failedWith(llvm::Error error) {
  Result result;
  result.diagnostics.push_back(
      makeDiagnostic("error", llvm::toString(std::move(error))));
  return result;
}

/// A context with every dialect, collecting diagnostics (and their notes)
/// instead of printing them.
class Session {
public:
  Session() : context(makeRegistry(), MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
    // The generic dump of the failing op that MLIR attaches as a note is
    // noise for a kernel author; the error's location says where it is.
    context.printOpOnDiagnostic(false);
    context.getDiagEngine().registerHandler([this](mlir::Diagnostic &diag) {
      result.diagnostics.push_back(
          convert(diag.getLocation(), diag.getSeverity(), diag.str()));
      for (mlir::Diagnostic &note : diag.getNotes())
        result.diagnostics.push_back(
            convert(note.getLocation(), note.getSeverity(), note.str()));
      return success();
    });
  }

  OwningOpRef<ModuleOp> parse(const std::string &ir,
                              const std::string &bufferName) {
    if (auto crash = findParserCrash(ir)) {
      llvm::StringRef before = llvm::StringRef(ir).take_front(crash->first);
      unsigned line = before.count('\n') + 1;
      size_t lineStart = before.rfind('\n');
      unsigned col = crash->first -
                     (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1) +
                     1;
      emitError(FileLineColLoc::get(&context, bufferName, line, col))
          << crash->second;
      return nullptr;
    }
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(ir, bufferName), llvm::SMLoc());
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (module && failed(verify(*module)))
      return nullptr;
    return module;
  }

  /// Copies the module's integer and string attributes into the result.
  void recordAttributes(ModuleOp module) {
    for (NamedAttribute attr : module->getAttrs()) {
      if (auto value = dyn_cast<IntegerAttr>(attr.getValue()))
        result.integerAttributes[attr.getName().str()] =
            value.getValue().getSExtValue();
      else if (auto text = dyn_cast<StringAttr>(attr.getValue()))
        result.stringAttributes[attr.getName().str()] = text.str();
    }
    recordDescriptorBlocks(module);
    result.hostTensorMaps.clear();
    auto maps =
        module->getAttrOfType<ArrayAttr>(tilegpu::attr::kHostTensorMaps);
    for (Attribute entry : maps ? maps.getValue() : ArrayRef<Attribute>()) {
      auto dict = cast<DictionaryAttr>(entry);
      auto list = [&](StringRef name) {
        auto values = dict.getAs<DenseI64ArrayAttr>(name);
        return values ? std::vector<long long>(values.asArrayRef().begin(),
                                               values.asArrayRef().end())
                      : std::vector<long long>();
      };
      auto integer = [&](StringRef name) {
        auto value = dict.getAs<IntegerAttr>(name);
        return value ? value.getInt() : -1;
      };
      result.hostTensorMaps.push_back(
          {integer("param"), integer("base"), list("block"), list("shape"),
           list("shape_args"), list("strides"), list("stride_args")});
    }
  }

  void recordDescriptorBlocks(ModuleOp module) {
    result.descriptorBlocks.clear();
    auto blocks =
        module->getAttrOfType<ArrayAttr>(tile::TileDialect::kDescriptorBlocks);
    for (Attribute entry : blocks ? blocks.getValue() : ArrayRef<Attribute>()) {
      auto dict = cast<DictionaryAttr>(entry);
      auto block = dict.getAs<DenseI64ArrayAttr>("block");
      result.descriptorBlocks.emplace_back(
          dict.getAs<IntegerAttr>("arg").getInt(),
          std::vector<long long>(block.asArrayRef().begin(),
                                 block.asArrayRef().end()));
    }
  }

  /// What the stages declined to do, recorded on the module with a place
  /// and a reason (tilegpu-warp-specialize's loops), as warnings there.
  void recordDeclines(ModuleOp module) {
    auto declined = module->getAttrOfType<ArrayAttr>(
        tilegpu::attr::kWarpSpecializeDeclined);
    if (!declined)
      return;
    for (Attribute entry : declined) {
      auto dict = dyn_cast<DictionaryAttr>(entry);
      auto loc = dict ? dict.getAs<LocationAttr>("loc") : LocationAttr();
      auto reason = dict ? dict.getAs<StringAttr>("reason") : StringAttr();
      if (!loc || !reason)
        continue;
      // What was declined and what the kernel does instead, when not the
      // whole of warp specialization (ping-pong falls back to one group).
      auto what = dict.getAs<StringAttr>("what");
      auto instead = dict.getAs<StringAttr>("instead");
      result.diagnostics.push_back(convert(
          Location(loc), DiagnosticSeverity::Warning,
          (what ? what.str() : std::string("warp specialization")) +
              " declined: " + reason.str() + "; " +
              (instead ? instead.str() : std::string("compiled without it"))));
    }
  }

  Result finish(ModuleOp module, bool debugInfo, bool print = true) {
    result.ok = true;
    recordAttributes(module);
    recordDeclines(module);
    if (!print)
      return std::move(result);
    OpPrintingFlags flags;
    if (debugInfo)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    llvm::raw_string_ostream os(result.ir);
    module.print(os, flags);
    os << "\n"; // Byte for byte what warpforge-opt prints.
    return std::move(result);
  }

  Result fail(const std::string &fallbackMessage) {
    result.ok = false;
    if (result.diagnostics.empty())
      result.diagnostics.push_back(convert(UnknownLoc::get(&context),
                                           DiagnosticSeverity::Error,
                                           fallbackMessage));
    return std::move(result);
  }

  MLIRContext context;
  Result result;

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerWarpforgeDialects(registry);
    return registry;
  }
};

/// The passes of `pipeline` to add to a pass manager anchored on the
/// module: `builtin.module(a,b)` and `a,b` both give `a,b`.
std::string unanchorPipeline(const std::string &pipeline) {
  const std::string anchor = "builtin.module(";
  if (pipeline.rfind(anchor, 0) == 0 && pipeline.back() == ')')
    return pipeline.substr(anchor.size(),
                           pipeline.size() - anchor.size() - 1);
  return pipeline;
}

/// Writes the IR after each pass to its own numbered file, so that every
/// stage of a JIT compilation can be read (WARPFORGE_DUMP_DIR).
class DumpAfterEachPass : public PassManager::IRPrinterConfig {
public:
  DumpAfterEachPass(std::string prefix, bool debugInfo)
      : IRPrinterConfig(/*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false,
                        /*printAfterOnlyOnFailure=*/false,
                        printingFlags(debugInfo)),
        prefix(std::move(prefix)) {}

  void printBeforeIfEnabled(Pass *, Operation *, PrintCallbackFn) override {}

  void printAfterIfEnabled(Pass *pass, Operation *,
                           PrintCallbackFn printCallback) override {
    std::string path = llvm::formatv("{0}.{1:02}.{2}.mlir", prefix, ++count,
                                     pass->getArgument().empty()
                                         ? pass->getName()
                                         : pass->getArgument())
                           .str();
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (error)
      return; // Dumping is best effort; compilation goes on.
    printCallback(os);
  }

private:
  static OpPrintingFlags printingFlags(bool debugInfo) {
    OpPrintingFlags flags;
    if (debugInfo)
      flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    return flags;
  }

  std::string prefix;
  unsigned count = 0;
};

} // namespace

Result parseAndVerify(const std::string &ir, const std::string &bufferName,
                      bool debugInfo) {
  registerWarpforgePassesAndPipelines();
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(ir, bufferName);
  if (!module)
    return session.fail("failed to parse IR");
  return session.finish(*module, debugInfo);
}

/// The LLVM IR and PTX of `module` (LLVM and NVVM dialects) into
/// `result.llvmIR` and `result.ptx`, the translation's diagnostics
/// appended (they reach `session`); on failure `result` becomes the failed
/// result, keeping its attributes.
static void emitLLVMIRAndPTX(ModuleOp module, Session &session,
                             const TargetOptions &target, Result &result,
                             bool printLLVMIR = true) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      nvptx::createTargetMachine(toNVPTX(target));
  if (!targetMachine) {
    result = failedWith(targetMachine.takeError());
    return;
  }
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = nvptx::compileToLLVMIR(
      module, llvmContext, toNVPTX(target), &result.times);
  if (!llvmModule) {
    Result failure = session.fail("failed to translate the module to LLVM IR");
    failure.integerAttributes = std::move(result.integerAttributes);
    failure.stringAttributes = std::move(result.stringAttributes);
    result = std::move(failure);
    return;
  }
  llvm::append_range(result.diagnostics, session.result.diagnostics);
  nvptx::StepTimer timer(&result.times);
  if (printLLVMIR) {
    // Printed before code generation, whose IR passes change the module.
    llvm::raw_string_ostream os(result.llvmIR);
    llvmModule->print(os, /*AAW=*/nullptr);
  }
  timer.step("print-llvm-ir");
  llvm::Expected<std::string> ptx =
      nvptx::emitPTX(*llvmModule, **targetMachine);
  if (!ptx) {
    result = failedWith(ptx.takeError());
    return;
  }
  timer.step("emit-ptx");
  result.ptx = std::move(*ptx);
  result.ok = true;
}

static Result runPipelineImpl(const std::string &ir,
                              const std::string &pipeline,
                              const std::string &bufferName, bool debugInfo,
                              const std::string &dumpPrefix,
                              const CompileOptions &options,
                              const TargetOptions *target, bool printIR,
                              bool printLLVMIR);

Result runPipeline(const std::string &ir, const std::string &pipeline,
                   const std::string &bufferName, bool debugInfo,
                   const std::string &dumpPrefix,
                   const CompileOptions &options) {
  return runPipelineImpl(ir, pipeline, bufferName, debugInfo, dumpPrefix,
                         options, nullptr, /*printIR=*/true,
                         /*printLLVMIR=*/true);
}

Result runPipelineToPTX(const std::string &ir, const std::string &pipeline,
                        const std::string &bufferName, bool debugInfo,
                        const std::string &dumpPrefix,
                        const CompileOptions &options,
                        const TargetOptions &target, bool printIR,
                        bool printLLVMIR) {
  return runPipelineImpl(ir, pipeline, bufferName, debugInfo, dumpPrefix,
                         options, &target, printIR, printLLVMIR);
}

static Result runPipelineImpl(const std::string &ir,
                              const std::string &pipeline,
                              const std::string &bufferName, bool debugInfo,
                              const std::string &dumpPrefix,
                              const CompileOptions &options,
                              const TargetOptions *target, bool printIR,
                              bool printLLVMIR) {
  registerWarpforgePassesAndPipelines();
  nvptx::StepTimes times;
  nvptx::StepTimer timer(&times);
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(ir, bufferName);
  if (!module)
    return session.fail("failed to parse IR");
  timer.step("parse");

  PassManager pm(&session.context, ModuleOp::getOperationName());
  if (const NamedPipeline *named = lookupNamedPipeline(pipeline)) {
    named->build(pm, options);
  } else {
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(parsePassPipeline(unanchorPipeline(pipeline), pm, errorStream)))
      return session.fail("invalid pass pipeline '" + pipeline +
                          "': " + errors);
  }
  // The stage's output is verified once, not after every pass (as
  // Triton's JIT does): per-pass verification was a quarter of the
  // lowering's time.  warpforge-opt, which reproduces every stage, verifies
  // after each pass, and so does a run that dumps each pass.
  bool verifyEach = !dumpPrefix.empty();
  pm.enableVerifier(verifyEach);
  if (!dumpPrefix.empty())
    pm.enableIRPrinting(
        std::make_unique<DumpAfterEachPass>(dumpPrefix, debugInfo));
  if (failed(pm.run(*module)) || (!verifyEach && failed(verify(*module)))) {
    // What the stages recorded before failing (the shared memory a kernel
    // needs and the limit, say) lets the caller raise a typed error.
    session.recordAttributes(*module);
    return session.fail("pipeline '" + pipeline + "' failed");
  }
  timer.step("passes");
  if (!target)
    return session.finish(*module, debugInfo);
  // Printed first: the translation may legalize the module in place.
  Result result = session.finish(*module, debugInfo, printIR);
  timer.step("print");
  result.times = std::move(times);
  session.result = Result(); // the translation's diagnostics, if any
  emitLLVMIRAndPTX(*module, session, *target, result, printLLVMIR);
  return result;
}

std::vector<Stage> jitStages() {
  std::vector<Stage> stages;
  for (const NamedPipeline &p : getNamedPipelines())
    stages.push_back({p.stage, p.name, p.description});
  return stages;
}

/// Parses `mlir` and compiles it to an optimized LLVM module, its text in
/// `result.ir`; on failure `result` holds the diagnostics and the module is
/// null.
static std::unique_ptr<llvm::Module> toLLVMModule(const std::string &mlir,
                                           const std::string &bufferName,
                                           const TargetOptions &options,
                                           llvm::LLVMContext &llvmContext,
                                           Result &result) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(mlir, bufferName);
  if (!module) {
    result = session.fail("failed to parse IR");
    return nullptr;
  }
  std::unique_ptr<llvm::Module> llvmModule =
      nvptx::compileToLLVMIR(*module, llvmContext, toNVPTX(options));
  if (!llvmModule) {
    result = session.fail("failed to translate the module to LLVM IR");
    return nullptr;
  }
  result = std::move(session.result);
  // Printed before any code generation, whose IR passes change the module.
  llvm::raw_string_ostream os(result.ir);
  llvmModule->print(os, /*AAW=*/nullptr);
  return llvmModule;
}

Result translateToLLVMIR(const std::string &mlir,
                         const std::string &bufferName,
                         const TargetOptions &options) {
  llvm::LLVMContext llvmContext;
  Result result;
  if (toLLVMModule(mlir, bufferName, options, llvmContext, result))
    result.ok = true;
  return result;
}

Result compileLLVMIRToPTX(const std::string &llvmIR,
                          const TargetOptions &options) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      nvptx::createTargetMachine(toNVPTX(options));
  if (!targetMachine)
    return failedWith(targetMachine.takeError());

  llvm::LLVMContext llvmContext;
  llvm::SMDiagnostic parseError;
  std::unique_ptr<llvm::Module> module = llvm::parseIR(
      llvm::MemoryBufferRef(llvmIR, "<llvm-ir>"), parseError, llvmContext);
  if (!module) {
    Result result;
    result.diagnostics.push_back(makeDiagnostic(
        "error", parseError.getMessage().str(), "<llvm-ir>",
        std::max(parseError.getLineNo(), 0),
        std::max(parseError.getColumnNo(), 0) + 1));
    return result;
  }
  llvm::Expected<std::string> ptx = nvptx::emitPTX(*module, **targetMachine);
  if (!ptx)
    return failedWith(ptx.takeError());
  Result result;
  result.ok = true;
  result.ir = std::move(*ptx);
  return result;
}

Result compileToPTX(const std::string &mlir, const std::string &bufferName,
                    const TargetOptions &options) {
  Session session;
  OwningOpRef<ModuleOp> module = session.parse(mlir, bufferName);
  if (!module)
    return session.fail("failed to parse IR");
  Result result;
  emitLLVMIRAndPTX(*module, session, options, result);
  return result;
}

Toolchain findToolchain(const TargetOptions &options) {
  Toolchain toolchain;
  nvptx::TargetOptions converted = toNVPTX(options);
  if (llvm::Expected<std::string> ptxas = nvptx::findPtxas(converted))
    toolchain.ptxas = *ptxas;
  else
    llvm::consumeError(ptxas.takeError());
  if (llvm::Expected<std::string> libdevice = nvptx::findLibdevice(converted))
    toolchain.libdevice = *libdevice;
  else
    llvm::consumeError(libdevice.takeError());
  return toolchain;
}

BinaryResult assemblePTX(const std::string &ptx,
                         const TargetOptions &options) {
  BinaryResult result;
  llvm::Expected<nvptx::Cubin> cubin =
      nvptx::assemblePTX(ptx, toNVPTX(options));
  if (cubin) {
    result.ok = true;
    result.data = std::move(cubin->binary);
    result.log = std::move(cubin->log);
    return result;
  }
  llvm::handleAllErrors(
      cubin.takeError(),
      [&](const nvptx::PtxasError &error) {
        result.log = error.output;
        result.diagnostics.push_back(makeDiagnostic("error", error.message()));
      },
      [&](const llvm::ErrorInfoBase &error) {
        result.diagnostics.push_back(makeDiagnostic("error", error.message()));
      });
  return result;
}

std::vector<std::pair<std::string, std::string>> registeredPipelines() {
  registerWarpforgePassesAndPipelines();
  std::vector<std::pair<std::string, std::string>> out;
  for (const NamedPipeline &p : getNamedPipelines())
    out.emplace_back(p.name, p.description);
  return out;
}

std::string version() {
  return "warpforge " WARPFORGE_VERSION " (LLVM " LLVM_VERSION_STRING ")";
}

} // namespace warpforge::api
