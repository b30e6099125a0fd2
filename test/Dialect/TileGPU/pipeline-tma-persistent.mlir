// RUN: warpforge-opt %s --tilegpu-software-pipeline | FileCheck %s

// A persistent kernel (tutorial 09's shape): a tile loop around a K loop of
// two descriptor loads and a product, then a TMA store of the tile.  The
// pipeliner keeps the rings and barriers across tiles: they are allocated
// and initialized once before the tile loop, which carries the ring
// position and phase; the first tile's first copies go before the tile
// loop, and each tile issues the next tile's first copies as soon as the
// buffers they refill are free (after the K loop and a CTA barrier, while
// the last product is still in flight), before its own epilogue.  The ring is freed after the tile loop.

// CHECK-LABEL: tile.func public @mm(
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, {{.*}}, mutable, buffers = 3>
// CHECK-NEXT: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, {{.*}}, mutable, buffers = 3>
// CHECK-NEXT: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, {{.*}}, mutable, buffers = 3>
// CHECK-COUNT-3: tilegpu.init_barrier
// CHECK: tilegpu.fence_async_shared
// CHECK-NEXT: tile.barrier
// The first tile's prologue, predicated on the tile loop running at all.
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi slt, %[[LB:[^,]*]], %[[UB:[^ ]*]] : i32
// CHECK: tilegpu.barrier_expect %{{.*}}, 49152,
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.barrier_expect %{{.*}}, 49152,
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.async_tma_copy_global_to_local
// The tile loop carries the ring position and phase, from 0.
// CHECK: %[[T:.*]]:2 = scf.for %[[TILE:[^ ]*]] = %[[LB]] to %[[UB]] step %[[STEP:[^ ]*]] iter_args(%[[POS:[^ ]*]] = %[[Z:[^,]*]], %[[PH:[^ ]*]] = %[[Z]]) -> (i32, i32)
// The K loop starts where the previous tile left the ring.
// CHECK: %[[K:.*]]:4 = scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %[[POS]], %{{[^ ]*}} = %{{[^,]*}}, %[[KPH:[^ ]*]] = %[[PH]])
// CHECK: tilegpu.wait_barrier %{{.*}}, %[[KPH]]
// CHECK: tilegpu.memdesc_trans
// CHECK: tilegpu.warp_group_dot
// CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK: scf.yield
// After the tile's K loop: a CTA barrier (every warpgroup's products but
// the last have retired), the next tile's first copies (into the buffers
// of those retired products), then the wait for the last product, which
// the copies overlap, and this tile's epilogue.
// CHECK-NOT: tilegpu.warp_group_dot_wait
// CHECK: tile.barrier
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[TILE]], %[[STEP]] : i32
// CHECK-NEXT: arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
// CHECK: tilegpu.barrier_expect
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.barrier_expect
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK-NEXT: %[[ACC:.*]] = tilegpu.warp_group_dot_wait %[[K]]#0 {pendings = 0 : i32}
// CHECK-NEXT: arith.truncf %[[ACC]]
// CHECK: tile.descriptor_store
// CHECK-NEXT: scf.yield %[[K]]#1, %[[K]]#3 : i32, i32
// The ring is freed once, after the tile loop.
// CHECK: tile.barrier
// CHECK-NEXT: tilegpu.local_dealloc %[[A]]
// CHECK-NEXT: tilegpu.local_dealloc %[[B]]
// CHECK-COUNT-3: tilegpu.inval_barrier
// CHECK: tilegpu.local_dealloc %[[BARS]]
// CHECK-NEXT: tile.return

module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c127_i32 = arith.constant 127 : i32
    %c1_i64 = arith.constant 1 : i64
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = arith.extsi %arg5 : i32 to i64
    %1 = tile.make_tensor_descriptor %arg0, [%arg3, %arg5], [%0, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x64xf16>>
    %2 = tile.make_tensor_descriptor %arg1, [%arg4, %arg5], [%0, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<256x64xf16>>
    %3 = arith.extsi %arg4 : i32 to i64
    %4 = tile.make_tensor_descriptor %arg2, [%arg3, %arg4], [%3, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x256xf16>>
    %5 = tile.get_program_id x : i32
    %6 = arith.addi %arg3, %c127_i32 : i32
    %7 = arith.divsi %6, %c128_i32 : i32
    %8 = arith.addi %arg4, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %10 = arith.muli %7, %9 : i32
    %11 = arith.addi %arg5, %c63_i32 : i32
    %12 = arith.divsi %11, %c64_i32 : i32
    scf.for %arg6 = %5 to %10 step %c132_i32  : i32 {
      %13 = arith.divsi %arg6, %9 : i32
      %14 = arith.remsi %arg6, %9 : i32
      %15 = arith.muli %13, %c128_i32 : i32
      %16 = arith.muli %14, %c256_i32 : i32
      %17 = scf.for %arg7 = %c0_i32 to %12 step %c1_i32 iter_args(%arg8 = %cst) -> (tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>)  : i32 {
        %20 = arith.muli %arg7, %c64_i32 : i32
        %21 = tile.descriptor_load %1[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
        %22 = tile.descriptor_load %2[%16, %20] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<256x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>> -> tensor<64x256xf16, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>) -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>
        %25 = tilegpu.local_alloc %23 : (tensor<64x256xf16, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>) -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>
        %26 = tilegpu.warp_group_dot %24, %25, %arg8 : !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>> * !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>> -> tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
        scf.yield %27 : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      }
      %18 = arith.truncf %17 : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>> to tensor<128x256xf16, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>> -> tensor<128x256xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>>
      tile.descriptor_store %4[%15, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>>
    }
    tile.return
  }
}
