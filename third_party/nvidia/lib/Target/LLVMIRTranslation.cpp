//===- LLVMIRTranslation.cpp - MLIR to optimized LLVM IR ------------------===//

#include "warpforge/Target/NVPTX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

namespace warpforge::nvptx {

std::unique_ptr<llvm::Module>
translateToLLVMIR(Operation *module, llvm::LLVMContext &llvmContext,
                  llvm::TargetMachine &targetMachine) {
  // NVVM instructions translate inside functions only: at the top of the
  // module the translation crashes on them (ops of dialects without a
  // translation get its own error).
  for (Region &region : module->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (op.getDialect() &&
            op.getDialect()->getNamespace() == "nvvm") {
          emitError(op.getLoc())
              << "'" << op.getName()
              << "' outside any function cannot be translated to LLVM IR: "
                 "the module may hold only LLVM dialect functions and "
                 "globals at its top level";
          return nullptr;
        }
  // The translation reports most failures at the op; make sure there is
  // always one error.
  bool reported = false;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    ScopedDiagnosticHandler watch(module->getContext(), [&](Diagnostic &d) {
      reported |= d.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // Not handled here: pass it on.
    });
    llvmModule = translateModuleToLLVMIR(module, llvmContext);
  }
  if (!llvmModule) {
    if (!reported)
      emitError(module->getLoc(), "cannot translate the module to LLVM IR");
    return nullptr;
  }

  const llvm::Triple &triple = llvmModule->getTargetTriple();
  if (!triple.empty() && triple.str() != kTargetTriple) {
    emitError(module->getLoc())
        << "the module targets '" << triple.str()
        << "' (llvm.target_triple), but the NVPTX backend compiles for "
        << kTargetTriple;
    return nullptr;
  }
  llvmModule->setTargetTriple(targetMachine.getTargetTriple());
  llvmModule->setDataLayout(targetMachine.createDataLayout());
  // libdevice asks __nvvm_reflect("__CUDA_FTZ") whether to flush denormals;
  // kernels keep them, as CUDA does by default (compileToLLVMIR sets it
  // with TargetOptions::reflectFtz).
  if (!llvmModule->getModuleFlag("nvvm-reflect-ftz"))
    llvmModule->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                              uint32_t(0));
  return llvmModule;
}

std::unique_ptr<llvm::Module> compileToLLVMIR(Operation *module,
                                              llvm::LLVMContext &llvmContext,
                                              const TargetOptions &options,
                                              StepTimes *times) {
  StepTimer timer(times);
  auto report = [&](llvm::Error error) -> std::unique_ptr<llvm::Module> {
    llvm::handleAllErrors(
        std::move(error),
        [&](const FunctionError &functionError) {
          // At the MLIR declaration of the function when there is one.
          Operation *symbol = SymbolTable::lookupSymbolIn(
              module,
              StringAttr::get(module->getContext(), functionError.function));
          emitError(symbol ? symbol->getLoc() : module->getLoc())
              << functionError.message;
        },
        [&](const llvm::ErrorInfoBase &other) {
          emitError(module->getLoc()) << other.message();
        });
    return nullptr;
  };

  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      createTargetMachine(options);
  if (!targetMachine)
    return report(targetMachine.takeError());
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(module, llvmContext, **targetMachine);
  if (!llvmModule)
    return nullptr;
  timer.step("translate");
  if (options.reflectFtz)
    llvmModule->setModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                              uint32_t(1));
  if (llvm::Error error = linkLibdevice(*llvmModule, options))
    return report(std::move(error));
  if (llvm::Error error = internalizeNonKernels(*llvmModule))
    return report(std::move(error));
  timer.step("link-libdevice");
  if (llvm::Error error =
          optimizeModule(*llvmModule, **targetMachine, options.optLevel))
    return report(std::move(error));
  timer.step("optimize");
  return llvmModule;
}

} // namespace warpforge::nvptx
