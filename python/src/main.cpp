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

void warpforge::python::raiseIRError(
    const std::vector<warpforge::api::Diagnostic> &diagnostics,
    const std::string &what) {
  py::list diags;
  std::string message = what + " failed:";
  for (const auto &d : diagnostics) {
    diags.append(toPython(d));
    message += "\n" + d.formatted;
  }
  py::object cls = py::module_::import("warpforge.errors").attr("IRError");
  py::object error = cls(message, diags);
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

  m.def("pipelines", &warpforge::api::registeredPipelines,
        "The named pipelines as (name, description) pairs.");
  m.def("version", &warpforge::api::version);

  registerDriver(m);
  warpforge::python::registerTarget(m);
}
