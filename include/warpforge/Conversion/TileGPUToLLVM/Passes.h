//===- Passes.h - Lowering tilegpu to LLVM and NVVM -------------*- C++ -*-===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_PASSES_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace warpforge {

#define GEN_PASS_DECL
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h.inc"

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_PASSES_H
