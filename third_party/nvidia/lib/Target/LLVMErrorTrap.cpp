//===- LLVMErrorTrap.cpp - LLVM errors that do not end the process --------===//

#include "LLVMErrorTrap.h"

#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"

#include <csetjmp>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace {
/// Where a fatal error on this thread jumps to, and what it said.
struct FatalErrorTrap {
  std::jmp_buf target;
  std::string message;
};

thread_local FatalErrorTrap *activeTrap = nullptr;

void onFatalError(void *, const char *reason, bool) {
  if (FatalErrorTrap *trap = activeTrap) {
    activeTrap = nullptr;
    trap->message = reason;
    std::longjmp(trap->target, 1);
  }
  // Outside a trap: print what LLVM prints without a handler; it then ends
  // the process as usual.  (raw_ostream may itself report fatal errors.)
  std::string text = std::string("LLVM ERROR: ") + reason + "\n";
  ssize_t written = ::write(2, text.data(), text.size());
  (void)written;
}

void collectError(const DiagnosticInfo *info, void *errors) {
  if (info->getSeverity() != DS_Error)
    return;
  std::string text;
  raw_string_ostream os(text);
  DiagnosticPrinterRawOStream printer(os);
  info->print(printer);
  static_cast<std::vector<std::string> *>(errors)->push_back(text);
}
} // namespace

Error warpforge::nvptx::runCatchingLLVMErrors(LLVMContext &context,
                                              function_ref<void()> work) {
  static std::once_flag installed;
  std::call_once(installed, [] { install_fatal_error_handler(onFatalError); });

  std::vector<std::string> errors;
  DiagnosticHandler::DiagnosticHandlerTy previousHandler =
      context.getDiagnosticHandlerCallBack();
  void *previousData = context.getDiagnosticContext();
  context.setDiagnosticHandlerCallBack(collectError, &errors);

  FatalErrorTrap trap;
  FatalErrorTrap *outer = activeTrap;
  // The pass managers push stack-trace entries that the jump skips popping.
  const void *stackTraceState = SavePrettyStackState();
  if (setjmp(trap.target) == 0) {
    activeTrap = &trap;
    work();
  } else {
    RestorePrettyStackState(stackTraceState);
    errors.push_back(trap.message);
  }
  activeTrap = outer;
  context.setDiagnosticHandlerCallBack(previousHandler, previousData);

  if (errors.empty())
    return Error::success();
  std::string message;
  for (const std::string &error : errors)
    message += (message.empty() ? "" : "\n") + error;
  return createStringError(inconvertibleErrorCode(), message);
}
