// RUN: warpforge-opt %s --split-input-file --tilegpu-accelerate-matmul | FileCheck %s

// Dots neither wgmma nor mma.sync can take (accelerate-matmul-mma.mlir
// has the ones mma.sync takes) stay tile.dot on the CUDA cores (FMA): the
// operands go to the FMA layouts of the accumulator's blocked layout (its
// arrangement, the whole K dimension in each thread), floats narrower than
// the accumulator widened to it, and the accumulator converted in and out;
// the dot says why in its tilegpu.fma attribute.

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// 8 rows (fewer than a warpgroup's 64) and K = 8 (less than one mma.sync
// step).
// CHECK-LABEL: tile.func public @too_few_rows(
// CHECK: %[[A:.*]] = tilegpu.convert_layout %arg0 : tensor<8x8xf16, #dot_op> -> tensor<8x8xf16, #[[FA:blocked[0-9]*]]>
// CHECK-NEXT: %[[AF:.*]] = arith.extf %[[A]] : tensor<8x8xf16, #[[FA]]> to tensor<8x8xf32, #[[FA]]>
// CHECK-NEXT: %[[B:.*]] = tilegpu.convert_layout %arg1 : tensor<8x64xf16, #dot_op1> -> tensor<8x64xf16, #[[FB:blocked[0-9]*]]>
// CHECK-NEXT: %[[BF:.*]] = arith.extf %[[B]] : tensor<8x64xf16, #[[FB]]> to tensor<8x64xf32, #[[FB]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %arg2 : tensor<8x64xf32, #blocked> -> tensor<8x64xf32, #blocked>
// CHECK-NEXT: tile.dot %[[AF]], %[[BF]], %[[C]] {tilegpu.fma = "tl.dot with M = 8: wgmma gives each warpgroup (4 warps) 64 rows, so with num_warps = 4 M must be a multiple of 64 (use BLOCK_M >= 64); mma.sync: a 8x64x8 product has K below or not a multiple of one m16n8k16 instruction's"} : tensor<8x8xf32, #[[FA]]> * tensor<8x64xf32, #[[FB]]> -> tensor<8x64xf32, #blocked>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @too_few_rows(%a: tensor<8x8xf16, #opA>, %b: tensor<8x64xf16, #opB>, %c: tensor<8x64xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<8x8xf16, #opA> * tensor<8x64xf16, #opB> -> tensor<8x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// fp8 with K = 8: wgmma steps K by 32, mma.sync (on f16) by 16.  The operands are converted to
// the accumulator's f32 (exact).
// CHECK-LABEL: tile.func public @fp8_k_step(
// CHECK: tile.fp_to_fp %{{.*}} : tensor<64x8xf8E4M3FN, #[[FA:blocked[0-9]*]]> -> tensor<64x8xf32, #[[FA]]>
// CHECK: tile.dot {{.*}} {tilegpu.fma = "tl.dot with K = 8: wgmma multiplies f8E4M3FN in steps of K = 32, so K must be a multiple of 32; mma.sync: a 64x64x8 product has K below or not a multiple of one m16n8k16 instruction's"} : tensor<64x8xf32, #[[FA]]> * tensor<8x64xf32, #{{blocked[0-9]*}}> -> tensor<64x64xf32, #blocked>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @fp8_k_step(%a: tensor<64x8xf8E4M3FN, #opA>, %b: tensor<8x64xf8E4M3FN, #opB>, %c: tensor<64x64xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<64x8xf8E4M3FN, #opA> * tensor<8x64xf8E4M3FN, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// float32 at ieee precision: wgmma would round to tf32.
// CHECK-LABEL: tile.func public @f32_ieee(
// CHECK-NOT: arith.extf
// CHECK: tile.dot {{.*}} {tilegpu.fma = "float32 operands with input_precision ieee or tf32x3: wgmma multiplies float32 as tf32; mma.sync: no mma.sync form for f32 x f32 -> f32"} : tensor<64x32xf32, #[[FA:blocked[0-9]*]]> * tensor<32x64xf32, #[[FB:blocked[0-9]*]]> -> tensor<64x64xf32, #blocked>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @f32_ieee(%a: tensor<64x32xf32, #opA>, %b: tensor<32x64xf32, #opB>, %c: tensor<64x64xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<64x32xf32, #opA> * tensor<32x64xf32, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// Batched float64: wgmma multiplies 2-D tiles and mma.sync has no f64 form
// (batched f16 runs on mma.sync: accelerate-matmul-mma.mlir).
// CHECK-LABEL: tile.func public @batched(
// CHECK: tile.dot {{.*}} {tilegpu.fma = "batched (3-D) products: wgmma multiplies 2-D tiles; mma.sync: no mma.sync form for f64 x f64 -> f64"} : tensor<2x64x32xf64, #{{blocked[0-9]*}}> * tensor<2x32x64xf64, #{{blocked[0-9]*}}> -> tensor<2x64x64xf64, #{{blocked[0-9]*}}>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @batched(%a: tensor<2x64x32xf64, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>, %b: tensor<2x32x64xf64, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>, %c: tensor<2x64x64xf64, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>) {
    %d = tile.dot %a, %b, %c : tensor<2x64x32xf64, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>> * tensor<2x32x64xf64, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>> -> tensor<2x64x64xf64, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>
    tile.return
  }
}

// -----

// A target without wgmma or mma.sync (sm_75): every dot, even one wgmma
// would take on Hopper.
// CHECK-LABEL: tile.func public @sm75(
// CHECK-NOT: tilegpu.warp_group_dot
// CHECK: tile.dot {{.*}} {tilegpu.fma = "the target has no wgmma"} : tensor<128x64xf32, #{{blocked[0-9]*}}> * tensor<64x128xf32, #{{blocked[0-9]*}}> -> tensor<128x128xf32, #blocked>
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:75"} {
  tile.func public @sm75(%a: tensor<128x64xf16, #opA>, %b: tensor<64x128xf16, #opB>, %c: tensor<128x128xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<128x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<128x128xf32, #bl>
    tile.return
  }
}
