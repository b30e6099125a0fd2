// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --tile-cluster-split=num-ctas=2 | FileCheck %s

// A pointer matmul: the rows of A and of the accumulator are halved, B stays
// whole. The row range starts at the CTA's offset (rank * 32); the column
// range and B's pointers keep their shapes.
// CHECK: module attributes {"tile.num-ctas" = 2 : i32}
// CHECK-LABEL: tile.func public @pointer_matmul(
// CHECK: %[[RANK:.*]] = tile.cluster_cta_rank : i32
// CHECK: %[[ROWS:.*]] = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32>
// CHECK: %[[C32:.*]] = arith.constant 32 : i32
// CHECK: %[[OFF:.*]] = arith.muli %[[RANK]], %[[C32]] : i32
// CHECK: %[[SPLAT:.*]] = tile.splat %[[OFF]] : i32 -> tensor<32xi32>
// CHECK: %[[MINE:.*]] = arith.addi %[[ROWS]], %[[SPLAT]] : tensor<32xi32>
// CHECK: tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>
// CHECK: tile.expand_dims %[[MINE]] {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
// CHECK: %[[A:.*]] = tile.load %{{.*}} : tensor<32x64x!tile.ptr<f16>>
// CHECK: %[[B:.*]] = tile.load %{{.*}} : tensor<64x64x!tile.ptr<f16>>
// CHECK: %[[D:.*]] = tile.dot %[[A]], %[[B]], %{{.*}} : tensor<32x64xf16> * tensor<64x64xf16> -> tensor<32x64xf32>
// CHECK: tile.store %{{.*}}, %[[D]] : tensor<32x64x!tile.ptr<f32>>
tile.func public @pointer_matmul(%a: !tile.ptr<f16>, %b: !tile.ptr<f16>, %c: !tile.ptr<f32>) {
  %rows = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %cols = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %k = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant 64 : i32
  %s = tile.splat %c64 : i32 -> tensor<64x1xi32>
  %rs = arith.muli %r, %s : tensor<64x1xi32>
  %rb = tile.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %kb = tile.broadcast %k : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %kb : tensor<64x64xi32>
  %pa = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %pb = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %aa = tile.addptr %pa, %off : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %bb = tile.addptr %pb, %kb : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %cc = tile.addptr %pc, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %x = tile.load %aa : tensor<64x64x!tile.ptr<f16>>
  %y = tile.load %bb : tensor<64x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  tile.store %cc, %d : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Host descriptors: A's and C's blocks are halved in the signature (and
// recorded for the launcher), their row index moves by rank * 64; B's load
// is the same in both CTAs and marked for multicast. The accumulator is
// carried by the loop at its halved shape.
// CHECK: module attributes {"tile.descriptor-blocks" = [{arg = 0 : i64, block = array<i64: 64, 64>}, {arg = 2 : i64, block = array<i64: 64, 128>}], "tile.num-ctas" = 2 : i32}
// CHECK-LABEL: tile.func public @descriptors(
// CHECK-SAME: %{{.*}}: !tile.tensordesc<tensor<64x64xf16>>, %{{.*}}: !tile.tensordesc<tensor<64x128xf16>>, %{{.*}}: !tile.tensordesc<tensor<64x128xf32>>
// CHECK: %[[RANK:.*]] = tile.cluster_cta_rank : i32
// CHECK: %[[C64:.*]] = arith.constant 64 : i32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<64x128xf32>)
// CHECK: %[[SHIFT:.*]] = arith.muli %[[RANK]], %[[C64]] : i32
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[SHIFT]] : i32
// CHECK: tile.descriptor_load %{{.*}}[%[[ROW]], %{{.*}}] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
// CHECK: tile.descriptor_load %{{.*}}[%{{.*}}, %{{.*}}] {tile.cluster_replicated} : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
// CHECK: tile.dot {{.*}} -> tensor<64x128xf32>
// CHECK: tile.descriptor_store %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<64x128xf32>>, tensor<64x128xf32>
tile.func public @descriptors(%a: !tile.tensordesc<tensor<128x64xf16>>, %b: !tile.tensordesc<tensor<64x128xf16>>, %c: !tile.tensordesc<tensor<128x128xf32>>, %m: i32, %n: i32, %k: i32) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %i = %c0 to %k step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %x = tile.descriptor_load %a[%m, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
    %y = tile.descriptor_load %b[%i, %n] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16>
    %d = tile.dot %x, %y, %acc : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.descriptor_store %c[%m, %n], %acc : !tile.tensordesc<tensor<128x128xf32>>, tensor<128x128xf32>
  tile.return
}

// -----

// A bias broadcast along the rows is the same in every CTA; the sum of
// the columns of each row keeps the rows divided.
// CHECK-LABEL: tile.func public @bias_and_row_sum(
// CHECK: tile.broadcast %{{.*}} : tensor<1x64xf32> -> tensor<32x64xf32>
// CHECK: tile.reduce %{{.*}} axis = 1 : tensor<32x64xf32> -> tensor<32xf32>
// CHECK: tile.store %{{.*}}, %{{.*}} : tensor<32x!tile.ptr<f32>>
tile.func public @bias_and_row_sum(%p: !tile.ptr<f16>, %q: !tile.ptr<f32>) {
  %px = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %x = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %y = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %pb = tile.splat %q : !tile.ptr<f32> -> tensor<1x64x!tile.ptr<f32>>
  %bias = tile.load %pb : tensor<1x64x!tile.ptr<f32>>
  %out = tile.splat %q : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %b = tile.broadcast %bias : tensor<1x64xf32> -> tensor<64x64xf32>
  %e = arith.addf %d, %b : tensor<64x64xf32>
  %s = tile.reduce %e axis = 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }
  tile.store %out, %s : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// A transposed store: the rows of the product are the columns of its
// transpose.
// CHECK-LABEL: tile.func public @transposed(
// CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
tile.func public @transposed(%x: !tile.ptr<f16>, %out: !tile.ptr<f32>) {
  %px = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %a = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %b = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %a, %b, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %t = tile.trans %d {order = array<i32: 1, 0>} : tensor<64x64xf32> -> tensor<64x64xf32>
  %po = tile.splat %out : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %po, %t : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Declined: the sum down the columns needs every CTA's rows. The module is
// left as it was, without tile.num-ctas.
// CHECK-NOT: tile.num-ctas
// CHECK-LABEL: tile.func public @column_sum(
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32>
tile.func public @column_sum(%p: !tile.ptr<f16>, %q: !tile.ptr<f32>) {
  %px = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %x = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %y = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %out = tile.splat %q : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  // expected-warning @+1 {{num_ctas=2 declined: a reduction along the rows of a product would need the partial results of every CTA of the cluster; each program runs on one CTA instead}}
  %s = tile.reduce %d axis = 0 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.addf %l, %r : f32
    tile.reduce.return %t : f32
  }
  tile.store %out, %s : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// Declined: an atomic on values the same in every CTA would be repeated
// by each.
tile.func public @repeated_atomic(%p: !tile.ptr<f16>, %q: !tile.ptr<f32>, %count: !tile.ptr<i32>) {
  %px = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %x = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %y = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %out = tile.splat %q : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  tile.store %out, %d : tensor<64x64x!tile.ptr<f32>>
  %one = arith.constant 1 : i32
  // expected-warning @+1 {{num_ctas=2 declined: every CTA of the cluster would repeat this atomic}}
  %o = tile.atomic_rmw add, acq_rel, gpu, %count, %one : !tile.ptr<i32>
  tile.return
}

// -----

// Declined: no product whose rows could be divided.
// expected-warning @+1 {{num_ctas=2 declined: the kernel has no 2-D tl.dot}}
tile.func public @no_dot(%p: tensor<128x!tile.ptr<f32>>) {
  %v = tile.load %p : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

// Declined: a product's rows (different in each CTA) feed another product
// as its right operand, which every CTA needs whole.
tile.func public @rows_feed_b(%p: !tile.ptr<f16>, %q: !tile.ptr<f32>) {
  %px = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %x = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %y = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %out = tile.splat %q : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  %h = arith.truncf %d : tensor<64x64xf32> to tensor<64x64xf16>
  // expected-warning @+1 {{num_ctas=2 declined: a value would be divided among the CTAs here and be whole in each CTA elsewhere}}
  %e = tile.dot %x, %h, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  tile.store %out, %e : tensor<64x64x!tile.ptr<f32>>
  tile.return
}

// -----

// Declined: inline asm with side effects on values the same in every CTA
// would run in each.
tile.func public @repeated_side_effects(%p: !tile.ptr<f16>, %q: !tile.ptr<f32>, %r: !tile.ptr<i32>) {
  %px = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %x = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %y = tile.load %px : tensor<64x64x!tile.ptr<f16>>
  %out = tile.splat %q : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %y, %zero : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
  tile.store %out, %d : tensor<64x64x!tile.ptr<f32>>
  %pr = tile.splat %r : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  %v = tile.load %pr : tensor<128x!tile.ptr<i32>>
  // expected-warning @+1 {{num_ctas=2 declined: every CTA of the cluster would repeat this inline asm's side effects}}
  %w = tile.elementwise_inline_asm "red.global.add.u32 [$1], 1; mov.u32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = false} %v : tensor<128xi32> -> tensor<128xi32>
  tile.return
}
