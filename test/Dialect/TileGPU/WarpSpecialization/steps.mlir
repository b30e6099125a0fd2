// RUN: warpforge-opt %s --tilegpu-ws-task-partition | FileCheck %s --check-prefix=TASK
// RUN: warpforge-opt %s --tilegpu-ws-task-partition --tilegpu-ws-buffer-allocation | FileCheck %s --check-prefix=BUFFERS
// RUN: warpforge-opt %s --tilegpu-ws-task-partition --tilegpu-ws-buffer-allocation=num-buffers=2 | FileCheck %s --check-prefix=TWO
// Each step's printed IR is the next one's input, and the three in a row
// are tilegpu-warp-specialize.
// RUN: warpforge-opt %s --tilegpu-ws-task-partition | warpforge-opt --tilegpu-ws-buffer-allocation | warpforge-opt --tilegpu-ws-code-partition > %t.steps
// RUN: warpforge-opt %s --tilegpu-warp-specialize > %t.whole
// RUN: diff %t.steps %t.whole
// RUN: FileCheck %s --check-prefix=CODE < %t.steps

// Tutorial 09's non-persistent TMA matmul (partition.mlir), step by step.

// Task partition: the product loop and the two loads the producer copies
// (with the TMA: descriptor loads), nothing else changed.
// TASK-LABEL: tile.func public @mm(
// TASK-NOT: tilegpu.local_alloc :
// TASK: scf.for
// TASK-NEXT: arith.muli
// TASK-NEXT: tile.descriptor_load %{{.*}} {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 0 : i32}
// TASK-NEXT: tile.descriptor_load %{{.*}} {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 1 : i32}
// TASK: } {tilegpu.ws.loop}
// TASK-NOT: tilegpu.warp_specialize

// Buffer allocation: a ring per operand in the TMA's layout (B's block as
// the descriptor reads it, 256x64), num-buffers-warp-spec (3) slots, and
// the channel over them, marked until code partition uses it.
// BUFFERS-LABEL: tile.func public @mm(
// BUFFERS-NEXT: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
// BUFFERS-NEXT: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>
// BUFFERS-NEXT: tilegpu.create_channel %[[RA]], %[[RB]] {tilegpu.ws.channel} : {{.*}} -> !tilegpu.channel<3>
// BUFFERS: } {tilegpu.ws.loop}
// BUFFERS-NOT: tilegpu.warp_specialize

// The pass's option overrides the module's count.
// TWO-LABEL: tile.func public @mm(
// TWO-NEXT: tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 2>
// TWO-NEXT: tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 2>
// TWO-NEXT: tilegpu.create_channel {{.*}} -> !tilegpu.channel<2>

// Code partition: the warp_specialize op on that channel; no marks left.
// CODE-LABEL: tile.func public @mm(
// CODE: %[[CH:.*]] = tilegpu.create_channel %{{.*}}, %{{.*}} : {{.*}} -> !tilegpu.channel<3>
// CODE-NEXT: tilegpu.warp_specialize(%[[CH]],
// CODE-NOT: tilegpu.ws.
// CODE: partition0(
// CODE: tilegpu.channel_tma_load
// CODE-NOT: tilegpu.ws.

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
