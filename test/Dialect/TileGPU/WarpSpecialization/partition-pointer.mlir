// RUN: warpforge-opt %s --tilegpu-warp-specialize | FileCheck %s
// RUN: warpforge-opt %s --tilegpu-warp-specialize | warpforge-opt | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize=remarks=true -verify-diagnostics -o /dev/null

// Triton's tutorial 03 matmul (pointer loads, K masked with other = 0,
// pointers advanced every iteration) with num_consumer_groups = 2: the
// producer copies with cp.async.  It redoes the address math on its own 4
// warps (the kernel's blocked layouts with warpsPerCTA scaled down),
// carries the two pointer tensors the loop advances, and copies each
// operand into its ring with the load's mask and fill; the consumers lose
// the pointers (iter_args and their first values) and keep the products.
// No register moves: a cp.async producer holds its addresses in registers.

// CHECK-DAG: #[[PA:.*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[PB:.*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-LABEL: tile.func public @masked_matmul
// CHECK: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
// CHECK: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #nvmma, mutable, buffers = 3>
// CHECK: %[[CH:.*]] = tilegpu.create_channel %[[RA]], %[[RB]]
// CHECK: tilegpu.warp_specialize(%[[CH]],
// CHECK-NOT: requestedRegisters
// CHECK: default(%[[DCH:[^:]*]]: !tilegpu.channel<3>
// CHECK-NOT: tile.splat {{.*}}!tile.ptr<f16>
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}) -> (tensor<128x128xf32, #wgmma>, i32)
// CHECK-NEXT: %[[SLOT:.*]]:2 = tilegpu.channel_wait %[[DCH]], %[[C]]
// CHECK-NEXT: tilegpu.warp_group_dot %[[SLOT]]#0, %[[SLOT]]#1, %[[ACC]]
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: arith.cmpi ne, %[[C]]
// CHECK-NEXT: scf.if
// CHECK: %[[PREV:.*]] = arith.subi %[[C]], %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_release %[[DCH]], %[[PREV]]
// CHECK: {tilegpu.partition = "consumer"}
// CHECK: tile.store
// CHECK: partition0(%[[PCH:[^:]*]]: !tilegpu.channel<3>, %{{.*}}) num_warps(4) {
// CHECK: %[[A0:.*]] = tile.addptr {{.*}} : tensor<128x64x!tile.ptr<f16>, #[[PA]]>
// CHECK: %[[B0:.*]] = tile.addptr {{.*}} : tensor<64x128x!tile.ptr<f16>, #[[PB]]>
// CHECK: scf.for {{.*}} iter_args(%[[PC:.*]] = %{{.*}}, %[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]])
// CHECK: %[[MA:.*]] = tile.broadcast {{.*}} -> tensor<128x64xi1, #[[PA]]>
// CHECK: %[[MB:.*]] = tile.broadcast {{.*}} -> tensor<64x128xi1, #[[PB]]>
// CHECK: %[[NA:.*]] = tile.addptr %[[A]]
// CHECK: %[[NB:.*]] = tile.addptr %[[B]]
// CHECK: tilegpu.channel_acquire %[[PCH]], %[[PC]]
// CHECK-NEXT: tilegpu.channel_async_copy %[[PCH]][%[[PC]]] %[[A]] mask %[[MA]] : tensor<128x64xi1, #[[PA]]> other %{{.*}} : tensor<128x64xf16, #[[PA]]> -> 0
// CHECK-NEXT: tilegpu.channel_async_copy %[[PCH]][%[[PC]]] %[[B]] mask %[[MB]] : tensor<64x128xi1, #[[PB]]> other %{{.*}} : tensor<64x128xf16, #[[PB]]> -> 1
// CHECK-NEXT: tilegpu.channel_commit %[[PCH]], %[[PC]]
// CHECK: scf.yield %{{.*}}, %[[NA]], %[[NB]]
// CHECK: {tilegpu.partition = "producer"}
// CHECK: tilegpu.warp_return

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
#slice = #tilegpu.slice<dim = 0, parent = #blocked1>
#slice1 = #tilegpu.slice<dim = 1, parent = #blocked1>
#slice2 = #tilegpu.slice<dim = 1, parent = #blocked>
#slice3 = #tilegpu.slice<dim = 0, parent = #blocked>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @masked_matmul(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %cst_0 = arith.constant dense<64> : tensor<128x64xi32, #blocked>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<64x128xf16, #blocked1>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blocked>
    %c63_i32 = arith.constant 63 : i32
    %c127_i32 = arith.constant 127 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c8_i32 = arith.constant 8 : i32
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.get_program_id x : i32
    %1 = arith.addi %arg3, %c127_i32 : i32
    %2 = arith.divsi %1, %c128_i32 : i32
    %3 = arith.addi %arg4, %c127_i32 : i32
    %4 = arith.divsi %3, %c128_i32 : i32
    %5 = arith.muli %4, %c8_i32 : i32
    %6 = arith.divsi %0, %5 : i32
    %7 = arith.muli %6, %c8_i32 : i32
    %8 = arith.subi %2, %7 : i32
    %9 = arith.minsi %8, %c8_i32 : i32
    %10 = arith.remsi %0, %5 : i32
    %11 = arith.remsi %10, %9 : i32
    %12 = arith.addi %7, %11 : i32
    %13 = arith.divsi %10, %9 : i32
    %14 = arith.muli %12, %c128_i32 : i32
    %15 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice>
    %16 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
    %17 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice2>
    %18 = tile.splat %14 : i32 -> tensor<128xi32, #slice1>
    %19 = tile.splat %14 : i32 -> tensor<128xi32, #slice2>
    %20 = arith.addi %18, %16 : tensor<128xi32, #slice1>
    %21 = arith.addi %19, %17 : tensor<128xi32, #slice2>
    %22 = tile.splat %arg3 : i32 -> tensor<128xi32, #slice2>
    %23 = arith.remsi %21, %22 : tensor<128xi32, #slice2>
    %24 = arith.muli %13, %c128_i32 : i32
    %25 = tile.splat %24 : i32 -> tensor<128xi32, #slice>
    %26 = arith.addi %25, %15 : tensor<128xi32, #slice>
    %27 = tile.splat %arg4 : i32 -> tensor<128xi32, #slice>
    %28 = arith.remsi %26, %27 : tensor<128xi32, #slice>
    %29 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice1>
    %30 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %31 = tile.expand_dims %23 {axis = 1 : i32} : tensor<128xi32, #slice2> -> tensor<128x1xi32, #blocked>
    %32 = tile.splat %arg6 : i32 -> tensor<128x1xi32, #blocked>
    %33 = arith.muli %31, %32 : tensor<128x1xi32, #blocked>
    %34 = tile.expand_dims %30 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %35 = tile.broadcast %33 : tensor<128x1xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %36 = tile.broadcast %34 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %37 = arith.addi %35, %36 : tensor<128x64xi32, #blocked>
    %38 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blocked>
    %39 = tile.addptr %38, %37 : tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<128x64xi32, #blocked>
    %40 = tile.expand_dims %29 {axis = 1 : i32} : tensor<64xi32, #slice1> -> tensor<64x1xi32, #blocked1>
    %41 = tile.splat %arg7 : i32 -> tensor<64x1xi32, #blocked1>
    %42 = arith.muli %40, %41 : tensor<64x1xi32, #blocked1>
    %43 = tile.expand_dims %28 {axis = 0 : i32} : tensor<128xi32, #slice> -> tensor<1x128xi32, #blocked1>
    %44 = tile.broadcast %42 : tensor<64x1xi32, #blocked1> -> tensor<64x128xi32, #blocked1>
    %45 = tile.broadcast %43 : tensor<1x128xi32, #blocked1> -> tensor<64x128xi32, #blocked1>
    %46 = arith.addi %44, %45 : tensor<64x128xi32, #blocked1>
    %47 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blocked1>
    %48 = tile.addptr %47, %46 : tensor<64x128x!tile.ptr<f16>, #blocked1>, tensor<64x128xi32, #blocked1>
    %49 = arith.addi %arg5, %c63_i32 : i32
    %50 = arith.divsi %49, %c64_i32 : i32
    %51 = arith.muli %arg7, %c64_i32 : i32
    %52 = tile.splat %51 : i32 -> tensor<64x128xi32, #blocked1>
    // expected-remark @+1 {{warp-specialized: operand 0 cp.async; operand 1 cp.async; producer carries [1, 2]; 3 slots; registers unmoved}}
    %53:3 = scf.for %arg9 = %c0_i32 to %50 step %c1_i32 iter_args(%arg10 = %cst, %arg11 = %39, %arg12 = %48) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<64x128x!tile.ptr<f16>, #blocked1>)  : i32 {
      %72 = arith.muli %arg9, %c64_i32 : i32
      %73 = arith.subi %arg5, %72 : i32
      %74 = tile.splat %73 : i32 -> tensor<1x64xi32, #blocked>
      %75 = arith.cmpi slt, %34, %74 : tensor<1x64xi32, #blocked>
      %76 = tile.broadcast %75 : tensor<1x64xi1, #blocked> -> tensor<128x64xi1, #blocked>
      %77 = tile.load %arg11, %76, %cst_2 : tensor<128x64x!tile.ptr<f16>, #blocked>
      %78 = tile.splat %73 : i32 -> tensor<64x1xi32, #blocked1>
      %79 = arith.cmpi slt, %40, %78 : tensor<64x1xi32, #blocked1>
      %80 = tile.broadcast %79 : tensor<64x1xi1, #blocked1> -> tensor<64x128xi1, #blocked1>
      %81 = tile.load %arg12, %80, %cst_1 : tensor<64x128x!tile.ptr<f16>, #blocked1>
      %82 = tilegpu.local_alloc %77 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %83 = tilegpu.local_alloc %81 : (tensor<64x128xf16, #blocked1>) -> !tilegpu.memdesc<64x128xf16, #nvmma>
      %84 = tilegpu.warp_group_dot %82, %83, %arg10 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmma> -> tensor<128x128xf32, #wgmma>
      %85 = tilegpu.warp_group_dot_wait %84 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
      %86 = tile.addptr %arg11, %cst_0 : tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<128x64xi32, #blocked>
      %87 = tile.addptr %arg12, %52 : tensor<64x128x!tile.ptr<f16>, #blocked1>, tensor<64x128xi32, #blocked1>
      scf.yield %85, %86, %87 : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<64x128x!tile.ptr<f16>, #blocked1>
    }
    %54 = arith.truncf %53#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
    %55 = tilegpu.convert_layout %54 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #blocked1>
    %56 = tile.expand_dims %20 {axis = 1 : i32} : tensor<128xi32, #slice1> -> tensor<128x1xi32, #blocked1>
    %57 = tile.splat %arg8 : i32 -> tensor<128x1xi32, #blocked1>
    %58 = arith.muli %57, %56 : tensor<128x1xi32, #blocked1>
    %59 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>, #blocked1>
    %60 = tile.addptr %59, %58 : tensor<128x1x!tile.ptr<f16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %61 = tile.expand_dims %26 {axis = 0 : i32} : tensor<128xi32, #slice> -> tensor<1x128xi32, #blocked1>
    %62 = tile.broadcast %60 : tensor<128x1x!tile.ptr<f16>, #blocked1> -> tensor<128x128x!tile.ptr<f16>, #blocked1>
    %63 = tile.broadcast %61 : tensor<1x128xi32, #blocked1> -> tensor<128x128xi32, #blocked1>
    %64 = tile.addptr %62, %63 : tensor<128x128x!tile.ptr<f16>, #blocked1>, tensor<128x128xi32, #blocked1>
    %65 = tile.splat %arg3 : i32 -> tensor<128x1xi32, #blocked1>
    %66 = arith.cmpi slt, %56, %65 : tensor<128x1xi32, #blocked1>
    %67 = tile.splat %arg4 : i32 -> tensor<1x128xi32, #blocked1>
    %68 = arith.cmpi slt, %61, %67 : tensor<1x128xi32, #blocked1>
    %69 = tile.broadcast %66 : tensor<128x1xi1, #blocked1> -> tensor<128x128xi1, #blocked1>
    %70 = tile.broadcast %68 : tensor<1x128xi1, #blocked1> -> tensor<128x128xi1, #blocked1>
    %71 = arith.andi %69, %70 : tensor<128x128xi1, #blocked1>
    tile.store %64, %55, %71 : tensor<128x128x!tile.ptr<f16>, #blocked1>
    tile.return
  }
}

