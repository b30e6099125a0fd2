// RUN: warpforge-opt %s --tilegpu-warp-specialize | FileCheck %s

// A persistent attention (the tile loop marked warp_specialize=True) whose
// tile loop has a product of its own after its K/V loop: the rotated loop's
// last P V.  The tile loop is still the tile loop: the producer copies the
// K/V loop's K and V blocks tile after tile, and the two blocks read once a
// tile, Q (before the K/V loop) and the last V (after it), each through a
// one-slot channel of its own, used once a tile: its use in a tile is the
// tile's index, (tile - lower) / step, in both partitions.  The consumers
// release Q after the K/V loop and the last V after the wait for the
// product reading it.  The tile loop's own loads are not pipelined across
// tiles (tile.num_stages = 1).  The consumer warpgroups take turns at the
// K/V loop's products, and the turns go on from one tile to the next: the
// prime before the tile loop, the drain after it (a drain and a prime
// inside it, with the tile's epilogue between them, could let the last
// warpgroup arrive twice on warpgroup 0's barrier in one phase).

// CHECK-LABEL: tile.func public @attn(
// CHECK: %[[QCH:.*]] = tilegpu.create_channel %{{.*}} : !tilegpu.memdesc<128x64xf16, #nvmma, mutable> -> !tilegpu.channel<1>
// CHECK: %[[VCH:.*]] = tilegpu.create_channel %{{.*}} : !tilegpu.memdesc<64x64xf16, #nvmma, mutable> -> !tilegpu.channel<1>
// CHECK: tilegpu.warp_specialize(%{{[^,]*}}, %[[QCH]], %[[VCH]],
// CHECK: default(%[[CH:[^:]*]]: !tilegpu.channel<2>, %[[CQ:[^:]*]]: !tilegpu.channel<1>, %[[CV:[^:]*]]: !tilegpu.channel<1>
// CHECK-NOT: tile.descriptor_load
// CHECK: tilegpu.warp_group_turn_pass 3, 2 only 1
// CHECK-NEXT: %[[TILES:.*]] = scf.for %[[TILE:[^ ]*]] = %[[LB:[^ ]*]] to %{{[^ ]*}} step %[[STEP:[^ ]*]] iter_args
// CHECK: %[[OFF:.*]] = arith.subi %[[TILE]], %[[LB]] : i32
// CHECK-NEXT: %[[USE:.*]] = arith.divsi %[[OFF]], %[[STEP]] : i32
// CHECK-NEXT: %[[Q:.*]] = tilegpu.channel_wait %[[CQ]], %[[USE]] : !tilegpu.channel<1>
// CHECK-NEXT: scf.for
// CHECK: tilegpu.channel_wait %[[CH]]
// CHECK: tilegpu.warp_group_turn_wait 3, 2{{$}}
// CHECK-NEXT: tilegpu.warp_group_dot %[[Q]],
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2{{$}}
// CHECK: tilegpu.warp_group_turn_wait 3, 2{{$}}
// CHECK-NEXT: tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2{{$}}
// CHECK: tilegpu.channel_release %[[CH]]
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: tilegpu.channel_release %[[CQ]], %[[USE]] : !tilegpu.channel<1>
// CHECK-NOT: tilegpu.warp_group_turn
// CHECK: %[[V:.*]] = tilegpu.channel_wait %[[CV]], %[[VUSE:[^ ]*]] : !tilegpu.channel<1>
// CHECK-NOT: tilegpu.warp_group_turn
// CHECK: tilegpu.warp_group_dot %{{.*}}, %[[V]], %{{.*}}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release %[[CV]], %[[VUSE]] : !tilegpu.channel<1>
// CHECK-NOT: tilegpu.warp_group_turn
// CHECK: } {tile.num_stages = 1 : i32, tilegpu.partition = "consumer-tiles"}
// CHECK-NEXT: tilegpu.warp_group_turn_wait 3, 2 only 0
// CHECK: partition0(%{{[^:]*}}: !tilegpu.channel<2>, %[[PQ:[^:]*]]: !tilegpu.channel<1>, %[[PV:[^:]*]]: !tilegpu.channel<1>
// CHECK: scf.for %[[PTILE:[^ ]*]] = %[[PLB:[^ ]*]] to %{{[^ ]*}} step %[[PSTEP:[^ ]*]] iter_args
// CHECK: %[[POFF:.*]] = arith.subi %[[PTILE]], %[[PLB]] : i32
// CHECK-NEXT: %[[PUSE:.*]] = arith.divsi %[[POFF]], %[[PSTEP]] : i32
// CHECK-NEXT: tilegpu.channel_acquire %[[PQ]], %[[PUSE]] : !tilegpu.channel<1>
// CHECK-NEXT: tilegpu.channel_tma_load %[[PQ]][%[[PUSE]]] %{{.*}} -> 0
// CHECK-NEXT: tilegpu.channel_commit %[[PQ]], %[[PUSE]]
// CHECK-NEXT: scf.for
// CHECK: tilegpu.channel_acquire
// CHECK-COUNT-2: tilegpu.channel_tma_load
// CHECK-NEXT: tilegpu.channel_commit
// CHECK: } {tilegpu.partition = "producer"}
// CHECK-NEXT: tilegpu.channel_acquire %[[PV]], %[[PUSE]] : !tilegpu.channel<1>
// CHECK-NEXT: tilegpu.channel_tma_load %[[PV]][%[[PUSE]]] %{{.*}} -> 0
// CHECK-NEXT: tilegpu.channel_commit %[[PV]], %[[PUSE]]
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
      %10:2 = scf.for %arg23 = %c0_i32 to %arg20 step %c64_i32 iter_args(%arg24 = %cst, %arg25 = %cst_0) -> (tensor<128x64xf32, #wgmma>, tensor<128x64xf16, #wgmma>)  : i32 {
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
}

