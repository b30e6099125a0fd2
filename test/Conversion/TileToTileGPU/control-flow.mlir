// RUN: warpforge-opt %s --convert-tile-to-tilegpu -split-input-file | FileCheck %s

// Control flow: scf, cf and functions carry the layouts of the values they
// pass, the default ones.

// A loop carries its tensors in the default layout: in the initial value,
// the block argument, the yield and the result.  A reduction's result is
// converted before it joins the carried value.
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #{{blocked[0-9]*}}>
// CHECK-LABEL: tile.func public @for_iter_args(
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64xf32, #[[B1]]>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (tensor<64xf32, #[[B1]]>)
// CHECK: %[[SUM:.*]] = tile.reduce %{{.*}} axis = 1 : {{.*}} -> tensor<64xf32, #[[S]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[SUM]] : tensor<64xf32, #[[S]]> -> tensor<64xf32, #[[B1]]>
// CHECK-NEXT: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[C]] : tensor<64xf32, #[[B1]]>
// CHECK-NEXT: scf.yield %[[NEXT]] : tensor<64xf32, #[[B1]]>
// CHECK: tile.return %[[R]] : tensor<64xf32, #[[B1]]>
tile.func public @for_iter_args(%x: tensor<64x128xf32>, %n: i32) -> tensor<64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32>) : i32 {
    %s = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<64xf32> {
    ^bb0(%l: f32, %rr: f32):
      %a = arith.addf %l, %rr : f32
      tile.reduce.return %a : f32
    }
    %next = arith.addf %acc, %s : tensor<64xf32>
    scf.yield %next : tensor<64xf32>
  }
  tile.return %r : tensor<64xf32>
}

// -----

// scf.if results have the default layout; a transposed value is converted
// to it before the yield.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[T:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: tile.func public @if_results(
// CHECK-SAME: %[[X:[^:]*]]: tensor<32x32xf32, #[[B]]>)
// CHECK-NEXT: %[[R:.*]] = scf.if %{{.*}} -> (tensor<32x32xf32, #[[B]]>) {
// CHECK-NEXT: %[[TR:.*]] = tile.trans %[[X]] {{.*}} : tensor<32x32xf32, #[[B]]> -> tensor<32x32xf32, #[[T]]>
// CHECK-NEXT: %[[TC:.*]] = tilegpu.convert_layout %[[TR]] : tensor<32x32xf32, #[[T]]> -> tensor<32x32xf32, #[[B]]>
// CHECK-NEXT: scf.yield %[[TC]] : tensor<32x32xf32, #[[B]]>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[X]] : tensor<32x32xf32, #[[B]]>
// CHECK: tile.return %[[R]] : tensor<32x32xf32, #[[B]]>
tile.func public @if_results(%c: i1, %x: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %r = scf.if %c -> (tensor<32x32xf32>) {
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<32x32xf32> -> tensor<32x32xf32>
    scf.yield %t : tensor<32x32xf32>
  } else {
    scf.yield %x : tensor<32x32xf32>
  }
  tile.return %r : tensor<32x32xf32>
}

// -----

// scf.while: both regions' arguments, the condition's operands and the
// results.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @while_loop(
// CHECK: scf.while (%{{.*}} = %{{.*}}) : (tensor<128xi32, #[[B]]>) -> tensor<128xi32, #[[B]]> {
// CHECK: scf.condition(%{{.*}}) %{{.*}} : tensor<128xi32, #[[B]]>
// CHECK: ^bb0(%{{.*}}: tensor<128xi32, #[[B]]>):
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : tensor<128xi32, #[[B]]>
// CHECK-NEXT: scf.yield %{{.*}} : tensor<128xi32, #[[B]]>
tile.func public @while_loop(%x: tensor<128xi32>, %n: i32) -> tensor<128xi32> {
  %r = scf.while (%v = %x) : (tensor<128xi32>) -> tensor<128xi32> {
    %s = tile.reduce %v axis = 0 : tensor<128xi32> -> i32 {
    ^bb0(%l: i32, %rr: i32):
      %a = arith.addi %l, %rr : i32
      tile.reduce.return %a : i32
    }
    %go = arith.cmpi slt, %s, %n : i32
    scf.condition(%go) %v : tensor<128xi32>
  } do {
  ^bb0(%v: tensor<128xi32>):
    %d = arith.addi %v, %v : tensor<128xi32>
    scf.yield %d : tensor<128xi32>
  }
  tile.return %r : tensor<128xi32>
}

// -----

// Block arguments of every block, and the branch operands that reach them.
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @branches(
// CHECK: %[[SUM:.*]] = tile.reduce
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[SUM]] : tensor<64xf32, #{{slice[0-9]*}}> -> tensor<64xf32, #[[B1]]>
// CHECK-NEXT: cf.cond_br %{{.*}}, ^bb1(%[[C]] : tensor<64xf32, #[[B1]]>), ^bb1(%{{.*}} : tensor<64xf32, #[[B1]]>)
// CHECK-NEXT: ^bb1(%[[V:.*]]: tensor<64xf32, #[[B1]]>):
// CHECK-NEXT: math.exp %[[V]] : tensor<64xf32, #[[B1]]>
tile.func public @branches(%c: i1, %x: tensor<64x32xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %s = tile.reduce %x axis = 1 : tensor<64x32xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  cf.cond_br %c, ^bb1(%s : tensor<64xf32>), ^bb1(%y : tensor<64xf32>)
^bb1(%v: tensor<64xf32>):
  %e = math.exp %v : tensor<64xf32>
  tile.return %e : tensor<64xf32>
}

// -----

// Device functions with tensor arguments and results, and their calls.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func private @device(
// CHECK-SAME: %{{.*}}: tensor<64xf32, #[[B]]>) -> tensor<64xf32, #[[B]]>
// CHECK-LABEL: tile.func public @caller(
// CHECK-NEXT: tile.call @device(%{{.*}}) : (tensor<64xf32, #[[B]]>) -> tensor<64xf32, #[[B]]>
tile.func private @device(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = math.sqrt %x : tensor<64xf32>
  tile.return %e : tensor<64xf32>
}

tile.func public @caller(%x: tensor<64xf32>) -> tensor<64xf32> {
  %r = tile.call @device(%x) : (tensor<64xf32>) -> tensor<64xf32>
  tile.return %r : tensor<64xf32>
}
