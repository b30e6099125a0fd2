// RUN: warpforge-opt %s --split-input-file --tilegpu-software-pipeline | FileCheck %s

// The K loop of a 16x64x64 f16 matmul on mma.sync as tilegpu-accelerate-
// matmul leaves it: operand loads into local_alloc, local_load of each into
// its register operand layout, tile.dot in the mma.sync accumulator layout.
// The loads become cp.async copies into 3-buffer rings, as for wgmma; the
// refill of iteration k + 2 goes after the product (the lowering reads its
// operands from the buffers step by step inside it; they are done in every
// thread once a CTA barrier follows), which needs no wait of its own.

// CHECK-LABEL: tile.func public @mma_sync_k_loop(
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x64xf16, #{{.*}}, mutable, buffers = 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #{{.*}}, mutable, buffers = 3>
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_commit_group
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_commit_group
// CHECK: scf.for
// CHECK-NEXT: tilegpu.async_wait {num = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[VA:.*]] = tilegpu.memdesc_index %[[A]]
// CHECK-NEXT: %[[VB:.*]] = tilegpu.memdesc_index %[[B]]
// CHECK-NEXT: %[[LA:.*]] = tilegpu.local_load %[[VA]] : {{.*}} -> tensor<16x64xf16, #[[OPA:.*]]>
// CHECK-NEXT: %[[LB:.*]] = tilegpu.local_load %[[VB]] : {{.*}} -> tensor<64x64xf16, #[[OPB:.*]]>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[LA]], %[[LB]], %{{.*}} : tensor<16x64xf16, #[[OPA]]> * tensor<64x64xf16, #[[OPB]]>
// CHECK-NEXT: tile.barrier
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.async_commit_group
// CHECK: scf.yield %[[D]]
// CHECK: tilegpu.async_wait {num = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tilegpu.local_dealloc %[[A]]
// CHECK-NEXT: tilegpu.local_dealloc %[[B]]
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#mma = #tilegpu.wgmma<warpsPerCTA = [1, 2], instrShape = [16, 32, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 2 : i32, "tilegpu.num-stages" = 3 : i32} {
tile.func public @mma_sync_k_loop(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #mma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<16x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<16x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<16x64x!tile.ptr<f16>, #blA>, tensor<16x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<64xi32, #sB> -> tensor<1x64xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x64xi32, #blB> -> tensor<64x64xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x64x!tile.ptr<f16>, #blB>, tensor<64x64xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<16x64xi32, #blA>
  %stepB = arith.constant dense<4096> : tensor<64x64xi32, #blB>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<16x64xf32, #mma>, tensor<16x64x!tile.ptr<f16>, #blA>, tensor<64x64x!tile.ptr<f16>, #blB>) : i32 {
    %a = tile.load %a_ptrs : tensor<16x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x64x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<16x64xf16, #blA>) -> !tilegpu.memdesc<16x64xf16, #nv>
    %ar = tilegpu.local_load %as : !tilegpu.memdesc<16x64xf16, #nv> -> tensor<16x64xf16, #opA>
    %bs = tilegpu.local_alloc %b : (tensor<64x64xf16, #blB>) -> !tilegpu.memdesc<64x64xf16, #nv>
    %br = tilegpu.local_load %bs : !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf16, #opB>
    %d = tile.dot %ar, %br, %acc : tensor<16x64xf16, #opA> * tensor<64x64xf16, #opB> -> tensor<16x64xf32, #mma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<16x64x!tile.ptr<f16>, #blA>, tensor<16x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x64x!tile.ptr<f16>, #blB>, tensor<64x64xi32, #blB>
    scf.yield %d, %a_next, %b_next : tensor<16x64xf32, #mma>, tensor<16x64x!tile.ptr<f16>, #blA>, tensor<64x64x!tile.ptr<f16>, #blB>
  }
  tile.return
}
}
