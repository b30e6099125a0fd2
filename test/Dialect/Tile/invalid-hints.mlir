// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// The axis-analysis hints tile.divisibility, tile.contiguity and
// tile.constancy on ops: one positive i32 per dimension of the op's single
// integer or pointer result.

tile.func public @hints_ok(%a: i32, %p: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32, tile.contiguity = array<i32: 64>, tile.divisibility = array<i32: 64>} : tensor<64xi32>
  %m = arith.muli %a, %a {tile.divisibility = array<i32: 24>} : i32
  %ps = tile.splat %p {tile.constancy = array<i32: 4, 64>} : !tile.ptr<f32> -> tensor<4x64x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func public @hint_rank() {
  // expected-error @below {{'tile.make_range' op tile.contiguity needs 1 entries, one per dimension, got 2}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32, tile.contiguity = array<i32: 64, 1>} : tensor<64xi32>
  tile.return
}

// -----

tile.func public @hint_not_positive() {
  // expected-error @below {{'tile.make_range' op tile.divisibility entries must be positive, got 0}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32, tile.divisibility = array<i32: 0>} : tensor<64xi32>
  tile.return
}

// -----

tile.func public @hint_not_array() {
  // expected-error @below {{'tile.make_range' op tile.constancy must be an array<i32>, got 4 : i32}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32, tile.constancy = 4 : i32} : tensor<64xi32>
  tile.return
}

// -----

tile.func public @hint_on_float(%x: f32) {
  // expected-error @below {{'arith.addf' op tile.divisibility applies to integers and pointers, got 'f32'}}
  %y = arith.addf %x, %x {tile.divisibility = array<i32: 16>} : f32
  tile.return
}

// -----

tile.func public @hint_without_result(%p: !tile.ptr<f32>, %x: f32) {
  // expected-error @below {{'tile.store' op tile.divisibility applies to ops with one result, got 0}}
  tile.store %p, %x {tile.divisibility = array<i32: 16>} : !tile.ptr<f32>
  tile.return
}
