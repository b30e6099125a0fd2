//===- LLVMErrorTrap.h - LLVM errors that spare the process -----*- C++ -*-===//
//
// LLVM ends the process on two kinds of errors a bad kernel can trigger while
// it is optimized or compiled: an error diagnosed on an LLVMContext without a
// handler (exit(1)), and report_fatal_error ("Cannot select: intrinsic ..."
// for an op the target architecture lacks).  The compiler runs inside Python,
// so both must come back as errors instead.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_TARGET_LLVMERRORTRAP_H
#define WARPFORGE_TARGET_LLVMERRORTRAP_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace llvm {
class LLVMContext;
} // namespace llvm

namespace warpforge::nvptx {

/// Runs `work` and returns the errors LLVM diagnosed on `context` or reported
/// as fatal meanwhile, joined in one error.  A fatal error jumps back here
/// from inside LLVM: whatever `work` had allocated is leaked, and `context`
/// and its modules must only be destroyed afterwards.
llvm::Error runCatchingLLVMErrors(llvm::LLVMContext &context,
                                  llvm::function_ref<void()> work);

} // namespace warpforge::nvptx

#endif // WARPFORGE_TARGET_LLVMERRORTRAP_H
