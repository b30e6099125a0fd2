// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Errors of the tile dialect's op verifiers (lib/Dialect/Tile/IR/
// TileOps.cpp), one case each, plus a few of the ODS-generated constraint
// errors: make_range, splat, broadcast, expand_dims, reshape, trans, dot,
// fp_to_fp, print, and functions, calls and returns.  The ops on pointers
// and memory are in invalid-memory.mlir, reduce and scan in
// invalid-reductions.mlir, the type verifiers in invalid-types.mlir.

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

tile.func public @dot_f64_into_f32(%a: tensor<64x32xf64>, %b: tensor<32x64xf64>, %c: tensor<64x64xf32>) {
  // expected-error @+1 {{'tile.dot' op accumulator element type 'f32' is not allowed for 'f64' operands; use f64}}
  %d = tile.dot %a, %b, %c : tensor<64x32xf64> * tensor<32x64xf64> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.func public @dot_i32(%a: tensor<64x32xi32>, %b: tensor<32x64xi32>, %c: tensor<64x64xi32>) {
  // expected-error @+1 {{'tile.dot' op operand element type 'i32' is not supported; use f16, bf16, f8E4M3FN, f8E5M2, f32, f64 or i8}}
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

// -----

// tile.grid_dependency: griddepcontrol's two actions only.
tile.func public @grid_dependency_action() {
  // expected-error @+1 {{'tile.grid_dependency' op action must be "wait" or "launch_dependents", got "signal"}}
  tile.grid_dependency "signal"
  tile.return
}

// -----

tile.func public @inline_asm_shapes(%x: tensor<128xi32>, %y: tensor<64xi32>) {
  // expected-error @+1 {{'tile.elementwise_inline_asm' op operands and results must share one shape (or all be scalars); an operand has type 'tensor<64xi32>'}}
  %z = tile.elementwise_inline_asm "add.s32 $0, $1, $2;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %x, %y : tensor<128xi32>, tensor<64xi32> -> tensor<128xi32>
  tile.return
}

// -----

tile.func public @inline_asm_pack(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.elementwise_inline_asm' op packed_element must be at least 1, got 0}}
  %z = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 0 : i32, pure = true} %x : tensor<128xi32> -> tensor<128xi32>
  tile.return
}

// -----

tile.func public @inline_asm_no_output(%x: tensor<128xi32>) {
  // expected-error @+1 {{'tile.elementwise_inline_asm' op constraints "r" name no output (`=r`, ...)}}
  %z = tile.elementwise_inline_asm "mov.b32 $0, $0;" {constraints = "r", packed_element = 1 : i32, pure = true} %x : tensor<128xi32> -> tensor<128xi32>
  tile.return
}
