// RUN: warpforge-opt %s --tilegpu-software-pipeline | FileCheck %s

// A persistent tile loop whose K loop is pipelined and rotated into it,
// and which also loads, in its own body, the operands of a product after
// the K loop (the rotated attention's last PV), so that both loops have a
// plan. Rotating the K loop replaces the tile loop: the tile loop's own
// plan is dropped (the pass used to run it on the erased loop and crash),
// and its loads stay plain descriptor loads after the K loop, as loads
// after any loop do.

// CHECK-LABEL: tile.func public @mm_tile_loop_planned(
// The K loop's rings, once, before the tile loop; the first tile's copies.
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, {{.*}}, mutable, buffers = 3>
// CHECK-NEXT: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, {{.*}}, mutable, buffers = 3>
// CHECK-NEXT: tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, {{.*}}, mutable, buffers = 3>
// CHECK: tilegpu.async_tma_copy_global_to_local
// The tile loop carries the ring position and phase (the rotation).
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[POS:[^ ]*]] = %{{[^,]*}}, %{{[^ ]*}} = %{{[^)]*}}) -> (i32, i32)
// CHECK-NOT: tilegpu.local_alloc : () -> {{.*}}buffers = 3
// CHECK: %[[K:.*]]:4 = scf.for {{.*}} iter_args(%{{[^ ]*}} = %{{[^,]*}}, %{{[^ ]*}} = %[[POS]],
// CHECK: scf.yield
// After the K loop: the next tile's first copies, then the tile's own
// loads, unpipelined, and the product after the loop.
// CHECK: tile.barrier
// CHECK: tilegpu.async_tma_copy_global_to_local
// CHECK: %[[V:.*]] = tile.descriptor_load %{{.*}} : !tile.tensordesc<tensor<256x64xf16>>
// CHECK: %[[Q:.*]] = tile.descriptor_load %{{.*}} : !tile.tensordesc<tensor<128x64xf16>>
// CHECK: tilegpu.warp_group_dot
// CHECK: tile.descriptor_store
// CHECK: scf.yield
// CHECK: tilegpu.local_dealloc %[[A]]
// CHECK: tile.return

module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm_tile_loop_planned(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32, %arg5: i32) {
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
      %x = tile.descriptor_load %2[%16, %c0_i32] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
      %xt = tile.trans %x {order = array<i32: 1, 0>} : tensor<256x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>> -> tensor<64x256xf16, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>
      %xs = tilegpu.local_alloc %xt : (tensor<64x256xf16, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>) -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>
      %y = tile.descriptor_load %1[%15, %c0_i32] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
      %ys = tilegpu.local_alloc %y : (tensor<128x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>) -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>
      %last = tilegpu.warp_group_dot %ys, %xs, %17 : !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>> * !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>> -> tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      %lastw = tilegpu.warp_group_dot_wait %last {pendings = 0 : i32} : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      %18 = arith.truncf %lastw : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>> to tensor<128x256xf16, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>> -> tensor<128x256xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>>
      tile.descriptor_store %4[%15, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>>
    }
    tile.return
  }
}
