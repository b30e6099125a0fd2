// RUN: warpforge-opt %s --convert-tile-to-tilegpu -split-input-file -verify-diagnostics

// Tensors that no layout can describe are reported where they appear.

tile.func public @rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{convert-tile-to-tilegpu: 'tensor<f32>' has no GPU layout; tensors need a rank of 1 or more and a static shape}}
  %y = math.exp %x : tensor<f32>
  tile.return
}

// -----

// expected-error @+1 {{convert-tile-to-tilegpu: 'tensor<?xf32>' has no GPU layout; tensors need a rank of 1 or more and a static shape}}
tile.func private @dynamic(%x: tensor<?xf32>)
