// RUN: warpforge-opt %s --split-input-file --tilegpu-skip-unit-scales | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-skip-unit-scales=min-elements=128 | FileCheck %s --check-prefix=MIN

// A loop's rescale of a tile by a row vector (an online softmax's
// O * alpha[:, None]) runs only in warps where some factor is not 1.

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// CHECK-LABEL: tile.func public @rescale_in_a_loop(
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[V:.*]] = tile.expand_dims
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[V]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x1xf32, #{{.*}}>
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpf oeq, %[[V]], %[[ONE]]
// CHECK-NEXT: %[[ALL:.*]] = tilegpu.warp_all %[[EQ]]
// CHECK-NEXT: %[[R:.*]] = scf.if %[[ALL]] -> (tensor<64x128xf32, #{{.*}}>) {
// CHECK-NEXT: scf.yield %[[ACC]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[ACC]], %[[B]]
// CHECK-NEXT: scf.yield %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[R]]
// MIN-LABEL: tile.func public @rescale_in_a_loop(
// MIN-NOT: tilegpu.warp_all
// MIN: arith.mulf
tile.func public @rescale_in_a_loop(%acc0: tensor<64x128xf32, #w>, %alpha: tensor<64xf32, #tilegpu.slice<dim = 1, parent = #w>>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #w>) : i32 {
    %v = tile.expand_dims %alpha {axis = 1 : i32} : tensor<64xf32, #tilegpu.slice<dim = 1, parent = #w>> -> tensor<64x1xf32, #w>
    %b = tile.broadcast %v : tensor<64x1xf32, #w> -> tensor<64x128xf32, #w>
    %m = arith.mulf %acc, %b : tensor<64x128xf32, #w>
    scf.yield %m : tensor<64x128xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A vector along the columns holds half as many elements a thread as the
// tile in a wgmma layout (a thread's 32 columns): comparing them would cost
// about what the product does, so it stays (the rule: at most 1/8).
// CHECK-LABEL: tile.func public @column_vector_on_the_left(
// CHECK-NOT: tilegpu.warp_all
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<64x128xf32
tile.func public @column_vector_on_the_left(%acc0: tensor<64x128xf32, #w>, %s: tensor<1x128xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #w>) : i32 {
    %b = tile.broadcast %s : tensor<1x128xf32, #w> -> tensor<64x128xf32, #w>
    %m = arith.mulf %b, %acc : tensor<64x128xf32, #w>
    scf.yield %m : tensor<64x128xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// Outside loops (an epilogue's division by the row sums) nothing changes.
// CHECK-LABEL: tile.func public @rescale_outside_a_loop(
// CHECK-NOT: tilegpu.warp_all
// CHECK: arith.mulf
tile.func public @rescale_outside_a_loop(%acc: tensor<64x128xf32, #w>, %v: tensor<64x1xf32, #w>) -> tensor<64x128xf32, #w> {
  %b = tile.broadcast %v : tensor<64x1xf32, #w> -> tensor<64x128xf32, #w>
  %m = arith.mulf %acc, %b : tensor<64x128xf32, #w>
  tile.return %m : tensor<64x128xf32, #w>
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// Two full tiles, or a scale that is not a broadcast: nothing to skip.
// CHECK-LABEL: tile.func public @not_a_broadcast(
// CHECK-NOT: tilegpu.warp_all
// CHECK: arith.mulf
tile.func public @not_a_broadcast(%acc0: tensor<64x128xf32, #w>, %s: tensor<64x128xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #w>) : i32 {
    %m = arith.mulf %acc, %s : tensor<64x128xf32, #w>
    scf.yield %m : tensor<64x128xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// The row vector on the left of the product.
// CHECK-LABEL: tile.func public @row_vector_on_the_left(
// CHECK: %[[B:.*]] = tile.broadcast
// CHECK: tilegpu.warp_all
// CHECK: arith.mulf %[[B]], %{{.*}} : tensor<64x128xf32
tile.func public @row_vector_on_the_left(%acc0: tensor<64x128xf32, #w>, %v: tensor<64x1xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x128xf32, #w>) : i32 {
    %b = tile.broadcast %v : tensor<64x1xf32, #w> -> tensor<64x128xf32, #w>
    %m = arith.mulf %b, %acc : tensor<64x128xf32, #w>
    scf.yield %m : tensor<64x128xf32, #w>
  }
  tile.return
}
}
