//===- Passes.h - Passes over the tilegpu dialect ---------------*- C++ -*-===//

#ifndef WARPFORGE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
#define WARPFORGE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Pass/Pass.h"

namespace warpforge::tilegpu {

/// On a tile.load or tile.store: tilegpu-coalesce chose its layout for the
/// contiguity of its addresses, and tilegpu-remove-layout-conversions
/// keeps it (a conversion next to it stays rather than un-coalescing it).
inline constexpr llvm::StringLiteral kCoalescedAttr = "tilegpu.coalesced";

#define GEN_PASS_DECL
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"

} // namespace warpforge::tilegpu

#endif // WARPFORGE_DIALECT_TILEGPU_TRANSFORMS_PASSES_H
