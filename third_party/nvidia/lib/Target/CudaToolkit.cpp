//===- CudaToolkit.cpp - Finding ptxas and libdevice ----------------------===//
//
// The CUDA toolkit is found the way CUDA's own tools and Triton look for it:
// $CUDA_HOME, $CUDA_PATH, then the tools on PATH, then /usr/local/cuda.  The
// errors list every place searched, so that a missing toolkit is fixed in
// one step.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Target/NVPTX.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <optional>
#include <vector>

using namespace llvm;

namespace {
constexpr const char *kEnvironmentRoots[] = {"CUDA_HOME", "CUDA_PATH"};
constexpr const char *kDefaultRoot = "/usr/local/cuda";

std::optional<std::string> getEnvironment(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  return std::string(value);
}

bool isExecutableFile(const Twine &path) {
  return sys::fs::can_execute(path) && !sys::fs::is_directory(path);
}

std::string joinPath(StringRef root, std::initializer_list<StringRef> parts) {
  SmallString<256> path(root);
  for (StringRef part : parts)
    sys::path::append(path, part);
  return std::string(path);
}

/// The directory above the `bin/` holding `tool`, symbolic links resolved
/// (a ptxas on PATH is often a link into the toolkit).
std::string toolkitRootOf(StringRef tool) {
  SmallString<256> real;
  if (sys::fs::real_path(tool, real))
    real = tool;
  return std::string(sys::path::parent_path(sys::path::parent_path(real)));
}

Error notFound(StringRef what, const std::vector<std::string> &searched,
               StringRef fix) {
  return createStringError(inconvertibleErrorCode(),
                           what + " not found; searched " +
                               llvm::join(searched, ", ") + ". " + fix);
}
} // namespace

namespace warpforge::nvptx {

Expected<std::string> findPtxas(const TargetOptions &options) {
  if (!options.ptxasPath.empty()) {
    if (isExecutableFile(options.ptxasPath))
      return options.ptxasPath;
    return createStringError(
        inconvertibleErrorCode(),
        "ptxas not found at '" + options.ptxasPath +
            "' (the ptxas path in the target options): give an executable "
            "ptxas, or no path to search the CUDA toolkit");
  }
  std::vector<std::string> searched;
  for (const char *variable : kEnvironmentRoots) {
    std::string name = std::string("$") + variable + "/bin";
    if (std::optional<std::string> root = getEnvironment(variable)) {
      std::string ptxas = joinPath(*root, {"bin", "ptxas"});
      if (isExecutableFile(ptxas))
        return ptxas;
      searched.push_back(name + " (" + joinPath(*root, {"bin"}) + ")");
    } else {
      searched.push_back(name + " (unset)");
    }
  }
  if (ErrorOr<std::string> onPath = sys::findProgramByName("ptxas"))
    return *onPath;
  searched.push_back("PATH");
  std::string ptxas = joinPath(kDefaultRoot, {"bin", "ptxas"});
  if (isExecutableFile(ptxas))
    return ptxas;
  searched.push_back(joinPath(kDefaultRoot, {"bin"}));
  return notFound("ptxas (CUDA's PTX assembler)", searched,
                  "Set CUDA_HOME to a CUDA 13 toolkit, or put its ptxas on "
                  "PATH");
}

Expected<std::string> findLibdevice(const TargetOptions &options) {
  // (what the error calls it, the file)
  std::vector<std::pair<std::string, std::string>> candidates;
  auto addToolkit = [&](const std::string &name, const std::string &root) {
    candidates.emplace_back(
        name, joinPath(root, {"nvvm", "libdevice", "libdevice.10.bc"}));
  };
  // A ptxas outside a CUDA toolkit may sit beside lib/libdevice.10.bc, the
  // layout of the toolkit Triton bundles.
  auto addToolOnPath = [&](StringRef tool, const std::string &path) {
    std::string root = toolkitRootOf(path);
    addToolkit(("the toolkit of " + tool + " (" + root + ")").str(), root);
    candidates.emplace_back(("the lib/ beside " + tool).str(),
                            joinPath(root, {"lib", "libdevice.10.bc"}));
  };

  if (!options.ptxasPath.empty())
    addToolOnPath("the ptxas in the target options", options.ptxasPath);
  for (const char *variable : kEnvironmentRoots) {
    if (std::optional<std::string> root = getEnvironment(variable))
      addToolkit(std::string("$") + variable + " (" + *root + ")", *root);
    else
      candidates.emplace_back(std::string("$") + variable + " (unset)", "");
  }
  for (StringRef tool : {"ptxas", "nvcc"}) {
    if (ErrorOr<std::string> onPath = sys::findProgramByName(tool))
      addToolOnPath(tool, *onPath);
    else
      candidates.emplace_back((tool + " on PATH (not found)").str(), "");
  }
  addToolkit(kDefaultRoot, kDefaultRoot);

  std::vector<std::string> searched;
  for (const auto &[name, file] : candidates) {
    if (!file.empty() && sys::fs::is_regular_file(file))
      return file;
    searched.push_back(file.empty() ? name : file);
  }
  return notFound("CUDA's libdevice (libdevice.10.bc)", searched,
                  "Set CUDA_HOME to a CUDA toolkit");
}

} // namespace warpforge::nvptx
