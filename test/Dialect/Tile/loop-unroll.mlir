// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --tile-loop-unroll | FileCheck %s

// tl.range(0, 16, loop_unroll_factor=4): a trip count the factor divides.
// The body runs four times per iteration, the step is four times larger,
// and the attribute is gone.
// CHECK-LABEL: tile.func public @by_four(
// CHECK: %[[C4:.*]] = arith.constant 4 : i32
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C4]]
// CHECK-COUNT-4: arith.addf
// CHECK-NOT: arith.addf
// CHECK-NOT: tile.loop_unroll_factor
// CHECK: tile.store
tile.func public @by_four(%p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %next = arith.addf %acc, %one : f32
    scf.yield %next : f32
  } {tile.loop_unroll_factor = 4 : i32}
  tile.store %p, %r : !tile.ptr<f32>
  tile.return
}

// -----

// A trip count known only at run time: an unrolled main loop and an
// epilogue loop for the iterations left over.
// CHECK-LABEL: tile.func public @dynamic(
// CHECK: scf.for
// CHECK-COUNT-2: arith.addf
// CHECK: scf.for
// CHECK: arith.addf
// CHECK-NOT: tile.loop_unroll_factor
tile.func public @dynamic(%p: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %next = arith.addf %acc, %one : f32
    scf.yield %next : f32
  } {tile.loop_unroll_factor = 2 : i32}
  tile.store %p, %r : !tile.ptr<f32>
  tile.return
}

// -----

// A factor of 1 only drops the attribute.
// CHECK-LABEL: tile.func public @by_one(
// CHECK: scf.for
// CHECK-COUNT-1: arith.addf
// CHECK-NOT: arith.addf
// CHECK-NOT: tile.loop_unroll_factor
tile.func public @by_one(%p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %next = arith.addf %acc, %one : f32
    scf.yield %next : f32
  } {tile.loop_unroll_factor = 1 : i32}
  tile.store %p, %r : !tile.ptr<f32>
  tile.return
}

// -----

tile.func public @zero(%p: !tile.ptr<f32>) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c1 = arith.constant 1 : i32
  // expected-error @+1 {{loop_unroll_factor must be a positive integer, got 0 : i32}}
  scf.for %i = %c0 to %c8 step %c1 : i32 {
    scf.yield
  } {tile.loop_unroll_factor = 0 : i32}
  tile.return
}
