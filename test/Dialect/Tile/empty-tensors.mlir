// RUN: warpforge-opt %s -split-input-file -verify-diagnostics --tile-verify-kernels
// RUN: warpforge-opt %s -split-input-file -verify-diagnostics --convert-tile-to-tilegpu
// RUN: warpforge-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile-optimize,tile-to-tilegpu{num-warps=4 num-stages=3},tilegpu-to-llvm)'

// Zero-sized dimensions pass the type verifiers, but the layouts and the
// lowerings divide by the sizes (they used to crash the process): every
// entry to the GPU path says so at the op instead.

tile.func public @assert_empty(%m: tensor<0xi1>) {
  // expected-error @+1 {{has a zero-sized dimension; tensors in kernels have at least one element per dimension}}
  tile.assert %m, "mask" : tensor<0xi1>
  tile.return
}

// -----

tile.func public @splat_empty(%p: !tile.ptr<f32>, %x: f32) {
  // expected-error @+1 {{tensor<4x0xf32>' has a zero-sized dimension}}
  %t = tile.splat %x : f32 -> tensor<4x0xf32>
  tile.return
}

// -----

// More elements than a kernel's tensor may hold: the lowering, one element
// at a time per thread, would run for minutes and gigabytes.
tile.func public @huge(%x: f32) {
  // expected-error @+1 {{tensor<1073741824xf32>' has 1073741824 elements; a tensor in a kernel holds at most 1048576}}
  %t = tile.splat %x : f32 -> tensor<1073741824xf32>
  tile.return
}
