// RUN: warpforge-opt %s -test-print-axis-info -split-input-file -verify-diagnostics=only-expected -o /dev/null

// The patterns the coalescing pass depends on, as the frontend writes them,
// with what it asks per access: the order of dimensions (most contiguous
// first), the pointer alignment and mask alignment in elements along
// order[0], and the vector width (also bounded by 16 bytes).

// offsets = pid * BLOCK + arange(0, BLOCK); mask = offsets < n, n a multiple
// of 16; x_ptr + offsets with x_ptr 16-byte aligned: 16-byte accesses.
tile.func public @vector_add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.get_program_id x : i32
  // expected-remark @below {{contiguity = [1], divisibility = [1024], constancy = [1], constant_value = <none>}}
  %start = arith.muli %pid, %c1024 : i32
  %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1024], divisibility = [1024], constancy = [1], constant_value = <none>}}
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [16], constant_value = <none>}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  // expected-remark @below {{contiguity = [1024], divisibility = [16], constancy = [1], constant_value = <none>}}
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access: order = [0], alignment = 4, mask alignment = 16, vector width = 4}}
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access: order = [0], alignment = 4, mask alignment = 16, vector width = 4}}
  tile.store %yp, %v, %mask : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// The same without the specialization hints: scalar accesses.
tile.func public @vector_add_unaligned(%x: !tile.ptr<f32>, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  // expected-remark @below {{contiguity = [1024], divisibility = [4], constancy = [1], constant_value = <none>}}
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  // expected-remark @below {{access: order = [0], alignment = 1, mask alignment = 1, vector width = 1}}
  %v = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  // expected-remark @below {{access: order = [0], alignment = 1, vector width = 1}}
  tile.store %xp, %v : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// A row-major tile: x + rows[:, None] * stride + cols[None, :], stride a
// multiple of 16 elements: contiguous along dimension 1, each row 16-byte
// aligned.
tile.func public @row_major_grid(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
  %c64 = arith.constant 64 : i32
  %pm = tile.get_program_id x : i32
  %pn = tile.get_program_id y : i32
  %range = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %m0 = arith.muli %pm, %c64 : i32
  %m0s = tile.splat %m0 : i32 -> tensor<64xi32>
  %rows = arith.addi %m0s, %range : tensor<64xi32>
  %n0 = arith.muli %pn, %c64 : i32
  %n0s = tile.splat %n0 : i32 -> tensor<64xi32>
  %cols = arith.addi %n0s, %range : tensor<64xi32>
  // expected-remark @below {{contiguity = [64, 1], divisibility = [64, 1], constancy = [1, 1], constant_value = <none>}}
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ss = tile.splat %stride : i32 -> tensor<64x1xi32>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1], constant_value = <none>}}
  %rs = arith.muli %r2, %ss : tensor<64x1xi32>
  %rsb = tile.broadcast %rs : tensor<64x1xi32> -> tensor<64x64xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %c2 : tensor<1x64xi32> -> tensor<64x64xi32>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [1, 16], constancy = [1, 1], constant_value = <none>}}
  %offs = arith.addi %rsb, %cb : tensor<64x64xi32>
  %xs = tile.splat %x : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  // expected-remark @below {{contiguity = [1, 64], divisibility = [2, 16], constancy = [1, 1], constant_value = <none>}}
  %ptrs = tile.addptr %xs, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  // expected-remark @below {{access: order = [1, 0], alignment = 8, vector width = 8}}
  %v = tile.load %ptrs : tensor<64x64x!tile.ptr<f16>>
  tile.return
}

// -----

// A column-major tile: x + rows[:, None] + cols[None, :] * stride:
// contiguous along dimension 0, which comes first in the order.
tile.func public @column_major_grid(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
  %range = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %r2 = tile.expand_dims %range {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rb = tile.broadcast %r2 : tensor<32x1xi32> -> tensor<32x16xi32>
  %cols = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %cc = tile.expand_dims %cols {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %ss = tile.splat %stride : i32 -> tensor<1x16xi32>
  %cs = arith.muli %cc, %ss : tensor<1x16xi32>
  %csb = tile.broadcast %cs : tensor<1x16xi32> -> tensor<32x16xi32>
  // expected-remark @below {{contiguity = [32, 1], divisibility = [16, 1], constancy = [1, 1], constant_value = <none>}}
  %offs = arith.addi %rb, %csb : tensor<32x16xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x16x!tile.ptr<f32>>
  %ptrs = tile.addptr %xs, %offs : tensor<32x16x!tile.ptr<f32>>, tensor<32x16xi32>
  // expected-remark @below {{access: order = [0, 1], alignment = 4, vector width = 4}}
  %v = tile.load %ptrs : tensor<32x16x!tile.ptr<f32>>
  tile.return
}

// -----

// A 2-D mask from offs < n along each dimension, n multiples of 16.
tile.func public @grid_mask(%m: i32 {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %range = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %r2 = tile.expand_dims %range {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ms = tile.splat %m : i32 -> tensor<64x1xi32>
  %rm = arith.cmpi slt, %r2, %ms : tensor<64x1xi32>
  %rmb = tile.broadcast %rm : tensor<64x1xi1> -> tensor<64x64xi1>
  %c2 = tile.expand_dims %range {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %ns = tile.splat %n : i32 -> tensor<1x64xi32>
  %cm = arith.cmpi slt, %c2, %ns : tensor<1x64xi32>
  %cmb = tile.broadcast %cm : tensor<1x64xi1> -> tensor<64x64xi1>
  // expected-remark @below {{contiguity = [1, 1], divisibility = [1, 1], constancy = [16, 16], constant_value = <none>}}
  %mask = arith.andi %rmb, %cmb : tensor<64x64xi1>
  tile.return
}

// -----

// Hints raise what the analysis proved: tl.multiple_of and tl.max_contiguous
// on an offset the analysis cannot see through.
tile.func public @hints_raise(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %start: i32) {
  %range = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %starts = tile.splat %start : i32 -> tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [64], constancy = [1], constant_value = <none>}}
  %offs = arith.addi %starts, %range {tile.contiguity = array<i32: 64>, tile.divisibility = array<i32: 64>} : tensor<64xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %ptrs = tile.addptr %xs, %offs : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  // expected-remark @below {{access: order = [0], alignment = 4, vector width = 4}}
  %v = tile.load %ptrs : tensor<64x!tile.ptr<f32>>
  tile.return
}

// -----

// Hints on values loaded from memory: gathered indices promised contiguous
// in runs of 16, or constant in runs of 8.
tile.func public @hints_on_loads(%idx: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
  %range = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %is = tile.splat %idx : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>>
  %ip = tile.addptr %is, %range : tensor<64x!tile.ptr<i32>>, tensor<64xi32>
  // expected-remark @below {{contiguity = [16], divisibility = [16], constancy = [1], constant_value = <none>}}
  %runs = tile.load %ip {tile.contiguity = array<i32: 16>, tile.divisibility = array<i32: 16>} : tensor<64x!tile.ptr<i32>>
  // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [8], constant_value = <none>}}
  %same = tile.load %ip {tile.constancy = array<i32: 8>} : tensor<64x!tile.ptr<i32>>
  tile.return
}

// -----

// A hint below what is proved does not lower it; a hint longer than the
// tensor is cut to it; a divisor that is not a power of two gives its
// largest power-of-two factor; scalars take one entry.
tile.func public @hints_bounds(%a: i32, %b: i32) {
  // expected-remark @below {{contiguity = [64], divisibility = [4611686018427387904], constancy = [1], constant_value = <none>}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32, tile.contiguity = array<i32: 4>} : tensor<64xi32>
  %c1 = arith.constant dense<1> : tensor<64xi32>
  // expected-remark @below {{contiguity = [64], divisibility = [1], constancy = [1], constant_value = <none>}}
  %s = arith.addi %r, %c1 {tile.contiguity = array<i32: 256>} : tensor<64xi32>
  // expected-remark @below {{contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  %m = arith.muli %a, %b {tile.divisibility = array<i32: 24>} : i32
  tile.return
}
