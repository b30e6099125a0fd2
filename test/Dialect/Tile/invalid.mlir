// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Every error of the tile dialect's op verifiers (lib/Dialect/Tile/IR/
// TileOps.cpp), one case each, plus a few of the ODS-generated constraint
// errors.  The type verifiers are in invalid-types.mlir.

//===----------------------------------------------------------------------===//
// tile.make_range
//===----------------------------------------------------------------------===//

tile.func public @make_range_empty() {
  // expected-error @+1 {{'tile.make_range' op start (8) must be less than end (8)}}
  %r = tile.make_range {start = 8 : i32, end = 8 : i32} : tensor<0xi32>
  tile.return
}

// -----

tile.func public @make_range_reversed() {
  // expected-error @+1 {{'tile.make_range' op start (16) must be less than end (0)}}
  %r = tile.make_range {start = 16 : i32, end = 0 : i32} : tensor<16xi32>
  tile.return
}

// -----

tile.func public @make_range_rank2() {
  // expected-error @+1 {{'tile.make_range' op result must be a 1-D tensor, got 'tensor<4x4xi32>'}}
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<4x4xi32>
  tile.return
}

// -----

tile.func public @make_range_wrong_size() {
  // expected-error @+1 {{'tile.make_range' op result has 128 elements but the range [0, 64) has 64}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<128xi32>
  tile.return
}

// The attributes are signed: a large start above a negative end is empty.
tile.func public @make_range_signed_empty() {
  // expected-error @+1 {{'tile.make_range' op start (2147483647) must be less than end (-2147483648)}}
  %r = tile.make_range {start = 2147483647 : i32, end = -2147483648 : i32} : tensor<1xi32>
  tile.return
}

// -----

// ODS: the result must hold i32.
tile.func public @make_range_i64() {
  // expected-error @+1 {{'tile.make_range' op result #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<64xi64>'}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi64>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.splat
//===----------------------------------------------------------------------===//

// -----

tile.func public @splat_element_mismatch(%x: i32) {
  // expected-error @+1 {{'tile.splat' op result element type 'i64' differs from the operand type 'i32'}}
  %t = tile.splat %x : i32 -> tensor<128xi64>
  tile.return
}

// -----

tile.func public @splat_ptr_mismatch(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.splat' op result element type '!tile.ptr<f16>' differs from the operand type '!tile.ptr<f32>'}}
  %t = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f16>>
  tile.return
}

// -----

// ODS: splat takes a scalar, not a tensor.
tile.func public @splat_of_tensor(%x: tensor<1xf32>) {
  // expected-error @+1 {{'tile.splat' op operand #0 must be floating-point or integer or pointer, but got 'tensor<1xf32>'}}
  %t = tile.splat %x : tensor<1xf32> -> tensor<128xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.broadcast
//===----------------------------------------------------------------------===//

// -----

tile.func public @broadcast_element_mismatch(%x: tensor<1x128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op result element type 'f16' differs from the source element type 'f32'}}
  %b = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf16>
  tile.return
}

// -----

tile.func public @broadcast_rank_mismatch(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op result rank (2) differs from source rank (1); insert dimensions with tile.expand_dims first}}
  %b = tile.broadcast %x : tensor<128xf32> -> tensor<64x128xf32>
  tile.return
}

// -----

tile.func public @broadcast_non_unit_dim(%x: tensor<2x128xf32>) {
  // expected-error @+1 {{'tile.broadcast' op dimension 0 of size 2 cannot be broadcast to 64; only dimensions of size 1 broadcast}}
  %b = tile.broadcast %x : tensor<2x128xf32> -> tensor<64x128xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.expand_dims
//===----------------------------------------------------------------------===//

// -----

tile.func public @expand_dims_axis_too_large(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis 2 is out of range for a rank-1 source (expected 0 to 1)}}
  %e = tile.expand_dims %x {axis = 2 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  tile.return
}

// -----

tile.func public @expand_dims_axis_negative(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op axis -1 is out of range for a rank-1 source (expected 0 to 1)}}
  %e = tile.expand_dims %x {axis = -1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  tile.return
}

// -----

tile.func public @expand_dims_wrong_result(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type 'tensor<1x128xi32>' is not the source with a dimension of size 1 inserted at axis 1 (expected 'tensor<128x1xi32>')}}
  %e = tile.expand_dims %x {axis = 1 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  tile.return
}

// -----

tile.func public @expand_dims_wrong_element(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.expand_dims' op result type 'tensor<1x128xi64>' is not the source with a dimension of size 1 inserted at axis 0 (expected 'tensor<1x128xi32>')}}
  %e = tile.expand_dims %x {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi64>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

// -----

tile.func public @reshape_element_mismatch(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.reshape' op result element type 'f32' differs from the source element type 'f16'}}
  %r = tile.reshape %x : tensor<64x32xf16> -> tensor<2048xf32>
  tile.return
}

// -----

tile.func public @reshape_count_mismatch(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.reshape' op source has 2048 elements but the result has 1024}}
  %r = tile.reshape %x allow_reorder : tensor<64x32xf16> -> tensor<32x32xf16>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.trans
//===----------------------------------------------------------------------===//

// -----

tile.func public @trans_order_size(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.trans' op order has 3 entries but the source has rank 2}}
  %t = tile.trans %x {order = array<i32: 2, 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  tile.return
}

// -----

tile.func public @trans_order_repeated(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.trans' op order [1, 1] is not a permutation of 0 to 1}}
  %t = tile.trans %x {order = array<i32: 1, 1>} : tensor<64x32xf16> -> tensor<32x32xf16>
  tile.return
}

// -----

tile.func public @trans_order_out_of_range(%x: tensor<4x64x32xf16>) {
  // expected-error @+1 {{'tile.trans' op order [0, 3, 1] is not a permutation of 0 to 2}}
  %t = tile.trans %x {order = array<i32: 0, 3, 1>} : tensor<4x64x32xf16> -> tensor<4x32x64xf16>
  tile.return
}

// -----

tile.func public @trans_order_negative(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.trans' op order [-1, 0] is not a permutation of 0 to 1}}
  %t = tile.trans %x {order = array<i32: -1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  tile.return
}

// -----

tile.func public @trans_wrong_result(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.trans' op result type 'tensor<64x32xf16>' is not the source permuted by the order (expected 'tensor<32x64xf16>')}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<64x32xf16>
  tile.return
}

// -----

tile.func public @trans_wrong_result_element(%x: tensor<64x32xf16>) {
  // expected-error @+1 {{'tile.trans' op result type 'tensor<32x64xf32>' is not the source permuted by the order (expected 'tensor<32x64xf16>')}}
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.addptr, tile.int_to_ptr, tile.ptr_to_int, tile.bitcast
//===----------------------------------------------------------------------===//

// -----

tile.func public @addptr_scalar_ptr_tensor_offset(%p: !tile.ptr<f32>, %o: tensor<128xi32>) {
  // expected-error @+1 {{'tile.addptr' op ptr and offset must both be scalars or tensors of one shape, got '!tile.ptr<f32>' and 'tensor<128xi32>'}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, tensor<128xi32>
  tile.return
}

// -----

tile.func public @addptr_shape_mismatch(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error @+1 {{'tile.addptr' op ptr and offset must both be scalars or tensors of one shape, got 'tensor<128x!tile.ptr<f32>>' and 'tensor<64xi32>'}}
  %q = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, tensor<64xi32>
  tile.return
}

// -----

// ODS: the offset is an integer.
tile.func public @addptr_float_offset(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{'tile.addptr' op operand #1 must be integer or ranked tensor of integer values, but got 'f32'}}
  %q = tile.addptr %p, %o : !tile.ptr<f32>, f32
  tile.return
}

// -----

tile.func public @int_to_ptr_shape(%i: i64) {
  // expected-error @+1 {{'tile.int_to_ptr' op operand and result must have the same shape}}
  %p = tile.int_to_ptr %i : i64 -> tensor<4x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func public @ptr_to_int_shape(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.ptr_to_int' op operand and result must have the same shape}}
  %i = tile.ptr_to_int %p : tensor<4x!tile.ptr<f32>> -> tensor<8xi64>
  tile.return
}

// -----

// ODS: pointers are 64-bit integers.
tile.func public @ptr_to_int_i32(%p: !tile.ptr<f32>) {
  // expected-error @+1 {{'tile.ptr_to_int' op result #0 must be 64-bit signless integer or ranked tensor of 64-bit signless integer values, but got 'i32'}}
  %i = tile.ptr_to_int %p : !tile.ptr<f32> -> i32
  tile.return
}

// -----

tile.func public @bitcast_shape(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.bitcast' op operand and result must have the same shape}}
  %y = tile.bitcast %x : tensor<64xf32> -> tensor<32xi32>
  tile.return
}

// -----

tile.func public @bitcast_scalar_to_tensor(%x: f32) {
  // expected-error @+1 {{'tile.bitcast' op operand and result must have the same shape}}
  %y = tile.bitcast %x : f32 -> tensor<1xi32>
  tile.return
}

// -----

tile.func public @bitcast_ptr_to_int(%p: tensor<64x!tile.ptr<f16>>) {
  // expected-error @+1 {{'tile.bitcast' op cannot bitcast between a pointer and 'i64'; use tile.ptr_to_int or tile.int_to_ptr}}
  %y = tile.bitcast %p : tensor<64x!tile.ptr<f16>> -> tensor<64xi64>
  tile.return
}

// -----

tile.func public @bitcast_int_to_ptr(%x: i64) {
  // expected-error @+1 {{'tile.bitcast' op cannot bitcast between a pointer and 'i64'; use tile.ptr_to_int or tile.int_to_ptr}}
  %y = tile.bitcast %x : i64 -> !tile.ptr<f32>
  tile.return
}

// -----

tile.func public @bitcast_width(%x: tensor<64xf32>) {
  // expected-error @+1 {{'tile.bitcast' op cannot bitcast 'f32' (32 bits) to 'f16' (16 bits)}}
  %y = tile.bitcast %x : tensor<64xf32> -> tensor<64xf16>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.load, tile.store
//===----------------------------------------------------------------------===//

// -----

// The custom syntax reads a lone second operand as the mask, so 'other'
// without a mask needs the generic form.
tile.func public @load_other_without_mask(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xf32>) {
  // expected-error @+1 {{'tile.load' op 'other' gives the value of masked-off elements and needs a mask}}
  %x = "tile.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<128x!tile.ptr<f32>>, tensor<128xf32>) -> tensor<128xf32>
  tile.return
}

// -----

// ODS: the mask has the pointers' shape.
tile.func public @load_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error @+1 {{'tile.load' op failed to verify that mask has ptr's shape}}
  %x = "tile.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<128x!tile.ptr<f32>>, tensor<64xi1>) -> tensor<128xf32>
  tile.return
}

// -----

// ODS: the result is what the pointers point to.
tile.func public @load_result_type(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{'tile.load' op failed to verify that result is the pointee type of ptr}}
  %x = "tile.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<128x!tile.ptr<f32>>) -> tensor<128xf16>
  tile.return
}

// -----

// ODS: the stored value is what the pointers point to.
tile.func public @store_value_type(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf16>) {
  // expected-error @+1 {{'tile.store' op failed to verify that value is the pointee type of ptr}}
  "tile.store"(%p, %v) : (tensor<128x!tile.ptr<f32>>, tensor<128xf16>) -> ()
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.atomic_rmw, tile.atomic_cas
//===----------------------------------------------------------------------===//

// -----

tile.func public @atomic_fadd_int(%p: tensor<128x!tile.ptr<i32>>, %v: tensor<128xi32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'fadd' needs f16, bf16, f32 or f64 elements, got 'i32'}}
  %o = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<i32>>
  tile.return
}

// -----

tile.func public @atomic_fadd_fp8(%p: !tile.ptr<f8E4M3FN>, %v: f8E4M3FN) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'fadd' needs f16, bf16, f32 or f64 elements, got 'f8E4M3FN'}}
  %o = tile.atomic_rmw fadd, relaxed, cta, %p, %v : !tile.ptr<f8E4M3FN>
  tile.return
}

// -----

tile.func public @atomic_xchg_f16(%p: tensor<128x!tile.ptr<f16>>, %v: tensor<128xf16>) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'xchg' needs 32- or 64-bit elements, got 'f16'}}
  %o = tile.atomic_rmw xchg, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<f16>>
  tile.return
}

// -----

tile.func public @atomic_xchg_i8(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'xchg' needs 32- or 64-bit elements, got 'i8'}}
  %o = tile.atomic_rmw xchg, acq_rel, gpu, %p, %v : !tile.ptr<i8>
  tile.return
}

// -----

tile.func public @atomic_max_f32(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'max' needs 32- or 64-bit integer elements (float max and min are built from integer atomics by the frontend), got 'f32'}}
  %o = tile.atomic_rmw max, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func public @atomic_min_i16(%p: !tile.ptr<i16>, %v: i16) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'min' needs 32- or 64-bit integer elements (float max and min are built from integer atomics by the frontend), got 'i16'}}
  %o = tile.atomic_rmw min, acquire, sys, %p, %v : !tile.ptr<i16>
  tile.return
}

// -----

tile.func public @atomic_add_f32(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'add' needs 32- or 64-bit integer elements, got 'f32'}}
  %o = tile.atomic_rmw add, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// -----

tile.func public @atomic_and_i8(%p: tensor<128x!tile.ptr<i8>>, %v: tensor<128xi8>, %m: tensor<128xi1>) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'and' needs 32- or 64-bit integer elements, got 'i8'}}
  %o = tile.atomic_rmw and, release, gpu, %p, %v, %m : tensor<128x!tile.ptr<i8>>
  tile.return
}

// -----

tile.func public @atomic_umax_f64(%p: !tile.ptr<f64>, %v: f64) {
  // expected-error @+1 {{'tile.atomic_rmw' op 'umax' needs 32- or 64-bit integer elements, got 'f64'}}
  %o = tile.atomic_rmw umax, relaxed, gpu, %p, %v : !tile.ptr<f64>
  tile.return
}

// -----

// ODS: the mask has the pointers' shape.
tile.func public @atomic_rmw_mask_shape(%p: tensor<128x!tile.ptr<i32>>, %v: tensor<128xi32>, %m: i1) {
  // expected-error @+1 {{'tile.atomic_rmw' op failed to verify that mask has ptr's shape}}
  %o = "tile.atomic_rmw"(%p, %v, %m) <{atomic_rmw_op = 1 : i32, sem = 4 : i32, scope = 1 : i32}> : (tensor<128x!tile.ptr<i32>>, tensor<128xi32>, i1) -> tensor<128xi32>
  tile.return
}

// -----

tile.func public @atomic_cas_i8(%p: !tile.ptr<i8>, %c: i8, %v: i8) {
  // expected-error @+1 {{'tile.atomic_cas' op needs 16-, 32- or 64-bit elements, got 'i8'}}
  %o = tile.atomic_cas acq_rel, gpu, %p, %c, %v : !tile.ptr<i8>
  tile.return
}

// -----

tile.func public @atomic_cas_i1(%p: tensor<16x!tile.ptr<i1>>, %c: tensor<16xi1>, %v: tensor<16xi1>) {
  // expected-error @+1 {{'tile.atomic_cas' op needs 16-, 32- or 64-bit elements, got 'i1'}}
  %o = tile.atomic_cas acq_rel, gpu, %p, %c, %v : tensor<16x!tile.ptr<i1>>
  tile.return
}

// Pointers are 64-bit values for atomic_cas; i8 is not.
tile.func public @atomic_cas_element_widths(%p: !tile.ptr<!tile.ptr<i32>>, %v: !tile.ptr<i32>, %q: !tile.ptr<i8>, %b: i8) {
  %o = tile.atomic_cas acq_rel, gpu, %p, %v, %v : !tile.ptr<!tile.ptr<i32>>
  // expected-error @+1 {{'tile.atomic_cas' op needs 16-, 32- or 64-bit elements, got 'i8'}}
  %o2 = tile.atomic_cas acq_rel, gpu, %q, %b, %b : !tile.ptr<i8>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.make_tensor_descriptor, tile.descriptor_load, tile.descriptor_store
//===----------------------------------------------------------------------===//

// -----

tile.func public @make_desc_shape_count(%base: !tile.ptr<f16>, %m: i32, %s: i64, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op a rank-2 descriptor needs 2 shape values, got 1}}
  %d = tile.make_tensor_descriptor %base, [%m], [%s, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func public @make_desc_stride_count(%base: !tile.ptr<f16>, %m: i32, %k: i32, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op a rank-2 descriptor needs 2 strides, got 1}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func public @make_desc_element_mismatch(%base: !tile.ptr<f32>, %m: i32, %k: i32, %s: i64, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op base points to 'f32' but the descriptor's blocks hold 'f16'}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%s, %c1] : !tile.ptr<f32>, !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func public @make_desc_block_too_large(%base: !tile.ptr<f16>, %m: i32, %k: i32, %s: i64, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op block dimension 0 is 512; TMA moves at most 256 elements per dimension}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%s, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<512x64xf16>>
  tile.return
}

// -----

tile.func public @make_desc_inner_bytes(%base: !tile.ptr<f16>, %m: i32, %k: i32, %s: i64, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op the innermost block dimension spans 8 bytes; TMA needs a multiple of 16 bytes}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%s, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x4xf16>>
  tile.return
}

// -----

// ODS: shapes are i32 and strides i64.
tile.func public @make_desc_i32_stride(%base: !tile.ptr<f16>, %m: i32, %s: i32) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op operand #2 must be variadic of 64-bit signless integer, but got 'i32'}}
  %d = "tile.make_tensor_descriptor"(%base, %m, %s) <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (!tile.ptr<f16>, i32, i32) -> !tile.tensordesc<tensor<64xf16>>
  tile.return
}

// -----

tile.func public @descriptor_load_index_count(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op a rank-2 descriptor needs 2 indices, got 1}}
  %a = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tile.return
}

// -----

tile.func public @descriptor_load_block_type(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %j: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op result type 'tensor<64x32xf16>' differs from the descriptor's block type 'tensor<64x64xf16>'}}
  %a = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x32xf16>
  tile.return
}

// -----

tile.func public @descriptor_load_element_type(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %j: i32) {
  // expected-error @+1 {{'tile.descriptor_load' op result type 'tensor<64x64xbf16>' differs from the descriptor's block type 'tensor<64x64xf16>'}}
  %a = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xbf16>
  tile.return
}

// -----

tile.func public @descriptor_store_index_count(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %c: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.descriptor_store' op a rank-2 descriptor needs 2 indices, got 3}}
  tile.descriptor_store %d[%i, %i, %i], %c : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  tile.return
}

// -----

tile.func public @descriptor_store_block_type(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %j: i32, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.descriptor_store' op stored value type 'tensor<64x64xf32>' differs from the descriptor's block type 'tensor<64x64xf16>'}}
  tile.descriptor_store %d[%i, %j], %c : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.dot
//===----------------------------------------------------------------------===//

// -----

tile.func public @dot_rank1(%a: tensor<64xf16>, %b: tensor<64xf16>, %c: tensor<64xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be rank 2 (M x K, K x N) or rank 3 with a leading batch dimension, got rank 1}}
  %d = tile.dot %a, %b, %c : tensor<64xf16> * tensor<64xf16> -> tensor<64xf32>
  tile.return
}

// -----

tile.func public @dot_rank4(%a: tensor<1x2x16x16xf16>, %c: tensor<1x2x16x16xf32>) {
  // expected-error @+1 {{'tile.dot' op operands must be rank 2 (M x K, K x N) or rank 3 with a leading batch dimension, got rank 4}}
  %d = tile.dot %a, %a, %c : tensor<1x2x16x16xf16> * tensor<1x2x16x16xf16> -> tensor<1x2x16x16xf32>
  tile.return
}

// -----

tile.func public @dot_rank_mismatch(%a: tensor<64x32xf16>, %b: tensor<2x32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op a, b and c must have one rank, got 2, 3 and 2}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<2x32x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_inner_dims(%a: tensor<64x32xf16>, %b: tensor<16x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op a is 64 x 32 and b is 16 x 64: the inner dimensions must match}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<16x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_accumulator_shape(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator shape [64, 64] must be 64 x 128}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_batch_dims(%a: tensor<2x64x32xf16>, %b: tensor<4x32x64xf16>, %c: tensor<2x64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op batch dimensions differ: 2, 4 and 2}}
  %d = tile.dot %a, %b, %c : tensor<2x64x32xf16> * tensor<4x32x64xf16> -> tensor<2x64x64xf32>
  tile.return
}

// -----

tile.func public @dot_element_types_differ(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op operand element types differ ('f16' and 'bf16'); only fp8 kinds may be mixed}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_fp8_with_f16(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op operand element types differ ('f8E4M3FN' and 'f16'); only fp8 kinds may be mixed}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf8E4M3FN> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_f16_acc(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xbf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'bf16' is not allowed for 'f16' operands; use f32 or f16}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xbf16>
  tile.return
}

// -----

tile.func public @dot_fp8_acc(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E5M2>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'i32' is not allowed for 'f8E4M3FN' operands; use f32 or f16}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xi32>
  tile.return
}

// -----

tile.func public @dot_bf16_acc(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>, %c: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f16' is not allowed for 'bf16' operands; use f32}}
  %d = tile.dot %a, %b, %c : tensor<64x32xbf16> * tensor<32x64xbf16> -> tensor<64x64xf16>
  tile.return
}

// -----

tile.func public @dot_f32_acc(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf16>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f16' is not allowed for 'f32' operands; use f32}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf16>
  tile.return
}

// -----

tile.func public @dot_i8_acc(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f32' is not allowed for 'i8' operands; use i32}}
  %d = tile.dot %a, %b, %c : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_f64(%a: tensor<64x32xf64>, %b: tensor<32x64xf64>, %c: tensor<64x64xf64>) {
  // expected-error @+1 {{'tile.dot' op operand element type 'f64' is not supported; use f16, bf16, f8E4M3FN, f8E5M2, f32 or i8}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf64> * tensor<32x64xf64> -> tensor<64x64xf64>
  tile.return
}

// -----

tile.func public @dot_i32(%a: tensor<64x32xi32>, %b: tensor<32x64xi32>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op operand element type 'i32' is not supported; use f16, bf16, f8E4M3FN, f8E5M2, f32 or i8}}
  %d = tile.dot %a, %b, %c : tensor<64x32xi32> * tensor<32x64xi32> -> tensor<64x64xi32>
  tile.return
}

// -----

tile.func public @dot_input_precision_f16(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op input precision 'tf32' applies to f32 operands only, got 'f16'}}
  %d = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_input_precision_i8(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op input precision 'tf32x3' applies to f32 operands only, got 'i8'}}
  %d = tile.dot %a, %b, %c inputPrecision = tf32x3 : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
  tile.return
}

// -----

tile.func public @dot_max_imprecise_f16(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op maxNumImpreciseAcc applies to fp8 operands only, got 'f16'}}
  %d = tile.dot %a, %b, %c maxNumImpreciseAcc = 32 : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  tile.return
}

tile.func public @dot_max_imprecise_negative(%a: tensor<64x32xf8E5M2>, %b: tensor<32x64xf8E5M2>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op maxNumImpreciseAcc must be non-negative}}
  %d = tile.dot %a, %b, %c maxNumImpreciseAcc = -1 : tensor<64x32xf8E5M2> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  tile.return
}

// -----

// ODS: c and d have one type.
tile.func public @dot_c_d_differ(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op failed to verify that all of {c, d} have same type}}
  %d = "tile.dot"(%a, %b, %c) : (tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>) -> tensor<64x64xf16>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.fp_to_fp
//===----------------------------------------------------------------------===//

// -----

tile.func public @fp_to_fp_same(%x: tensor<128xf8E4M3FN>) {
  // expected-error @+1 {{'tile.fp_to_fp' op source and result element types are both 'f8E4M3FN'}}
  %y = tile.fp_to_fp %x : tensor<128xf8E4M3FN> -> tensor<128xf8E4M3FN>
  tile.return
}

// -----

tile.func public @fp_to_fp_no_fp8(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.fp_to_fp' op converts to or from an fp8 type; use arith.extf or arith.truncf for 'f32' to 'f16'}}
  %y = tile.fp_to_fp %x, rounding = rtne : tensor<128xf32> -> tensor<128xf16>
  tile.return
}

// -----

tile.func public @fp_to_fp_missing_rounding(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.fp_to_fp' op conversion from 'f32' to 'f8E4M3FN' is inexact and needs a rounding mode (rtne or rtz)}}
  %y = tile.fp_to_fp %x : tensor<128xf32> -> tensor<128xf8E4M3FN>
  tile.return
}

// -----

tile.func public @fp_to_fp_fp8_to_fp8_no_rounding(%x: f8E4M3FN) {
  // expected-error @+1 {{'tile.fp_to_fp' op conversion from 'f8E4M3FN' to 'f8E5M2' is inexact and needs a rounding mode (rtne or rtz)}}
  %y = tile.fp_to_fp %x : f8E4M3FN -> f8E5M2
  tile.return
}

// -----

tile.func public @fp_to_fp_rounding_on_widening(%x: tensor<128xf8E5M2>) {
  // expected-error @+1 {{'tile.fp_to_fp' op conversion from 'f8E5M2' to 'f16' is exact and takes no rounding mode}}
  %y = tile.fp_to_fp %x, rounding = rtz : tensor<128xf8E5M2> -> tensor<128xf16>
  tile.return
}

// -----

// ODS: source and result have one shape.
tile.func public @fp_to_fp_shape(%x: tensor<128xf8E5M2>) {
  // expected-error @+1 {{'tile.fp_to_fp' op requires the same shape for all operands and results}}
  %y = tile.fp_to_fp %x : tensor<128xf8E5M2> -> tensor<64xf16>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.reduce
//===----------------------------------------------------------------------===//

// -----

tile.func public @reduce_no_operands() {
  // expected-error @+1 {{'tile.reduce' op needs at least one operand}}
  %s = "tile.reduce"() <{axis = 0 : i32}> ({
  ^bb0:
    "tile.reduce.return"() : () -> ()
  }) : () -> f32
  tile.return
}

// -----

tile.func public @reduce_operand_shapes(%x: tensor<128xf32>, %y: tensor<64xi32>) {
  // expected-error @+1 {{'tile.reduce' op operand #1 has shape [64] but operand #0 has shape [128]}}
  %s:2 = tile.reduce %x, %y axis = 0 : tensor<128xf32>, tensor<64xi32> -> f32, i32 {
  ^bb0(%l0: f32, %l1: i32, %r0: f32, %r1: i32):
    tile.reduce.return %l0, %l1 : f32, i32
  }
  tile.return
}

// -----

tile.func public @reduce_axis_out_of_range(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis 2 is out of range for rank 2 operands (expected 0 to 1)}}
  %s = tile.reduce %x axis = 2 : tensor<64x128xf32> -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_axis_negative(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op axis -1 is out of range for rank 1 operands (expected 0 to 0)}}
  %s = tile.reduce %x axis = -1 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_result_count(%x: tensor<128xf32>, %i: tensor<128xi32>) {
  // expected-error @+1 {{'tile.reduce' op has 2 operands but 1 results}}
  %s = tile.reduce %x, %i axis = 0 : tensor<128xf32>, tensor<128xi32> -> f32 {
  ^bb0(%l0: f32, %l1: i32, %r0: f32, %r1: i32):
    tile.reduce.return %l0, %l1 : f32, i32
  }
  tile.return
}

// -----

tile.func public @reduce_result_type_2d(%x: tensor<64x128xf32>) {
  // expected-error @+1 {{'tile.reduce' op result #0 has type 'tensor<128xf32>'; reducing axis 1 of 'tensor<64x128xf32>' gives 'tensor<64xf32>'}}
  %s = tile.reduce %x axis = 1 : tensor<64x128xf32> -> tensor<128xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_result_type_1d(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op result #0 has type 'tensor<1xf32>'; reducing axis 0 of 'tensor<128xf32>' gives 'f32'}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> tensor<1xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_arg_count(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner takes 2 arguments (left and right values of 1 operands), got 1}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32):
    tile.reduce.return %l : f32
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_arg_type(%x: tensor<128xf32>, %i: tensor<128xi32>) {
  // expected-error @+1 {{'tile.reduce' op combiner argument #3 has type 'f32'; expected 'i32'}}
  %s:2 = tile.reduce %x, %i axis = 0 : tensor<128xf32>, tensor<128xi32> -> f32, i32 {
  ^bb0(%l0: f32, %l1: i32, %r0: f32, %r1: f32):
    tile.reduce.return %l0, %l1 : f32, i32
  }
  tile.return
}

// -----

// The region must end with tile.reduce.return; ub.unreachable is a
// terminator that the generic region checks accept.
tile.func public @reduce_combiner_terminator(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner must end with tile.reduce.return}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    ub.unreachable
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_result_count(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner returns 2 values; expected 1}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    tile.reduce.return %l, %r : f32, f32
  }
  tile.return
}

// -----

tile.func public @reduce_combiner_result_type(%x: tensor<128xf32>) {
  // expected-error @+1 {{'tile.reduce' op combiner result #0 has type 'f64'; expected 'f32'}}
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %a = arith.extf %l : f32 to f64
    tile.reduce.return %a : f64
  }
  tile.return
}

// -----

// ODS: tile.reduce.return lives in a tile.reduce.
tile.func public @reduce_return_outside(%x: f32) {
  // expected-error @+1 {{'tile.reduce.return' op expects parent op 'tile.reduce'}}
  tile.reduce.return %x : f32
}

//===----------------------------------------------------------------------===//
// tile.scan
//===----------------------------------------------------------------------===//

// -----

tile.func public @scan_no_operands() {
  // expected-error @+1 {{'tile.scan' op needs at least one operand}}
  "tile.scan"() <{axis = 0 : i32}> ({
  ^bb0:
    "tile.scan.return"() : () -> ()
  }) : () -> ()
  tile.return
}

// -----

tile.func public @scan_operand_shapes(%x: tensor<128xi32>, %y: tensor<4x32xi32>) {
  // expected-error @+1 {{'tile.scan' op operand #1 has shape [4, 32] but operand #0 has shape [128]}}
  %c:2 = tile.scan %x, %y axis = 0 : tensor<128xi32>, tensor<4x32xi32> -> tensor<128xi32>, tensor<4x32xi32> {
  ^bb0(%l0: i32, %l1: i32, %r0: i32, %r1: i32):
    tile.scan.return %l0, %l1 : i32, i32
  }
  tile.return
}

// -----

tile.func public @scan_axis_out_of_range(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op axis 1 is out of range for rank 1 operands (expected 0 to 0)}}
  %c = tile.scan %x axis = 1 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_result_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op has 1 operands but 2 results}}
  %c:2 = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32>, tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_result_type(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op result #0 has type 'tensor<128xi64>'; a scan keeps the operand type 'tensor<128xi32>'}}
  %c = tile.scan %x axis = 0 reverse : tensor<128xi32> -> tensor<128xi64> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_result_shape(%x: tensor<4x32xi32>) {
  // expected-error @+1 {{'tile.scan' op result #0 has type 'tensor<4xi32>'; a scan keeps the operand type 'tensor<4x32xi32>'}}
  %c = tile.scan %x axis = 1 : tensor<4x32xi32> -> tensor<4xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// -----

tile.func public @scan_combiner_arg_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner takes 2 arguments (left and right values of 1 operands), got 3}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32, %e: i32):
    tile.scan.return %l : i32
  }
  tile.return
}

// -----

tile.func public @scan_combiner_arg_type(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner argument #0 has type 'tensor<128xi32>'; expected 'i32'}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: tensor<128xi32>, %r: i32):
    tile.scan.return %r : i32
  }
  tile.return
}

// -----

tile.func public @scan_combiner_terminator(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner must end with tile.scan.return}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    ub.unreachable
  }
  tile.return
}

// -----

// The custom form of tile.scan.return cannot spell zero values (its format
// always wants a type after ':'), hence the generic form.
tile.func public @scan_combiner_result_count(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner returns 0 values; expected 1}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    "tile.scan.return"() : () -> ()
  }
  tile.return
}

// -----

tile.func public @scan_combiner_result_type(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.scan' op combiner result #0 has type 'i1'; expected 'i32'}}
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.cmpi slt, %l, %r : i32
    tile.scan.return %a : i1
  }
  tile.return
}

// -----

// ODS: a tile.reduce combiner cannot end with tile.scan.return.
tile.func public @reduce_with_scan_return(%x: tensor<128xi32>) {
  %s = tile.reduce %x axis = 0 : tensor<128xi32> -> i32 {
  ^bb0(%l: i32, %r: i32):
    // expected-error @+1 {{'tile.scan.return' op expects parent op 'tile.scan'}}
    tile.scan.return %l : i32
  }
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.print
//===----------------------------------------------------------------------===//

// -----

tile.func public @print_is_signed_count(%x: tensor<128xi32>, %y: i32) {
  // expected-error @+1 {{'tile.print' op isSigned has 1 entries but there are 2 arguments}}
  tile.print " x: " {hex = false, isSigned = array<i32: 1>} : %x, %y : tensor<128xi32>, i32
  tile.return
}

// -----

tile.func public @print_is_signed_no_args() {
  // expected-error @+1 {{'tile.print' op isSigned has 2 entries but there are 0 arguments}}
  tile.print "hello" {isSigned = array<i32: 0, 1>}
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.func
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{'tile.func' op argument #0: tile.divisibility must be a positive power of two, got 12 : i32}}
tile.func public @divisibility_not_power_of_two(%x: !tile.ptr<f32> {tile.divisibility = 12 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument #1: tile.divisibility must be a positive power of two, got 0 : i32}}
tile.func public @divisibility_zero(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 0 : i32}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument #0: tile.divisibility must be a positive power of two, got -16 : i64}}
tile.func public @divisibility_negative(%n: i64 {tile.divisibility = -16 : i64}) {
  tile.return
}

// -----

// expected-error @+1 {{'tile.func' op argument #0: tile.divisibility must be a positive power of two, got "16"}}
tile.func public @divisibility_not_integer(%n: i32 {tile.divisibility = "16"}) {
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.call
//===----------------------------------------------------------------------===//

// -----

tile.func public @call_unknown(%a: f32) {
  // expected-error @+1 {{'tile.call' op 'missing' does not name a tile.func in this module}}
  %r = tile.call @missing(%a) : (f32) -> f32
  tile.return
}

// -----

func.func private @not_a_tile_func(%a: f32) -> f32

tile.func public @call_func_func(%a: f32) {
  // expected-error @+1 {{'tile.call' op 'not_a_tile_func' does not name a tile.func in this module}}
  %r = tile.call @not_a_tile_func(%a) : (f32) -> f32
  tile.return
}

// -----

tile.func private @helper(%a: f32, %b: f32) -> f32 {
  tile.return %a : f32
}

tile.func public @call_arg_count(%a: f32) {
  // expected-error @+1 {{'tile.call' op passes 1 arguments but @helper takes 2}}
  %r = tile.call @helper(%a) : (f32) -> f32
  tile.return
}

// -----

tile.func private @helper(%a: f32, %b: f32) -> f32 {
  tile.return %a : f32
}

tile.func public @call_arg_type(%a: f32, %b: f16) {
  // expected-error @+1 {{'tile.call' op argument #1 has type 'f16' but @helper expects 'f32'}}
  %r = tile.call @helper(%a, %b) : (f32, f16) -> f32
  tile.return
}

// -----

tile.func private @helper(%a: f32) -> f32 {
  tile.return %a : f32
}

tile.func public @call_result_count(%a: f32) {
  // expected-error @+1 {{'tile.call' op expects 2 results but @helper returns 1}}
  %r:2 = tile.call @helper(%a) : (f32) -> (f32, f32)
  tile.return
}

// -----

tile.func private @helper(%a: tensor<128xf32>) -> tensor<128xf32> {
  tile.return %a : tensor<128xf32>
}

tile.func public @call_result_type(%a: tensor<128xf32>) {
  // expected-error @+1 {{'tile.call' op result #0 has type 'tensor<64xf32>' but @helper returns 'tensor<128xf32>'}}
  %r = tile.call @helper(%a) : (tensor<128xf32>) -> tensor<64xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// tile.return
//===----------------------------------------------------------------------===//

// -----

tile.func private @return_count(%a: f32) -> f32 {
  // expected-error @+1 {{'tile.return' op returns 0 values but @return_count returns 1}}
  tile.return
}

// -----

tile.func private @return_too_many(%a: f32) {
  // expected-error @+1 {{'tile.return' op returns 1 values but @return_too_many returns 0}}
  tile.return %a : f32
}

// -----

tile.func private @return_type(%a: f16) -> f32 {
  // expected-error @+1 {{'tile.return' op value #0 has type 'f16' but @return_type returns 'f32'}}
  tile.return %a : f16
}

// -----

// ODS: tile.return lives in a tile.func.
func.func @return_in_func_func() {
  // expected-error @+1 {{'tile.return' op expects parent op 'tile.func'}}
  tile.return
}
