// RUN: warpforge-opt %s --tilegpu-warp-specialize | FileCheck %s

// A persistent kernel (tutorial 09's tma_persistent with WARP_SPECIALIZE:
// the tile loop is marked): the producer walks the tiles and their K
// steps with one use count across tiles, so it runs ahead into the next
// tile while the consumers store this one; the consumers' tile loop
// carries the count from one K loop to the next.

// CHECK-LABEL: tile.func public @mm(
// CHECK: tilegpu.warp_specialize(
// CHECK-NEXT: default(%[[DCH:[^:]*]]: !tilegpu.channel<3>
// CHECK: %[[TILES:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[TC:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[K:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[C:.*]] = %[[TC]])
// CHECK-NEXT: tilegpu.channel_wait %[[DCH]], %[[C]]
// CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: %[[LATER:.*]] = arith.cmpi ne, %[[C]], %[[TC]] : i32
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK: %[[PREV:.*]] = arith.subi %[[C]], %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_release %[[DCH]], %[[PREV]]
// CHECK: } {tilegpu.partition = "consumer"}
// The last product of the tile retires before its epilogue; its slot goes
// back if the K loop ran.
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[K]]#0 {pendings = 0 : i32}
// CHECK-NEXT: %[[RAN:.*]] = arith.cmpi ne, %[[K]]#1, %[[TC]] : i32
// CHECK-NEXT: scf.if %[[RAN]] {
// CHECK: %[[LAST:.*]] = arith.subi %[[K]]#1, %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_release %[[DCH]], %[[LAST]]
// CHECK: tile.descriptor_store
// CHECK-NEXT: scf.yield %[[K]]#1 : i32
// The tile loop's own loads (none here) are not pipelined across tiles.
// CHECK-NEXT: } {tile.num_stages = 1 : i32, tilegpu.partition = "consumer-tiles"}
// CHECK-NEXT: tilegpu.warp_yield
// CHECK: partition0(%[[PCH:[^:]*]]: !tilegpu.channel<3>
// CHECK: %[[PT:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PTC:.*]] = %{{.*}}) -> (i32)
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: %[[PK:.*]] = scf.for {{.*}} iter_args(%[[PC:.*]] = %[[PTC]]) -> (i32)
// CHECK: tilegpu.channel_acquire %[[PCH]], %[[PC]]
// CHECK-COUNT-2: tilegpu.channel_tma_load %[[PCH]][%[[PC]]]
// CHECK-NEXT: tilegpu.channel_commit %[[PCH]], %[[PC]]
// CHECK: } {tilegpu.partition = "producer"}
// CHECK-NEXT: scf.yield %[[PK]] : i32
// CHECK-NEXT: } {tilegpu.partition = "producer-tiles"}
// CHECK-NEXT: tilegpu.warp_return

module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<256x64xf16>>, %dc: !tile.tensordesc<tensor<128x256xf16>>, %arg3: i32, %arg4: i32, %arg5: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c127_i32 = arith.constant 127 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
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
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<256x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>> -> tensor<64x256xf16, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>>) -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>
        %25 = tilegpu.local_alloc %23 : (tensor<64x256xf16, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>>) -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>
        %26 = tilegpu.warp_group_dot %24, %25, %arg8 : !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>> * !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>> -> tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
        scf.yield %27 : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      }
      %18 = arith.truncf %17 : tensor<128x256xf32, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>> to tensor<128x256xf16, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>>
      %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>> -> tensor<128x256xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>>
      tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>>
    } {tile.warp_specialize}
    tile.return
  }
}
