// RUN: warpforge-opt %s -canonicalize | FileCheck %s

//===----------------------------------------------------------------------===//
// tile.splat
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @splat_of_float_constant()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<2.000000e+00> : tensor<128xf32>
// CHECK-NOT: tile.splat
// CHECK-NEXT: tile.return %[[CST]] : tensor<128xf32>
tile.func public @splat_of_float_constant() -> tensor<128xf32> {
  %c = arith.constant 2.0 : f32
  %0 = tile.splat %c : f32 -> tensor<128xf32>
  tile.return %0 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @splat_of_int_constant()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<7> : tensor<4x8xi32>
// CHECK-NOT: tile.splat
// CHECK-NEXT: tile.return %[[CST]] : tensor<4x8xi32>
tile.func public @splat_of_int_constant() -> tensor<4x8xi32> {
  %c = arith.constant 7 : i32
  %0 = tile.splat %c : i32 -> tensor<4x8xi32>
  tile.return %0 : tensor<4x8xi32>
}

// CHECK-LABEL: tile.func public @splat_of_argument_stays(
// CHECK-SAME: %[[X:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[S]]
tile.func public @splat_of_argument_stays(%x: !tile.ptr<f32>) -> tensor<4x!tile.ptr<f32>> {
  %0 = tile.splat %x : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
  tile.return %0 : tensor<4x!tile.ptr<f32>>
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @broadcast_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tile.broadcast
// CHECK-NEXT: tile.return %[[X]] : tensor<4x8xf32>
tile.func public @broadcast_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  tile.return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: tile.func public @broadcast_of_constant_splat()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<7> : tensor<64x128xi32>
// CHECK-NOT: tile.broadcast
// CHECK-NEXT: tile.return %[[CST]] : tensor<64x128xi32>
tile.func public @broadcast_of_constant_splat() -> tensor<64x128xi32> {
  %c = arith.constant dense<7> : tensor<1x128xi32>
  %0 = tile.broadcast %c : tensor<1x128xi32> -> tensor<64x128xi32>
  tile.return %0 : tensor<64x128xi32>
}

// CHECK-LABEL: tile.func public @broadcast_of_splat(
// CHECK-SAME: %[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<64x128xf32>
// CHECK-NOT: tile.broadcast
// CHECK-NEXT: tile.return %[[S]] : tensor<64x128xf32>
tile.func public @broadcast_of_splat(%x: f32) -> tensor<64x128xf32> {
  %s = tile.splat %x : f32 -> tensor<1x128xf32>
  %0 = tile.broadcast %s : tensor<1x128xf32> -> tensor<64x128xf32>
  tile.return %0 : tensor<64x128xf32>
}

// CHECK-LABEL: tile.func public @broadcast_of_broadcast(
// CHECK-SAME: %[[X:.*]]: tensor<1x1xf32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x1xf32> -> tensor<64x128xf32>
// CHECK-NOT: tile.broadcast
// CHECK-NEXT: tile.return %[[B]] : tensor<64x128xf32>
tile.func public @broadcast_of_broadcast(%x: tensor<1x1xf32>) -> tensor<64x128xf32> {
  %a = tile.broadcast %x : tensor<1x1xf32> -> tensor<1x128xf32>
  %0 = tile.broadcast %a : tensor<1x128xf32> -> tensor<64x128xf32>
  tile.return %0 : tensor<64x128xf32>
}

// CHECK-LABEL: tile.func public @broadcast_of_argument_stays(
// CHECK-SAME: %[[X:.*]]: tensor<1x2xi32>)
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[X]] : tensor<1x2xi32> -> tensor<4x2xi32>
// CHECK-NEXT: tile.return %[[B]] : tensor<4x2xi32>
tile.func public @broadcast_of_argument_stays(%x: tensor<1x2xi32>) -> tensor<4x2xi32> {
  %0 = tile.broadcast %x : tensor<1x2xi32> -> tensor<4x2xi32>
  tile.return %0 : tensor<4x2xi32>
}

// A constant that is not a splat is not folded.
// CHECK-LABEL: tile.func public @broadcast_of_non_splat_constant_stays()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<{{\[\[}}1, 2]]> : tensor<1x2xi32>
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[CST]] : tensor<1x2xi32> -> tensor<4x2xi32>
// CHECK-NEXT: tile.return %[[B]] : tensor<4x2xi32>
tile.func public @broadcast_of_non_splat_constant_stays() -> tensor<4x2xi32> {
  %c = arith.constant dense<[[1, 2]]> : tensor<1x2xi32>
  %0 = tile.broadcast %c : tensor<1x2xi32> -> tensor<4x2xi32>
  tile.return %0 : tensor<4x2xi32>
}

//===----------------------------------------------------------------------===//
// tile.expand_dims
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @expand_dims_of_splat(
// CHECK-SAME: %[[X:.*]]: i32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : i32 -> tensor<128x1xi32>
// CHECK-NOT: tile.expand_dims
// CHECK-NEXT: tile.return %[[S]] : tensor<128x1xi32>
tile.func public @expand_dims_of_splat(%x: i32) -> tensor<128x1xi32> {
  %s = tile.splat %x : i32 -> tensor<128xi32>
  %0 = tile.expand_dims %s {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  tile.return %0 : tensor<128x1xi32>
}

// CHECK-LABEL: tile.func public @expand_dims_of_argument_stays(
// CHECK-SAME: %[[X:.*]]: tensor<128xi32>)
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[X]] {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
// CHECK-NEXT: tile.return %[[E]]
tile.func public @expand_dims_of_argument_stays(%x: tensor<128xi32>) -> tensor<1x128xi32> {
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  tile.return %0 : tensor<1x128xi32>
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @reshape_same_type(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[X]] : tensor<4x8xf32>
tile.func public @reshape_same_type(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  tile.return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: tile.func public @reshape_of_splat(
// CHECK-SAME: %[[X:.*]]: f16)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f16 -> tensor<32xf16>
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[S]] : tensor<32xf16>
tile.func public @reshape_of_splat(%x: f16) -> tensor<32xf16> {
  %s = tile.splat %x : f16 -> tensor<4x8xf16>
  %0 = tile.reshape %s : tensor<4x8xf16> -> tensor<32xf16>
  tile.return %0 : tensor<32xf16>
}

// CHECK-LABEL: tile.func public @reshape_of_constant_splat()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<1.000000e+00> : tensor<32xf32>
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[CST]] : tensor<32xf32>
tile.func public @reshape_of_constant_splat() -> tensor<32xf32> {
  %c = arith.constant dense<1.0> : tensor<4x8xf32>
  %0 = tile.reshape %c : tensor<4x8xf32> -> tensor<32xf32>
  tile.return %0 : tensor<32xf32>
}

// CHECK-LABEL: tile.func public @reshape_of_reshape(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[R]] : tensor<2x16xf32>
tile.func public @reshape_of_reshape(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %a = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tile.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  tile.return %0 : tensor<2x16xf32>
}

// allow_reorder on the inner reshape carries over to the combined one.
// CHECK-LABEL: tile.func public @reshape_of_reshape_inner_allow_reorder(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[R]] : tensor<2x16xf32>
tile.func public @reshape_of_reshape_inner_allow_reorder(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %a = tile.reshape %x allow_reorder : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tile.reshape %a : tensor<32xf32> -> tensor<2x16xf32>
  tile.return %0 : tensor<2x16xf32>
}

// allow_reorder on the outer reshape carries over to the combined one.
// CHECK-LABEL: tile.func public @reshape_of_reshape_outer_allow_reorder(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] allow_reorder : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[R]] : tensor<2x16xf32>
tile.func public @reshape_of_reshape_outer_allow_reorder(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %a = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tile.reshape %a allow_reorder : tensor<32xf32> -> tensor<2x16xf32>
  tile.return %0 : tensor<2x16xf32>
}

// Two reshapes that undo each other disappear.
// CHECK-LABEL: tile.func public @reshape_of_reshape_round_trip(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: tile.reshape
// CHECK-NEXT: tile.return %[[X]] : tensor<4x8xf32>
tile.func public @reshape_of_reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %0 = tile.reshape %a : tensor<32xf32> -> tensor<4x8xf32>
  tile.return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: tile.func public @reshape_of_argument_stays(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[R:.*]] = tile.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: tile.return %[[R]]
tile.func public @reshape_of_argument_stays(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = tile.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  tile.return %0 : tensor<32xf32>
}

//===----------------------------------------------------------------------===//
// tile.trans
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @trans_identity(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: tile.trans
// CHECK-NEXT: tile.return %[[X]] : tensor<2x3x4xf32>
tile.func public @trans_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = tile.trans %x {order = array<i32: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  tile.return %0 : tensor<2x3x4xf32>
}

// Result dim i of the composition is source dim inner[outer[i]]:
// [1, 2, 0] then [0, 2, 1] is [1, 0, 2].
// CHECK-LABEL: tile.func public @trans_of_trans(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]] {order = array<i32: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
// CHECK-NOT: tile.trans
// CHECK-NEXT: tile.return %[[T]] : tensor<3x2x4xf32>
tile.func public @trans_of_trans(%x: tensor<2x3x4xf32>) -> tensor<3x2x4xf32> {
  %a = tile.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %0 = tile.trans %a {order = array<i32: 0, 2, 1>} : tensor<3x4x2xf32> -> tensor<3x2x4xf32>
  tile.return %0 : tensor<3x2x4xf32>
}

// Two transposes that undo each other compose to the identity, which folds.
// CHECK-LABEL: tile.func public @trans_of_trans_inverse(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: tile.trans
// CHECK-NEXT: tile.return %[[X]] : tensor<2x3x4xf32>
tile.func public @trans_of_trans_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %a = tile.trans %x {order = array<i32: 1, 2, 0>} : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %0 = tile.trans %a {order = array<i32: 2, 0, 1>} : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  tile.return %0 : tensor<2x3x4xf32>
}

// CHECK-LABEL: tile.func public @trans_of_splat(
// CHECK-SAME: %[[X:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = tile.splat %[[X]] : f32 -> tensor<8x4xf32>
// CHECK-NOT: tile.trans
// CHECK-NEXT: tile.return %[[S]] : tensor<8x4xf32>
tile.func public @trans_of_splat(%x: f32) -> tensor<8x4xf32> {
  %s = tile.splat %x : f32 -> tensor<4x8xf32>
  %0 = tile.trans %s {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  tile.return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: tile.func public @trans_of_constant_splat()
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<1.000000e+00> : tensor<8x4xf32>
// CHECK-NOT: tile.trans
// CHECK-NEXT: tile.return %[[CST]] : tensor<8x4xf32>
tile.func public @trans_of_constant_splat() -> tensor<8x4xf32> {
  %c = arith.constant dense<1.0> : tensor<4x8xf32>
  %0 = tile.trans %c {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  tile.return %0 : tensor<8x4xf32>
}

// CHECK-LABEL: tile.func public @trans_of_argument_stays(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[X]] {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: tile.return %[[T]]
tile.func public @trans_of_argument_stays(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  tile.return %0 : tensor<8x4xf32>
}

//===----------------------------------------------------------------------===//
// tile.addptr
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @addptr_zero_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>)
// CHECK-NOT: tile.addptr
// CHECK-NOT: arith.constant
// CHECK-NEXT: tile.return %[[P]] : !tile.ptr<f32>
tile.func public @addptr_zero_scalar(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c0 = arith.constant 0 : i32
  %0 = tile.addptr %p, %c0 : !tile.ptr<f32>, i32
  tile.return %0 : !tile.ptr<f32>
}

// CHECK-LABEL: tile.func public @addptr_zero_dense_tensor(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
// CHECK-NOT: tile.addptr
// CHECK-NEXT: tile.return %[[P]] : tensor<128x!tile.ptr<f32>>
tile.func public @addptr_zero_dense_tensor(%p: tensor<128x!tile.ptr<f32>>) -> tensor<128x!tile.ptr<f32>> {
  %c0 = arith.constant dense<0> : tensor<128xi64>
  %0 = tile.addptr %p, %c0 : tensor<128x!tile.ptr<f32>>, tensor<128xi64>
  tile.return %0 : tensor<128x!tile.ptr<f32>>
}

// CHECK-LABEL: tile.func public @addptr_splat_zero_tensor(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
// CHECK-NOT: tile.splat
// CHECK-NOT: tile.addptr
// CHECK-NEXT: tile.return %[[P]] : tensor<128x!tile.ptr<f32>>
tile.func public @addptr_splat_zero_tensor(%p: tensor<128x!tile.ptr<f32>>) -> tensor<128x!tile.ptr<f32>> {
  %c0 = arith.constant 0 : i32
  %s = tile.splat %c0 : i32 -> tensor<128xi32>
  %0 = tile.addptr %p, %s : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.return %0 : tensor<128x!tile.ptr<f32>>
}

// CHECK-LABEL: tile.func public @addptr_nonzero_stays(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>)
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : i32
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[C4]] : !tile.ptr<f32>, i32
// CHECK-NEXT: tile.return %[[Q]] : !tile.ptr<f32>
tile.func public @addptr_nonzero_stays(%p: !tile.ptr<f32>) -> !tile.ptr<f32> {
  %c4 = arith.constant 4 : i32
  %0 = tile.addptr %p, %c4 : !tile.ptr<f32>, i32
  tile.return %0 : !tile.ptr<f32>
}

// Offsets that are not all zero stay, even when some are.
// CHECK-LABEL: tile.func public @addptr_non_splat_offsets_stay(
// CHECK-SAME: %[[P:.*]]: tensor<4x!tile.ptr<f32>>)
// CHECK-NEXT: %[[CST:.*]] = arith.constant dense<[0, 0, 0, 1]> : tensor<4xi32>
// CHECK-NEXT: %[[Q:.*]] = tile.addptr %[[P]], %[[CST]] : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
// CHECK-NEXT: tile.return %[[Q]]
tile.func public @addptr_non_splat_offsets_stay(%p: tensor<4x!tile.ptr<f32>>) -> tensor<4x!tile.ptr<f32>> {
  %c = arith.constant dense<[0, 0, 0, 1]> : tensor<4xi32>
  %0 = tile.addptr %p, %c : tensor<4x!tile.ptr<f32>>, tensor<4xi32>
  tile.return %0 : tensor<4x!tile.ptr<f32>>
}

//===----------------------------------------------------------------------===//
// tile.load
//===----------------------------------------------------------------------===//

// The mask and `other` go; the hints stay.
// CHECK-LABEL: tile.func public @load_all_true_mask(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] cacheModifier = cg : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[L]] : tensor<128xf32>
tile.func public @load_all_true_mask(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %m = arith.constant dense<true> : tensor<128xi1>
  %0 = tile.load %p, %m, %o cacheModifier = cg : tensor<128x!tile.ptr<f32>>
  tile.return %0 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @load_true_scalar_mask(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] : !tile.ptr<f32>
// CHECK-NEXT: tile.return %[[L]] : f32
tile.func public @load_true_scalar_mask(%p: !tile.ptr<f32>) -> f32 {
  %m = arith.constant true
  %0 = tile.load %p, %m : !tile.ptr<f32>
  tile.return %0 : f32
}

// A splat of true folds to a constant mask, which then goes.
// CHECK-LABEL: tile.func public @load_splat_true_mask(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
// CHECK-NOT: tile.splat
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[L]] : tensor<128xf32>
tile.func public @load_splat_true_mask(%p: tensor<128x!tile.ptr<f32>>) -> tensor<128xf32> {
  %t = arith.constant true
  %m = tile.splat %t : i1 -> tensor<128xi1>
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  tile.return %0 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @load_variable_mask_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]], %[[O]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[L]]
tile.func public @load_variable_mask_stays(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) -> tensor<128xf32> {
  %0 = tile.load %p, %m, %o : tensor<128x!tile.ptr<f32>>
  tile.return %0 : tensor<128xf32>
}

// CHECK-LABEL: tile.func public @load_non_splat_mask_stays(
// CHECK-SAME: %[[P:.*]]: tensor<2x!tile.ptr<f32>>)
// CHECK-NEXT: %[[M:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: %[[L:.*]] = tile.load %[[P]], %[[M]] : tensor<2x!tile.ptr<f32>>
// CHECK-NEXT: tile.return %[[L]]
tile.func public @load_non_splat_mask_stays(%p: tensor<2x!tile.ptr<f32>>) -> tensor<2xf32> {
  %m = arith.constant dense<[true, false]> : tensor<2xi1>
  %0 = tile.load %p, %m : tensor<2x!tile.ptr<f32>>
  tile.return %0 : tensor<2xf32>
}

//===----------------------------------------------------------------------===//
// tile.store
//===----------------------------------------------------------------------===//

// The mask goes; the hints stay.
// CHECK-LABEL: tile.func public @store_all_true_mask(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[V:.*]]: tensor<128xf32>)
// CHECK-NOT: arith.constant
// CHECK-NEXT: tile.store %[[P]], %[[V]] evictionPolicy = evict_last : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
tile.func public @store_all_true_mask(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>) {
  %m = arith.constant dense<true> : tensor<128xi1>
  tile.store %p, %v, %m evictionPolicy = evict_last : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @store_all_false_mask(
// CHECK-NOT: arith.constant
// CHECK-NOT: tile.store
// CHECK-NEXT: tile.return
tile.func public @store_all_false_mask(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>) {
  %m = arith.constant dense<false> : tensor<128xi1>
  tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @store_false_scalar_mask(
// CHECK-NOT: tile.store
// CHECK-NEXT: tile.return
tile.func public @store_false_scalar_mask(%p: !tile.ptr<f32>, %v: f32) {
  %m = arith.constant false
  tile.store %p, %v, %m : !tile.ptr<f32>
  tile.return
}

// CHECK-LABEL: tile.func public @store_variable_mask_stays(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[V:.*]]: tensor<128xf32>, %[[M:.*]]: tensor<128xi1>)
// CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] : tensor<128x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
tile.func public @store_variable_mask_stays(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>) {
  tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @store_non_splat_mask_stays(
// CHECK-SAME: %[[P:.*]]: tensor<2x!tile.ptr<f32>>, %[[V:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[M:.*]] = arith.constant dense<[true, false]> : tensor<2xi1>
// CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] : tensor<2x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
tile.func public @store_non_splat_mask_stays(%p: tensor<2x!tile.ptr<f32>>, %v: tensor<2xf32>) {
  %m = arith.constant dense<[true, false]> : tensor<2xi1>
  tile.store %p, %v, %m : tensor<2x!tile.ptr<f32>>
  tile.return
}

// A barrier keeps the load after it: CSE and canonicalization must not
// forward the first load across it.
// CHECK-LABEL: tile.func public @barrier_orders_memory(
// CHECK: tile.load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.load
tile.func public @barrier_orders_memory(%p: !tile.ptr<f32>) -> (f32, f32) {
  %a = tile.load %p : !tile.ptr<f32>
  tile.barrier
  %b = tile.load %p : !tile.ptr<f32>
  tile.return %a, %b : f32, f32
}
