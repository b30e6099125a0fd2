// RUN: warpforge-opt %s --tilegpu-ws-task-partition --tilegpu-ws-buffer-allocation | FileCheck %s --check-prefix=ALLOC
// RUN: warpforge-opt %s --tilegpu-warp-specialize | FileCheck %s

// The persistent rotated attention with its first K block peeled off the
// loop (FlashAttention-3's prologue: no PV of a zero "block -1"). That
// block is read only by a product before the loop, so it belongs to the
// loop after it, and its slot is the last V's: the consumers release it
// before the loop starts and wait for the last V after the loop ends, so
// one buffer serves both, used twice a tile (counts 2t and 2t + 1). Q is
// read in the loop and keeps a slot of its own.

// ALLOC-LABEL: tile.func public @attn(
// ALLOC: tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>
// ALLOC-NEXT: tilegpu.create_channel %{{.*}} {tilegpu.ws.tile_channel = 0 : i32}
// ALLOC-NEXT: tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
// ALLOC-NEXT: tilegpu.create_channel %{{.*}} {tilegpu.ws.tile_channel = array<i32: 1, 2>}
// ALLOC-NOT: tilegpu.ws.tile_channel
// ALLOC: tilegpu.ws.channel

// A first block also read after the loop is released after it: sharing
// its slot with the last V would leave the producer waiting for that
// release to copy the V the consumers wait for. Three slots of their own.
// ALLOC-LABEL: tile.func public @first_block_read_after_loop(
// ALLOC: tilegpu.create_channel %{{.*}} {tilegpu.ws.tile_channel = 0 : i32}
// ALLOC: tilegpu.create_channel %{{.*}} {tilegpu.ws.tile_channel = 1 : i32}
// ALLOC: tilegpu.create_channel %{{.*}} {tilegpu.ws.tile_channel = 2 : i32}
// ALLOC-NOT: tile_channel = array

// CHECK-LABEL: tile.func public @attn(
// CHECK: default(
// CHECK: %[[K0USE:.*]] = arith.muli %[[T:.*]], %c2_i32 : i32
// CHECK-NEXT: %[[K0:.*]] = tilegpu.channel_wait %[[SLOT:[^,]*]], %[[K0USE]]
// CHECK: tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release %[[SLOT]], %[[K0USE]]
// CHECK: scf.for
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK: %[[T2:.*]] = arith.muli %{{.*}}, %c2_i32{{.*}} : i32
// CHECK: %[[VUSE:.*]] = arith.addi %[[T2]], %c1_i32 : i32
// CHECK-NEXT: tilegpu.channel_wait %[[SLOT]], %[[VUSE]]
// CHECK: tilegpu.channel_release %[[SLOT]], %[[VUSE]]
// CHECK: partition0(
// CHECK: %[[PK0:.*]] = arith.muli %[[PT:.*]], %c2_i32 : i32
// CHECK-NEXT: tilegpu.channel_acquire %[[PSLOT:[^,]*]], %[[PK0]]
// CHECK-NEXT: tilegpu.channel_tma_load %[[PSLOT]][%[[PK0]]]
// CHECK-NEXT: tilegpu.channel_commit %[[PSLOT]], %[[PK0]]
// CHECK: } {tilegpu.partition = "producer"}
// CHECK: %[[PT2:.*]] = arith.muli %[[PT]], %c2_i32{{.*}} : i32
// CHECK: %[[PV:.*]] = arith.addi %[[PT2]], %c1_i32{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_acquire %[[PSLOT]], %[[PV]]
// CHECK-NEXT: tilegpu.channel_tma_load %[[PSLOT]][%[[PV]]]
// CHECK-NEXT: tilegpu.channel_commit %[[PSLOT]], %[[PV]]
// CHECK: } {tilegpu.partition = "producer-tiles"}


#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 64, 16]>
#dot_op = #tilegpu.dot_op<opIdx = 0, parent = #wgmma, kWidth = 2>
#slice = #tilegpu.slice<dim = 1, parent = #wgmma>
module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @attn(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tile.tensordesc<tensor<64x64xf16>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %arg10: !tile.tensordesc<tensor<64x64xf16>>, %arg11: i32, %arg12: i32, %arg13: i64, %arg14: i64, %arg15: !tile.tensordesc<tensor<128x64xf16>>, %arg16: i32, %arg17: i32, %arg18: i64, %arg19: i64, %arg20: i32 {tile.divisibility = 16 : i32}, %arg21: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #wgmma>
    %c64_i32 = arith.constant 64 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = arith.divsi %arg20, %c128_i32 : i32
    %1 = tile.get_program_id x : i32
    %2 = tile.get_num_programs x : i32
    scf.for %arg22 = %1 to %arg21 step %2  : i32 {
      %3 = arith.divsi %arg22, %0 : i32
      %4 = arith.muli %3, %arg20 : i32
      %5 = arith.remsi %arg22, %0 : i32
      %6 = arith.muli %5, %c128_i32 : i32
      %7 = arith.addi %4, %6 : i32
      %8 = tile.descriptor_load %arg0[%7, %c0_i32] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %9 = tilegpu.local_alloc %8 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %k0 = tile.descriptor_load %arg5[%4, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %k0t = tile.trans %k0 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
      %k0s = tilegpu.local_alloc %k0t : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
      %s0 = tilegpu.warp_group_dot %9, %k0s, %cst : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<128x64xf32, #wgmma>
      %s0w = tilegpu.warp_group_dot_wait %s0 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
      %p0 = arith.truncf %s0w : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
      %10:2 = scf.for %arg23 = %c64_i32 to %arg20 step %c64_i32 iter_args(%arg24 = %cst, %arg25 = %p0) -> (tensor<128x64xf32, #wgmma>, tensor<128x64xf16, #wgmma>)  : i32 {
        %20 = arith.addi %4, %arg23 : i32
        %21 = tile.descriptor_load %arg5[%20, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        %22 = tile.trans %21 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
        %23 = tilegpu.local_alloc %22 : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
        %24 = tilegpu.warp_group_dot %9, %23, %cst : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<128x64xf32, #wgmma>
        %25 = tilegpu.warp_group_dot_wait %24 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
        %26 = arith.subi %20, %c64_i32 : i32
        %27 = tile.descriptor_load %arg10[%26, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        %28 = tilegpu.local_alloc %27 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
        %29 = tilegpu.convert_layout %arg25 : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #dot_op>
        %30 = tilegpu.warp_group_dot %29, %28, %arg24 : tensor<128x64xf16, #dot_op> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #wgmma>
        %31 = tilegpu.warp_group_dot_wait %30 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
        %32 = tile.reduce %25 axis = 1 : tensor<128x64xf32, #wgmma> -> tensor<128xf32, #slice> {
        ^bb0(%arg26: f32, %arg27: f32):
          %38 = arith.maxnumf %arg26, %arg27 : f32
          tile.reduce.return %38 : f32
        }
        %33 = tile.expand_dims %32 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
        %34 = tile.broadcast %33 : tensor<128x1xf32, #wgmma> -> tensor<128x64xf32, #wgmma>
        %35 = arith.subf %25, %34 : tensor<128x64xf32, #wgmma>
        %36 = math.exp2 %35 : tensor<128x64xf32, #wgmma>
        %37 = arith.truncf %36 : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
        scf.yield %31, %37 : tensor<128x64xf32, #wgmma>, tensor<128x64xf16, #wgmma>
      }
      %11 = arith.addi %4, %arg20 : i32
      %12 = arith.subi %11, %c64_i32 : i32
      %13 = tile.descriptor_load %arg10[%12, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %14 = tilegpu.local_alloc %13 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %15 = tilegpu.convert_layout %10#1 : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #dot_op>
      %16 = tilegpu.warp_group_dot %15, %14, %10#0 : tensor<128x64xf16, #dot_op> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #wgmma>
      %17 = tilegpu.warp_group_dot_wait %16 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
      %18 = arith.truncf %17 : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #blocked>
      tile.descriptor_store %arg15[%7, %c0_i32], %19 : !tile.tensordesc<tensor<128x64xf16>>, tensor<128x64xf16, #blocked>
    } {tile.warp_specialize}
    tile.return
  }

  tile.func public @first_block_read_after_loop(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tile.tensordesc<tensor<64x64xf16>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %arg10: !tile.tensordesc<tensor<64x64xf16>>, %arg11: i32, %arg12: i32, %arg13: i64, %arg14: i64, %arg15: !tile.tensordesc<tensor<128x64xf16>>, %arg16: i32, %arg17: i32, %arg18: i64, %arg19: i64, %arg20: i32 {tile.divisibility = 16 : i32}, %arg21: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #wgmma>
    %c64_i32 = arith.constant 64 : i32
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = arith.divsi %arg20, %c128_i32 : i32
    %1 = tile.get_program_id x : i32
    %2 = tile.get_num_programs x : i32
    scf.for %arg22 = %1 to %arg21 step %2  : i32 {
      %3 = arith.divsi %arg22, %0 : i32
      %4 = arith.muli %3, %arg20 : i32
      %5 = arith.remsi %arg22, %0 : i32
      %6 = arith.muli %5, %c128_i32 : i32
      %7 = arith.addi %4, %6 : i32
      %8 = tile.descriptor_load %arg0[%7, %c0_i32] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %9 = tilegpu.local_alloc %8 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %k0 = tile.descriptor_load %arg5[%4, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %k0t = tile.trans %k0 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
      %k0s = tilegpu.local_alloc %k0t : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
      %s0 = tilegpu.warp_group_dot %9, %k0s, %cst : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<128x64xf32, #wgmma>
      %s0w = tilegpu.warp_group_dot_wait %s0 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
      %p0 = arith.truncf %s0w : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
      %10:2 = scf.for %arg23 = %c64_i32 to %arg20 step %c64_i32 iter_args(%arg24 = %cst, %arg25 = %p0) -> (tensor<128x64xf32, #wgmma>, tensor<128x64xf16, #wgmma>)  : i32 {
        %20 = arith.addi %4, %arg23 : i32
        %21 = tile.descriptor_load %arg5[%20, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        %22 = tile.trans %21 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
        %23 = tilegpu.local_alloc %22 : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
        %24 = tilegpu.warp_group_dot %9, %23, %cst : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<128x64xf32, #wgmma>
        %25 = tilegpu.warp_group_dot_wait %24 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
        %26 = arith.subi %20, %c64_i32 : i32
        %27 = tile.descriptor_load %arg10[%26, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
        %28 = tilegpu.local_alloc %27 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
        %29 = tilegpu.convert_layout %arg25 : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #dot_op>
        %30 = tilegpu.warp_group_dot %29, %28, %arg24 : tensor<128x64xf16, #dot_op> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #wgmma>
        %31 = tilegpu.warp_group_dot_wait %30 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
        %32 = tile.reduce %25 axis = 1 : tensor<128x64xf32, #wgmma> -> tensor<128xf32, #slice> {
        ^bb0(%arg26: f32, %arg27: f32):
          %38 = arith.maxnumf %arg26, %arg27 : f32
          tile.reduce.return %38 : f32
        }
        %33 = tile.expand_dims %32 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
        %34 = tile.broadcast %33 : tensor<128x1xf32, #wgmma> -> tensor<128x64xf32, #wgmma>
        %35 = arith.subf %25, %34 : tensor<128x64xf32, #wgmma>
        %36 = math.exp2 %35 : tensor<128x64xf32, #wgmma>
        %37 = arith.truncf %36 : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
        scf.yield %31, %37 : tensor<128x64xf32, #wgmma>, tensor<128x64xf16, #wgmma>
      }
      %11 = arith.addi %4, %arg20 : i32
      %12 = arith.subi %11, %c64_i32 : i32
      %13 = tile.descriptor_load %arg10[%12, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %14 = tilegpu.local_alloc %13 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %15 = tilegpu.convert_layout %10#1 : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #dot_op>
      %16 = tilegpu.warp_group_dot %15, %14, %10#0 : tensor<128x64xf16, #dot_op> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<128x64xf32, #wgmma>
      %17 = tilegpu.warp_group_dot_wait %16 {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
      %18 = arith.truncf %17 : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #blocked>
      %again = tilegpu.warp_group_dot %9, %k0s, %17 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<128x64xf32, #wgmma>
      %againw = tilegpu.warp_group_dot_wait %again {pendings = 0 : i32} : tensor<128x64xf32, #wgmma>
      %t18b = arith.truncf %againw : tensor<128x64xf32, #wgmma> to tensor<128x64xf16, #wgmma>
      %t19b = tilegpu.convert_layout %t18b : tensor<128x64xf16, #wgmma> -> tensor<128x64xf16, #blocked>
      tile.descriptor_store %arg15[%7, %c0_i32], %t19b : !tile.tensordesc<tensor<128x64xf16>>, tensor<128x64xf16, #blocked>
    } {tile.warp_specialize}
    tile.return
  }
}

