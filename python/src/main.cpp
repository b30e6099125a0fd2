//===- main.cpp - The warpforge._C Python module --------------------------===//
//
// Deliberately tiny: IR goes in and out as text.  Failures raise
// warpforge.errors.IRError, which carries the structured diagnostics.
// The GPU backend's functions are in target.cpp, the GPU runtime's in
// driver.cpp.
//
//===----------------------------------------------------------------------===//

#include "errors.h"
#include "target.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using warpforge::api::Result;

// driver.cpp: the GPU runtime (kernels, launches, devices).
void registerDriver(py::module_ &m);
void registerSpecialize(py::module_ &m);

namespace {
py::tuple toPython(const warpforge::api::Diagnostic &d) {
  return py::make_tuple(d.severity, d.file, d.line, d.column, d.message,
                        d.formatted);
}

/// Returns the IR of a successful result, or raises IRError.
std::string unwrap(Result result, const std::string &what) {
  if (!result.ok)
    warpforge::python::raiseIRError(result.diagnostics, what);
  return std::move(result.ir);
}
} // namespace

/// The module attributes of `r` as one dict.
static py::dict attributesOf(const Result &r) {
  py::dict attributes;
  for (const auto &[name, value] : r.integerAttributes)
    attributes[py::str(name)] = value;
  for (const auto &[name, value] : r.stringAttributes)
    attributes[py::str(name)] = value;
  if (!r.hostTensorMaps.empty()) {
    py::list maps;
    for (const warpforge::api::HostTensorMap &m : r.hostTensorMaps) {
      py::dict map;
      map["param"] = m.param;
      map["base"] = m.base;
      map["block"] = m.block;
      map["shape"] = m.shape;
      map["shape_args"] = m.shapeArgs;
      map["strides"] = m.strides;
      map["stride_args"] = m.strideArgs;
      maps.append(map);
    }
    attributes["tilegpu.host-tensor-maps"] = maps;
  }
  if (!r.descriptorBlocks.empty()) {
    py::list blocks;
    for (const auto &[arg, block] : r.descriptorBlocks) {
      py::dict entry;
      entry["arg"] = arg;
      entry["block"] = block;
      blocks.append(entry);
    }
    attributes["tile.descriptor-blocks"] = blocks;
  }
  return attributes;
}

void warpforge::python::raiseIRError(
    const std::vector<warpforge::api::Diagnostic> &diagnostics,
    const std::string &what, const Result *result) {
  py::list diags;
  std::string message = what + " failed:";
  for (const auto &d : diagnostics) {
    diags.append(toPython(d));
    message += "\n" + d.formatted;
  }
  py::object cls = py::module_::import("warpforge.errors").attr("IRError");
  py::object error = cls(message, diags);
  if (result)
    error.attr("attributes") = attributesOf(*result);
  PyErr_SetObject(cls.ptr(), error.ptr());
  throw py::error_already_set();
}

PYBIND11_MODULE(_C, m) {
  m.doc() = "warpforge's compiler core (IR text in, IR text out) and its GPU "
            "runtime";

  m.def(
      "parse",
      [](const std::string &ir, const std::string &filename, bool debugInfo) {
        Result r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::parseAndVerify(ir, filename, debugInfo);
        }
        return unwrap(std::move(r), "parsing " + filename);
      },
      py::arg("ir"), py::arg("filename") = "<string>",
      py::arg("debug_info") = false,
      "Parse and verify IR text; return it printed back or raise IRError.");

  m.def(
      "run_pipeline",
      [](const std::string &ir, const std::string &pipeline,
         const std::string &filename, bool debugInfo,
         const std::string &dumpPrefix) {
        Result r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::runPipeline(ir, pipeline, filename, debugInfo,
                                          dumpPrefix);
        }
        return unwrap(std::move(r), "pipeline '" + pipeline + "'");
      },
      py::arg("ir"), py::arg("pipeline"), py::arg("filename") = "<string>",
      py::arg("debug_info") = false, py::arg("dump_prefix") = "",
      "Run a named pipeline or a pass-pipeline string on IR text; with "
      "dump_prefix, write the IR after every pass to numbered files.");

  py::class_<warpforge::CompileOptions>(
      m, "CompileOptions",
      "The options of one compilation as the C++ stages take them "
      "(warpforge.compiler.options.KernelOptions.to_core() makes one).")
      .def(py::init<>())
      .def_readwrite("num_warps", &warpforge::CompileOptions::numWarps)
      .def_readwrite("num_stages", &warpforge::CompileOptions::numStages)
      .def_readwrite("num_ctas", &warpforge::CompileOptions::numCtas)
      .def_readwrite("num_consumer_groups",
                     &warpforge::CompileOptions::numConsumerGroups)
      .def_readwrite("num_buffers_warp_spec",
                     &warpforge::CompileOptions::numBuffersWarpSpec)
      .def_readwrite("ping_pong", &warpforge::CompileOptions::pingPong)
      .def_readwrite("maxnreg", &warpforge::CompileOptions::maxnreg)
      .def_readwrite("compute_capability",
                     &warpforge::CompileOptions::computeCapability);

  m.def(
      "run_stage",
      [](const std::string &ir, const std::string &pipeline,
         const warpforge::CompileOptions &options, const std::string &filename,
         bool debugInfo, const std::string &dumpPrefix) {
        Result r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::runPipeline(ir, pipeline, filename, debugInfo,
                                          dumpPrefix, options);
        }
        if (!r.ok)
          warpforge::python::raiseIRError(r.diagnostics,
                                          "pipeline '" + pipeline + "'", &r);
        py::list warnings;
        for (const auto &d : r.diagnostics)
          if (d.severity == "warning")
            warnings.append(toPython(d));
        return py::make_tuple(std::move(r.ir), attributesOf(r), warnings);
      },
      py::arg("ir"), py::arg("pipeline"), py::arg("options"),
      py::arg("filename") = "<string>", py::arg("debug_info") = false,
      py::arg("dump_prefix") = "",
      "Run a named pipeline built from CompileOptions; return (IR, the "
      "module's attributes, its warnings as diagnostic tuples) or raise "
      "IRError (with .attributes).");

  m.def(
      "run_stage_to_ptx",
      [](const std::string &ir, const std::string &pipeline,
         const warpforge::CompileOptions &options, const std::string &filename,
         bool debugInfo, const std::string &dumpPrefix, int cc,
         bool fpFusion, bool reflectFtz, bool printIR, bool printLLVMIR) {
        warpforge::api::TargetOptions target;
        target.computeCapability = cc;
        target.fpFusion = fpFusion;
        target.reflectFtz = reflectFtz;
        Result r;
        {
          py::gil_scoped_release release;
          r = warpforge::api::runPipelineToPTX(ir, pipeline, filename,
                                               debugInfo, dumpPrefix, options,
                                               target, printIR, printLLVMIR);
        }
        if (!r.ok)
          warpforge::python::raiseIRError(
              r.diagnostics, "pipeline '" + pipeline + "' to PTX", &r);
        py::list warnings;
        for (const auto &d : r.diagnostics)
          if (d.severity == "warning")
            warnings.append(toPython(d));
        py::dict times;
        for (const auto &[step, ms] : r.times)
          times[py::str(step)] = ms;
        return py::make_tuple(std::move(r.ir), attributesOf(r), warnings,
                              std::move(r.llvmIR), std::move(r.ptx), times);
      },
      py::arg("ir"), py::arg("pipeline"), py::arg("options"),
      py::arg("filename") = "<string>", py::arg("debug_info") = false,
      py::arg("dump_prefix") = "", py::arg("cc") = 90,
      py::arg("fp_fusion") = false, py::arg("reflect_ftz") = false,
      py::arg("print_ir") = true, py::arg("print_llvm_ir") = true,
      "run_stage, then LLVM IR and PTX for sm_{cc} from the module in memory "
      "(fp_fusion: multiplies and adds may fuse into fma; reflect_ftz: "
      "libdevice flushes denormals; without print_ir or print_llvm_ir the "
      "stage's IR or the LLVM IR is not printed and comes back empty): "
      "(IR, attributes, warnings, LLVM IR, PTX, {step: milliseconds}), or "
      "raise IRError.");

  m.def(
      "jit_stages",
      []() {
        py::list stages;
        for (const auto &s : warpforge::api::jitStages())
          stages.append(py::make_tuple(s.name, s.pipeline, s.description));
        return stages;
      },
      "The JIT's stages in order, as (asm key, pipeline, description).");

  m.def("pipelines", &warpforge::api::registeredPipelines,
        "The named pipelines as (name, description) pairs.");
  m.def("version", &warpforge::api::version);

  registerDriver(m);
  registerSpecialize(m);
  warpforge::python::registerTarget(m);
}
