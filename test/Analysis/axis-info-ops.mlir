// RUN: warpforge-opt %s -test-print-axis-info -split-input-file -verify-diagnostics=only-expected -o /dev/null

// Transfer functions of the axis analysis, one behaviour per function.  Each
// remark reads: contiguity, divisibility, constancy per dimension, and the
// constant value.  4611686018427387904 (2^62) is the divisibility of zero.

// Scalar integer constants: their own divisibility.
tile.func public @constant_scalar() {
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 48}}
  %c48 = arith.constant 48 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = -8}}
  %cm8 = arith.constant -8 : i64
  // expected-remark @below {{contiguity = [1], divisibility = [4611686018427387904], constancy = [1], constant_value = 0}}
  %c0 = arith.constant 0 : index
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %true = arith.constant true
  tile.return
}

// -----

// A splat dense constant is constant along every dimension.
tile.func public @constant_splat() {
  // expected-remark @below {{contiguity = [1, 1], divisibility = [4, 4], constancy = [4, 8], constant_value = 12}}
  %c = arith.constant dense<12> : tensor<4x8xi32>
  tile.return
}

// -----

// A non-splat dense constant is measured element by element.
tile.func public @constant_dense() {
  // expected-remark @below {{contiguity = [4], divisibility = [8], constancy = [1], constant_value = <none>}}
  %runs = arith.constant dense<[0, 1, 2, 3, 8, 9, 10, 11]> : tensor<8xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 2], constant_value = <none>}}
  %rows = arith.constant dense<[[0, 0], [5, 5]]> : tensor<2x2xi32>
  tile.return
}

// -----

// make_range: contiguous over its length, divisible like its start.
tile.func public @make_range() {
  // expected-remark @below {{contiguity = [128], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  // expected-remark @below {{contiguity = [32], divisibility = [32], constancy = [1], constant_value = <none>}}
  %s = tile.make_range {start = 32 : i32, end = 64 : i32} : tensor<32xi32>
  tile.return
}

// -----

// A layout conversion moves values between threads and keeps them: the
// result has its operand's analysis.
#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
tile.func public @convert_layout_keeps_values() {
  // expected-remark @below {{contiguity = [128], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #a>
  // expected-remark @below {{contiguity = [128], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %c = tilegpu.convert_layout %r : tensor<128xi32, #a> -> tensor<128xi32, #b>
  tile.return
}

// -----

// A range from a negative start.
tile.func public @make_range_negative_start() {
  // expected-remark @below {{contiguity = [16], divisibility = [8], constancy = [1], constant_value = <none>}}
  %r = tile.make_range {start = -8 : i32, end = 8 : i32} : tensor<16xi32>
  tile.return
}

// -----

// A range of 24 elements: aligned runs of 8, starting at 0, 8 and 16.
tile.func public @make_range_not_power_of_two() {
  // expected-remark @below {{contiguity = [8], divisibility = [8], constancy = [1], constant_value = <none>}}
  %r = tile.make_range {start = 0 : i32, end = 24 : i32} : tensor<24xi32>
  tile.return
}

// -----

// Program ids and counts: nothing known.
tile.func public @program_id() {
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pid = tile.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %n = tile.get_num_programs y : i32
  tile.return
}

// -----

// Kernel arguments: tile.divisibility gives the divisor; pointers are at
// least aligned to their pointee.
// expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
// expected-remark @below {{argument #1: contiguity = [1], divisibility = [2], constancy = [1], constant_value = <none>}}
// expected-remark @below {{argument #2: contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
// expected-remark @below {{argument #3: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
tile.func public @arguments(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f16>, %n: i64 {tile.divisibility = 8 : i32}, %m: i32) {
  tile.return
}

// -----

// splat: constant along every dimension, divisible like the scalar.
tile.func public @splat(%n: i32 {tile.divisibility = 8 : i32}, %p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [64], constant_value = <none>}}
  %s = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [4, 64], constant_value = <none>}}
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<4x64x!tile.ptr<f32>>
  tile.return
}

// -----

// expand_dims: the new dimension has runs of one, divisible like every
// element (1 for a contiguous source).
tile.func public @expand_dims(%n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [4611686018427387904, 1], constancy = [1, 1], constant_value = <none>}}
  %col = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %s = tile.splat %n : i32 -> tensor<32xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 32], constant_value = <none>}}
  %row = tile.expand_dims %s {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  tile.return
}

// -----

// broadcast: a broadcast dimension repeats one value.
tile.func public @broadcast() {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %row = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  // expected-remark @below {{contiguity = [1, 32], divisibility = [1, 4611686018427387904], constancy = [16, 1], constant_value = <none>}}
  %b = tile.broadcast %row : tensor<1x32xi32> -> tensor<16x32xi32>
  tile.return
}

// -----

// trans: the dimensions are permuted.
tile.func public @trans() {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %row = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %b = tile.broadcast %row : tensor<1x32xi32> -> tensor<16x32xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [4611686018427387904, 1], constancy = [1, 16], constant_value = <none>}}
  %t = tile.trans %b {order = array<i32: 1, 0>} : tensor<16x32xi32> -> tensor<32x16xi32>
  tile.return
}

// -----

// reshape adding or removing dimensions of size 1 keeps the others.
tile.func public @reshape_unit_dims() {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  // expected-remark @below {{contiguity = [1, 32], divisibility = [1, 4611686018427387904], constancy = [1, 1], constant_value = <none>}}
  %u = tile.reshape %r : tensor<32xi32> -> tensor<1x32xi32>
  tile.return
}

// -----

// reshape merging rows: the rows' runs follow one another.
tile.func public @reshape_merge() {
  %r = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<8xi32>
  %row = tile.expand_dims %r {axis = 0 : i32} : tensor<8xi32> -> tensor<1x8xi32>
  %b = tile.broadcast %row : tensor<1x8xi32> -> tensor<4x8xi32>
  // expected-remark @below {{contiguity = [8], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %flat = tile.reshape %b : tensor<4x8xi32> -> tensor<32xi32>
  tile.return
}

// -----

// reshape splitting a range into rows of 16: rows start at multiples of 16;
// the outer dimension knows only what every element satisfies.
tile.func public @reshape_split() {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1, 16], divisibility = [1, 16], constancy = [1, 1], constant_value = <none>}}
  %rows = tile.reshape %r : tensor<64xi32> -> tensor<4x16xi32>
  tile.return
}

// -----

// reshape allowed to reorder elements keeps only element-wise facts.
tile.func public @reshape_reorder(%n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1], constant_value = <none>}}
  %v = tile.reshape %r allow_reorder : tensor<64xi32> -> tensor<4x16xi32>
  %s = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [4, 16], constant_value = <none>}}
  %w = tile.reshape %s allow_reorder : tensor<64xi32> -> tensor<4x16xi32>
  tile.return
}

// -----

// addptr: offsets in elements, divisibility in bytes.
tile.func public @addptr_scalar(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %c4 = arith.constant 4 : i32
  %c2 = arith.constant 2 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = tile.addptr %p, %c4 : !tile.ptr<f32>, i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %b = tile.addptr %p, %c2 : !tile.ptr<f32>, i32
  tile.return
}

// -----

// addptr of a contiguous range to a splat pointer: contiguous pointers.
tile.func public @addptr_tensor(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f16> -> tensor<128x!tile.ptr<f16>>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f16>>, tensor<128xi32>
  tile.return
}

// -----

// addptr where the runs get shorter: inside a run of f32 pointers, every
// fourth pointer is 16 bytes further.
tile.func public @addptr_shorter_runs(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %blocks = arith.constant dense<[0, 0, 0, 0, 16, 16, 16, 16, 32, 32, 32, 32, 48, 48, 48, 48]> : tensor<16xi32>
  // expected-remark @below {{contiguity = [4], divisibility = [16], constancy = [1], constant_value = <none>}}
  %s = tile.addptr %q, %blocks : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  tile.return
}

// -----

// int_to_ptr: consecutive addresses are not consecutive f32 elements.
tile.func public @int_to_ptr(%a: i64 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %r64 = arith.extsi %r : tensor<128xi32> to tensor<128xi64>
  %s = tile.splat %a : i64 -> tensor<128xi64>
  %addr = arith.addi %s, %r64 : tensor<128xi64>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %pf = tile.int_to_ptr %addr : tensor<128xi64> -> tensor<128x!tile.ptr<f32>>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %pb = tile.int_to_ptr %addr : tensor<128xi64> -> tensor<128x!tile.ptr<i8>>
  tile.return
}

// -----

// ptr_to_int: contiguous f32 pointers are addresses 4 bytes apart.
tile.func public @ptr_to_int(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %i = tile.ptr_to_int %q : tensor<128x!tile.ptr<f32>> -> tensor<128xi64>
  tile.return
}

// -----

// bitcast between pointers: same pointee size keeps everything; another
// size keeps addresses only.
tile.func public @bitcast_ptr(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %same = tile.bitcast %q : tensor<128x!tile.ptr<f32>> -> tensor<128x!tile.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %half = tile.bitcast %q : tensor<128x!tile.ptr<f32>> -> tensor<128x!tile.ptr<f16>>
  tile.return
}

// -----

// bitcast from floats: only constancy survives.
tile.func public @bitcast_float() {
  %f = arith.constant dense<1.0> : tensor<64xf32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %i = arith.bitcast %f : tensor<64xf32> to tensor<64xi32>
  tile.return
}

// -----

// addi: contiguous plus constant stays contiguous; the start's divisor is
// the smaller of the two.
tile.func public @addi(%n: i32 {tile.divisibility = 64 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c3 = arith.constant dense<3> : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1], constancy = [1], constant_value = <none>}}
  %a = arith.addi %r, %c3 : tensor<64xi32>
  %s = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %b = arith.addi %s, %r : tensor<64xi32>
  // Two contiguous ranges: steps of 2.
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %c = arith.addi %r, %r : tensor<64xi32>
  tile.return
}

// -----

// addi of constants folds.
tile.func public @addi_constants() {
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = 8}}
  %s = arith.addi %c3, %c5 : i32
  tile.return
}

// -----

// subi: contiguous minus constant is contiguous; constant minus contiguous
// is not.
tile.func public @subi() {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c16 = arith.constant dense<16> : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = arith.subi %r, %c16 : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %b = arith.subi %c16, %r : tensor<64xi32>
  tile.return
}

// -----

// muli: divisors multiply; contiguity is lost unless multiplied by 1.
tile.func public @muli(%n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c4 = arith.constant dense<4> : tensor<64xi32>
  %c1 = arith.constant dense<1> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %a = arith.muli %r, %c4 : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %b = arith.muli %c1, %r : tensor<64xi32>
  %c8 = arith.constant 8 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [128], constancy = [1], constant_value = <none>}}
  %c = arith.muli %n, %c8 : i32
  tile.return
}

// -----

// muli by zero is zero.
tile.func public @muli_zero(%n: i32) {
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4611686018427387904], constancy = [1], constant_value = 0}}
  %a = arith.muli %n, %c0 : i32
  tile.return
}

// -----

// divsi by a power of two: aligned blocks of a range share a quotient; exact
// division of a multiple divides the divisor.
tile.func public @divsi(%n: i32 {tile.divisibility = 64 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c16 = arith.constant dense<16> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %q = arith.divsi %r, %c16 : tensor<64xi32>
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %e = arith.divsi %n, %c4 : i32
  tile.return
}

// -----

// divui by a divisor known only to be a multiple of 16.
tile.func public @divui(%m: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %s = tile.splat %m : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %q = arith.divui %r, %s : tensor<64xi32>
  tile.return
}

// -----

// divsi of constants folds; by 1 it is the identity.
tile.func public @divsi_constants() {
  %c48 = arith.constant 48 : i32
  %cm7 = arith.constant -7 : i32
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = -6}}
  %q = arith.divsi %c48, %cm7 : i32
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %one = tile.splat %c1 : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %i = arith.divsi %r, %one : tensor<64xi32>
  tile.return
}

// -----

// remsi by a multiple of 16: contiguous over aligned blocks of 16.
tile.func public @remsi(%m: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %s = tile.splat %m : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = arith.remsi %r, %s : tensor<64xi32>
  tile.return
}

// -----

// remui by the constant 8: runs restart at zero.
tile.func public @remui_power_of_two() {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c8 = arith.constant dense<8> : tensor<64xi32>
  // expected-remark @below {{contiguity = [8], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %a = arith.remui %r, %c8 : tensor<64xi32>
  tile.return
}

// -----

// andi with 2^k - 1 is a remainder; with -2^k it rounds down.
tile.func public @andi_masks() {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c7 = arith.constant dense<7> : tensor<64xi32>
  %cm16 = arith.constant dense<-16> : tensor<64xi32>
  // expected-remark @below {{contiguity = [8], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %low = arith.andi %r, %c7 : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [16], constant_value = <none>}}
  %down = arith.andi %cm16, %r : tensor<64xi32>
  tile.return
}

// -----

// andi keeps the zero bits of either operand.
tile.func public @andi(%a: i32 {tile.divisibility = 8 : i32}, %b: i32 {tile.divisibility = 2 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %x = arith.andi %a, %b : i32
  tile.return
}

// -----

// ori and xori keep only the zero bits of both.
tile.func public @ori_xori(%a: i32 {tile.divisibility = 8 : i32}, %b: i32 {tile.divisibility = 2 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = <none>}}
  %o = arith.ori %a, %b : i32
  // expected-remark @below {{contiguity = [1], divisibility = [2], constancy = [1], constant_value = <none>}}
  %x = arith.xori %a, %b : i32
  %c0 = arith.constant 0 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %same = arith.ori %a, %c0 : i32
  tile.return
}

// -----

// shli multiplies by 2^s.
tile.func public @shli(%n: i32 {tile.divisibility = 8 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c2 = arith.constant dense<2> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %a = arith.shli %r, %c2 : tensor<64xi32>
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %b = arith.shli %n, %c1 : i32
  tile.return
}

// -----

// shrsi and shrui divide by 2^s, rounding down.
tile.func public @shr(%n: i32 {tile.divisibility = 64 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c3 = arith.constant dense<3> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8], constant_value = <none>}}
  %a = arith.shrsi %r, %c3 : tensor<64xi32>
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  %b = arith.shrui %n, %c4 : i32
  tile.return
}

// -----

// max and min of two ranges shifted alike stay contiguous.
tile.func public @minmax(%n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c16 = arith.constant dense<16> : tensor<64xi32>
  %r16 = arith.addi %r, %c16 : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [16], constancy = [1], constant_value = <none>}}
  %a = arith.maxsi %r, %r16 : tensor<64xi32>
  %s = tile.splat %n : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %b = arith.minsi %r, %s : tensor<64xi32>
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 3}}
  %c = arith.minui %c5, %c3 : i32
  tile.return
}

// -----

// Extensions, truncations and index casts keep everything.
tile.func public @int_casts(%n: i64 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %e = arith.extsi %r : tensor<64xi32> to tensor<64xi64>
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %t = arith.trunci %n : i64 to i32
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %i = arith.index_cast %t : i32 to index
  tile.return
}

// -----

// Casts of constants convert the value.
tile.func public @int_cast_constants() {
  %big = arith.constant 4294967312 : i64
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = 16}}
  %t = arith.trunci %big : i64 to i32
  %true = arith.constant true
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = -1}}
  %s = arith.extsi %true : i1 to i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %u = arith.extui %true : i1 to i32
  tile.return
}

// -----

// cmpi x < n, with x contiguous and n a multiple of 16: constant over
// aligned blocks of 16.  x <= n changes at n + 1, whose alignment is unknown.
tile.func public @cmpi(%n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %s = tile.splat %n : i32 -> tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %lt = arith.cmpi slt, %r, %s : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %gt = arith.cmpi ugt, %s, %r : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %ge = arith.cmpi sge, %r, %s : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %le = arith.cmpi sle, %r, %s : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %eq = arith.cmpi eq, %r, %s : tensor<128xi32>
  tile.return
}

// -----

// cmpi of constants folds.
tile.func public @cmpi_constants() {
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = 1}}
  %lt = arith.cmpi slt, %c3, %c5 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [4611686018427387904], constancy = [1], constant_value = 0}}
  %gt = arith.cmpi sgt, %c3, %c5 : i32
  tile.return
}

// -----

// select with a mask constant over blocks of 16 between two contiguous
// tensors: contiguous over those blocks.
tile.func public @select_tensor_condition(%n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %s = tile.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %s : tensor<128xi32>
  %c64 = arith.constant dense<64> : tensor<128xi32>
  %r64 = arith.addi %r, %c64 : tensor<128xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %sel = arith.select %m, %r, %r64 : tensor<128xi1>, tensor<128xi32>
  tile.return
}

// -----

// select with a scalar condition picks one whole operand.
tile.func public @select_scalar_condition(%b: i1) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %c32 = arith.constant dense<32> : tensor<128xi32>
  %r32 = arith.addi %r, %c32 : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [32], constancy = [1], constant_value = <none>}}
  %sel = arith.select %b, %r, %r32 : tensor<128xi32>
  %true = arith.constant true
  // expected-remark @below {{contiguity = [128], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %first = arith.select %true, %r, %r32 : tensor<128xi32>
  tile.return
}

// -----

// Loads through equal pointers under an equal mask read equal values.
tile.func public @load_constancy(%p: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %ps = tile.splat %p : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [128], constant_value = <none>}}
  %a = tile.load %ps : tensor<128x!tile.ptr<i32>>
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %s = tile.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %s : tensor<128xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %b = tile.load %ps, %m : tensor<128x!tile.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %c = tile.load %ps volatile : tensor<128x!tile.ptr<i32>>
  tile.return
}

// -----

// A pure element-wise op with no rule keeps its operands' constancy.
tile.func public @elementwise_fallback(%n: i32 {tile.divisibility = 16 : i32}) {
  %s = tile.splat %n : i32 -> tensor<64xi32>
  %c3 = arith.constant dense<3> : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [64], constant_value = <none>}}
  %d = arith.ceildivsi %s, %c3 : tensor<64xi32>
  tile.return
}

// -----

// Ops with no rule: nothing known.
tile.func public @unknown_ops(%p: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %sum = tile.reduce %r axis = 0 : tensor<64xi32> -> i32 {
  ^bb0(%l: i32, %x: i32):
    %a = arith.addi %l, %x : i32
    tile.reduce.return %a : i32
  }
  %c1 = arith.constant 1 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %old = tile.atomic_rmw add, acq_rel, gpu, %p, %c1 : !tile.ptr<i32>
  tile.return
}
