// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// tile.dot in mma.sync layouts: one mma.sync.aligned.m16n8k<K> per warp,
// 16 rows, 8 columns and K step, its registers packed from the operands'
// element lists (MmaDotOpToLLVM.cpp); Triton's spelling of the
// instruction.

#st = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 16, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
// One warp, 16x16x32: 2 column groups x 2 K steps, 4 A, 2 B and 4 C
// registers each.
// CHECK-LABEL: llvm.func @f16_f32(
// CHECK-COUNT-4: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
// CHECK-NOT: mma.sync
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @f16_f32(%a: tensor<16x32xf16, #opA>, %b: tensor<32x16xf16, #opB>, %c: tensor<16x16xf32, #mma>, %p: !tile.ptr<f32>) {
    %d = tile.dot %a, %b, %c : tensor<16x32xf16, #opA> * tensor<32x16xf16, #opB> -> tensor<16x16xf32, #mma>
    %e = tilegpu.convert_layout %d : tensor<16x16xf32, #mma> -> tensor<16x16xf32, #st>
    %pp = tile.splat %p : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>, #st>
    tile.store %pp, %e : tensor<16x16x!tile.ptr<f32>, #st>
    tile.return
  }
}

// -----

#st = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 8, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
// f16 accumulators: two per register, tied through the asm.
// CHECK-LABEL: llvm.func @f16_f16(
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {$0, $1}, {$2, $3, $4, $5}, {$6, $7}, {$8, $9};", "=r,=r,r,r,r,r,r,r,0,1"
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @f16_f16(%a: tensor<16x16xf16, #opA>, %b: tensor<16x8xf16, #opB>, %c: tensor<16x8xf16, #mma>, %p: !tile.ptr<f16>) {
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #opA> * tensor<16x8xf16, #opB> -> tensor<16x8xf16, #mma>
    %e = tilegpu.convert_layout %d : tensor<16x8xf16, #mma> -> tensor<16x8xf16, #st>
    %pp = tile.splat %p : !tile.ptr<f16> -> tensor<16x8x!tile.ptr<f16>, #st>
    tile.store %pp, %e : tensor<16x8x!tile.ptr<f16>, #st>
    tile.return
  }
}

// -----

#st = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
#mma = #tilegpu.wgmma<warpsPerCTA = [2, 1], instrShape = [16, 8, 32]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 4>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 4>
// int8, k32, saturating, four elements per operand register.
// CHECK-LABEL: llvm.func @int8(
// CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to i32
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3"
module attributes {"tilegpu.num-warps" = 2 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @int8(%a: tensor<32x32xi8, #opA>, %b: tensor<32x8xi8, #opB>, %c: tensor<32x8xi32, #mma>, %p: !tile.ptr<i32>) {
    %d = tile.dot %a, %b, %c : tensor<32x32xi8, #opA> * tensor<32x8xi8, #opB> -> tensor<32x8xi32, #mma>
    %e = tilegpu.convert_layout %d : tensor<32x8xi32, #mma> -> tensor<32x8xi32, #st>
    %pp = tile.splat %p : !tile.ptr<i32> -> tensor<32x8x!tile.ptr<i32>, #st>
    tile.store %pp, %e : tensor<32x8x!tile.ptr<i32>, #st>
    tile.return
  }
}

// -----

#st = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#mma = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 8, 8]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 1>
// float32 as tf32: the f32 bits passed as b32 registers.
// CHECK-LABEL: llvm.func @tf32(
// CHECK: llvm.bitcast %{{.*}} : f32 to i32
// CHECK: llvm.inline_asm "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @tf32(%a: tensor<16x8xf32, #opA>, %b: tensor<8x8xf32, #opB>, %c: tensor<16x8xf32, #mma>, %p: !tile.ptr<f32>) {
    %d = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<16x8xf32, #opA> * tensor<8x8xf32, #opB> -> tensor<16x8xf32, #mma>
    %e = tilegpu.convert_layout %d : tensor<16x8xf32, #mma> -> tensor<16x8xf32, #st>
    %pp = tile.splat %p : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>, #st>
    tile.store %pp, %e : tensor<16x8x!tile.ptr<f32>, #st>
    tile.return
  }
}
