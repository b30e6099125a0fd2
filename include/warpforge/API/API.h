//===- API.h - The core library's public interface --------------*- C++ -*-===//
//
// This is everything `libwarpforge.so` exports.  It deliberately uses only
// the C++ standard library: the Python binding includes this header alone,
// so it compiles in seconds, without MLIR's headers, for any Python.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_API_API_H
#define WARPFORGE_API_API_H

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

/// The outcome of an operation on IR text: the printed IR on success, the
/// diagnostics (possibly some warnings on success) always.
struct Result {
  bool ok = false;
  std::string ir;
  std::vector<Diagnostic> diagnostics;
};

/// Parses and verifies `ir`; `bufferName` names it in locations.  On success
/// the module is printed back (with locations when `debugInfo`).
WARPFORGE_API Result parseAndVerify(const std::string &ir,
                                    const std::string &bufferName,
                                    bool debugInfo);

/// Runs `pipeline` on `ir`.  `pipeline` is a registered pipeline's name
/// (`tile-optimize`) or a textual pass pipeline, anchored on the module
/// (`builtin.module(canonicalize,cse)`) or not (`canonicalize,cse`).
/// With a `dumpPrefix` (a path prefix such as `dir/kernel.tile`), the IR
/// after every pass is written to `<dumpPrefix>.<NN>.<pass>.mlir`.
WARPFORGE_API Result runPipeline(const std::string &ir,
                                 const std::string &pipeline,
                                 const std::string &bufferName,
                                 bool debugInfo,
                                 const std::string &dumpPrefix = "");

/// The registered named pipelines, as (name, description) pairs.
WARPFORGE_API std::vector<std::pair<std::string, std::string>>
registeredPipelines();

/// The project's version and the LLVM it was built with.
WARPFORGE_API std::string version();

} // namespace warpforge::api

#endif // WARPFORGE_API_API_H
