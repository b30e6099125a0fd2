//===- Libdevice.cpp - Linking CUDA's libdevice, internalizing ------------===//

#include "LLVMErrorTrap.h"
#include "warpforge/Target/NVPTX.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/CallingConv.h"
#include "llvm/IR/Module.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace llvm;

namespace warpforge::nvptx {

char FunctionError::ID;

void FunctionError::log(raw_ostream &os) const { os << message; }

std::error_code FunctionError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

static bool isKernel(const GlobalValue &value) {
  const auto *function = dyn_cast<Function>(&value);
  return function && function->getCallingConv() == CallingConv::PTX_Kernel;
}

Error linkLibdevice(Module &module, const TargetOptions &options) {
  // Names, not pointers: linking replaces the declarations.
  SmallVector<std::string> called;
  for (const Function &function : module)
    if (function.isDeclaration() && function.getName().starts_with("__nv_") &&
        !function.use_empty())
      called.push_back(function.getName().str());
  if (called.empty())
    return Error::success();

  Expected<std::string> path = findLibdevice(options);
  if (!path)
    return make_error<FunctionError>(called.front(),
                                     "'" + called.front() +
                                         "' is a libdevice function, but " +
                                         toString(path.takeError()));

  LLVMContext &context = module.getContext();
  std::unique_ptr<Module> libdevice;
  SMDiagnostic readError;
  bool linkFailed = false;
  Error llvmErrors = runCatchingLLVMErrors(context, [&] {
    libdevice = getLazyIRFileModule(*path, readError, context);
    if (!libdevice)
      return;
    // libdevice says `nvptx64-nvidia-gpulibs`; take the kernel's target so
    // that the linker does not warn about the mismatch.  Its llvm.ident
    // ("clang version 3.8.0") would only mislead a reader of the kernel.
    libdevice->setTargetTriple(module.getTargetTriple());
    libdevice->setDataLayout(module.getDataLayout());
    if (NamedMDNode *ident = libdevice->getNamedMetadata("llvm.ident"))
      libdevice->eraseNamedMetadata(ident);
    linkFailed = Linker::linkModules(module, std::move(libdevice),
                                     Linker::Flags::LinkOnlyNeeded);
  });
  if (llvmErrors || linkFailed || !readError.getMessage().empty()) {
    std::string message = "cannot link CUDA's libdevice (" + *path + "): ";
    if (!readError.getMessage().empty())
      message += readError.getMessage().str();
    else
      message += llvmErrors ? toString(std::move(llvmErrors))
                            : std::string("the linker failed");
    consumeError(std::move(llvmErrors));
    return createStringError(inconvertibleErrorCode(), message);
  }

  for (const std::string &name : called) {
    Function *function = module.getFunction(name);
    if (function && function->isDeclaration())
      return make_error<FunctionError>(
          name, "'" + name + "' is not a function of CUDA's libdevice (" +
                    *path + ")");
  }
  return Error::success();
}

Error internalizeNonKernels(Module &module) {
  if (llvm::none_of(module.functions(), [](const Function &function) {
        return !function.isDeclaration() && isKernel(function);
      }))
    return createStringError(inconvertibleErrorCode(),
                             "the module has no kernel to compile: mark its "
                             "entry llvm.func with the nvvm.kernel attribute");
  internalizeModule(module, isKernel);
  return Error::success();
}

} // namespace warpforge::nvptx
