// RUN: warpforge-opt %s --convert-tile-to-tilegpu | FileCheck %s
// RUN: warpforge-opt %s --convert-tile-to-tilegpu="num-warps=8 target=cuda:100" | FileCheck %s --check-prefix=OPTIONS
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-warps=3 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-warps=64 2>&1 | FileCheck %s --check-prefix=WARPS64
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=threads-per-warp=64 2>&1 | FileCheck %s --check-prefix=LANES
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=target=sm_90 2>&1 | FileCheck %s --check-prefix=TARGET

// The module records the CTA shape and the target; other module attributes
// stay.  Bad options are errors at the module.

// CHECK: module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32, warpforge.other = 1 : i32}
// CHECK: tensor<512xf32, #{{blocked[0-9]*}}>

// OPTIONS: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// OPTIONS: module attributes {"tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:100", "tilegpu.threads-per-warp" = 32 : i32, warpforge.other = 1 : i32}
// OPTIONS: tensor<512xf32, #[[B]]>

// WARPS: module-attributes.mlir:[[@LINE+4]]:1: error: convert-tile-to-tilegpu: num-warps must be a power of two from 1 to 32, got 3
// WARPS64: error: convert-tile-to-tilegpu: num-warps must be a power of two from 1 to 32, got 64
// LANES: error: convert-tile-to-tilegpu: threads-per-warp must be 32, got 64
// TARGET: error: convert-tile-to-tilegpu: target must be cuda:<compute capability> (e.g. cuda:90), got 'sm_90'
module attributes {warpforge.other = 1 : i32} {
  tile.func public @kernel(%x: f32) {
    %0 = tile.splat %x : f32 -> tensor<512xf32>
    tile.return
  }
}
