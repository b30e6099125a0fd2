// RUN: warpforge-opt %s --tilegpu-warp-specialize | FileCheck %s
// RUN: warpforge-opt %s --tilegpu-warp-specialize | warpforge-opt | FileCheck %s

// Tutorial 09's non-persistent TMA matmul on 8 consumer warps (two
// consumer groups of 4): the K loop's descriptor loads and their address
// math go to a producer partition of 4 warps; the products, the epilogue
// and everything before them stay on the default (consumer) warps.

// The rings and the channel come first, outside the warp_specialize op.
// CHECK-LABEL: tile.func public @mm(
// CHECK-NEXT: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
// CHECK-NEXT: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>
// CHECK-NEXT: %[[CH:.*]] = tilegpu.create_channel %[[RA]], %[[RB]] : {{.*}} -> !tilegpu.channel<3>
// Two consumer warpgroups: 40 registers for the producer, 232 for them.
// Every region takes the captures: the channel, the kernel arguments
// the producer needs, then those the consumers need.
// CHECK-NEXT: tilegpu.warp_specialize(%[[CH]], %arg5, %arg0, %arg4, %arg1, %arg2) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40>}
// CHECK-NEXT: default(%[[DCH:[^:]*]]: !tilegpu.channel<3>, %{{.*}}: i32, %{{.*}}: !tile.tensordesc<tensor<128x64xf16>>, %{{.*}}: i32, %{{.*}}: !tile.tensordesc<tensor<256x64xf16>>, %[[DDC:[^:]*]]: !tile.tensordesc<tensor<128x256xf16>>) {
// CHECK: tile.get_program_id
// The consumer loop counts its uses of the channel from 0; it waits for
// each slot, reads B transposed in place, keeps its product in flight
// (pendings = 1: the wait retires the previous iteration's) and releases
// the previous iteration's slot from the second iteration on; after the
// loop a full wait retires the last product and its slot goes back if the
// loop ran.
// CHECK: %[[LOOP:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}) -> (tensor<128x256xf32, #wgmma>, i32)
// CHECK-NEXT: %[[S:.*]]:2 = tilegpu.channel_wait %[[DCH]], %[[C]] : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable>
// CHECK-NEXT: %[[BT:.*]] = tilegpu.memdesc_trans %[[S]]#1
// CHECK-NEXT: %[[D:.*]] = tilegpu.warp_group_dot %[[S]]#0, %[[BT]], %[[ACC]]
// CHECK-NEXT: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK-NEXT: %[[LATER:.*]] = arith.cmpi ne, %[[C]], %[[C0:.*]] : i32
// CHECK-NEXT: scf.if %[[LATER]] {
// CHECK: %[[PREV:.*]] = arith.subi %[[C]], %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_release %[[DCH]], %[[PREV]] : !tilegpu.channel<3>
// CHECK-NEXT: }
// CHECK: %[[NEXT:.*]] = arith.addi %[[C]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[W]], %[[NEXT]]
// CHECK-NEXT: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: %[[DRAIN:.*]] = tilegpu.warp_group_dot_wait %[[LOOP]]#0 {pendings = 0 : i32}
// CHECK-NEXT: %[[RAN:.*]] = arith.cmpi ne, %[[LOOP]]#1, %[[C0]] : i32
// CHECK-NEXT: scf.if %[[RAN]] {
// CHECK: %[[LAST:.*]] = arith.subi %[[LOOP]]#1, %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_release %[[DCH]], %[[LAST]] : !tilegpu.channel<3>
// CHECK-NEXT: }
// CHECK-NOT: tile.descriptor_load
// CHECK: arith.truncf %[[DRAIN]]
// CHECK: tile.descriptor_store %[[DDC]]
// CHECK-NEXT: tilegpu.warp_yield
// The producer: the kernel arguments it needs as captures, the tile
// coordinates and loop bounds recomputed from them, and per iteration the
// slot acquired, both copies, the commit.
// CHECK-NEXT: }
// CHECK-NEXT: partition0(%[[PCH:[^:]*]]: !tilegpu.channel<3>, %[[PK:[^:]*]]: i32, %[[PDA:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[PN:[^:]*]]: i32, %[[PDB:[^:]*]]: !tile.tensordesc<tensor<256x64xf16>>, %{{.*}}: !tile.tensordesc<tensor<128x256xf16>>) num_warps(4) {
// CHECK: tile.get_program_id
// CHECK: %[[PL:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[PC:.*]] = %{{.*}}) -> (i32)
// CHECK-NEXT: %[[OFF:.*]] = arith.muli %[[K]], %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_acquire %[[PCH]], %[[PC]]
// CHECK-NEXT: tilegpu.channel_tma_load %[[PCH]][%[[PC]]] %[[PDA]][%{{.*}}, %[[OFF]]] -> 0
// CHECK-NEXT: tilegpu.channel_tma_load %[[PCH]][%[[PC]]] %[[PDB]][%{{.*}}, %[[OFF]]] -> 1
// CHECK-NEXT: tilegpu.channel_commit %[[PCH]], %[[PC]]
// CHECK-NEXT: %[[PNEXT:.*]] = arith.addi %[[PC]], %{{.*}} : i32
// CHECK-NEXT: scf.yield %[[PNEXT]] : i32
// CHECK-NEXT: } {tilegpu.partition = "producer"}
// CHECK-NEXT: tilegpu.warp_return
// CHECK-NEXT: }
// CHECK-NEXT: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<256x64xf16>>, %dc: !tile.tensordesc<tensor<128x256xf16>>, %M: i32, %N: i32, %K: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %8 = arith.addi %N, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %11 = arith.addi %K, %c63_i32 : i32
    %12 = arith.divsi %11, %c64_i32 : i32
    %13 = arith.divsi %pid, %9 : i32
    %14 = arith.remsi %pid, %9 : i32
    %15 = arith.muli %13, %c128_i32 : i32
    %16 = arith.muli %14, %c256_i32 : i32
    %17 = scf.for %k = %c0_i32 to %12 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x256xf32, #wgmma>)  : i32 {
      %20 = arith.muli %k, %c64_i32 : i32
      %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blockedT>
      %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %25 = tilegpu.local_alloc %23 : (tensor<64x256xf16, #blockedT>) -> !tilegpu.memdesc<64x256xf16, #nvmmaT>
      %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmmaT> -> tensor<128x256xf32, #wgmma>
      %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      scf.yield %27 : tensor<128x256xf32, #wgmma>
    }
    %18 = arith.truncf %17 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #out>
    tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #out>
    tile.return
  }
}
