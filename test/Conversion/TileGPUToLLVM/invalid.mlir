// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --convert-tilegpu-to-llvm

// expected-error @below {{module has no tilegpu.num-warps attribute: run convert-tile-to-tilegpu first}}
module {
  tile.func public @k() {
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  tile.func public @dot(%a: tensor<16x16xf16, #tilegpu.dot_op<opIdx = 0, parent = #b, kWidth = 1>>, %b: tensor<16x16xf16, #tilegpu.dot_op<opIdx = 1, parent = #b, kWidth = 1>>, %c: tensor<16x16xf32, #b>) {
    // expected-error @below {{tl.dot is not supported by the GPU backend yet}}
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #tilegpu.dot_op<opIdx = 0, parent = #b, kWidth = 1>> * tensor<16x16xf16, #tilegpu.dot_op<opIdx = 1, parent = #b, kWidth = 1>> -> tensor<16x16xf32, #b>
    tile.return
  }
}

