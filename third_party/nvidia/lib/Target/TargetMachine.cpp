//===- TargetMachine.cpp - The NVPTX target and its options ---------------===//

#include "warpforge/Target/NVPTX.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace warpforge::nvptx {

std::string getTargetArch(int computeCapability) {
  return "sm_" + std::to_string(computeCapability) +
         (computeCapability >= 90 ? "a" : "");
}

void initializeNVPTXTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    // 32-bit pointers to shared, constant and local memory (the data
    // layout's p3/p4/p5:32).  Shared addresses fit in 32 bits; as 64-bit
    // values every ring-buffer and descriptor address takes two registers,
    // which a 64x256 wgmma accumulator (128 registers) cannot spare:
    // ptxas then serializes the wgmma pipeline.  NVPTX reads this only as
    // a command-line option, so it is set once for the process.
    auto &options = cl::getRegisteredOptions();
    auto found = options.find("nvptx-short-ptr");
    if (found != options.end())
      if (auto *flag = static_cast<cl::opt<bool> *>(found->second))
        flag->setValue(true);
  });
}

static Expected<const Target *> lookupNVPTXTarget() {
  initializeNVPTXTarget();
  std::string error;
  const Target *target =
      TargetRegistry::lookupTarget(Triple(kTargetTriple), error);
  if (!target)
    return createStringError(inconvertibleErrorCode(), error);
  return target;
}

Error validateOptions(const TargetOptions &options) {
  if (options.optLevel < 0 || options.optLevel > 3)
    return createStringError(inconvertibleErrorCode(),
                             "optimization level %d is out of range: "
                             "expected 0 to 3",
                             options.optLevel);
  if (options.maxRegisters < 0 || options.maxRegisters > 255)
    return createStringError(inconvertibleErrorCode(),
                             "register cap %d is out of range: expected 1 "
                             "to 255 registers per thread, or 0 for no cap",
                             options.maxRegisters);
  Expected<const Target *> target = lookupNVPTXTarget();
  if (!target)
    return target.takeError();
  // An empty CPU creates the subtarget quietly; a wrong one would print a
  // warning to stderr and fall back to a default architecture.
  std::unique_ptr<MCSubtargetInfo> subtarget(
      (*target)->createMCSubtargetInfo(Triple(kTargetTriple), "", ""));
  std::string arch = getTargetArch(options.computeCapability);
  if (options.computeCapability <= 0 || !subtarget ||
      !subtarget->isCPUStringValid(arch))
    return createStringError(inconvertibleErrorCode(),
                             "compute capability %d (%s) is not an "
                             "architecture LLVM's NVPTX backend knows: "
                             "expected major * 10 + minor, e.g. 90 for "
                             "Hopper",
                             options.computeCapability, arch.c_str());
  return Error::success();
}

Expected<std::unique_ptr<TargetMachine>>
createTargetMachine(const TargetOptions &options) {
  if (Error error = validateOptions(options))
    return std::move(error);
  Expected<const Target *> target = lookupNVPTXTarget();
  if (!target)
    return target.takeError();
  std::optional<CodeGenOptLevel> level = CodeGenOpt::getLevel(options.optLevel);
  llvm::TargetOptions llvmOptions;
  // NVPTX contracts a*b+c into fma only when fusion is Fast (or the math is
  // unsafe); under Standard it writes mul.rn/add.rn, which ptxas keeps.
  llvmOptions.AllowFPOpFusion =
      options.fpFusion ? FPOpFusion::Fast : FPOpFusion::Standard;
  std::unique_ptr<TargetMachine> machine((*target)->createTargetMachine(
      Triple(kTargetTriple), getTargetArch(options.computeCapability),
      kPTXFeatures, llvmOptions, /*RM=*/std::nullopt,
      /*CM=*/std::nullopt, level.value_or(CodeGenOptLevel::Aggressive)));
  if (!machine)
    return createStringError(inconvertibleErrorCode(),
                             "LLVM could not create an NVPTX target machine");
  return std::move(machine);
}

} // namespace warpforge::nvptx
