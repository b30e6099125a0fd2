// RUN: warpforge-opt %s --convert-tile-to-tilegpu -split-input-file | FileCheck %s

// Shape ops, dots and tensor descriptors.

// tile.expand_dims takes the slice of its result's layout, tile.broadcast
// its result's layout.
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[ROW:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<dim = 0, parent = #[[ROW]]>
// CHECK-LABEL: tile.func public @expand_and_broadcast(
// CHECK-SAME: %[[X:[^:]*]]: tensor<128xi32, #[[B1]]>)
// CHECK-NEXT: %[[XS:.*]] = tilegpu.convert_layout %[[X]] : tensor<128xi32, #[[B1]]> -> tensor<128xi32, #[[S]]>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[XS]] {axis = 0 : i32} : tensor<128xi32, #[[S]]> -> tensor<1x128xi32, #[[ROW]]>
// CHECK-NEXT: %[[EB:.*]] = tilegpu.convert_layout %[[E]] : tensor<1x128xi32, #[[ROW]]> -> tensor<1x128xi32, #[[B2]]>
// CHECK-NEXT: tile.broadcast %[[EB]] : tensor<1x128xi32, #[[B2]]> -> tensor<64x128xi32, #[[B2]]>
tile.func public @expand_and_broadcast(%x: tensor<128xi32>) -> tensor<64x128xi32> {
  %e = tile.expand_dims %x {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %b = tile.broadcast %e : tensor<1x128xi32> -> tensor<64x128xi32>
  tile.return %b : tensor<64x128xi32>
}

// -----

// A transposition returns its source's layout with the dimensions permuted:
// the same thread holds the same element.
// CHECK-DAG: #[[SRC:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[T:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-DAG: #[[DEF:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile.func public @trans(
// CHECK-NEXT: %[[TR:.*]] = tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x32xf16, #[[SRC]]> -> tensor<32x64xf16, #[[T]]>
// CHECK-NEXT: tilegpu.convert_layout %[[TR]] : tensor<32x64xf16, #[[T]]> -> tensor<32x64xf16, #[[DEF]]>
tile.func public @trans(%x: tensor<64x32xf16>) -> tensor<32x64xf16> {
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  tile.return %t : tensor<32x64xf16>
}

// -----

// CHECK-DAG: #[[SRC:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 2, 16], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
// CHECK-DAG: #[[T:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4, 1, 1], threadsPerWarp = [16, 1, 2], warpsPerCTA = [1, 1, 4], order = [0, 2, 1]>
// CHECK-LABEL: tile.func public @trans_3d(
// CHECK-NEXT: tile.trans %{{.*}} {order = array<i32: 2, 0, 1>} : tensor<2x8x64xf32, #[[SRC]]> -> tensor<64x2x8xf32, #[[T]]>
tile.func public @trans_3d(%x: tensor<2x8x64xf32>) -> tensor<64x2x8xf32> {
  %t = tile.trans %x {order = array<i32: 2, 0, 1>} : tensor<2x8x64xf32> -> tensor<64x2x8xf32>
  tile.return %t : tensor<64x2x8xf32>
}

// -----

// A reshape returns the default layout of its shape.
// CHECK-DAG: #[[SRC:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[DST:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @reshape(
// CHECK-NEXT: tile.reshape %{{.*}} : tensor<64x32xf16, #[[SRC]]> -> tensor<2048xf16, #[[DST]]>
tile.func public @reshape(%x: tensor<64x32xf16>) -> tensor<2048xf16> {
  %r = tile.reshape %x : tensor<64x32xf16> -> tensor<2048xf16>
  tile.return %r : tensor<2048xf16>
}

// -----

// A dot takes a and b as dot operands of its result's layout, the
// accumulator in it.
// CHECK-DAG: #[[LA:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[LC:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[OPA:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[LC]], kWidth = 1>
// CHECK-DAG: #[[OPB:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[LC]], kWidth = 1>
// CHECK-LABEL: tile.func public @dot(
// CHECK-SAME: %[[AV:[^:]*]]: tensor<64x32xf16, #[[LA]]>, %[[BV:[^:]*]]: tensor<32x128xf16, #[[LC]]>, %[[ACC:[^:]*]]: tensor<64x128xf32, #[[LC]]>)
// CHECK-NEXT: %[[AD:.*]] = tilegpu.convert_layout %[[AV]] : tensor<64x32xf16, #[[LA]]> -> tensor<64x32xf16, #[[OPA]]>
// CHECK-NEXT: %[[BD:.*]] = tilegpu.convert_layout %[[BV]] : tensor<32x128xf16, #[[LC]]> -> tensor<32x128xf16, #[[OPB]]>
// CHECK-NEXT: tile.dot %[[AD]], %[[BD]], %[[ACC]] : tensor<64x32xf16, #[[OPA]]> * tensor<32x128xf16, #[[OPB]]> -> tensor<64x128xf32, #[[LC]]>
tile.func public @dot(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  tile.return %d : tensor<64x128xf32>
}

// -----

// Batched, with its attributes.
// CHECK-DAG: #[[LC:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 8, 4], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>
// CHECK-DAG: #[[OPA:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[LC]], kWidth = 1>
// CHECK-DAG: #[[OPB:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[LC]], kWidth = 1>
// CHECK-LABEL: tile.func public @dot_tf32(
// CHECK: tile.dot %{{.*}}, %{{.*}}, %{{.*}} inputPrecision = tf32 : tensor<2x16x16xf32, #[[OPA]]> * tensor<2x16x16xf32, #[[OPB]]> -> tensor<2x16x16xf32, #[[LC]]>
tile.func public @dot_tf32(%a: tensor<2x16x16xf32>, %b: tensor<2x16x16xf32>, %c: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %d = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<2x16x16xf32> * tensor<2x16x16xf32> -> tensor<2x16x16xf32>
  tile.return %d : tensor<2x16x16xf32>
}

// -----

// Descriptor blocks keep their type; loaded and stored tensors get the
// default layout.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile.func public @descriptors(
// CHECK-NEXT: %[[D:.*]] = tile.make_tensor_descriptor {{.*}} : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
// CHECK-NEXT: %[[LD:.*]] = tile.descriptor_load %[[D]][{{.*}}] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #[[B]]>
// CHECK-NEXT: %[[E:.*]] = math.absf %[[LD]] : tensor<64x64xf16, #[[B]]>
// CHECK-NEXT: tile.descriptor_store %[[D]][{{.*}}], %[[E]] : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #[[B]]>
tile.func public @descriptors(%base: !tile.ptr<f16>, %m: i32, %n: i32, %s: i64, %one: i64, %i: i32) {
  %d = tile.make_tensor_descriptor %base, [%m, %n], [%s, %one] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  %t = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %e = math.absf %t : tensor<64x64xf16>
  tile.descriptor_store %d[%i, %i], %e : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  tile.return
}
