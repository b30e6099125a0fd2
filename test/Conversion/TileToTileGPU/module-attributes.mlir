// RUN: warpforge-opt %s --convert-tile-to-tilegpu | FileCheck %s
// RUN: warpforge-opt %s --convert-tile-to-tilegpu="num-warps=8 target=cuda:100" | FileCheck %s --check-prefix=OPTIONS
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-warps=3 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-warps=64 2>&1 | FileCheck %s --check-prefix=WARPS64
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=threads-per-warp=64 2>&1 | FileCheck %s --check-prefix=LANES
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=target=sm_90 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-stages=0 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-ctas=3 2>&1 | FileCheck %s --check-prefix=CTAS
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu="num-ctas=2 target=cuda:80" 2>&1 | FileCheck %s --check-prefix=CTAS80
// RUN: warpforge-opt %s --convert-tile-to-tilegpu=num-ctas=2 | FileCheck %s --check-prefix=UNSPLIT
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-consumer-groups=2 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=num-buffers-warp-spec=-1 2>&1 | FileCheck %s --check-prefix=BUFFERS
// RUN: warpforge-opt %s --convert-tile-to-tilegpu="num-warps=4 num-consumer-groups=2 num-buffers-warp-spec=3" | FileCheck %s --check-prefix=WS
// RUN: warpforge-opt %s --convert-tile-to-tilegpu=maxnreg=42 | FileCheck %s --check-prefix=MAXNREG
// RUN: not warpforge-opt %s --convert-tile-to-tilegpu=maxnreg=8 2>&1 | FileCheck %s --check-prefix=BADMAXNREG

// The module records every compile option (CTA shape, software pipeline,
// clusters, warp specialization, target); other module attributes stay.
// Bad options, and options the backend does not implement yet, are errors
// at the module.  With warp specialization, num-warps is one consumer
// group's: the module's warps (the consumers') are all the groups'.

// CHECK: module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32, warpforge.other = 1 : i32}
// CHECK: tensor<512xf32, #{{blocked[0-9]*}}>

// OPTIONS: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
// OPTIONS: module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:100", "tilegpu.threads-per-warp" = 32 : i32, warpforge.other = 1 : i32}
// OPTIONS: tensor<512xf32, #[[B]]>

// WS: #blocked = #tilegpu.blocked<{{.*}}warpsPerCTA = [8]
// WS: module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32,
// MAXNREG: module attributes {tilegpu.maxnreg = 42 : i32, "tilegpu.num-buffers-warp-spec"
// CTAS80: error: convert-tile-to-tilegpu: num-ctas = 2 needs thread-block clusters, which sm_90 and later have; the target is cuda:80
// A module tile-cluster-split did not divide (no tile.num-ctas) runs one
// CTA per program, whatever was asked.
// UNSPLIT: "tilegpu.num-ctas" = 1 : i32
// BADMAXNREG: error: convert-tile-to-tilegpu: maxnreg must be 0 (no cap) or 16 to 255, got 8
// WARPS: module-attributes.mlir:[[@LINE+8]]:1: error: convert-tile-to-tilegpu: num-warps must be a power of two from 1 to 32, got 3
// WARPS64: error: convert-tile-to-tilegpu: num-warps must be a power of two from 1 to 32, got 64
// LANES: error: convert-tile-to-tilegpu: threads-per-warp must be 32, got 64
// TARGET: error: convert-tile-to-tilegpu: target must be cuda:<compute capability> (e.g. cuda:90), got 'sm_90'
// STAGES: error: convert-tile-to-tilegpu: num-stages must be at least 1, got 0
// CTAS: error: convert-tile-to-tilegpu: num-ctas must be 1, 2 or 4, got 3
// GROUPS: error: convert-tile-to-tilegpu: num-consumer-groups = 2 needs num-buffers-warp-spec of at least 1
// BUFFERS: error: convert-tile-to-tilegpu: num-buffers-warp-spec must not be negative, got -1
module attributes {warpforge.other = 1 : i32} {
  tile.func public @kernel(%x: f32) {
    %0 = tile.splat %x : f32 -> tensor<512xf32>
    tile.return
  }
}
