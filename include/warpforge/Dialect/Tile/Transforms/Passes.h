//===- Passes.h - Passes over the tile dialect ------------------*- C++ -*-===//

#ifndef WARPFORGE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define WARPFORGE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"

namespace warpforge::tile {

#define GEN_PASS_DECL
#include "warpforge/Dialect/Tile/Transforms/Passes.h.inc"

/// Patterns of the tile-combine pass.
void populateTileCombinePatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "warpforge/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace warpforge::tile

#endif // WARPFORGE_DIALECT_TILE_TRANSFORMS_PASSES_H
