// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize --tilegpu-overlap-products | FileCheck %s --check-prefix=OVERLAP

// Triton's tutorial 06 forward loop (warp_specialize=True, 128 query rows,
// 128-row K/V blocks, 8 warps), as it reaches warp specialization.  The
// producer copies K and V (operands 0 and 1, through the descriptors it
// makes itself) and Q (loaded once before the loop, read by every QK^T),
// Q through a one-slot channel of its own before the K/V loop; P (the
// softmax in registers, PV's left operand) stays with the consumers.  The
// two consumer warpgroups take turns at each product; the K/V slot is
// released after PV's wait, Q's after the loop.

// CHECK-LABEL: tile.func public @_attn_fwd
// CHECK: %[[QBUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
// CHECK-NEXT: %[[QCH:.*]] = tilegpu.create_channel %[[QBUF]] : {{.*}} -> !tilegpu.channel<1>
// CHECK: tilegpu.warp_specialize
// CHECK: default(%{{[^:]*}}: !tilegpu.channel<2>, %[[CQ:[^:]*]]: !tilegpu.channel<1>
// CHECK-NOT: tile.descriptor_load
// CHECK: %[[Q:.*]] = tilegpu.channel_wait %[[CQ]], %[[ZERO:[^ ]*]] : !tilegpu.channel<1>
// CHECK: tilegpu.warp_group_turn_pass 3, 2 only 1
// CHECK-NEXT: scf.for
// CHECK: %[[SLOT:.*]]:2 = tilegpu.channel_wait
// CHECK: tilegpu.warp_group_turn_wait 3, 2{{$}}
// CHECK-NEXT: tilegpu.warp_group_dot %[[Q]], %{{.*}}, %{{.*}} : !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2{{$}}
// CHECK: tilegpu.warp_group_turn_wait 3, 2{{$}}
// CHECK-NEXT: tilegpu.warp_group_dot %{{.*}}, %[[SLOT]]#1, %{{.*}} : tensor<128x128xf16, #dot_op>
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2{{$}}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: tilegpu.channel_release %[[CQ]], %[[ZERO]] : !tilegpu.channel<1>
// CHECK-NEXT: tilegpu.warp_group_turn_wait 3, 2 only 0
// CHECK: partition0(%{{[^:]*}}: !tilegpu.channel<2>, %[[PQ:[^:]*]]: !tilegpu.channel<1>
// CHECK: tilegpu.channel_acquire %[[PQ]], %[[PZERO:[^ ]*]] : !tilegpu.channel<1>
// CHECK-NEXT: tilegpu.channel_tma_load %[[PQ]][%[[PZERO]]] %{{.*}} -> 0
// CHECK-NEXT: tilegpu.channel_commit %[[PQ]], %[[PZERO]]
// CHECK-NEXT: scf.for
// CHECK: tilegpu.channel_acquire
// CHECK-NEXT: tilegpu.channel_tma_load %{{.*}} -> 0
// CHECK-NEXT: tilegpu.channel_tma_load %{{.*}} -> 1
// CHECK-NEXT: tilegpu.channel_commit
// CHECK-NOT: warp_group_dot
// CHECK: tilegpu.warp_return

// OVERLAP-LABEL: tile.func public @_attn_fwd
// OVERLAP: tilegpu.warp_group_dot %{{.*}} : tensor<128x128xf16, #dot_op>
// OVERLAP-NEXT: tilegpu.warp_group_turn_pass 3, 2{{$}}
// OVERLAP-NEXT: arith.mulf
// OVERLAP: tilegpu.warp_group_dot_wait %{{.*}}, %{{.*}} {pendings = 0 : i32}
// OVERLAP-NEXT: tilegpu.channel_release
// OVERLAP-NEXT: scf.yield
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked2 = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
#dot_op = #tilegpu.dot_op<opIdx = 0, parent = #wgmma, kWidth = 2>
#slice = #tilegpu.slice<dim = 1, parent = #wgmma>
module attributes {"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @_attn_fwd(%arg0: f32, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: i32, %arg3: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg4: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg5: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg6: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c1_i64 = arith.constant 1 : i64
    %c128_i64 = arith.constant 128 : i64
    %cst_0 = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
    %cst_1 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
    %c0_i32 = arith.constant 0 : i32
    %cst_2 = arith.constant 1.44269502 : f32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.get_program_id x : i32
    %1 = tile.get_program_id y : i32
    %2 = arith.divsi %1, %arg2 : i32
    %3 = arith.remsi %1, %arg2 : i32
    %4 = arith.muli %arg2, %arg7 : i32
    %5 = tile.make_tensor_descriptor %arg3, [%4, %c128_i32], [%c128_i64, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x128xf16>>
    %6 = tile.make_tensor_descriptor %arg5, [%4, %c128_i32], [%c128_i64, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x128xf16>>
    %7 = tile.make_tensor_descriptor %arg4, [%4, %c128_i32], [%c128_i64, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x128xf16>>
    %8 = tile.make_tensor_descriptor %arg6, [%4, %c128_i32], [%c128_i64, %c1_i64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x128xf16>>
    %9 = arith.muli %2, %4 : i32
    %10 = arith.muli %3, %arg7 : i32
    %11 = arith.addi %9, %10 : i32
    %12 = arith.muli %0, %c128_i32 : i32
    %13 = arith.addi %11, %12 : i32
    %14 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked>
    %15 = tile.splat %12 : i32 -> tensor<128xi32, #blocked>
    %16 = arith.addi %15, %14 : tensor<128xi32, #blocked>
    %17 = arith.mulf %arg0, %cst_2 : f32
    %18 = tile.descriptor_load %5[%13, %c0_i32] : !tile.tensordesc<tensor<128x128xf16>> -> tensor<128x128xf16, #blocked1>
    %19 = tilegpu.local_alloc %18 : (tensor<128x128xf16, #blocked1>) -> !tilegpu.memdesc<128x128xf16, #nvmma>
    %20 = tile.splat %17 : f32 -> tensor<128xf32, #slice>
    %21 = tile.splat %17 : f32 -> tensor<128x128xf32, #wgmma>
    %22:5 = scf.for %arg8 = %c0_i32 to %arg7 step %c128_i32 iter_args(%arg9 = %cst, %arg10 = %cst_0, %arg11 = %cst_1, %arg12 = %11, %arg13 = %11) -> (tensor<128x128xf32, #wgmma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32)  : i32 {
      %35 = tile.descriptor_load %7[%arg12, %c0_i32] : !tile.tensordesc<tensor<128x128xf16>> -> tensor<128x128xf16, #blocked1>
      %36 = tile.trans %35 {order = array<i32: 1, 0>} : tensor<128x128xf16, #blocked1> -> tensor<128x128xf16, #blocked2>
      %37 = tilegpu.local_alloc %36 : (tensor<128x128xf16, #blocked2>) -> !tilegpu.memdesc<128x128xf16, #nvmma1>
      %38 = tilegpu.warp_group_dot %19, %37, %cst : !tilegpu.memdesc<128x128xf16, #nvmma> * !tilegpu.memdesc<128x128xf16, #nvmma1> -> tensor<128x128xf32, #wgmma>
      %39 = tilegpu.warp_group_dot_wait %38 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
      %40 = tile.reduce %39 axis = 1 : tensor<128x128xf32, #wgmma> -> tensor<128xf32, #slice> {
      ^bb0(%arg14: f32, %arg15: f32):
        %64 = arith.maxnumf %arg14, %arg15 : f32
        tile.reduce.return %64 : f32
      }
      %41 = arith.mulf %40, %20 : tensor<128xf32, #slice>
      %42 = arith.maxnumf %arg11, %41 : tensor<128xf32, #slice>
      %43 = arith.mulf %39, %21 : tensor<128x128xf32, #wgmma>
      %44 = tile.expand_dims %42 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
      %45 = tile.broadcast %44 : tensor<128x1xf32, #wgmma> -> tensor<128x128xf32, #wgmma>
      %46 = arith.subf %43, %45 : tensor<128x128xf32, #wgmma>
      %47 = math.exp2 %46 : tensor<128x128xf32, #wgmma>
      %48 = arith.subf %arg11, %42 : tensor<128xf32, #slice>
      %49 = math.exp2 %48 : tensor<128xf32, #slice>
      %50 = tile.reduce %47 axis = 1 : tensor<128x128xf32, #wgmma> -> tensor<128xf32, #slice> {
      ^bb0(%arg14: f32, %arg15: f32):
        %64 = arith.addf %arg14, %arg15 : f32
        tile.reduce.return %64 : f32
      }
      %51 = tile.expand_dims %49 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
      %52 = tile.broadcast %51 : tensor<128x1xf32, #wgmma> -> tensor<128x128xf32, #wgmma>
      %53 = arith.mulf %arg9, %52 : tensor<128x128xf32, #wgmma>
      %54 = tile.descriptor_load %6[%arg13, %c0_i32] : !tile.tensordesc<tensor<128x128xf16>> -> tensor<128x128xf16, #blocked1>
      %55 = arith.truncf %47 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %56 = tilegpu.local_alloc %54 : (tensor<128x128xf16, #blocked1>) -> !tilegpu.memdesc<128x128xf16, #nvmma>
      %57 = tilegpu.convert_layout %55 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #dot_op>
      %58 = tilegpu.warp_group_dot %57, %56, %53 : tensor<128x128xf16, #dot_op> * !tilegpu.memdesc<128x128xf16, #nvmma> -> tensor<128x128xf32, #wgmma>
      %59 = tilegpu.warp_group_dot_wait %58 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
      %60 = arith.mulf %arg10, %49 : tensor<128xf32, #slice>
      %61 = arith.addf %60, %50 : tensor<128xf32, #slice>
      %62 = arith.addi %arg12, %c128_i32 : i32
      %63 = arith.addi %arg13, %c128_i32 : i32
      scf.yield %59, %61, %42, %62, %63 : tensor<128x128xf32, #wgmma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32
    } {tile.warp_specialize}
    %23 = math.log2 %22#1 : tensor<128xf32, #slice>
    %24 = arith.addf %22#2, %23 : tensor<128xf32, #slice>
    %25 = tilegpu.convert_layout %24 : tensor<128xf32, #slice> -> tensor<128xf32, #blocked>
    %26 = tile.expand_dims %22#1 {axis = 1 : i32} : tensor<128xf32, #slice> -> tensor<128x1xf32, #wgmma>
    %27 = tile.broadcast %26 : tensor<128x1xf32, #wgmma> -> tensor<128x128xf32, #wgmma>
    %28 = arith.divf %22#0, %27 : tensor<128x128xf32, #wgmma>
    %29 = arith.muli %1, %arg7 : i32
    %30 = tile.addptr %arg1, %29 : !tile.ptr<f32>, i32
    %31 = tile.splat %30 : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #blocked>
    %32 = tile.addptr %31, %16 : tensor<128x!tile.ptr<f32>, #blocked>, tensor<128xi32, #blocked>
    tile.store %32, %25 : tensor<128x!tile.ptr<f32>, #blocked>
    %33 = arith.truncf %28 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
    %34 = tilegpu.convert_layout %33 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #blocked1>
    tile.descriptor_store %8[%13, %c0_i32], %34 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #blocked1>
    tile.return
  }
}

