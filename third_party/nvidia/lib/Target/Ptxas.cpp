//===- Ptxas.cpp - PTX to cubin with CUDA's ptxas -------------------------===//

#include "warpforge/Target/NVPTX.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace warpforge::nvptx {

char PtxasError::ID;

void PtxasError::log(raw_ostream &os) const {
  os << "ptxas failed";
  if (exitCode < 0)
    os << " (it crashed)";
  else
    os << " with exit status " << exitCode;
  os << ": " << command;
  if (!output.empty())
    os << "\n" << StringRef(output).rtrim();
}

std::error_code PtxasError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

namespace {
/// A temporary file that is removed when this goes out of scope.
struct TemporaryFile {
  SmallString<128> path;
  FileRemover remover;
};

Error createTemporary(StringRef prefix, StringRef suffix, TemporaryFile &file,
                      int *fd) {
  std::error_code ec =
      fd ? sys::fs::createTemporaryFile(prefix, suffix, *fd, file.path)
         : sys::fs::createTemporaryFile(prefix, suffix, file.path);
  if (ec)
    return createStringError(ec, "cannot create a temporary ." + suffix +
                                     " file: " + ec.message());
  file.remover.setFile(file.path);
  return Error::success();
}

std::string replaceAll(std::string text, StringRef from, StringRef to) {
  for (size_t at = text.find(from.str()); at != std::string::npos;
       at = text.find(from.str(), at + to.size()))
    text.replace(at, from.size(), to.str());
  return text;
}

Expected<std::string> readFile(StringRef path, StringRef what) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(buffer.getError(),
                             "cannot read " + what + " (" + path +
                                 "): " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}
} // namespace

Expected<Cubin> assemblePTX(StringRef ptx, const TargetOptions &options) {
  if (Error error = validateOptions(options))
    return std::move(error);
  Expected<std::string> ptxas = findPtxas(options);
  if (!ptxas)
    return ptxas.takeError();

  TemporaryFile input, output, log;
  int inputFd = -1;
  if (Error error = createTemporary(options.temporaryPrefix, "ptx", input, &inputFd))
    return std::move(error);
  {
    raw_fd_ostream os(inputFd, /*shouldClose=*/true);
    os << ptx;
    os.close();
    if (os.has_error()) {
      std::error_code ec = os.error();
      os.clear_error();
      return createStringError(ec, "cannot write the PTX to " + input.path +
                                       ": " + ec.message());
    }
  }
  if (Error error = createTemporary(options.temporaryPrefix, "cubin", output, nullptr))
    return std::move(error);
  if (Error error = createTemporary(options.temporaryPrefix, "log", log, nullptr))
    return std::move(error);

  std::vector<std::string> args = {
      *ptxas, "-arch=" + getTargetArch(options.computeCapability), "-v",
      "--opt-level=" + std::to_string(options.optLevel)};
  if (options.maxRegisters > 0)
    args.push_back("--maxrregcount=" + std::to_string(options.maxRegisters));
  args.insert(args.end(),
              {std::string(input.path), "-o", std::string(output.path)});

  // stdout and stderr into one file keep ptxas's messages in order.
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(log.path),
                                          StringRef(log.path)};
  // ptxas dies with the process that runs it (a killed JIT leaves no
  // orphan assembling on): util-linux's setpriv sets its parent-death
  // signal, where there is one.  The command in messages stays ptxas's.
  std::vector<std::string> runArgs = args;
  std::string program = *ptxas;
  static const std::optional<std::string> setpriv =
      []() -> std::optional<std::string> {
    ErrorOr<std::string> path = sys::findProgramByName("setpriv");
    ErrorOr<std::string> truePath = sys::findProgramByName("true");
    if (!path || !truePath)
      return std::nullopt;
    // Only a setpriv that takes --pdeathsig (util-linux 2.33 and later).
    StringRef probe[] = {*path, "--pdeathsig", "KILL", "--", *truePath};
    std::optional<StringRef> quiet[] = {StringRef(""), StringRef(""),
                                        StringRef("")};
    if (sys::ExecuteAndWait(*path, probe, std::nullopt, quiet) != 0)
      return std::nullopt;
    return *path;
  }();
  if (setpriv) {
    program = *setpriv;
    runArgs.insert(runArgs.begin(), {*setpriv, "--pdeathsig", "KILL", "--"});
  }
  SmallVector<StringRef> argRefs(runArgs.begin(), runArgs.end());
  std::string runError;
  bool executionFailed = false;
  int status = sys::ExecuteAndWait(
      program, argRefs, /*Env=*/std::nullopt, redirects, /*SecondsToWait=*/0,
      /*MemoryLimit=*/0, &runError, &executionFailed);
  if (executionFailed)
    return createStringError(inconvertibleErrorCode(),
                             "cannot run ptxas (" + *ptxas + "): " + runError);

  Expected<std::string> ptxasOutput = readFile(log.path, "ptxas's output");
  if (!ptxasOutput)
    return ptxasOutput.takeError();
  // The temporary names mean nothing to the reader.
  auto anonymize = [&](std::string text) {
    text = replaceAll(text, input.path, "<ptx>");
    return replaceAll(text, output.path, "<cubin>");
  };
  std::string ptxasLog = anonymize(std::move(*ptxasOutput));
  if (status != 0) {
    std::string command = anonymize(llvm::join(args, " "));
    return make_error<PtxasError>(command, status, std::move(ptxasLog));
  }

  Expected<std::string> binary = readFile(output.path, "the cubin");
  if (!binary)
    return binary.takeError();
  return Cubin{std::move(*binary), std::move(ptxasLog)};
}

} // namespace warpforge::nvptx
