// RUN: warpforge-opt %s --tilegpu-lower-channels --cse | FileCheck %s

// The cp.async producer of partition-pointer.mlir: its channel's full
// barriers expect one arrival per producer thread (4 warps = 128), no
// expect_tx; each thread copies its share into the slot and arrives on
// full[slot] when its own copies land (noinc); the consumers' side is the
// TMA channel's.

// CHECK-LABEL: tile.func public @masked_matmul
// CHECK: %[[FULL:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>
// CHECK: %[[EMPTY:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>
// CHECK-COUNT-3: tilegpu.init_barrier %{{.*}}, 128 :
// CHECK-NOT: tilegpu.init_barrier %{{.*}}, 1 :
// CHECK: tilegpu.fence_async_shared
// CHECK: default(
// CHECK: tilegpu.wait_barrier
// CHECK: tilegpu.warp_group_dot
// CHECK: tilegpu.arrive_barrier %{{.*}}, 1
// CHECK: partition0({{.*}}, %[[PRA:[^:]*]]: !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, %[[PRB:[^:]*]]: !tilegpu.memdesc<64x128xf16, #nvmma, mutable, buffers = 3>, %[[PFULL:[^:]*]]: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>, %[[PEMPTY:[^:]*]]: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 3>) num_warps(4)
// CHECK: scf.for {{.*}} iter_args(%[[PC:.*]] = %{{.*}}, %[[A:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}})
// CHECK: %[[PS:.*]] = arith.remui %[[PC]], %{{.*}} : i32
// CHECK: %[[PE:.*]] = tilegpu.memdesc_index %[[PEMPTY]][%[[PS]]]
// CHECK-NEXT: tilegpu.wait_barrier %[[PE]], %{{.*}}
// CHECK-NOT: tilegpu.barrier_expect
// CHECK-NEXT: %[[SA:.*]] = tilegpu.memdesc_index %[[PRA]][%[[PS]]]
// CHECK-NEXT: tilegpu.async_copy_global_to_local %[[A]], %[[SA]] mask
// CHECK-NEXT: %[[SB:.*]] = tilegpu.memdesc_index %[[PRB]][%[[PS]]]
// CHECK-NEXT: tilegpu.async_copy_global_to_local %[[B]], %[[SB]] mask
// CHECK-NEXT: %[[PF:.*]] = tilegpu.memdesc_index %[[PFULL]][%[[PS]]]
// CHECK-NEXT: tilegpu.async_copy_mbarrier_arrive %[[PF]]
// CHECK-NEXT: arith.addi %[[PC]]
// CHECK: tilegpu.warp_return

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked2 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
#slice = #tilegpu.slice<dim = 0, parent = #blocked>
#slice1 = #tilegpu.slice<dim = 1, parent = #blocked>
#slice2 = #tilegpu.slice<dim = 0, parent = #blocked2>
#slice3 = #tilegpu.slice<dim = 1, parent = #blocked1>
#slice4 = #tilegpu.slice<dim = 1, parent = #blocked2>
#slice5 = #tilegpu.slice<dim = 0, parent = #blocked1>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @masked_matmul(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}) {
    %0 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
    %1 = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #nvmma, mutable, buffers = 3>
    %2 = tilegpu.create_channel %0, %1 : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, !tilegpu.memdesc<64x128xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
    tilegpu.warp_specialize(%2, %arg5, %arg0, %arg4, %arg3, %arg6, %arg1, %arg7, %arg8, %arg2)
    default(%arg9: !tilegpu.channel<3>, %arg10: i32, %arg11: !tile.ptr<f16>, %arg12: i32, %arg13: i32, %arg14: i32, %arg15: !tile.ptr<f16>, %arg16: i32, %arg17: i32, %arg18: !tile.ptr<f16>) {
      %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
      %c63_i32 = arith.constant 63 : i32
      %c127_i32 = arith.constant 127 : i32
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c8_i32 = arith.constant 8 : i32
      %c1_i32 = arith.constant 1 : i32
      %c128_i32 = arith.constant 128 : i32
      %3 = tile.get_program_id x : i32
      %4 = arith.addi %arg13, %c127_i32 : i32
      %5 = arith.divsi %4, %c128_i32 : i32
      %6 = arith.addi %arg12, %c127_i32 : i32
      %7 = arith.divsi %6, %c128_i32 : i32
      %8 = arith.muli %7, %c8_i32 : i32
      %9 = arith.divsi %3, %8 : i32
      %10 = arith.muli %9, %c8_i32 : i32
      %11 = arith.subi %5, %10 : i32
      %12 = arith.minsi %11, %c8_i32 : i32
      %13 = arith.remsi %3, %8 : i32
      %14 = arith.remsi %13, %12 : i32
      %15 = arith.addi %10, %14 : i32
      %16 = arith.divsi %13, %12 : i32
      %17 = arith.muli %15, %c128_i32 : i32
      %18 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice>
      %19 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
      %20 = tile.splat %17 : i32 -> tensor<128xi32, #slice1>
      %21 = arith.addi %20, %19 : tensor<128xi32, #slice1>
      %22 = arith.muli %16, %c128_i32 : i32
      %23 = tile.splat %22 : i32 -> tensor<128xi32, #slice>
      %24 = arith.addi %23, %18 : tensor<128xi32, #slice>
      %25 = arith.addi %arg10, %c63_i32 : i32
      %26 = arith.divsi %25, %c64_i32 : i32
      %27:2 = scf.for %arg19 = %c0_i32 to %26 step %c1_i32 iter_args(%arg20 = %cst, %arg21 = %c0_i32) -> (tensor<128x128xf32, #wgmma>, i32)  : i32 {
        %46:2 = tilegpu.channel_wait %arg9, %arg21 : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<64x128xf16, #nvmma, mutable>
        %47 = tilegpu.warp_group_dot %46#0, %46#1, %arg20 : !tilegpu.memdesc<128x64xf16, #nvmma, mutable> * !tilegpu.memdesc<64x128xf16, #nvmma, mutable> -> tensor<128x128xf32, #wgmma>
        %48 = tilegpu.warp_group_dot_wait %47 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        tilegpu.channel_release %arg9, %arg21 : !tilegpu.channel<3>
        %49 = arith.addi %arg21, %c1_i32 : i32
        scf.yield %48, %49 : tensor<128x128xf32, #wgmma>, i32
      } {tilegpu.partition = "consumer"}
      %28 = arith.truncf %27#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %29 = tilegpu.convert_layout %28 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #blocked>
      %30 = tile.expand_dims %21 {axis = 1 : i32} : tensor<128xi32, #slice1> -> tensor<128x1xi32, #blocked>
      %31 = tile.splat %arg17 : i32 -> tensor<128x1xi32, #blocked>
      %32 = arith.muli %31, %30 : tensor<128x1xi32, #blocked>
      %33 = tile.splat %arg18 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>, #blocked>
      %34 = tile.addptr %33, %32 : tensor<128x1x!tile.ptr<f16>, #blocked>, tensor<128x1xi32, #blocked>
      %35 = tile.expand_dims %24 {axis = 0 : i32} : tensor<128xi32, #slice> -> tensor<1x128xi32, #blocked>
      %36 = tile.broadcast %34 : tensor<128x1x!tile.ptr<f16>, #blocked> -> tensor<128x128x!tile.ptr<f16>, #blocked>
      %37 = tile.broadcast %35 : tensor<1x128xi32, #blocked> -> tensor<128x128xi32, #blocked>
      %38 = tile.addptr %36, %37 : tensor<128x128x!tile.ptr<f16>, #blocked>, tensor<128x128xi32, #blocked>
      %39 = tile.splat %arg13 : i32 -> tensor<128x1xi32, #blocked>
      %40 = arith.cmpi slt, %30, %39 : tensor<128x1xi32, #blocked>
      %41 = tile.splat %arg12 : i32 -> tensor<1x128xi32, #blocked>
      %42 = arith.cmpi slt, %35, %41 : tensor<1x128xi32, #blocked>
      %43 = tile.broadcast %40 : tensor<128x1xi1, #blocked> -> tensor<128x128xi1, #blocked>
      %44 = tile.broadcast %42 : tensor<1x128xi1, #blocked> -> tensor<128x128xi1, #blocked>
      %45 = arith.andi %43, %44 : tensor<128x128xi1, #blocked>
      tile.store %38, %29, %45 : tensor<128x128x!tile.ptr<f16>, #blocked>
      tilegpu.warp_yield
    }
    partition0(%arg9: !tilegpu.channel<3>, %arg10: i32, %arg11: !tile.ptr<f16>, %arg12: i32, %arg13: i32, %arg14: i32, %arg15: !tile.ptr<f16>, %arg16: i32, %arg17: i32, %arg18: !tile.ptr<f16>) num_warps(4) {
      %cst = arith.constant dense<64> : tensor<128x64xi32, #blocked1>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<64x128xf16, #blocked2>
      %cst_1 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blocked1>
      %c63_i32 = arith.constant 63 : i32
      %c127_i32 = arith.constant 127 : i32
      %c0_i32 = arith.constant 0 : i32
      %c64_i32 = arith.constant 64 : i32
      %c8_i32 = arith.constant 8 : i32
      %c1_i32 = arith.constant 1 : i32
      %c128_i32 = arith.constant 128 : i32
      %3 = tile.get_program_id x : i32
      %4 = arith.addi %arg13, %c127_i32 : i32
      %5 = arith.divsi %4, %c128_i32 : i32
      %6 = arith.addi %arg12, %c127_i32 : i32
      %7 = arith.divsi %6, %c128_i32 : i32
      %8 = arith.muli %7, %c8_i32 : i32
      %9 = arith.divsi %3, %8 : i32
      %10 = arith.muli %9, %c8_i32 : i32
      %11 = arith.subi %5, %10 : i32
      %12 = arith.minsi %11, %c8_i32 : i32
      %13 = arith.remsi %3, %8 : i32
      %14 = arith.remsi %13, %12 : i32
      %15 = arith.addi %10, %14 : i32
      %16 = arith.divsi %13, %12 : i32
      %17 = arith.muli %15, %c128_i32 : i32
      %18 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice2>
      %19 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice3>
      %20 = tile.splat %17 : i32 -> tensor<128xi32, #slice3>
      %21 = arith.addi %20, %19 : tensor<128xi32, #slice3>
      %22 = tile.splat %arg13 : i32 -> tensor<128xi32, #slice3>
      %23 = arith.remsi %21, %22 : tensor<128xi32, #slice3>
      %24 = arith.muli %16, %c128_i32 : i32
      %25 = tile.splat %24 : i32 -> tensor<128xi32, #slice2>
      %26 = arith.addi %25, %18 : tensor<128xi32, #slice2>
      %27 = tile.splat %arg12 : i32 -> tensor<128xi32, #slice2>
      %28 = arith.remsi %26, %27 : tensor<128xi32, #slice2>
      %29 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice4>
      %30 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice5>
      %31 = tile.expand_dims %23 {axis = 1 : i32} : tensor<128xi32, #slice3> -> tensor<128x1xi32, #blocked1>
      %32 = tile.splat %arg14 : i32 -> tensor<128x1xi32, #blocked1>
      %33 = arith.muli %31, %32 : tensor<128x1xi32, #blocked1>
      %34 = tile.expand_dims %30 {axis = 0 : i32} : tensor<64xi32, #slice5> -> tensor<1x64xi32, #blocked1>
      %35 = tile.broadcast %33 : tensor<128x1xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
      %36 = tile.broadcast %34 : tensor<1x64xi32, #blocked1> -> tensor<128x64xi32, #blocked1>
      %37 = arith.addi %35, %36 : tensor<128x64xi32, #blocked1>
      %38 = tile.splat %arg11 : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blocked1>
      %39 = tile.addptr %38, %37 : tensor<128x64x!tile.ptr<f16>, #blocked1>, tensor<128x64xi32, #blocked1>
      %40 = tile.expand_dims %29 {axis = 1 : i32} : tensor<64xi32, #slice4> -> tensor<64x1xi32, #blocked2>
      %41 = tile.splat %arg16 : i32 -> tensor<64x1xi32, #blocked2>
      %42 = arith.muli %40, %41 : tensor<64x1xi32, #blocked2>
      %43 = tile.expand_dims %28 {axis = 0 : i32} : tensor<128xi32, #slice2> -> tensor<1x128xi32, #blocked2>
      %44 = tile.broadcast %42 : tensor<64x1xi32, #blocked2> -> tensor<64x128xi32, #blocked2>
      %45 = tile.broadcast %43 : tensor<1x128xi32, #blocked2> -> tensor<64x128xi32, #blocked2>
      %46 = arith.addi %44, %45 : tensor<64x128xi32, #blocked2>
      %47 = tile.splat %arg15 : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blocked2>
      %48 = tile.addptr %47, %46 : tensor<64x128x!tile.ptr<f16>, #blocked2>, tensor<64x128xi32, #blocked2>
      %49 = arith.addi %arg10, %c63_i32 : i32
      %50 = arith.divsi %49, %c64_i32 : i32
      %51 = arith.muli %arg16, %c64_i32 : i32
      %52 = tile.splat %51 : i32 -> tensor<64x128xi32, #blocked2>
      %53:3 = scf.for %arg19 = %c0_i32 to %50 step %c1_i32 iter_args(%arg20 = %c0_i32, %arg21 = %39, %arg22 = %48) -> (i32, tensor<128x64x!tile.ptr<f16>, #blocked1>, tensor<64x128x!tile.ptr<f16>, #blocked2>)  : i32 {
        %54 = arith.muli %arg19, %c64_i32 : i32
        %55 = arith.subi %arg10, %54 : i32
        %56 = tile.splat %55 : i32 -> tensor<1x64xi32, #blocked1>
        %57 = arith.cmpi slt, %34, %56 : tensor<1x64xi32, #blocked1>
        %58 = tile.broadcast %57 : tensor<1x64xi1, #blocked1> -> tensor<128x64xi1, #blocked1>
        %59 = tile.splat %55 : i32 -> tensor<64x1xi32, #blocked2>
        %60 = arith.cmpi slt, %40, %59 : tensor<64x1xi32, #blocked2>
        %61 = tile.broadcast %60 : tensor<64x1xi1, #blocked2> -> tensor<64x128xi1, #blocked2>
        %62 = tile.addptr %arg21, %cst : tensor<128x64x!tile.ptr<f16>, #blocked1>, tensor<128x64xi32, #blocked1>
        %63 = tile.addptr %arg22, %52 : tensor<64x128x!tile.ptr<f16>, #blocked2>, tensor<64x128xi32, #blocked2>
        tilegpu.channel_acquire %arg9, %arg20 : !tilegpu.channel<3>
        tilegpu.channel_async_copy %arg9[%arg20] %arg21 mask %58 : tensor<128x64xi1, #blocked1> other %cst_1 : tensor<128x64xf16, #blocked1> -> 0 : !tilegpu.channel<3>, tensor<128x64x!tile.ptr<f16>, #blocked1>
        tilegpu.channel_async_copy %arg9[%arg20] %arg22 mask %61 : tensor<64x128xi1, #blocked2> other %cst_0 : tensor<64x128xf16, #blocked2> -> 1 : !tilegpu.channel<3>, tensor<64x128x!tile.ptr<f16>, #blocked2>
        tilegpu.channel_commit %arg9, %arg20 : !tilegpu.channel<3>
        %64 = arith.addi %arg20, %c1_i32 : i32
        scf.yield %64, %62, %63 : i32, tensor<128x64x!tile.ptr<f16>, #blocked1>, tensor<64x128x!tile.ptr<f16>, #blocked2>
      } {tilegpu.partition = "producer"}
      tilegpu.warp_return
    }
    tile.return
  }
}

