// RUN: warpforge-opt %s --tilegpu-lower-channels --cse | FileCheck %s

// The partitioned matmul of partition.mlir: the channel of 3 slots becomes
// full and empty barrier rings, initialized before the split (full: one
// arrival, the producer's expect_tx; empty: one per consumer thread,
// 8 warps = 256), fenced for the async proxy and a CTA barrier; rings and
// barriers reach the producer as captures in place of the channel.

// CHECK-LABEL: tile.func public @mm(
// CHECK: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
// CHECK: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>
// CHECK: %[[FULL:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>
// CHECK: %[[EMPTY:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>
// CHECK: tilegpu.init_barrier %{{.*}}, 1 :
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.init_barrier %{{.*}}, 256 :
// CHECK-COUNT-2: tilegpu.init_barrier %{{.*}}, 1 :
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.init_barrier %{{.*}}, 256 :
// CHECK-NOT: tilegpu.init_barrier
// CHECK: tilegpu.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tilegpu.warp_specialize(%arg5, %arg0, %arg4, %arg1, %arg2, %[[RA]], %[[RB]], %[[FULL]], %[[EMPTY]])
// CHECK-NEXT: default({{.*}}, %[[DRA:[^:]*]]: !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, %[[DRB:[^:]*]]: !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>, %[[DFULL:[^:]*]]: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>, %[[DEMPTY:[^:]*]]: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>)
// CHECK-NOT: tilegpu.channel
// The consumers: slot c % 3, parity (c / 3) % 2 of full[slot]; the slot's
// buffers; one arrival on empty[slot] after the product's wait.
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[C:.*]] = %{{.*}})
// CHECK: %[[S:.*]] = arith.remui %[[C]], %[[THREE:.*]] : i32
// CHECK-NEXT: %[[LAP:.*]] = arith.divui %[[C]], %[[THREE]] : i32
// CHECK-NEXT: %[[PH:.*]] = arith.andi %[[LAP]], %{{.*}} : i32
// CHECK-NEXT: %[[F:.*]] = tilegpu.memdesc_index %[[DFULL]][%[[S]]]
// CHECK-NEXT: tilegpu.wait_barrier %[[F]], %[[PH]]
// CHECK-NEXT: %[[A:.*]] = tilegpu.memdesc_index %[[DRA]][%[[S]]]
// CHECK-NEXT: %[[B:.*]] = tilegpu.memdesc_index %[[DRB]][%[[S]]]
// CHECK-NEXT: %[[BT:.*]] = tilegpu.memdesc_trans %[[B]]
// CHECK-NEXT: tilegpu.warp_group_dot %[[A]], %[[BT]]
// CHECK-NEXT: tilegpu.warp_group_dot_wait
// CHECK-NEXT: %[[E:.*]] = tilegpu.memdesc_index %[[DEMPTY]][%[[S]]]
// CHECK-NEXT: tilegpu.arrive_barrier %[[E]], 1
// The producer: waits empty[slot] for the previous lap's parity, then
// announces the slot's 49152 bytes (16 KiB of A and 32 KiB of B) on
// full[slot] before both copies, which signal it.
// CHECK: partition0({{.*}}, %[[PRA:[^:]*]]: !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, %[[PRB:[^:]*]]: !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>, %[[PFULL:[^:]*]]: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>, %[[PEMPTY:[^:]*]]: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>) num_warps(4)
// CHECK: scf.for {{.*}} iter_args(%[[PC:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[PS:.*]] = arith.remui %[[PC]], %{{.*}} : i32
// CHECK-NEXT: %[[PLAP:.*]] = arith.divui %[[PC]], %{{.*}} : i32
// CHECK-NEXT: %[[PPH:.*]] = arith.andi %[[PLAP]], %[[ONE:.*]] : i32
// CHECK-NEXT: %[[PREV:.*]] = arith.xori %[[PPH]], %[[ONE]] : i32
// CHECK-NEXT: %[[PE:.*]] = tilegpu.memdesc_index %[[PEMPTY]][%[[PS]]]
// CHECK-NEXT: tilegpu.wait_barrier %[[PE]], %[[PREV]]
// CHECK: %[[PF:.*]] = tilegpu.memdesc_index %[[PFULL]][%[[PS]]]
// CHECK-NEXT: tilegpu.barrier_expect %[[PF]], 49152, %{{.*}}
// CHECK-NEXT: %[[PA:.*]] = tilegpu.memdesc_index %[[PRA]][%[[PS]]]
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[PA]], %[[PF]], %{{.*}}
// CHECK-NEXT: %[[PB:.*]] = tilegpu.memdesc_index %[[PRB]][%[[PS]]]
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[PB]], %[[PF]], %{{.*}}
// CHECK-NEXT: arith.addi %[[PC]]
// CHECK: tilegpu.warp_return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: !tile.tensordesc<tensor<256x64xf16>>, %arg2: !tile.tensordesc<tensor<128x256xf16>>, %arg3: i32, %arg4: i32, %arg5: i32) {
    %0 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
    %1 = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>
    %2 = tilegpu.create_channel %0, %1 : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
    tilegpu.warp_specialize(%2, %arg5, %arg0, %arg4, %arg1, %arg2) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40>}
    default(%arg6: !tilegpu.channel<3>, %arg7: i32, %arg8: !tile.tensordesc<tensor<128x64xf16>>, %arg9: i32, %arg10: !tile.tensordesc<tensor<256x64xf16>>, %arg11: !tile.tensordesc<tensor<128x256xf16>>) {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
      %c63_i32 = arith.constant 63 : i32
      %c255_i32 = arith.constant 255 : i32
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c256_i32 = arith.constant 256 : i32
      %c128_i32 = arith.constant 128 : i32
      %c1_i32 = arith.constant 1 : i32
      %3 = tile.get_program_id x : i32
      %4 = arith.addi %arg9, %c255_i32 : i32
      %5 = arith.divsi %4, %c256_i32 : i32
      %6 = arith.addi %arg7, %c63_i32 : i32
      %7 = arith.divsi %6, %c64_i32 : i32
      %8 = arith.divsi %3, %5 : i32
      %9 = arith.remsi %3, %5 : i32
      %10 = arith.muli %8, %c128_i32 : i32
      %11 = arith.muli %9, %c256_i32 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %12:2 = scf.for %arg12 = %c0_i32 to %7 step %c1_i32 iter_args(%arg13 = %cst, %arg14 = %c0_i32_0) -> (tensor<128x256xf32, #wgmma>, i32)  : i32 {
        %15:2 = tilegpu.channel_wait %arg6, %arg14 : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable>
        %16 = tilegpu.memdesc_trans %15#1 : !tilegpu.memdesc<256x64xf16, #nvmma, mutable> -> !tilegpu.memdesc<64x256xf16, #nvmma1, mutable>
        %17 = tilegpu.warp_group_dot %15#0, %16, %arg13 : !tilegpu.memdesc<128x64xf16, #nvmma, mutable> * !tilegpu.memdesc<64x256xf16, #nvmma1, mutable> -> tensor<128x256xf32, #wgmma>
        %18 = tilegpu.warp_group_dot_wait %17 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
        tilegpu.channel_release %arg6, %arg14 : !tilegpu.channel<3>
        %c1_i32_1 = arith.constant 1 : i32
        %19 = arith.addi %arg14, %c1_i32_1 : i32
        scf.yield %18, %19 : tensor<128x256xf32, #wgmma>, i32
      } {tilegpu.partition = "consumer"}
      %13 = arith.truncf %12#0 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
      %14 = tilegpu.convert_layout %13 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked>
      tile.descriptor_store %arg11[%10, %11], %14 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #blocked>
      tilegpu.warp_yield
    }
    partition0(%arg6: !tilegpu.channel<3>, %arg7: i32, %arg8: !tile.tensordesc<tensor<128x64xf16>>, %arg9: i32, %arg10: !tile.tensordesc<tensor<256x64xf16>>, %arg11: !tile.tensordesc<tensor<128x256xf16>>) num_warps(4) {
      %c63_i32 = arith.constant 63 : i32
      %c255_i32 = arith.constant 255 : i32
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c256_i32 = arith.constant 256 : i32
      %c128_i32 = arith.constant 128 : i32
      %c1_i32 = arith.constant 1 : i32
      %3 = tile.get_program_id x : i32
      %4 = arith.addi %arg9, %c255_i32 : i32
      %5 = arith.divsi %4, %c256_i32 : i32
      %6 = arith.addi %arg7, %c63_i32 : i32
      %7 = arith.divsi %6, %c64_i32 : i32
      %8 = arith.divsi %3, %5 : i32
      %9 = arith.remsi %3, %5 : i32
      %10 = arith.muli %8, %c128_i32 : i32
      %11 = arith.muli %9, %c256_i32 : i32
      %c0_i32_0 = arith.constant 0 : i32
      %c1_i32_1 = arith.constant 1 : i32
      %12 = scf.for %arg12 = %c0_i32 to %7 step %c1_i32 iter_args(%arg13 = %c0_i32_0) -> (i32)  : i32 {
        %13 = arith.muli %arg12, %c64_i32 : i32
        tilegpu.channel_acquire %arg6, %arg13 : !tilegpu.channel<3>
        tilegpu.channel_tma_load %arg6[%arg13] %arg8[%10, %13] -> 0 : !tilegpu.channel<3>, !tile.tensordesc<tensor<128x64xf16>>
        tilegpu.channel_tma_load %arg6[%arg13] %arg10[%11, %13] -> 1 : !tilegpu.channel<3>, !tile.tensordesc<tensor<256x64xf16>>
        tilegpu.channel_commit %arg6, %arg13 : !tilegpu.channel<3>
        %14 = arith.addi %arg13, %c1_i32_1 : i32
        scf.yield %14 : i32
      } {tilegpu.partition = "producer"}
      tilegpu.warp_return
    }
    tile.return
  }
}

