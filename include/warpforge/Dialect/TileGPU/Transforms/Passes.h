//===- Passes.h - Passes over the tilegpu dialect ---------------*- C++ -*-===//

#ifndef WARPFORGE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
#define WARPFORGE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Pass/Pass.h"

namespace warpforge::tilegpu {

#define GEN_PASS_DECL
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace warpforge::tilegpu

#endif // WARPFORGE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
