// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Every error of the verifiers of the TMA ops (lib/Dialect/TileGPU/IR/
// TileGPUOps.cpp: MemDescTransOp::verify, verifyTMABuffer, verifyBarrier),
// one case each, plus the ODS constraints they rely on.  A TMA buffer must
// be one block of the descriptor in the descriptor's layout
// (getTMASharedEncoding: NVMMA swizzled by min(128, row bytes) and not
// transposed for 2-D blocks with rows of 32 bytes or more, else
// #tilegpu.shared with order [rank-1, ..., 0]).

//===----------------------------------------------------------------------===//
// tilegpu.memdesc_trans
//===----------------------------------------------------------------------===//

#sh = #tilegpu.shared<order = [0]>
tile.func public @trans_1d(%b: !tilegpu.memdesc<64xf16, #sh>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op transposes 2-D buffers, got '!tilegpu.memdesc<64xf16, #tilegpu.shared<order = [0]>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<64xf16, #sh> -> !tilegpu.memdesc<64xf16, #sh>
  tile.return
}

// -----

#sh3 = #tilegpu.shared<order = [2, 1, 0]>
tile.func public @trans_3d(%b: !tilegpu.memdesc<2x64x32xf16, #sh3>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op transposes 2-D buffers, got '!tilegpu.memdesc<2x64x32xf16, #tilegpu.shared<order = [2, 1, 0]>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<2x64x32xf16, #sh3> -> !tilegpu.memdesc<2x32x64xf16, #sh3>
  tile.return
}

// -----

// The NVMMA flag must flip with the shape.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @trans_nvmma_flag_kept(%b: !tilegpu.memdesc<128x64xf16, #nv>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>', got '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nv> -> !tilegpu.memdesc<64x128xf16, #nv>
  tile.return
}

// -----

// The shape must swap.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
tile.func public @trans_shape_kept(%b: !tilegpu.memdesc<128x64xf16, #nv>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>', got '!tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nv> -> !tilegpu.memdesc<128x64xf16, #nvt>
  tile.return
}

// -----

// The swizzle is kept.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt64 = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>
tile.func public @trans_swizzle_changed(%b: !tilegpu.memdesc<128x64xf16, #nv>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nv> -> !tilegpu.memdesc<64x128xf16, #nvt64>
  tile.return
}

// -----

// The view keeps the source's mutability...
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
tile.func public @trans_mutability(%b: !tilegpu.memdesc<128x64xf16, #nv, mutable>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable>', got '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nv, mutable> -> !tilegpu.memdesc<64x128xf16, #nvt>
  tile.return
}

// -----

// ... and its number of buffers.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
tile.func public @trans_buffers(%b: !tilegpu.memdesc<128x64xf16, #nv, mutable, buffers = 3>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable, buffers = 3>', got '!tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nv, mutable, buffers = 3> -> !tilegpu.memdesc<64x128xf16, #nvt, mutable>
  tile.return
}

// -----

// The element type is kept.
#sh = #tilegpu.shared<order = [1, 0]>
#sht = #tilegpu.shared<order = [0, 1]>
tile.func public @trans_element(%b: !tilegpu.memdesc<32x8xf16, #sh>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [0, 1]>>', got '!tilegpu.memdesc<8x32xbf16, #tilegpu.shared<order = [0, 1]>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<32x8xf16, #sh> -> !tilegpu.memdesc<8x32xbf16, #sht>
  tile.return
}

// -----

// A plain buffer's order must swap with the shape.
#sh = #tilegpu.shared<order = [1, 0]>
tile.func public @trans_plain_order_kept(%b: !tilegpu.memdesc<32x8xf16, #sh>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [0, 1]>>', got '!tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [1, 0]>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<32x8xf16, #sh> -> !tilegpu.memdesc<8x32xf16, #sh>
  tile.return
}

// -----

// A plain buffer cannot become an NVMMA one by transposing.
#sh = #tilegpu.shared<order = [1, 0]>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = true, elementBitWidth = 16>
tile.func public @trans_plain_to_nvmma(%b: !tilegpu.memdesc<32x16xf16, #sh>) {
  // expected-error @+1 {{'tilegpu.memdesc_trans' op result must be '!tilegpu.memdesc<16x32xf16, #tilegpu.shared<order = [0, 1]>>'}}
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<32x16xf16, #sh> -> !tilegpu.memdesc<16x32xf16, #nvt>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.inval_barrier
//===----------------------------------------------------------------------===//

#sh = #tilegpu.shared<order = [0]>
tile.func public @inval_barrier_i32(%bar: !tilegpu.memdesc<1xi32, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.inval_barrier' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi32, #tilegpu.shared<order = [0]>, mutable>'}}
  tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi32, #sh, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
tile.func public @inval_barrier_ring(%bar: !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3>) {
  // expected-error @+1 {{'tilegpu.inval_barrier' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>'}}
  tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
tile.func public @inval_barrier_immutable(%bar: !tilegpu.memdesc<1xi64, #sh>) {
  // expected-error @+1 {{'tilegpu.inval_barrier' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>>'}}
  tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #sh>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.async_tma_copy_global_to_local
//===----------------------------------------------------------------------===//

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_too_few_indices(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op needs 2 indices for '!tile.tensordesc<tensor<128x64xf16>>', got 1}}
  tilegpu.async_tma_copy_global_to_local %d[%i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
tile.func public @load_too_many_indices(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<256xf32, #sh, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op needs 1 indices for '!tile.tensordesc<tensor<256xf32>>', got 2}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<256xf32, #sh, mutable>
  tile.return
}

// -----

// Indices are i32 (ODS).
#sh = #tilegpu.shared<order = [0]>
tile.func public @load_i64_index(%d: !tile.tensordesc<tensor<256xf32>>, %i: i64, %p: i1,
    %buf: !tilegpu.memdesc<256xf32, #sh, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op operand #1 must be variadic of 32-bit signless integer, but got 'i64'}}
  "tilegpu.async_tma_copy_global_to_local"(%d, %i, %buf, %bar, %p) : (!tile.tensordesc<tensor<256xf32>>, i64, !tilegpu.memdesc<256xf32, #sh, mutable>, !tilegpu.memdesc<1xi64, #sh, mutable>, i1) -> ()
  tile.return
}

// -----

// The destination is one buffer: a ring's buffer is chosen with
// memdesc_index first.
#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_into_ring(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable, buffers = 3>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must be a single buffer (select one of the 3 with tilegpu.memdesc_index)}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable, buffers = 3>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_into_immutable(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the destination buffer must be mutable}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv>
  tile.return
}

// -----

// 128-byte rows swizzle by 128, not 64.
#sh = #tilegpu.shared<order = [0]>
#nv64 = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
tile.func public @load_wrong_swizzle(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv64, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<128x64xf16>>' in the layout #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, got '!tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv64, mutable>
  tile.return
}

// -----

// The TMA never writes a transposed NVMMA buffer (memdesc_trans reads it so).
#sh = #tilegpu.shared<order = [0]>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
tile.func public @load_transposed_layout(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nvt, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<128x64xf16>>' in the layout #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nvt, mutable>
  tile.return
}

// -----

// A 2-D block with 128-byte rows is not dense.
#sh = #tilegpu.shared<order = [0]>
#sh2 = #tilegpu.shared<order = [1, 0]>
tile.func public @load_plain_for_nvmma(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #sh2, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<128x64xf16>>' in the layout #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, got '!tilegpu.memdesc<128x64xf16, #tilegpu.shared<order = [1, 0]>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #sh2, mutable>
  tile.return
}

// -----

// A 2-D block with 16-byte rows is dense and row-major, never swizzled.
#sh = #tilegpu.shared<order = [0]>
#nv0 = #tilegpu.nvmma_shared<swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16>
tile.func public @load_nvmma_for_plain(%d: !tile.tensordesc<tensor<64x8xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<64x8xf16, #nv0, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<64x8xf16>>' in the layout #tilegpu.shared<order = [1, 0]>, got '!tilegpu.memdesc<64x8xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x8xf16, #nv0, mutable>
  tile.return
}

// -----

// Dense blocks are row-major: order [rank-1, ..., 0].
#sh = #tilegpu.shared<order = [0]>
#col = #tilegpu.shared<order = [0, 1]>
tile.func public @load_plain_column_major(%d: !tile.tensordesc<tensor<64x8xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<64x8xf16, #col, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<64x8xf16>>' in the layout #tilegpu.shared<order = [1, 0]>, got '!tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [0, 1]>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x8xf16, #col, mutable>
  tile.return
}

// -----

// One block, not its transpose or a part of it.
#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_wrong_shape(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<64x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<128x64xf16>>' in the layout #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, got '!tilegpu.memdesc<64x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_wrong_element(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xbf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op the buffer must hold one block of '!tile.tensordesc<tensor<128x64xf16>>' in the layout #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, got '!tilegpu.memdesc<128x64xbf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xbf16, #nv, mutable>
  tile.return
}

// -----

// The barrier is checked like every mbarrier op's: a mutable, single 1xi64.
#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_barrier_i32(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi32, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi32, #tilegpu.shared<order = [0]>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi32, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_barrier_ring(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_barrier_immutable(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @load_barrier_shape(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %p: i1,
    %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<2xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<2xi64, #tilegpu.shared<order = [0]>, mutable>'}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<2xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.async_tma_copy_local_to_global
//===----------------------------------------------------------------------===//

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @store_too_many_indices(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32,
    %src: !tilegpu.memdesc<128x64xf16, #nv>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_local_to_global' op needs 2 indices for '!tile.tensordesc<tensor<128x64xf16>>', got 3}}
  tilegpu.async_tma_copy_local_to_global %d[%i, %i, %i] %src : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #nv>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @store_from_ring(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32,
    %src: !tilegpu.memdesc<128x64xf16, #nv, buffers = 2>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_local_to_global' op the buffer must be a single buffer (select one of the 2 with tilegpu.memdesc_index)}}
  tilegpu.async_tma_copy_local_to_global %d[%i, %i] %src : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #nv, buffers = 2>
  tile.return
}

// -----

// 64-byte rows swizzle by 64, not 128 (nor 32).
#nv32 = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>
tile.func public @store_wrong_swizzle(%d: !tile.tensordesc<tensor<64x32xf16>>, %i: i32,
    %src: !tilegpu.memdesc<64x32xf16, #nv32>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_local_to_global' op the buffer must hold one block of '!tile.tensordesc<tensor<64x32xf16>>' in the layout #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, got '!tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>>'}}
  tilegpu.async_tma_copy_local_to_global %d[%i, %i] %src : !tile.tensordesc<tensor<64x32xf16>>, !tilegpu.memdesc<64x32xf16, #nv32>
  tile.return
}

// -----

// A 3-D block is dense, never swizzled.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
tile.func public @store_3d_swizzled(%d: !tile.tensordesc<tensor<2x64x32xf16>>, %i: i32,
    %src: !tilegpu.memdesc<2x64x32xf16, #nv>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_local_to_global' op the buffer must hold one block of '!tile.tensordesc<tensor<2x64x32xf16>>' in the layout #tilegpu.shared<order = [2, 1, 0]>, got '!tilegpu.memdesc<2x64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>>'}}
  tilegpu.async_tma_copy_local_to_global %d[%i, %i, %i] %src : !tile.tensordesc<tensor<2x64x32xf16>>, !tilegpu.memdesc<2x64x32xf16, #nv>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
tile.func public @store_wrong_shape(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32,
    %src: !tilegpu.memdesc<128xf32, #sh>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_local_to_global' op the buffer must hold one block of '!tile.tensordesc<tensor<256xf32>>' in the layout #tilegpu.shared<order = [0]>, got '!tilegpu.memdesc<128xf32, #tilegpu.shared<order = [0]>>'}}
  tilegpu.async_tma_copy_local_to_global %d[%i] %src : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<128xf32, #sh>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
tile.func public @store_wrong_element(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32,
    %src: !tilegpu.memdesc<256xi32, #sh>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_local_to_global' op the buffer must hold one block of '!tile.tensordesc<tensor<256xf32>>' in the layout #tilegpu.shared<order = [0]>, got '!tilegpu.memdesc<256xi32, #tilegpu.shared<order = [0]>>'}}
  tilegpu.async_tma_copy_local_to_global %d[%i] %src : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<256xi32, #sh>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.async_tma_store_wait
//===----------------------------------------------------------------------===//

tile.func public @store_wait_negative() {
  // expected-error @+1 {{'tilegpu.async_tma_store_wait' op attribute 'pendings' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tilegpu.async_tma_store_wait {pendings = -1 : i32}
  tile.return
}

// -----

tile.func public @store_wait_missing() {
  // expected-error @+1 {{'tilegpu.async_tma_store_wait' op requires attribute 'pendings'}}
  tilegpu.async_tma_store_wait
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @multicast_slices_not_whole_atoms(%d: !tile.tensordesc<tensor<48x64xf16>>, %i: i32, %p: i1, %buf: !tilegpu.memdesc<48x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op multicast = 4 divides the block's 48 rows into slices that are not multiples of 8 rows}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p {multicast = 4 : i32} : !tile.tensordesc<tensor<48x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<48x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @multicast_of_one(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %p: i1, %buf: !tilegpu.memdesc<64x64xf16, #nv, mutable>, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  // expected-error @+1 {{'tilegpu.async_tma_copy_global_to_local' op attribute 'multicast' failed to satisfy constraint}}
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p {multicast = 1 : i32} : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x64xf16, #nv, mutable>
  tile.return
}
