// RUN: warpforge-opt %s --split-input-file --tilegpu-accelerate-matmul | FileCheck %s

// Twelve warps (three consumer warpgroups of 4): wgmma stacks all three
// along M, 64 rows each, so M must be a multiple of 192 (FlashAttention-3's
// 192-row tiles at head dimension 64).
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [12, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [8, 4], threadsPerWarp = [2, 16], warpsPerCTA = [12, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #blA, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #blB, kWidth = 1>
module attributes {"tilegpu.num-warps" = 12 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [12, 1], instrShape = [64, 128, 16]>
  // CHECK-LABEL: tile.func public @three_warpgroups
  // CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<192x128xf32, #[[WG]]>
  tile.func public @three_warpgroups(%a: tensor<192x64xf16, #blA>, %b: tensor<64x128xf16, #blB>, %c: tensor<192x128xf32, #blA>) {
    %ca = tilegpu.convert_layout %a : tensor<192x64xf16, #blA> -> tensor<192x64xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<64x128xf16, #blB> -> tensor<64x128xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<192x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<192x128xf32, #blA>
    tile.return
  }
}

// -----

// 128 rows on twelve warps: no wgmma (not three warpgroups' rows) and no
// mma.sync (12 warps split no power-of-2 tile), so the FMA form, with
// the reasons on the op.
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 3], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [8, 4], threadsPerWarp = [2, 16], warpsPerCTA = [12, 1], order = [1, 0]>
#blC = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 3], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #blA, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #blB, kWidth = 1>
module attributes {"tilegpu.num-warps" = 12 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @twelve_warps_128_rows
  // CHECK-NOT: warp_group_dot
  // CHECK: tile.dot {{.*}} {tilegpu.fma = "tl.dot with M = 128: {{.*}} M must be a multiple of 192 (each warpgroup's 64 rows); mma.sync: 12 warps (not a power of 2) split no 128x128 tile of m16n8 instructions"}
  tile.func public @twelve_warps_128_rows(%a: tensor<128x64xf16, #blA>, %b: tensor<64x128xf16, #blB>, %c: tensor<128x128xf32, #blC>) {
    %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #blA> -> tensor<128x64xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<64x128xf16, #blB> -> tensor<64x128xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<128x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<128x128xf32, #blC>
    tile.return
  }
}
