//===- API.h - The core library's public interface --------------*- C++ -*-===//
//
// This is everything `libwarpforge.so` exports.  It deliberately uses only
// the C++ standard library: the Python binding includes this header alone,
// so it compiles in seconds, without MLIR's headers, for any Python.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_API_API_H
#define WARPFORGE_API_API_H

#include "warpforge/CompileOptions.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#define WARPFORGE_API __attribute__((visibility("default")))

namespace warpforge::api {

/// One diagnostic, with the first file location found in its location
/// (`file` is empty when it has none).
struct Diagnostic {
  std::string severity; // "error", "warning", "note" or "remark"
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string message;
  /// `file:line:col: severity: message`, as MLIR tools print it.
  std::string formatted;
};

/// One tensor map the launcher encodes (the module's
/// `tilegpu.host-tensor-maps`, see ModuleAttrs.h): kernel argument `param`
/// is the map of the matrix at pointer argument `base`; each dimension's
/// size and stride is the argument `*Args[d]` when that is not -1, else
/// the constant.
struct HostTensorMap {
  long long param = 0, base = 0;
  std::vector<long long> block, shape, shapeArgs, strides, strideArgs;
};

/// The outcome of an operation on IR text: the printed IR on success, the
/// diagnostics (possibly some warnings on success) always.
struct Result {
  bool ok = false;
  std::string ir;
  std::vector<Diagnostic> diagnostics;
  /// The module's integer and string attributes after the operation (on
  /// failure too, as far as it got): the facts stages record, such as
  /// `tilegpu.num-warps`, `tilegpu.shared` or, when shared memory overflows,
  /// `tilegpu.shared-limit`.
  std::map<std::string, long long> integerAttributes;
  std::map<std::string, std::string> stringAttributes;
  std::vector<HostTensorMap> hostTensorMaps;
  /// The module's `tile.descriptor-blocks` (tile-cluster-split): kernel
  /// argument index and the block its tensor map is encoded for.
  std::vector<std::pair<long long, std::vector<long long>>> descriptorBlocks;
  /// compileToPTX's and runPipelineToPTX's PTX and LLVM IR.
  std::string ptx;
  std::string llvmIR;
  /// runPipelineToPTX's steps and their milliseconds, in order (parse,
  /// passes, print, translate, link-libdevice, optimize, print-llvm-ir,
  /// emit-ptx): where compile time goes.
  std::vector<std::pair<std::string, double>> times;
};

/// Parses and verifies `ir`; `bufferName` names it in locations.  On success
/// the module is printed back (with locations when `debugInfo`).
WARPFORGE_API Result parseAndVerify(const std::string &ir,
                                    const std::string &bufferName,
                                    bool debugInfo);

/// Runs `pipeline` on `ir`.  `pipeline` is a registered pipeline's name
/// (`tile-optimize`), built from `options` (the JIT's way), or a textual
/// pass pipeline, anchored on the module (`builtin.module(canonicalize,cse)`)
/// or not (`canonicalize,cse`), whose options are in its text.  With a
/// `dumpPrefix` (a path prefix such as `dir/kernel.tile`), the IR after
/// every pass is written to `<dumpPrefix>.<NN>.<pass>.mlir`.
WARPFORGE_API Result runPipeline(const std::string &ir,
                                 const std::string &pipeline,
                                 const std::string &bufferName,
                                 bool debugInfo,
                                 const std::string &dumpPrefix = "",
                                 const CompileOptions &options = {});

struct TargetOptions;

/// runPipeline, then, on the module still in memory, what compileToPTX
/// does: `.ir` is the pipeline's output as runPipeline prints it, `.llvmIR`
/// the LLVM IR and `.ptx` the PTX (the JIT's last stage: no second parse of
/// the largest module).  Without `printIR` or `printLLVMIR` those texts
/// stay empty: the JIT prints its two largest only when asked for them.
WARPFORGE_API Result runPipelineToPTX(const std::string &ir,
                                      const std::string &pipeline,
                                      const std::string &bufferName,
                                      bool debugInfo,
                                      const std::string &dumpPrefix,
                                      const CompileOptions &options,
                                      const TargetOptions &target,
                                      bool printIR = true,
                                      bool printLLVMIR = true);

/// One stage of a JIT compilation: the key of its IR in
/// `CompiledKernel.asm` and the named pipeline that produces it.
struct Stage {
  std::string name;
  std::string pipeline;
  std::string description;
};

/// The JIT's stages from tile IR to the LLVM dialect, in order.
WARPFORGE_API std::vector<Stage> jitStages();

/// What the GPU backend compiles for, and how.
struct TargetOptions {
  /// Compute capability as major * 10 + minor: 90 compiles for sm_90a
  /// (Hopper, with its architecture-specific features: wgmma, setmaxnreg).
  int computeCapability = 90;
  /// LLVM's optimization level, 0 to 3; ptxas gets the same.
  int optLevel = 3;
  /// Register cap per thread given to ptxas (--maxrregcount), up to 255;
  /// 0: no cap.
  int maxRegisters = 0;
  /// Whether a floating-point multiply and add may fuse into one fma
  /// (Triton's enable_fp_fusion).
  bool fpFusion = false;
  /// Whether libdevice's functions flush denormals to zero (the
  /// nvvm-reflect-ftz flag; Triton's enable_reflect_ftz).
  bool reflectFtz = false;
  /// The ptxas to run; empty: the first found in $CUDA_HOME/bin,
  /// $CUDA_PATH/bin, PATH and /usr/local/cuda/bin.
  std::string ptxasPath;
  /// The start of ptxas's temporary files' names (`<prefix>-XXXXXX.ptx`
  /// and the cubin and log beside it, in the system's temporary directory).
  std::string temporaryPrefix = "warpforge";
};

/// The outcome of producing a binary: its bytes in `data`, what the tool
/// reported in `log` (on failure too), the diagnostics on failure.
struct BinaryResult {
  bool ok = false;
  std::string data;
  std::string log;
  std::vector<Diagnostic> diagnostics;
};

/// Translates `mlir` (a module in the LLVM and NVVM dialects, kernels marked
/// `nvvm.kernel`) to LLVM IR for nvptx64-nvidia-cuda: libdevice linked when
/// the module calls `__nv_*` functions, everything but the kernels
/// internalized, optimized at `options.optLevel`.  `.ir` is the LLVM IR
/// text; a failure is reported at the op it concerns.
WARPFORGE_API Result translateToLLVMIR(const std::string &mlir,
                                       const std::string &bufferName,
                                       const TargetOptions &options);

/// Compiles LLVM IR text, as translateToLLVMIR returns it, to PTX for
/// `options.computeCapability`; `.ir` is the PTX text.  Errors in the IR are
/// located in the buffer `<llvm-ir>`.
WARPFORGE_API Result compileLLVMIRToPTX(const std::string &llvmIR,
                                        const TargetOptions &options);

/// translateToLLVMIR then compileLLVMIRToPTX on the module in memory (no
/// second parse of the LLVM IR): `.llvmIR` is the LLVM IR text, `.ptx` the
/// PTX.
WARPFORGE_API Result compileToPTX(const std::string &mlir,
                                  const std::string &bufferName,
                                  const TargetOptions &options);

/// Assembles PTX into a cubin with CUDA's ptxas (`-arch=sm_90a -v` for
/// 90): the cubin's bytes in `.data`, ptxas's report (registers, spills,
/// shared memory per kernel) in `.log`.  When ptxas fails, its output is
/// the error; when it is not found, the error says where it was searched.
WARPFORGE_API BinaryResult assemblePTX(const std::string &ptx,
                                       const TargetOptions &options);

/// The external tools that shape a cubin, as the backend would find them
/// for `options`: the ptxas it runs and the libdevice it links (each empty
/// when not found).  The kernel cache keys its entries by them.
struct Toolchain {
  std::string ptxas;
  std::string libdevice;
};
WARPFORGE_API Toolchain findToolchain(const TargetOptions &options);

/// The registered named pipelines, as (name, description) pairs.
WARPFORGE_API std::vector<std::pair<std::string, std::string>>
registeredPipelines();

/// The project's version and the LLVM it was built with.
WARPFORGE_API std::string version();

} // namespace warpforge::api

#endif // WARPFORGE_API_API_H
