//===- PTXEmission.cpp - LLVM IR to PTX -----------------------------------===//

#include "LLVMErrorTrap.h"
#include "warpforge/Target/NVPTX.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

using namespace llvm;

namespace warpforge::nvptx {

Expected<std::string> emitPTX(Module &module, TargetMachine &targetMachine) {
  if (module.getTargetTriple().empty())
    module.setTargetTriple(targetMachine.getTargetTriple());
  else if (module.getTargetTriple().str() != kTargetTriple)
    return createStringError(
        inconvertibleErrorCode(), "the module targets '%s', not %s",
        module.getTargetTriple().str().c_str(), kTargetTriple.data());
  module.setDataLayout(targetMachine.createDataLayout());

  // Code generation assumes valid IR; invalid IR crashes it.
  std::string invalid;
  raw_string_ostream verifierOutput(invalid);
  if (verifyModule(module, &verifierOutput))
    return createStringError(inconvertibleErrorCode(),
                             "invalid LLVM IR: " + invalid);

  SmallString<0> ptx;
  bool unsupported = false;
  Error errors = runCatchingLLVMErrors(module.getContext(), [&] {
    raw_svector_ostream os(ptx);
    legacy::PassManager passes;
    unsupported = targetMachine.addPassesToEmitFile(
        passes, os, /*DwoOut=*/nullptr, CodeGenFileType::AssemblyFile);
    if (!unsupported)
      passes.run(module);
  });
  if (errors)
    return createStringError(inconvertibleErrorCode(),
                             "LLVM's NVPTX backend failed: " +
                                 toString(std::move(errors)));
  if (unsupported)
    return createStringError(inconvertibleErrorCode(),
                             "LLVM's NVPTX backend cannot emit PTX");
  return std::string(ptx);
}

} // namespace warpforge::nvptx
