// RUN: warpforge-opt %s -split-input-file -verify-diagnostics --tilegpu-allocate-shared-memory
// RUN: warpforge-opt %s -split-input-file -verify-diagnostics --convert-tilegpu-to-llvm

// tilegpu IR given directly: a zero-sized tensor is an error at the op,
// not a division by zero in the scratch or thread-coordinate computations.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @reduce_empty(%x: tensor<0xf32, #b>) {
    // expected-error @+1 {{has a zero-sized dimension}}
    %r = "tile.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %c: f32):
      %s = arith.addf %a, %c : f32
      tile.reduce.return %s : f32
    }) : (tensor<0xf32, #b>) -> f32
    tile.return
  }
}
