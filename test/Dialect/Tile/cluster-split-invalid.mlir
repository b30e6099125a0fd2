// RUN: warpforge-opt %s --verify-diagnostics --tile-cluster-split=num-ctas=3

// A cluster of 3 CTAs along x: the pass takes 1, 2 or 4.
// expected-error @+1 {{tile-cluster-split: num-ctas must be 1, 2 or 4, got 3}}
module {
  tile.func public @k(%p: !tile.ptr<f32>) {
    tile.return
  }
}
