// RUN: warpforge-opt %s --tilegpu-lower-channels --tilegpu-issue-tma-loads-early | FileCheck %s

// The persistent attention forward of bench/kernels/attention.py (128x128
// blocks, D 128, rotated, warp-specialized on its tile loop) at the JIT's
// `tilegpu` stage (locations dropped) as it was on 2026-11-27, when the
// consumers loaded Q and the last V themselves (the producer copies both
// since 2026-11-28, partition-persistent-attention.mlir; this stage stays
// as the pass's test on consumer loads of that shape), through the two
// passes the llvm-dialect pipeline runs before allocating shared memory.
// In the consumers' region:
//  * Q (the load that starts each tile) is prefetched: its buffer and
//    barrier before the tile loop, the first tile's copy there too, each
//    tile waiting for its phase, and the next tile's copy issued once the
//    K/V loop is over (a CTA barrier first), predicated on that tile
//    existing;
//  * the tile's last V (after the K/V loop) is issued before the K/V loop
//    and waited for after it.
// CHECK-LABEL: tile.func public @attn_fwd_kernel(
// CHECK: tilegpu.warp_specialize
// The TMA store's buffer for O, then Q's.
// CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
// CHECK-NEXT: %[[QBUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
// CHECK-NEXT: %[[QBAR:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable>
// CHECK-NEXT: tilegpu.init_barrier %[[QBAR]], 1
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi slt
// CHECK: tilegpu.barrier_expect %[[QBAR]], 32768, %[[FIRST]]
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[QBUF]], %[[QBAR]], %[[FIRST]]
// CHECK-NEXT: scf.for %[[TILE:[^ ]*]] =
// CHECK: %[[PHASE:.*]] = arith.andi
// CHECK-NEXT: tilegpu.wait_barrier %[[QBAR]], %[[PHASE]]
// CHECK: %[[VBUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
// CHECK-NEXT: %[[VBAR:.*]] = tilegpu.local_alloc
// CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[VBUF]], %[[VBAR]], %true
// CHECK-NEXT: scf.for
// CHECK: tilegpu.warp_group_dot %[[QBUF]],
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[TILE]],
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]],
// CHECK: tilegpu.barrier_expect %[[QBAR]], 32768, %[[MORE]]
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[QBUF]], %[[QBAR]], %[[MORE]]
// CHECK-NEXT: tilegpu.wait_barrier %[[VBAR]],
// CHECK: tilegpu.warp_group_dot %{{.*}}, %[[VBUF]],
// CHECK: } {tile.num_stages = 1 : i32, tilegpu.partition = "consumer-tiles"}
// CHECK: tile.barrier
// CHECK-NEXT: tilegpu.inval_barrier %[[QBAR]]
// CHECK-NEXT: tilegpu.local_dealloc %[[QBAR]]
// CHECK: partition0(

#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#shared = #tilegpu.shared<order = [0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
#dot_op = #tilegpu.dot_op<opIdx = 0, parent = #wgmma, kWidth = 2>
#slice = #tilegpu.slice<dim = 1, parent = #wgmma>
module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32, "tilegpu.warp-specialized" = 1 : i32} {
  tile.func public @attn_fwd_kernel(%arg0: !tile.tensordesc<tensor<128x128xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tile.tensordesc<tensor<128x128xf16>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %arg10: !tile.tensordesc<tensor<128x128xf16>>, %arg11: i32, %arg12: i32, %arg13: i64, %arg14: i64, %arg15: !tile.tensordesc<tensor<128x128xf16>>, %arg16: i32, %arg17: i32, %arg18: i64, %arg19: i64, %arg20: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg21: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg22: f32, %arg23: i32, %arg24: i32 {tile.divisibility = 16 : i32}) {
    %0 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable, buffers = 2>
    %1 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable, buffers = 2>
    %2 = tilegpu.create_channel %0, %1 : !tilegpu.memdesc<128x128xf16, #nvmma, mutable, buffers = 2>, !tilegpu.memdesc<128x128xf16, #nvmma, mutable, buffers = 2> -> !tilegpu.channel<2>
    tilegpu.warp_specialize(%2, %arg24, %arg5, %arg10, %arg23, %arg22, %arg0, %arg21, %arg15) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40>}
    default(%arg25: !tilegpu.channel<2>, %arg26: i32, %arg27: !tile.tensordesc<tensor<128x128xf16>>, %arg28: !tile.tensordesc<tensor<128x128xf16>>, %arg29: i32, %arg30: f32, %arg31: !tile.tensordesc<tensor<128x128xf16>>, %arg32: !tile.ptr<f32>, %arg33: !tile.tensordesc<tensor<128x128xf16>>) {
      %cst = arith.constant dense<1.000000e+00> : tensor<128x1xf32, #wgmma>
      %true = arith.constant true
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
      %cst_1 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
      %c0_i32 = arith.constant 0 : i32
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x128xf16, #wgmma>
      %c1_i32 = arith.constant 1 : i32
      %cst_3 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
      %cst_4 = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
      %cst_5 = arith.constant dense<8.000000e+00> : tensor<128xf32, #slice>
      %c127_i32 = arith.constant 127 : i32
      %c128_i32 = arith.constant 128 : i32
      %cst_6 = arith.constant 1.44269502 : f32
      %3 = arith.mulf %arg30, %cst_6 : f32
      %4 = arith.addi %arg26, %c127_i32 : i32
      %5 = arith.divsi %4, %c128_i32 : i32
      %6 = tile.get_program_id x : i32
      %7 = arith.muli %5, %arg29 : i32
      %8 = tile.get_num_programs x : i32
      %9 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
      %10 = arith.divsi %arg26, %c128_i32 : i32
      %11 = arith.muli %10, %c128_i32 : i32
      %12 = tile.splat %3 : f32 -> tensor<128xf32, #slice>
      %13 = tile.splat %3 : f32 -> tensor<128x128xf32, #wgmma>
      %14 = arith.subi %arg26, %c1_i32 : i32
      %15 = arith.divsi %14, %c128_i32 : i32
      %16 = arith.muli %15, %c128_i32 : i32
      %17 = tile.splat %arg26 : i32 -> tensor<128xi32, #blocked>
      tilegpu.warp_group_turn_pass 3, 2 only 1
      %18 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
      %19 = scf.for %arg34 = %6 to %7 step %8 iter_args(%arg35 = %c0_i32) -> (i32)  : i32 {
        %20 = arith.divsi %arg34, %5 : i32
        %21 = arith.remsi %arg34, %5 : i32
        %22 = arith.muli %20, %arg26 : i32
        %23 = arith.muli %21, %c128_i32 : i32
        %24 = arith.addi %22, %23 : i32
        %25 = tile.splat %23 : i32 -> tensor<128xi32, #blocked>
        %26 = arith.addi %25, %9 : tensor<128xi32, #blocked>
        %27 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
        %28 = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.init_barrier %28, 1 : !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.fence_async_shared
        tile.barrier
        tilegpu.barrier_expect %28, 32768, %true : !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.async_tma_copy_global_to_local %arg31[%24, %c0_i32] %27, %28, %true : !tile.tensordesc<tensor<128x128xf16>>, !tilegpu.memdesc<1xi64, #shared, mutable> -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
        tilegpu.wait_barrier %28, %c0_i32 : !tilegpu.memdesc<1xi64, #shared, mutable>
        tile.barrier
        tilegpu.inval_barrier %28 : !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.local_dealloc %28 : !tilegpu.memdesc<1xi64, #shared, mutable>
        %29:5 = scf.for %arg36 = %c0_i32 to %11 step %c128_i32 iter_args(%arg37 = %cst_0, %arg38 = %cst_1, %arg39 = %cst_3, %arg40 = %cst_2, %arg41 = %arg35) -> (tensor<128x128xf32, #wgmma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, tensor<128x128xf16, #wgmma>, i32)  : i32 {
          %50:2 = tilegpu.channel_wait %arg25, %arg41 : !tilegpu.channel<2> -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>, !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
          %51 = tilegpu.memdesc_trans %50#0 : !tilegpu.memdesc<128x128xf16, #nvmma, mutable> -> !tilegpu.memdesc<128x128xf16, #nvmma1, mutable>
          tilegpu.warp_group_turn_wait 3, 2
          %52 = tilegpu.warp_group_dot %27, %51, %cst_0 : !tilegpu.memdesc<128x128xf16, #nvmma, mutable> * !tilegpu.memdesc<128x128xf16, #nvmma1, mutable> -> tensor<128x128xf32, #wgmma>
          %53 = tilegpu.convert_layout %arg40 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #dot_op>
          %54 = tilegpu.warp_group_dot %53, %50#1, %arg37 : tensor<128x128xf16, #dot_op> * !tilegpu.memdesc<128x128xf16, #nvmma, mutable> -> tensor<128x128xf32, #wgmma>
          tilegpu.warp_group_turn_pass 3, 2
          %55 = tilegpu.warp_group_dot_wait %52 {pendings = 1 : i32} : tensor<128x128xf32, #wgmma>
          %56 = tile.reduce %55 axis = 1 : tensor<128x128xf32, #wgmma> -> tensor<128xf32, #slice> {
          ^bb0(%arg42: f32, %arg43: f32):
            %80 = arith.maxnumf %arg42, %arg43 : f32
            tile.reduce.return %80 : f32
          }
          %57 = arith.mulf %56, %12 : tensor<128xf32, #slice>
          %58 = arith.maxnumf %arg39, %57 : tensor<128xf32, #slice>
          %59 = arith.addf %arg39, %cst_5 : tensor<128xf32, #slice>
          %60 = arith.cmpf ogt, %58, %59 : tensor<128xf32, #slice>
          %61 = arith.select %60, %58, %arg39 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
          %62 = arith.mulf %55, %13 : tensor<128x128xf32, #wgmma>
          %63 = tile.expand_dims %61 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
          %64 = tile.broadcast %63 : tensor<128x1xf32, #wgmma> -> tensor<128x128xf32, #wgmma>
          %65 = arith.subf %62, %64 : tensor<128x128xf32, #wgmma>
          %66 = math.exp2 %65 : tensor<128x128xf32, #wgmma>
          %67 = arith.subf %arg39, %61 : tensor<128xf32, #slice>
          %68 = math.exp2 %67 : tensor<128xf32, #slice>
          %69 = arith.mulf %arg38, %68 : tensor<128xf32, #slice>
          %70 = tile.reduce %66 axis = 1 : tensor<128x128xf32, #wgmma> -> tensor<128xf32, #slice> {
          ^bb0(%arg42: f32, %arg43: f32):
            %80 = arith.addf %arg42, %arg43 : f32
            tile.reduce.return %80 : f32
          }
          %71 = arith.addf %69, %70 : tensor<128xf32, #slice>
          %72 = tile.expand_dims %68 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
          %73 = tile.broadcast %72 : tensor<128x1xf32, #wgmma> -> tensor<128x128xf32, #wgmma>
          tilegpu.schedule_after %56, %70 : tensor<128xf32, #slice>, tensor<128xf32, #slice>
          %74:2 = tilegpu.warp_group_dot_wait %54, %53 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>, tensor<128x128xf16, #dot_op>
          tilegpu.channel_release %arg25, %arg41 : !tilegpu.channel<2>
          %75 = arith.cmpf oeq, %72, %cst : tensor<128x1xf32, #wgmma>
          %76 = tilegpu.warp_all %75 : tensor<128x1xi1, #wgmma>
          %77 = scf.if %76 -> (tensor<128x128xf32, #wgmma>) {
            scf.yield %74#0 : tensor<128x128xf32, #wgmma>
          } else {
            %80 = arith.mulf %74#0, %73 : tensor<128x128xf32, #wgmma>
            scf.yield %80 : tensor<128x128xf32, #wgmma>
          }
          %78 = arith.truncf %66 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
          %79 = arith.addi %arg41, %c1_i32 : i32
          scf.yield %77, %71, %61, %78, %79 : tensor<128x128xf32, #wgmma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, tensor<128x128xf16, #wgmma>, i32
        } {tilegpu.partition = "consumer"}
        %30 = arith.addi %22, %16 : i32
        %31 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
        %32 = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.init_barrier %32, 1 : !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.fence_async_shared
        tile.barrier
        tilegpu.barrier_expect %32, 32768, %true : !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.async_tma_copy_global_to_local %arg28[%30, %c0_i32] %31, %32, %true : !tile.tensordesc<tensor<128x128xf16>>, !tilegpu.memdesc<1xi64, #shared, mutable> -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
        tilegpu.wait_barrier %32, %c0_i32 : !tilegpu.memdesc<1xi64, #shared, mutable>
        tile.barrier
        tilegpu.inval_barrier %32 : !tilegpu.memdesc<1xi64, #shared, mutable>
        tilegpu.local_dealloc %32 : !tilegpu.memdesc<1xi64, #shared, mutable>
        %33 = tilegpu.convert_layout %29#3 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #dot_op>
        %34 = tilegpu.warp_group_dot %33, %31, %29#0 : tensor<128x128xf16, #dot_op> * !tilegpu.memdesc<128x128xf16, #nvmma, mutable> -> tensor<128x128xf32, #wgmma>
        %35 = tilegpu.warp_group_dot_wait %34 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        %36 = math.log2 %29#1 : tensor<128xf32, #slice>
        %37 = arith.addf %29#2, %36 : tensor<128xf32, #slice>
        %38 = tilegpu.convert_layout %37 : tensor<128xf32, #slice> -> tensor<128xf32, #blocked>
        %39 = arith.divf %cst_4, %29#1 fastmath<afn> : tensor<128xf32, #slice>
        %40 = tile.expand_dims %39 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
        %41 = tile.broadcast %40 : tensor<128x1xf32, #wgmma> -> tensor<128x128xf32, #wgmma>
        %42 = arith.cmpf oeq, %40, %cst : tensor<128x1xf32, #wgmma>
        %43 = tilegpu.warp_all %42 : tensor<128x1xi1, #wgmma>
        %44 = scf.if %43 -> (tensor<128x128xf32, #wgmma>) {
          scf.yield %35 : tensor<128x128xf32, #wgmma>
        } else {
          %50 = arith.mulf %35, %41 : tensor<128x128xf32, #wgmma>
          scf.yield %50 : tensor<128x128xf32, #wgmma>
        }
        %45 = arith.truncf %44 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
        %46 = arith.cmpi slt, %26, %17 : tensor<128xi32, #blocked>
        %47 = tile.addptr %arg32, %22 : !tile.ptr<f32>, i32
        %48 = tile.splat %47 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked>
        %49 = tile.addptr %48, %26 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
        tile.store %49, %38, %46 : tensor<128x!tile.ptr<f32>, #blocked>
        tilegpu.async_tma_store_wait {pendings = 0 : i32}
        tilegpu.local_store %45, %18 : tensor<128x128xf16, #wgmma> -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
        tilegpu.async_tma_copy_local_to_global %arg33[%24, %c0_i32] %18 : !tile.tensordesc<tensor<128x128xf16>>, !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
        scf.yield %29#4 : i32
      } {tile.num_stages = 1 : i32, tilegpu.partition = "consumer-tiles"}
      tilegpu.async_tma_store_wait {pendings = 0 : i32}
      tile.barrier
      tilegpu.local_dealloc %18 : !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
      tilegpu.warp_group_turn_wait 3, 2 only 0
      tilegpu.warp_yield
    }
    partition0(%arg25: !tilegpu.channel<2>, %arg26: i32, %arg27: !tile.tensordesc<tensor<128x128xf16>>, %arg28: !tile.tensordesc<tensor<128x128xf16>>, %arg29: i32, %arg30: f32, %arg31: !tile.tensordesc<tensor<128x128xf16>>, %arg32: !tile.ptr<f32>, %arg33: !tile.tensordesc<tensor<128x128xf16>>) num_warps(4) {
      %c1_i32 = arith.constant 1 : i32
      %c0_i32 = arith.constant 0 : i32
      %c127_i32 = arith.constant 127 : i32
      %c128_i32 = arith.constant 128 : i32
      %3 = arith.addi %arg26, %c127_i32 : i32
      %4 = arith.divsi %3, %c128_i32 : i32
      %5 = tile.get_program_id x : i32
      %6 = arith.muli %4, %arg29 : i32
      %7 = tile.get_num_programs x : i32
      %8 = arith.divsi %arg26, %c128_i32 : i32
      %9 = arith.muli %8, %c128_i32 : i32
      %10 = scf.for %arg34 = %5 to %6 step %7 iter_args(%arg35 = %c0_i32) -> (i32)  : i32 {
        %11 = arith.divsi %arg34, %4 : i32
        %12 = arith.muli %11, %arg26 : i32
        %13 = scf.for %arg36 = %c0_i32 to %9 step %c128_i32 iter_args(%arg37 = %arg35) -> (i32)  : i32 {
          %14 = arith.addi %12, %arg36 : i32
          %15 = arith.subi %14, %c128_i32 : i32
          tilegpu.channel_acquire %arg25, %arg37 : !tilegpu.channel<2>
          tilegpu.channel_tma_load %arg25[%arg37] %arg27[%14, %c0_i32] -> 0 : !tilegpu.channel<2>, !tile.tensordesc<tensor<128x128xf16>>
          tilegpu.channel_tma_load %arg25[%arg37] %arg28[%15, %c0_i32] -> 1 : !tilegpu.channel<2>, !tile.tensordesc<tensor<128x128xf16>>
          tilegpu.channel_commit %arg25, %arg37 : !tilegpu.channel<2>
          %16 = arith.addi %arg37, %c1_i32 : i32
          scf.yield %16 : i32
        } {tilegpu.partition = "producer"}
        scf.yield %13 : i32
      } {tilegpu.partition = "producer-tiles"}
      tilegpu.warp_return
    }
    tile.return
  }
}

