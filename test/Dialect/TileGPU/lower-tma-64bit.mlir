// Regression test (a bug found by review, fixed): see the comments below.
// RUN: warpforge-opt %s --split-input-file --tilegpu-lower-tma | warpforge-opt --split-input-file -o /dev/null

// A 2-D descriptor block of 64-bit elements whose rows span 32 bytes or
// more (here 64x16 f64, 128-byte rows; 64x4 i64, 32-byte rows) gets, from
// getTMASharedEncoding (LayoutUtils.cpp) and tma::encodingFor (TMA.h), the
// layout #tilegpu.nvmma_shared<..., elementBitWidth = 64>, which the
// attribute's own verifier rejects ("elementBitWidth must be 8, 16 or 32,
// got 64"): tilegpu-lower-tma prints IR that does not parse again, and the
// verifiers of the TMA copy ops demand that invalid layout, so no buffer
// can satisfy them.  From Python, a kernel that loads a [64, 16] block of
// an fp64 tensor through tl.make_tensor_descriptor fails with "internal
// compiler error: the frontend produced invalid IR ... elementBitWidth must
// be 8, 16 or 32, got 64" (the IR re-parsed between the JIT's stages).
// Expected: such blocks land densely (#tilegpu.shared<order = [1, 0]>, no
// swizzle), as wgmma never reads them, or are diagnosed.

#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @f64_rows_of_128_bytes(%d: !tile.tensordesc<tensor<64x16xf64>>, %i: i32) {
    %x = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x16xf64>> -> tensor<64x16xf64, #b>
    tile.descriptor_store %d[%i, %i], %x : !tile.tensordesc<tensor<64x16xf64>>, tensor<64x16xf64, #b>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @i64_rows_of_32_bytes(%d: !tile.tensordesc<tensor<64x4xi64>>, %i: i32) {
    %x = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x4xi64>> -> tensor<64x4xi64, #b>
    tile.descriptor_store %d[%i, %i], %x : !tile.tensordesc<tensor<64x4xi64>>, tensor<64x4xi64, #b>
    tile.return
  }
}
