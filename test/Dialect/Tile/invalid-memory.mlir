// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Errors of the tile dialect's op verifiers (lib/Dialect/Tile/IR/
// TileOps.cpp) for the ops on pointers and memory: addptr, int_to_ptr,
// ptr_to_int, bitcast, load, store, atomic_rmw, atomic_cas and the tensor
// descriptors; one case each, plus a few of the ODS-generated constraint
// errors.  The other ops' errors are in invalid.mlir.

//===----------------------------------------------------------------------===//
// tile.addptr, tile.int_to_ptr, tile.ptr_to_int, tile.bitcast
//===----------------------------------------------------------------------===//

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
  // expected-error @+1 {{'tile.make_tensor_descriptor' op block dimension 1 is 512; TMA moves at most 256 elements per dimension but the outermost}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%s, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x512xf16>>
  tile.return
}

// -----

tile.func public @make_desc_inner_bytes(%base: !tile.ptr<f16>, %m: i32, %k: i32, %s: i64, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op the innermost block dimension spans 8 bytes; TMA needs a multiple of 16 bytes}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%s, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x4xf16>>
  tile.return
}

// -----

// A constant stride the TMA cannot take is an error where it is written.
tile.func public @make_desc_stride_bytes(%base: !tile.ptr<f16>, %m: i32, %k: i32) {
  %c1 = arith.constant 1 : i64
  %c100 = arith.constant 100 : i64
  // expected-error @+1 {{'tile.make_tensor_descriptor' op stride 100 of dimension 0 is 200 bytes; the TMA needs a positive multiple of 16 bytes}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%c100, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func public @make_desc_inner_stride(%base: !tile.ptr<f16>, %m: i32, %k: i32) {
  %c2 = arith.constant 2 : i64
  %c128 = arith.constant 128 : i64
  // expected-error @+1 {{'tile.make_tensor_descriptor' op the innermost dimension must be contiguous (stride 1), got stride 2}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%c128, %c2] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

tile.func public @make_desc_i1(%base: !tile.ptr<i1>, %m: i32, %k: i32, %s: i64, %c1: i64) {
  // expected-error @+1 {{'tile.make_tensor_descriptor' op the TMA moves whole bytes; 'i1' elements are narrower}}
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%s, %c1] : !tile.ptr<i1>, !tile.tensordesc<tensor<64x128xi1>>
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

// -----

tile.func public @descriptor_reduce_type(%d: !tile.tensordesc<tensor<64x64xf32>>, %i: i32, %v: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.descriptor_reduce' op the TMA cannot reduce 'f32' with xor}}
  tile.descriptor_reduce xor, %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  tile.return
}
