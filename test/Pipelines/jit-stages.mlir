// RUN: warpforge-opt %s --tile-to-tilegpu | FileCheck %s --check-prefix=CONVERT
// RUN: warpforge-opt %s --tile-to-tilegpu --tilegpu-optimize | FileCheck %s
// RUN: warpforge-opt %s --pass-pipeline='builtin.module(tile-to-tilegpu{num-warps=8 num-stages=4},tilegpu-optimize)' | FileCheck %s --check-prefix=WARPS8

// The JIT's tilegpu stages on a row softmax over a 2-D tile.
// tile-to-tilegpu only converts: it stamps the options on the module and
// leaves conversions around the reduction, expansion and broadcast.
// tilegpu-optimize (here tilegpu-remove-layout-conversions) removes them
// all, and the row pointers and mask are computed in the layouts their
// users need.

// CONVERT: module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32}
// CONVERT-LABEL: tile.func public @softmax_rows(
// CONVERT: tilegpu.convert_layout

// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[ROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[B]]>
// CHECK-DAG: #[[COLS:slice[0-9]*]] = #tilegpu.slice<dim = 0, parent = #[[B]]>
// CHECK: module attributes {{{.*}}"tilegpu.num-warps" = 4 : i32
// CHECK-LABEL: tile.func public @softmax_rows(
// CHECK-NOT: tilegpu.convert_layout
// CHECK-DAG: tile.make_range {{.*}} : tensor<64xi32, #[[ROWS]]>
// CHECK-DAG: tile.make_range {{.*}} : tensor<64xi32, #[[COLS]]>
// CHECK: %[[X:.*]] = tile.load %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[B]]>
// CHECK: %[[M:.*]] = tile.reduce %[[X]] axis = 1 : tensor<64x64xf32, #[[B]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK: %[[E:.*]] = tile.expand_dims %[[M]] {axis = 1 : i32} : tensor<64xf32, #[[ROWS]]> -> tensor<64x1xf32, #[[B]]>
// CHECK: %[[BC:.*]] = tile.broadcast %[[E]] : tensor<64x1xf32, #[[B]]> -> tensor<64x64xf32, #[[B]]>
// CHECK: arith.subf %[[X]], %[[BC]] : tensor<64x64xf32, #[[B]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #[[B]]>
// CHECK-NOT: tilegpu.convert_layout

// WARPS8-DAG: #[[B8:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
// WARPS8: module attributes {{{.*}}"tilegpu.num-stages" = 4 : i32, "tilegpu.num-warps" = 8 : i32
// WARPS8-NOT: tilegpu.convert_layout
// WARPS8: tile.reduce %{{.*}} axis = 1 : tensor<64x64xf32, #[[B8]]>
// WARPS8-NOT: tilegpu.convert_layout

tile.func public @softmax_rows(%in: !tile.ptr<f32>, %out: !tile.ptr<f32>, %stride: i32, %n: i32) {
  %rows = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %cols = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %strides = tile.splat %stride : i32 -> tensor<64x1xi32>
  %roffs = arith.muli %r, %strides : tensor<64x1xi32>
  %c = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ns = tile.splat %n : i32 -> tensor<1x64xi32>
  %cmask = arith.cmpi slt, %c, %ns : tensor<1x64xi32>
  %rb = tile.broadcast %roffs : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %rb, %cb : tensor<64x64xi32>
  %mask = tile.broadcast %cmask : tensor<1x64xi1> -> tensor<64x64xi1>
  %ins = tile.splat %in : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %inp = tile.addptr %ins, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %x = tile.load %inp, %mask : tensor<64x64x!tile.ptr<f32>>
  %m = tile.reduce %x axis = 1 : tensor<64x64xf32> -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    %mx = arith.maxnumf %a, %b : f32
    tile.reduce.return %mx : f32
  }
  %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %x, %mb : tensor<64x64xf32>
  %outs = tile.splat %out : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %outp = tile.addptr %outs, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %outp, %d, %mask : tensor<64x64x!tile.ptr<f32>>
  tile.return
}
