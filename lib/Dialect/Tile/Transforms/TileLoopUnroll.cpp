//===- TileLoopUnroll.cpp - tl.range(..., loop_unroll_factor=N) -----------===//
//
// MLIR's scf unroller does the work; this pass finds the loops the kernel
// marked and reports a bad factor at the loop's Python line.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace warpforge::tile {
#define GEN_PASS_DEF_TILELOOPUNROLL
#include "warpforge/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace warpforge::tile

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kUnrollFactor =
    warpforge::tile::TileDialect::kLoopUnrollFactor;

struct TileLoopUnrollPass
    : public warpforge::tile::impl::TileLoopUnrollBase<TileLoopUnrollPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kUnrollFactor))
        loops.push_back(loop);
    });
    // Inner loops first (the walk is post-order): an outer loop's body is
    // copied with its inner loops already unrolled.
    for (scf::ForOp loop : loops) {
      auto factor = dyn_cast<IntegerAttr>(loop->getAttr(kUnrollFactor));
      if (!factor || factor.getInt() < 1) {
        loop.emitError() << "loop_unroll_factor must be a positive integer, got "
                         << loop->getAttr(kUnrollFactor);
        return signalPassFailure();
      }
      loop->removeAttr(kUnrollFactor);
      if (factor.getInt() == 1)
        continue;
      if (failed(loopUnrollByFactor(loop, factor.getInt()))) {
        loop.emitError() << "cannot unroll this loop by " << factor.getInt();
        return signalPassFailure();
      }
    }
  }
};
} // namespace
