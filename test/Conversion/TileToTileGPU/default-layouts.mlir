// RUN: warpforge-opt %s --convert-tile-to-tilegpu --mlir-print-local-scope | FileCheck %s
// RUN: warpforge-opt %s --convert-tile-to-tilegpu=num-warps=8 --mlir-print-local-scope | FileCheck %s --check-prefix=WARPS8
// RUN: warpforge-opt %s --convert-tile-to-tilegpu=num-warps=16 --mlir-print-local-scope | FileCheck %s --check-prefix=WARPS16

// The default layout of each shape (BlockedEncodingAttr::getDefault with
// clamp(elements / threads, 1, 4) elements per thread along the last
// dimension), for 4 warps and for 8.  Every one of them covers the tensor
// with as little replication as the number of threads allows.  (Printed
// without aliases, so that each function shows its layout.)

// One element per thread: 128 threads cover it exactly.
// CHECK-LABEL: tile.func public @shape_128(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// WARPS8-LABEL: tile.func public @shape_128(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>
tile.func public @shape_128(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<128xf32>
  tile.return
}

// 16-byte vectors of f32.
// CHECK-LABEL: tile.func public @shape_1024(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1024xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// WARPS8-LABEL: tile.func public @shape_1024(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<1024xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>
tile.func public @shape_1024(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<1024xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_4096(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<4096xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// WARPS8-LABEL: tile.func public @shape_4096(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<4096xf32, #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>
tile.func public @shape_4096(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<4096xf32>
  tile.return
}

// Fewer elements than threads: the CTA tile wraps.
// CHECK-LABEL: tile.func public @shape_64(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// WARPS8-LABEL: tile.func public @shape_64(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<64xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>
tile.func public @shape_64(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<64xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_64x64(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_64x64(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_64x64(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<64x64xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_128x32(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<128x32xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_128x32(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<128x32xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_128x32(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<128x32xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_32x128(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<32x128xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_32x128(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<32x128xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_32x128(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<32x128xf32>
  tile.return
}

// Two elements per thread cover it exactly.
// CHECK-LABEL: tile.func public @shape_16x16(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<16x16xf32, #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_16x16(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<16x16xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_16x16(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<16x16xf32>
  tile.return
}

// What the rows cannot hold wraps on the slowest dimension.
// CHECK-LABEL: tile.func public @shape_4x4(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<4x4xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_4x4(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<4x4xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_4x4(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<4x4xf32>
  tile.return
}

// A single row: lanes and warps along it.
// CHECK-LABEL: tile.func public @shape_1x128(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1x128xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_1x128(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<1x128xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]>>
tile.func public @shape_1x128(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<1x128xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_1x1024(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1x1024xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_1x1024(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<1x1024xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]>>
tile.func public @shape_1x1024(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<1x1024xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_1x16(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1x16xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_1x16(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<1x16xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_1x16(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<1x16xf32>
  tile.return
}

// A single column: lanes and warps along the rows.
// CHECK-LABEL: tile.func public @shape_128x1(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<128x1xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_128x1(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<128x1xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_128x1(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<128x1xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_1024x1(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1024x1xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_1024x1(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<1024x1xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_1024x1(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<1024x1xf32>
  tile.return
}

// 3 elements per thread round down to a power of two. The 3 rows take no
// warp: a 2-row tile would neither fill nor divide them (the warps that
// filled the dimensions in order left 2 there; the repair for dimensions
// that are not powers of two moves them to the columns).
// CHECK-LABEL: tile.func public @shape_3x128(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<3x128xf32, #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_3x128(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<3x128xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]>>
tile.func public @shape_3x128(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<3x128xf32>
  tile.return
}

// A dimension that is not a power of two takes only the lanes and warps of
// the largest power of two dividing it (6: 2 lanes, three 2-column tiles),
// so that it is whole CTA tiles (the encoding's verifier); the 8 rows lie
// within the 64- or 128-row tile, a power of two that the tile repeats.
// CHECK-LABEL: tile.func public @shape_8x6(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<8x6xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_8x6(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<8x6xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_8x6(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<8x6xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_2x4x8(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<2x4x8xf32, #tilegpu.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]>>
// WARPS8-LABEL: tile.func public @shape_2x4x8(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<2x4x8xf32, #tilegpu.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [1, 4, 8], warpsPerCTA = [8, 1, 1], order = [2, 1, 0]>>
tile.func public @shape_2x4x8(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<2x4x8xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_16x16x16(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<16x16x16xf32, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 8, 4], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>>
// WARPS8-LABEL: tile.func public @shape_16x16x16(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<16x16x16xf32, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 8, 4], warpsPerCTA = [4, 2, 1], order = [2, 1, 0]>>
tile.func public @shape_16x16x16(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<16x16x16xf32>
  tile.return
}

// FlashAttention-3's 176 columns (the experimental
// WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS): 176 / 4 elements a thread = 44, so 4
// lanes (eleven 16-column tiles) and the rest along the rows.
// CHECK-LABEL: tile.func public @shape_128x176(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<128x176xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_128x176(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<128x176xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [8, 1], order = [1, 0]>>
tile.func public @shape_128x176(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<128x176xf32>
  tile.return
}

// A 1-D length that is not a power of two (experimental: an arange of
// FlashAttention-3's 80 K/V columns at head dim 256): no 1-D blocked tile
// (a power of two of at least the threads) fills or divides it, so it is
// the slice of a 2-D layout whose first dimension takes the lanes and
// warps of the largest power of two dividing the length (16: five tiles of
// 16) and whose removed dimension the others (copies).
// CHECK-LABEL: tile.func public @shape_80(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<80xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>>>
// WARPS8-LABEL: tile.func public @shape_80(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<80xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>>
tile.func public @shape_80(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<80xf32>
  tile.return
}

// 1280 = 5 x 256: all threads, two elements each (four would make a
// 512-element tile, which 1280 does not hold whole), a blocked layout.
// CHECK-LABEL: tile.func public @shape_1280(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<1280xf32, #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>
// WARPS8-LABEL: tile.func public @shape_1280(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<1280xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>>
tile.func public @shape_1280(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<1280xf32>
  tile.return
}

// 80x80 on 8 warps: 16 rows and 16 columns of threads, one element each
// (the warps that filled the dimensions in order left 8 on the rows, a
// 128-row tile; the repair moves them to the columns, which hold fewer
// elements a thread to make room).
// CHECK-LABEL: tile.func public @shape_80x80(
// CHECK: tile.splat %{{.*}} : f32 -> tensor<80x80xf32, #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]>>
// WARPS8-LABEL: tile.func public @shape_80x80(
// WARPS8: tile.splat %{{.*}} : f32 -> tensor<80x80xf32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 4], order = [1, 0]>>
tile.func public @shape_80x80(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<80x80xf32>
  tile.return
}

// 48x48 on 16 warps: 512 threads, more than 16 x 16 can hold whole, so
// the slice of a 3-D layout whose removed dimension takes the other 256
// (copies).
// WARPS16-LABEL: tile.func public @shape_48x48(
// WARPS16: tile.splat %{{.*}} : f32 -> tensor<48x48xf32, #tilegpu.slice<dim = 2, parent = #tilegpu.blocked<sizePerThread = [1, 4, 1], threadsPerWarp = [8, 4, 1], warpsPerCTA = [2, 1, 8], order = [1, 0, 2]>>>
tile.func public @shape_48x48(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<48x48xf32>
  tile.return
}
