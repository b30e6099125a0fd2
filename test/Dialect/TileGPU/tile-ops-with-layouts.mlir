// RUN: warpforge-opt %s | FileCheck %s
// RUN: warpforge-opt %s --mlir-print-op-generic | warpforge-opt | FileCheck %s

// The tile ops verify on tensors with layouts: shape ops compare shapes and
// element types, not encodings, so their results may have layouts other
// than their sources' (as convert-tile-to-tilegpu gives them).

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#rows = #tilegpu.slice<dim = 1, parent = #b2>
#opa = #tilegpu.dot_op<opIdx = 0, parent = #b2, kWidth = 1>
#opb = #tilegpu.dot_op<opIdx = 1, parent = #b2, kWidth = 1>

// CHECK-LABEL: tile.func public @shape_ops(
tile.func public @shape_ops(%x: tensor<64x64xf32, #b2>, %v: tensor<64xf32, #rows>) {
  // CHECK: tile.reduce %{{.*}} axis = 1 : tensor<64x64xf32, #blocked> -> tensor<64xf32, #slice>
  %r = tile.reduce %x axis = 1 : tensor<64x64xf32, #b2> -> tensor<64xf32, #rows> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.reduce.return %s : f32
  }
  // CHECK: tile.scan %{{.*}} axis = 0 : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
  %c = tile.scan %x axis = 0 : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #b2> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    tile.scan.return %s : f32
  }
  // CHECK: tile.expand_dims %{{.*}} {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #blocked>
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #b2>
  // CHECK: tile.broadcast %{{.*}} : tensor<64x1xf32, #blocked> -> tensor<64x64xf32, #blocked>
  %b = tile.broadcast %e : tensor<64x1xf32, #b2> -> tensor<64x64xf32, #b2>
  // CHECK: tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked1>
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #bt>
  // CHECK: tile.reshape %{{.*}} : tensor<64x64xf32, #blocked> -> tensor<4096xf32, #blocked2>
  %s = tile.reshape %x : tensor<64x64xf32, #b2> -> tensor<4096xf32, #b1>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_and_load(
tile.func public @dot_and_load(%a: tensor<64x32xf16, #opa>, %b: tensor<32x64xf16, #opb>, %c: tensor<64x64xf32, #b2>, %p: tensor<64x64x!tile.ptr<f32>, #b2>, %m: tensor<64x64xi1, #b2>) {
  // CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16, #dot_op> * tensor<32x64xf16, #dot_op1> -> tensor<64x64xf32, #blocked>
  %d = tile.dot %a, %b, %c : tensor<64x32xf16, #opa> * tensor<32x64xf16, #opb> -> tensor<64x64xf32, #b2>
  // CHECK: tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64x!tile.ptr<f32>, #blocked>
  %l = tile.load %p, %m, %d : tensor<64x64x!tile.ptr<f32>, #b2>
  tile.return
}
