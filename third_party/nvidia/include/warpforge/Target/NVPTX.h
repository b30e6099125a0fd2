//===- NVPTX.h - The NVIDIA backend: LLVM IR, PTX and cubin -----*- C++ -*-===//
//
// The stages a kernel goes through after the LLVM/NVVM-dialect lowering:
//
//   translateToLLVMIR   MLIR (LLVM + NVVM dialects) -> llvm::Module
//   linkLibdevice       + CUDA's libdevice, when the module calls __nv_*
//   internalizeNonKernels
//   optimizeModule      LLVM's O3 pipeline, tuned by the NVPTX target
//   emitPTX             PTX for sm_XX[a]
//   assemblePTX         cubin, by running CUDA's ptxas
//
// compileToLLVMIR chains the first four and reports every error as an MLIR
// diagnostic.  Each call builds its own LLVMContext and TargetMachine, so
// calls from several threads are independent.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_TARGET_NVPTX_H
#define WARPFORGE_TARGET_NVPTX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir {
class Operation;
} // namespace mlir

namespace warpforge::nvptx {

/// What to compile for, and how.
struct TargetOptions {
  /// Compute capability as major * 10 + minor: 90 is Hopper (sm_90a).
  int computeCapability = 90;
  /// LLVM's optimization level, 0 to 3; ptxas gets the same.
  int optLevel = 3;
  /// Register cap per thread given to ptxas (--maxrregcount); 0: no cap.
  int maxRegisters = 0;
  /// Whether a floating-point multiply and an add may become one fma (one
  /// rounding instead of two): LLVM contracts them (FPOpFusion::Fast);
  /// otherwise they stay `mul.rn` and `add.rn`, which ptxas never fuses.
  bool fpFusion = false;
  /// libdevice's answer to __nvvm_reflect("__CUDA_FTZ") (the module's
  /// nvvm-reflect-ftz flag): whether its functions flush denormals to
  /// zero (exp2 is then `ex2.approx.ftz.f32`).  CUDA's default is no.
  bool reflectFtz = false;
  /// The ptxas to run; empty: search the CUDA toolkit (see findPtxas).
  std::string ptxasPath;
  /// The start of the temporary files' names (PTX, cubin, log), by which
  /// the frontend tells the files of a killed run from those of live ones.
  std::string temporaryPrefix = "warpforge";
};

/// The target triple of every module this backend produces.
inline constexpr llvm::StringLiteral kTargetTriple = "nvptx64-nvidia-cuda";

/// The PTX ISA LLVM is asked to write: 9.0, the newest both LLVM 22 emits and
/// CUDA 13.0's ptxas reads (ptxas from an older toolkit rejects it).
inline constexpr llvm::StringLiteral kPTXFeatures = "+ptx90";

/// The ptxas/LLVM architecture of a compute capability: `sm_90a` for 90.
/// From sm_90 on, the architecture-specific variant (`a`) is the one with
/// wgmma, setmaxnreg and the other features a kernel tuned for one GPU uses.
std::string getTargetArch(int computeCapability);

/// Checks the options' ranges and that LLVM knows the architecture.
llvm::Error validateOptions(const TargetOptions &options);

/// Initializes LLVM's NVPTX target once per process; thread-safe.
void initializeNVPTXTarget();

/// An NVPTX TargetMachine for `options` (architecture, PTX ISA, opt level).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetOptions &options);

/// Translates `module` (LLVM and NVVM dialects) into `llvmContext` for
/// `targetMachine`'s triple and data layout, with the `nvvm-reflect-ftz`
/// module flag at 0 (libdevice keeps denormals).  Errors are emitted as MLIR
/// diagnostics at the op that could not be translated; returns null then.
/// The context needs the translations of the builtin, LLVM and NVVM dialects
/// (warpforge::registerWarpforgeDialects registers them).
std::unique_ptr<llvm::Module>
translateToLLVMIR(mlir::Operation *module, llvm::LLVMContext &llvmContext,
                  llvm::TargetMachine &targetMachine);

/// An error about one function of a module, such as a call to a libdevice
/// function that does not exist; compileToLLVMIR reports it at the MLIR
/// declaration of that function.
class FunctionError : public llvm::ErrorInfo<FunctionError> {
public:
  static char ID;
  FunctionError(std::string function, std::string message)
      : function(std::move(function)), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

  std::string function;
  std::string message;
};

/// Links the functions of CUDA's libdevice (see findLibdevice) that `module`
/// calls, when it calls any `__nv_*` function; does nothing otherwise.  A
/// FunctionError names the `__nv_*` function when libdevice is not found or
/// lacks it.
llvm::Error linkLibdevice(llvm::Module &module, const TargetOptions &options);

/// Gives every definition but the kernels (`ptx_kernel` functions, from
/// `nvvm.kernel`) internal linkage, so that the optimizer can inline and drop
/// device functions.  Fails when the module has no kernel.
llvm::Error internalizeNonKernels(llvm::Module &module);

/// Runs LLVM's default pipeline at `optLevel` (0-3) with the target's passes
/// (NVVMReflect among them, resolving libdevice's `__nvvm_reflect` calls).
llvm::Error optimizeModule(llvm::Module &module,
                           llvm::TargetMachine &targetMachine, int optLevel);

/// Milliseconds per step of a compilation, in order ("translate",
/// "optimize", ...): where compile time goes.
using StepTimes = std::vector<std::pair<std::string, double>>;

/// Appends each step's milliseconds since the previous step (or its
/// construction) to `times`, when there is one.
class StepTimer {
public:
  explicit StepTimer(StepTimes *times)
      : times(times), start(std::chrono::steady_clock::now()) {}
  void step(const char *name) {
    if (!times)
      return;
    auto now = std::chrono::steady_clock::now();
    times->emplace_back(
        name, std::chrono::duration<double, std::milli>(now - start).count());
    start = now;
  }

private:
  StepTimes *times;
  std::chrono::steady_clock::time_point start;
};

/// translateToLLVMIR, linkLibdevice, internalizeNonKernels and
/// optimizeModule, with errors emitted as MLIR diagnostics (at the module's
/// location for errors past the translation).  Returns null on failure.
/// With `times`, each step's duration is appended to it.
std::unique_ptr<llvm::Module> compileToLLVMIR(mlir::Operation *module,
                                              llvm::LLVMContext &llvmContext,
                                              const TargetOptions &options,
                                              StepTimes *times = nullptr);

/// PTX assembly for `module`, which must target kTargetTriple (an empty
/// triple is set).  Errors LLVM reports while generating code, fatal ones
/// included, come back as the error.
llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    llvm::TargetMachine &targetMachine);

/// The ptxas `options.ptxasPath` names, or the first found in
/// $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin.  The error
/// lists what was searched and how to fix it.
llvm::Expected<std::string> findPtxas(const TargetOptions &options);

/// CUDA's libdevice.10.bc, under `nvvm/libdevice/` of the toolkit beside
/// `options.ptxasPath`, $CUDA_HOME, $CUDA_PATH, the toolkit of the ptxas or
/// nvcc on PATH, or /usr/local/cuda.  The error lists what was searched.
llvm::Expected<std::string> findLibdevice(const TargetOptions &options);

/// What ptxas produced.
struct Cubin {
  std::string binary;
  /// ptxas -v's report: registers, spills, shared memory per function.
  std::string log;
};

/// ptxas rejected the PTX (or crashed): its output is the message.
class PtxasError : public llvm::ErrorInfo<PtxasError> {
public:
  static char ID;
  PtxasError(std::string command, int exitCode, std::string output)
      : command(std::move(command)), exitCode(exitCode),
        output(std::move(output)) {}
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

  /// How ptxas was run, with the PTX file shown as `<ptx>`.
  std::string command;
  /// ptxas's exit status; negative when it died of a signal.
  int exitCode;
  /// What ptxas printed.
  std::string output;
};

/// Assembles `ptx` into a cubin with `ptxas -arch=sm_XX[a] -v` (temporary
/// files, removed afterwards).  A PtxasError when ptxas fails; another error
/// when it cannot be found or run.
llvm::Expected<Cubin> assemblePTX(llvm::StringRef ptx,
                                  const TargetOptions &options);

} // namespace warpforge::nvptx

#endif // WARPFORGE_TARGET_NVPTX_H
