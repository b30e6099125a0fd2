// Regression test (a bug found by review, fixed): see the comments below.
// RUN: warpforge-opt %s --split-input-file --tilegpu-lower-tma | warpforge-opt --split-input-file -o /dev/null

// tma::encodingFor (TMA.h) swizzles a 2-D block by min(128, row bytes),
// which is a valid swizzle only when the row is 32, 64 or a multiple of
// 128 bytes.  Blocks whose rows are another multiple of 16 bytes are
// accepted by the descriptor type and by tile.make_tensor_descriptor (it
// asks for a multiple of 16 bytes), but get invalid layouts:
//  * 48-byte rows (64x24 f16; also 80, 96, 112): swizzlingByteWidth = 48,
//    rejected by the attribute's verifier;
//  * 192-byte rows (64x96 f16; also 320, 384, ...): a 128-byte swizzle
//    the memdesc rejects ("the contiguous dimension holds 192 bytes, not a
//    multiple of the 128-byte swizzle"); encodingFor's copiesPerBlock is
//    96 / 64 = 1, so the TMA would move only the first 64 columns.
// tilegpu-lower-tma prints IR that does not parse again.  Expected: a
// valid layout (e.g. dense, or the widest swizzle that divides the row),
// or a diagnostic for such blocks.

#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @rows_of_48_bytes(%d: !tile.tensordesc<tensor<64x24xf16>>, %i: i32) {
    %x = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x24xf16>> -> tensor<64x24xf16, #b>
    tile.descriptor_store %d[%i, %i], %x : !tile.tensordesc<tensor<64x24xf16>>, tensor<64x24xf16, #b>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @rows_of_192_bytes(%d: !tile.tensordesc<tensor<64x96xf16>>, %i: i32) {
    %x = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x96xf16>> -> tensor<64x96xf16, #b>
    tile.descriptor_store %d[%i, %i], %x : !tile.tensordesc<tensor<64x96xf16>>, tensor<64x96xf16, #b>
    tile.return
  }
}
