// RUN: warpforge-opt %s --convert-tile-to-tilegpu="num-warps=4 num-consumer-groups=3 num-buffers-warp-spec=2" --mlir-print-local-scope | FileCheck %s

// Default layouts for three consumer groups of 4 warps, 12 warps in all
// (BlockedEncodingAttr::getDefault): the power of two among the warps is
// placed as for 4 warps, as far as each dimension has room; what is left
// (the odd factor, and what no dimension had room for) goes to the
// slowest dimension that then holds whole CTA tiles, else to one whose
// tile it makes a multiple of the dimension (the tensor repeated), else
// that dimension's tile is stretched by sizePerThread until it is. Every
// layout below passes the verifier's CTA-tile rule.

// 192 rows in 16 tiles of 12 (4 warps, then 3).
// CHECK-LABEL: tile.func public @shape_192x128(
// CHECK: tensor<192x128xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [12, 1], order = [1, 0]>>
tile.func public @shape_192x128(%x: f16) {
  %0 = tile.splat %x : f16 -> tensor<192x128xf16>
  tile.return
}

// 3 divides neither dimension: the columns' 128-element tile times 3 is
// a multiple of 128, so the tensor is held three times (a K/V block, which
// TMA moves and no thread holds).
// CHECK-LABEL: tile.func public @shape_128x128(
// CHECK: tensor<128x128xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 3], order = [1, 0]>>
tile.func public @shape_128x128(%x: f16) {
  %0 = tile.splat %x : f16 -> tensor<128x128xf16>
  tile.return
}

// 1-D: 32 lanes x 12 warps = 384 elements, twice 192 and three times 128.
// CHECK-LABEL: tile.func public @shape_192(
// CHECK: tensor<192xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [12], order = [0]>>
tile.func public @shape_192(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<192xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @shape_128(
// CHECK: tensor<128xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [12], order = [0]>>
tile.func public @shape_128(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<128xf32>
  tile.return
}

// A column: 2 warps of 32 rows fit 192's largest power-of-2 divisor (64);
// the 6 left make the rows' tile 384, twice 192.
// CHECK-LABEL: tile.func public @shape_192x1(
// CHECK: tensor<192x1xi32, #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [12, 1], order = [1, 0]>>
tile.func public @shape_192x1(%x: i32) {
  %0 = tile.splat %x : i32 -> tensor<192x1xi32>
  tile.return
}

// 3 divides no power of two and 512 (4 elements x 32 lanes x 4 warps)
// times 3 is no multiple of 4096: the tile is stretched (32 elements a
// thread) to 4096 and held three times.
// CHECK-LABEL: tile.func public @shape_4096(
// CHECK: tensor<4096xf32, #tilegpu.blocked<sizePerThread = [32], threadsPerWarp = [32], warpsPerCTA = [12], order = [0]>>
tile.func public @shape_4096(%x: f32) {
  %0 = tile.splat %x : f32 -> tensor<4096xf32>
  tile.return
}
