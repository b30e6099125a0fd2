// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --tilegpu-accelerate-matmul

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @too_few_rows(%a: tensor<32x32xf16, #opA>, %b: tensor<32x64xf16, #opB>, %c: tensor<32x64xf32, #bl>) {
    // expected-error @+1 {{tl.dot with M = 32: wgmma gives each warpgroup (4 warps) 64 rows, so with num_warps = 4 M must be a multiple of 64 (use BLOCK_M >= 64)}}
    %d = tile.dot %a, %b, %c : tensor<32x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<32x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 2 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @partial_warpgroup(%a: tensor<64x32xf16, #opA>, %b: tensor<32x64xf16, #opB>, %c: tensor<64x64xf32, #bl>) {
    // expected-error @+1 {{tl.dot on Hopper runs on whole warpgroups: num_warps must be a multiple of 4, got 2}}
    %d = tile.dot %a, %b, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @fp8_k_step(%a: tensor<64x16xf8E4M3FN, #opA>, %b: tensor<16x64xf8E4M3FN, #opB>, %c: tensor<64x64xf32, #bl>) {
    // expected-error @+1 {{tl.dot with K = 16: wgmma multiplies 'f8E4M3FN' in steps of K = 32, so K must be a multiple of 32}}
    %d = tile.dot %a, %b, %c : tensor<64x16xf8E4M3FN, #opA> * tensor<16x64xf8E4M3FN, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @f32_ieee(%a: tensor<64x32xf32, #opA>, %b: tensor<32x64xf32, #opB>, %c: tensor<64x64xf32, #bl>) {
    // expected-error @+1 {{tl.dot of float32 operands runs on tf32 tensor cores on Hopper: pass input_precision="tf32"}}
    %d = tile.dot %a, %b, %c : tensor<64x32xf32, #opA> * tensor<32x64xf32, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @batched(%a: tensor<2x64x32xf16, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>, %b: tensor<2x32x64xf16, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>, %c: tensor<2x64x64xf32, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>) {
    // expected-error @+1 {{tl.dot: batched (3-D) products are not supported on Hopper yet; loop over the batch}}
    %d = tile.dot %a, %b, %c : tensor<2x64x32xf16, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>> * tensor<2x32x64xf16, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>> -> tensor<2x64x64xf32, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>
    tile.return
  }
}
