// RUN: warpforge-opt %s --tilegpu-lower-channels --cse | FileCheck %s

// The channel of lower-channels.mlir in a cluster of 2 CTAs whose
// producers multicast B (each copies half of its 256 rows into both CTAs'
// slots). A slot's empty barrier waits for the consumers of both CTAs:
// 2 x 8 arrivals, each consumer warp arriving once on its own CTA's and
// once on the other's (cta 0 and cta 1). The full barrier still counts the slot's
// 49152 bytes (all of B lands in each CTA). Cluster barriers replace the
// CTA barrier after the initialization (no remote arrival or copy before
// both CTAs' barriers exist) and follow the warp_specialize op (no CTA
// exits while the other may still write into it).

// CHECK-LABEL: tile.func public @mm(
// CHECK: tilegpu.init_barrier %{{.*}}, 1 :
// CHECK-NEXT: tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.init_barrier %{{.*}}, 16 :
// CHECK: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.cluster_barrier
// CHECK-NOT: tile.barrier
// CHECK-NEXT: tilegpu.warp_specialize
// The consumers: one arrival on empty[slot] of each CTA.
// CHECK: tilegpu.warp_group_dot_wait
// CHECK-NEXT: %[[E:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.arrive_barrier %[[E]], 1 cta %c0_i32{{(_[0-9]+)?}} {per_warp} :
// CHECK-NEXT: tilegpu.arrive_barrier %[[E]], 1 cta %c1_i32{{(_[0-9]+)?}} {per_warp} :
// The producer: A copied as before, B multicast; the whole slot's bytes.
// CHECK: partition0(
// CHECK: tilegpu.barrier_expect %{{.*}}, 49152, %{{.*}}
// CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}} : !tile.tensordesc<tensor<128x64xf16>>
// CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}} {multicast = 2 : i32} : !tile.tensordesc<tensor<256x64xf16>>
// CHECK: tilegpu.warp_return
// CHECK: }
// CHECK-NEXT: tilegpu.cluster_barrier
// CHECK-NEXT: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 2 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
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
        tilegpu.channel_tma_load %arg6[%arg13] %arg10[%11, %13] -> 1 {multicast = 2 : i32} : !tilegpu.channel<3>, !tile.tensordesc<tensor<256x64xf16>>
        tilegpu.channel_commit %arg6, %arg13 : !tilegpu.channel<3>
        %14 = arith.addi %arg13, %c1_i32_1 : i32
        scf.yield %14 : i32
      } {tilegpu.partition = "producer"}
      tilegpu.warp_return
    }
    tile.return
  }
}

