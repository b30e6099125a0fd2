//===- target.cpp - The GPU backend in warpforge._C -----------------------===//
//
// MLIR (LLVM + NVVM dialects) -> LLVM IR -> PTX -> cubin.  The GIL is
// released while the core works, so kernels compile in parallel threads.
//
//===----------------------------------------------------------------------===//

#include "target.h"
#include "errors.h"

#include "warpforge/API/API.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using warpforge::api::TargetOptions;

namespace {
TargetOptions makeOptions(int cc, int optLevel, int maxRegisters = 0,
                          std::string ptxasPath = "",
                          std::string temporaryPrefix = "warpforge") {
  TargetOptions options;
  options.temporaryPrefix = std::move(temporaryPrefix);
  options.computeCapability = cc;
  options.optLevel = optLevel;
  options.maxRegisters = maxRegisters;
  options.ptxasPath = std::move(ptxasPath);
  return options;
}
} // namespace

void warpforge::python::registerTarget(py::module_ &m) {
  m.def(
      "translate_to_llvm_ir",
      [](const std::string &mlir, const std::string &bufferName, int cc,
         int optLevel, bool fpFusion, bool reflectFtz) {
        warpforge::api::Result r;
        TargetOptions options = makeOptions(cc, optLevel);
        options.fpFusion = fpFusion;
        options.reflectFtz = reflectFtz;
        {
          py::gil_scoped_release release;
          r = warpforge::api::translateToLLVMIR(mlir, bufferName, options);
        }
        if (!r.ok)
          raiseIRError(r.diagnostics,
                       "translating " + bufferName + " to LLVM IR");
        return r.ir;
      },
      py::arg("mlir"), py::arg("buffer_name") = "<string>", py::arg("cc") = 90,
      py::arg("opt_level") = 3, py::arg("fp_fusion") = false,
      py::arg("reflect_ftz") = false,
      "Translate a module in the LLVM and NVVM dialects to optimized LLVM IR "
      "for NVPTX (libdevice linked when used; fp_fusion and reflect_ftz as "
      "run_stage_to_ptx's); raise IRError on failure.");

  m.def(
      "compile_to_llvm_ir_and_ptx",
      [](const std::string &mlir, const std::string &bufferName, int cc,
         int optLevel) {
        warpforge::api::Result r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::compileToPTX(mlir, bufferName,
                                           makeOptions(cc, optLevel));
        }
        if (!r.ok)
          raiseIRError(r.diagnostics, "compiling " + bufferName + " to PTX");
        return py::make_tuple(std::move(r.llvmIR), std::move(r.ptx));
      },
      py::arg("mlir"), py::arg("buffer_name") = "<string>", py::arg("cc") = 90,
      py::arg("opt_level") = 3,
      "translate_to_llvm_ir then compile_to_ptx with the LLVM module kept "
      "in memory: (LLVM IR text, PTX); raise IRError on failure.");

  m.def(
      "compile_to_ptx",
      [](const std::string &llvmIR, int cc, int optLevel) {
        warpforge::api::Result r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::compileLLVMIRToPTX(llvmIR,
                                                 makeOptions(cc, optLevel));
        }
        if (!r.ok)
          raiseIRError(r.diagnostics, "compiling LLVM IR to PTX");
        return r.ir;
      },
      py::arg("llvm_ir"), py::arg("cc") = 90, py::arg("opt_level") = 3,
      "Compile LLVM IR text to PTX for compute capability `cc` (90: "
      "sm_90a); raise IRError on failure.");

  m.def(
      "find_toolchain",
      [](const std::string &ptxasPath) {
        warpforge::api::Toolchain t = warpforge::api::findToolchain(
            makeOptions(90, /*optLevel=*/3, /*maxRegisters=*/0, ptxasPath));
        return py::make_tuple(t.ptxas, t.libdevice);
      },
      py::arg("ptxas_path") = "",
      "(ptxas, libdevice): the paths the backend would use, each '' when "
      "not found.");

  m.def(
      "assemble_ptx",
      [](const std::string &ptx, int cc, int maxRegisters,
         const std::string &ptxasPath, const std::string &temporaryPrefix) {
        warpforge::api::BinaryResult r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::assemblePTX(
              ptx, makeOptions(cc, /*optLevel=*/3, maxRegisters, ptxasPath,
                               temporaryPrefix));
        }
        if (!r.ok)
          raiseIRError(r.diagnostics, "assembling PTX");
        return py::make_tuple(py::bytes(r.data), r.log);
      },
      py::arg("ptx"), py::arg("cc") = 90, py::arg("max_registers") = 0,
      py::arg("ptxas_path") = "", py::arg("temporary_prefix") = "warpforge",
      "Assemble PTX into a cubin with CUDA's ptxas; return (cubin bytes, "
      "ptxas -v log).  Its temporary files are named `<temporary_prefix>-"
      "XXXXXX.{ptx,cubin,log}`.  Raise IRError with ptxas's output when it "
      "fails, or when no ptxas is found.");
}
