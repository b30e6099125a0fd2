// RUN: warpforge-opt %s --split-input-file --tilegpu-accelerate-matmul | FileCheck %s

// Block dimensions that are multiples of 16 but not powers of 2
// (experimental, WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1). An N-major B of 80
// columns is 160 bytes a row: its shared layout takes the widest swizzle
// whose rows the tile and one instruction's N hold whole (32 bytes, 16
// columns), not 128 (which 160 bytes do not fill whole).
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #blB, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #blB, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[A:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
  // CHECK-DAG: #[[B:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 80, 16]>
  // CHECK-LABEL: tile.func public @n_major_b_of_80_columns
  // CHECK: tilegpu.warp_group_dot {{.*}} : !tilegpu.memdesc<64x64xf16, #[[A]]> * !tilegpu.memdesc<64x80xf16, #[[B]]> -> tensor<64x80xf32, #[[WG]]>
  tile.func public @n_major_b_of_80_columns(%a: tensor<64x64xf16, #blA>, %b: tensor<64x80xf16, #blB>, %c: tensor<64x80xf32, #blB>) {
    %ca = tilegpu.convert_layout %a : tensor<64x64xf16, #blA> -> tensor<64x64xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<64x80xf16, #blB> -> tensor<64x80xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x64xf16, #opA> * tensor<64x80xf16, #opB> -> tensor<64x80xf32, #blB>
    tile.return
  }
}

// -----

// A K-major A of K 80 (160-byte rows): 32-byte swizzle as well.
#blA = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #blA, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #blB, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[A:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>
  // CHECK-LABEL: tile.func public @k_major_a_of_k_80
  // CHECK: tilegpu.warp_group_dot {{.*}} : !tilegpu.memdesc<64x80xf16, #[[A]]> * !tilegpu.memdesc<80x64xf16, #{{.*}}> -> tensor<64x64xf32, #{{.*}}>
  tile.func public @k_major_a_of_k_80(%a: tensor<64x80xf16, #blA>, %b: tensor<80x64xf16, #blB>, %c: tensor<64x64xf32, #blB>) {
    %ca = tilegpu.convert_layout %a : tensor<64x80xf16, #blA> -> tensor<64x80xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<80x64xf16, #blB> -> tensor<80x64xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x80xf16, #opA> * tensor<80x64xf16, #opB> -> tensor<64x64xf32, #blB>
    tile.return
  }
}

// -----

// On 8 warps the two warpgroups split N: 40 columns (80 bytes) an
// instruction, which no swizzled row divides, so no wgmma; mma.sync tiles
// powers of 2 only, so the FMA form, with both reasons on the op.
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #blB, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #blB, kWidth = 1>
module attributes {"tilegpu.num-warps" = 8 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @n_80_split_by_two_warpgroups
  // CHECK-NOT: warp_group_dot
  // CHECK: tile.dot {{.*}} {tilegpu.fma = "tl.dot: the B tile 64x80 of f16 has 160 bytes along its contiguous dimension, 80 bytes an instruction, which no swizzled row of wgmma (128, 64 or 32 bytes) divides; mma.sync: a 64x80x64 product: mma.sync tiles M and N in powers of 2"}
  tile.func public @n_80_split_by_two_warpgroups(%a: tensor<64x64xf16, #blA>, %b: tensor<64x80xf16, #blB>, %c: tensor<64x80xf32, #blB>) {
    %ca = tilegpu.convert_layout %a : tensor<64x64xf16, #blA> -> tensor<64x64xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<64x80xf16, #blB> -> tensor<64x80xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x64xf16, #opA> * tensor<64x80xf16, #opB> -> tensor<64x80xf32, #blB>
    tile.return
  }
}
