// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize=remarks=true -verify-diagnostics -o /dev/null

// Seed 000's kernel as written: unmasked pointer loads that the loop
// advances by BLOCK_K columns (A, stride_ak == 1) and BLOCK_K rows (B,
// += BLOCK_K * stride_bk), base and row strides 16-byte multiples by the
// arguments' hints.  Each is a 2-D block of a row-major matrix
// (PointerBlock.h), so the producer copies it with the TMA: it makes a
// tensor map of the base and row stride itself (marked as the compiler's,
// dimensions 2^31 - 1: no bound to enforce) and computes the block's
// coordinates from the iteration, and carries no pointers.  With TMA
// copies the registers move (40/232).

// CHECK-LABEL: tile.func public @seed000_matmul
// CHECK: tilegpu.warp_specialize(
// CHECK-SAME: requestedRegisters = array<i32: 40>
// CHECK: partition0(%[[PCH:[^:]*]]: !tilegpu.channel<3>, %{{[^:]*}}: i32, %[[A:[^:]*]]: !tile.ptr<f16>, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %[[B:[^:]*]]: !tile.ptr<f16>, %[[SB:[^:]*]]: i32,
// CHECK-NOT: tensor<
// CHECK: %[[MAXDIM:.*]] = arith.constant 2147483647 : i32
// CHECK: %[[DA:.*]] = tile.make_tensor_descriptor %[[A]], [%[[MAXDIM]], %[[MAXDIM]]], [%{{.*}}, %{{.*}}] {"tilegpu.synthesized-map"} : !tile.ptr<f16>, !tile.tensordesc<tensor<128x64xf16>>
// CHECK: %[[SB64:.*]] = arith.extsi %[[SB]] : i32 to i64
// CHECK: %[[DB:.*]] = tile.make_tensor_descriptor %[[B]], [%{{.*}}, %{{.*}}], [%[[SB64]], %{{.*}}] {"tilegpu.synthesized-map"} : !tile.ptr<f16>, !tile.tensordesc<tensor<64x256xf16>>
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (i32)
// CHECK: %[[T:.*]] = arith.divsi
// CHECK: tilegpu.channel_acquire %[[PCH]], %[[C]]
// CHECK: %[[AK:.*]] = arith.muli %[[T]], %{{.*}} : i32
// CHECK: %[[ACOL:.*]] = arith.addi %{{.*}}, %[[AK]] : i32
// CHECK: tilegpu.channel_tma_load %[[PCH]][%[[C]]] %[[DA]][%{{.*}}, %[[ACOL]]] -> 0
// CHECK: %[[BK:.*]] = arith.muli %[[T]], %{{.*}} : i32
// CHECK: %[[BROW:.*]] = arith.addi %{{.*}}, %[[BK]] : i32
// CHECK: tilegpu.channel_tma_load %[[PCH]][%[[C]]] %[[DB]][%[[BROW]], %{{.*}}] -> 1
// CHECK: tilegpu.channel_commit
// CHECK-NOT: tile.addptr
// CHECK: tilegpu.warp_return

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#slice = #tilegpu.slice<dim = 1, parent = #blocked1>
#slice1 = #tilegpu.slice<dim = 1, parent = #blocked>
#slice2 = #tilegpu.slice<dim = 0, parent = #blocked1>
#slice3 = #tilegpu.slice<dim = 0, parent = #blocked>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @seed000_matmul(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 16 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %cst_0 = arith.constant dense<64> : tensor<128x64xi32, #blocked>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c127_i32 = arith.constant 127 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.get_program_id x : i32
    %1 = arith.addi %arg3, %c127_i32 : i32
    %2 = arith.divsi %1, %c128_i32 : i32
    %3 = arith.addi %arg4, %c255_i32 : i32
    %4 = arith.divsi %3, %c256_i32 : i32
    %5 = arith.divsi %0, %2 : i32
    %6 = arith.remsi %0, %4 : i32
    %7 = arith.muli %5, %c128_i32 : i32
    %8 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice>
    %9 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
    %10 = tile.splat %7 : i32 -> tensor<128xi32, #slice>
    %11 = tile.splat %7 : i32 -> tensor<128xi32, #slice1>
    %12 = arith.addi %10, %8 : tensor<128xi32, #slice>
    %13 = arith.addi %11, %9 : tensor<128xi32, #slice1>
    %14 = arith.muli %6, %c256_i32 : i32
    %15 = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #slice2>
    %16 = tile.splat %14 : i32 -> tensor<256xi32, #slice2>
    %17 = arith.addi %16, %15 : tensor<256xi32, #slice2>
    %18 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %19 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %20 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked1>
    %21 = tile.expand_dims %13 {axis = 1 : i32} : tensor<128xi32, #slice1> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg6 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %24 = tile.expand_dims %19 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %25 = tile.broadcast %23 : tensor<128x1xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %26 = tile.broadcast %24 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %27 = arith.addi %25, %26 : tensor<128x64xi32, #blocked>
    %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blocked>
    %29 = tile.addptr %28, %27 : tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<128x64xi32, #blocked>
    %30 = tile.expand_dims %18 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %31 = tile.splat %arg7 : i32 -> tensor<64x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<64x1xi32, #blocked1>
    %33 = tile.expand_dims %17 {axis = 0 : i32} : tensor<256xi32, #slice2> -> tensor<1x256xi32, #blocked1>
    %34 = tile.broadcast %32 : tensor<64x1xi32, #blocked1> -> tensor<64x256xi32, #blocked1>
    %35 = tile.broadcast %33 : tensor<1x256xi32, #blocked1> -> tensor<64x256xi32, #blocked1>
    %36 = arith.addi %34, %35 : tensor<64x256xi32, #blocked1>
    %37 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<64x256x!tile.ptr<f16>, #blocked1>
    %38 = tile.addptr %37, %36 : tensor<64x256x!tile.ptr<f16>, #blocked1>, tensor<64x256xi32, #blocked1>
    %39 = arith.addi %arg5, %c63_i32 : i32
    %40 = arith.divsi %39, %c64_i32 : i32
    %41 = arith.muli %arg7, %c64_i32 : i32
    %42 = tile.splat %41 : i32 -> tensor<64x256xi32, #blocked1>
    // expected-remark @+1 {{warp-specialized: operand 0 tma-block; operand 1 tma-block; producer carries []; 3 slots; registers 40/232}}
    %43:3 = scf.for %arg9 = %c0_i32 to %40 step %c1_i32 iter_args(%arg10 = %cst, %arg11 = %29, %arg12 = %38) -> (tensor<128x256xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<64x256x!tile.ptr<f16>, #blocked1>)  : i32 {
      %53 = tile.load %arg11 : tensor<128x64x!tile.ptr<f16>, #blocked>
      %54 = tile.load %arg12 : tensor<64x256x!tile.ptr<f16>, #blocked1>
      %55 = tilegpu.local_alloc %53 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %56 = tilegpu.local_alloc %54 : (tensor<64x256xf16, #blocked1>) -> !tilegpu.memdesc<64x256xf16, #nvmma>
      %57 = tilegpu.warp_group_dot %55, %56, %arg10 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmma> -> tensor<128x256xf32, #wgmma>
      %58 = tilegpu.warp_group_dot_wait %57 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      %59 = tile.addptr %arg11, %cst_0 : tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<128x64xi32, #blocked>
      %60 = tile.addptr %arg12, %42 : tensor<64x256x!tile.ptr<f16>, #blocked1>, tensor<64x256xi32, #blocked1>
      scf.yield %58, %59, %60 : tensor<128x256xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<64x256x!tile.ptr<f16>, #blocked1>
    }
    %44 = arith.truncf %43#0 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %45 = tilegpu.convert_layout %44 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked1>
    %46 = tile.splat %arg8 : i32 -> tensor<128x1xi32, #blocked1>
    %47 = arith.muli %46, %20 : tensor<128x1xi32, #blocked1>
    %48 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>, #blocked1>
    %49 = tile.addptr %48, %47 : tensor<128x1x!tile.ptr<f16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %50 = tile.broadcast %49 : tensor<128x1x!tile.ptr<f16>, #blocked1> -> tensor<128x256x!tile.ptr<f16>, #blocked1>
    %51 = tile.broadcast %33 : tensor<1x256xi32, #blocked1> -> tensor<128x256xi32, #blocked1>
    %52 = tile.addptr %50, %51 : tensor<128x256x!tile.ptr<f16>, #blocked1>, tensor<128x256xi32, #blocked1>
    tile.store %52, %45 : tensor<128x256x!tile.ptr<f16>, #blocked1>
    tile.return
  }
}


// -----

// B's row stride known only to be a multiple of 4 elements (8 bytes): the
// TMA needs 16, so B stays a cp.async copy (8-byte pieces) and A, a
// block, goes by the TMA; the producer carries B's pointers only and
// keeps its registers.

// CHECK-LABEL: tile.func public @unaligned_b_rows
// CHECK: tilegpu.warp_specialize(
// CHECK-NOT: requestedRegisters
// CHECK: partition0(
// CHECK: tile.make_tensor_descriptor
// CHECK-NOT: tile.make_tensor_descriptor
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (i32, tensor<64x256x!tile.ptr<f16>
// CHECK: tilegpu.channel_tma_load {{.*}} -> 0
// CHECK: tilegpu.channel_async_copy {{.*}} -> 1
// CHECK: tilegpu.warp_return

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#slice = #tilegpu.slice<dim = 1, parent = #blocked1>
#slice1 = #tilegpu.slice<dim = 1, parent = #blocked>
#slice2 = #tilegpu.slice<dim = 0, parent = #blocked1>
#slice3 = #tilegpu.slice<dim = 0, parent = #blocked>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @unaligned_b_rows(%arg0: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32}, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: i32 {tile.divisibility = 16 : i32}, %arg6: i32 {tile.divisibility = 16 : i32}, %arg7: i32 {tile.divisibility = 4 : i32}, %arg8: i32 {tile.divisibility = 16 : i32}) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %cst_0 = arith.constant dense<64> : tensor<128x64xi32, #blocked>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c127_i32 = arith.constant 127 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c1_i32 = arith.constant 1 : i32
    %c128_i32 = arith.constant 128 : i32
    %0 = tile.get_program_id x : i32
    %1 = arith.addi %arg3, %c127_i32 : i32
    %2 = arith.divsi %1, %c128_i32 : i32
    %3 = arith.addi %arg4, %c255_i32 : i32
    %4 = arith.divsi %3, %c256_i32 : i32
    %5 = arith.divsi %0, %2 : i32
    %6 = arith.remsi %0, %4 : i32
    %7 = arith.muli %5, %c128_i32 : i32
    %8 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice>
    %9 = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #slice1>
    %10 = tile.splat %7 : i32 -> tensor<128xi32, #slice>
    %11 = tile.splat %7 : i32 -> tensor<128xi32, #slice1>
    %12 = arith.addi %10, %8 : tensor<128xi32, #slice>
    %13 = arith.addi %11, %9 : tensor<128xi32, #slice1>
    %14 = arith.muli %6, %c256_i32 : i32
    %15 = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #slice2>
    %16 = tile.splat %14 : i32 -> tensor<256xi32, #slice2>
    %17 = arith.addi %16, %15 : tensor<256xi32, #slice2>
    %18 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice>
    %19 = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #slice3>
    %20 = tile.expand_dims %12 {axis = 1 : i32} : tensor<128xi32, #slice> -> tensor<128x1xi32, #blocked1>
    %21 = tile.expand_dims %13 {axis = 1 : i32} : tensor<128xi32, #slice1> -> tensor<128x1xi32, #blocked>
    %22 = tile.splat %arg6 : i32 -> tensor<128x1xi32, #blocked>
    %23 = arith.muli %21, %22 : tensor<128x1xi32, #blocked>
    %24 = tile.expand_dims %19 {axis = 0 : i32} : tensor<64xi32, #slice3> -> tensor<1x64xi32, #blocked>
    %25 = tile.broadcast %23 : tensor<128x1xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %26 = tile.broadcast %24 : tensor<1x64xi32, #blocked> -> tensor<128x64xi32, #blocked>
    %27 = arith.addi %25, %26 : tensor<128x64xi32, #blocked>
    %28 = tile.splat %arg0 : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blocked>
    %29 = tile.addptr %28, %27 : tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<128x64xi32, #blocked>
    %30 = tile.expand_dims %18 {axis = 1 : i32} : tensor<64xi32, #slice> -> tensor<64x1xi32, #blocked1>
    %31 = tile.splat %arg7 : i32 -> tensor<64x1xi32, #blocked1>
    %32 = arith.muli %30, %31 : tensor<64x1xi32, #blocked1>
    %33 = tile.expand_dims %17 {axis = 0 : i32} : tensor<256xi32, #slice2> -> tensor<1x256xi32, #blocked1>
    %34 = tile.broadcast %32 : tensor<64x1xi32, #blocked1> -> tensor<64x256xi32, #blocked1>
    %35 = tile.broadcast %33 : tensor<1x256xi32, #blocked1> -> tensor<64x256xi32, #blocked1>
    %36 = arith.addi %34, %35 : tensor<64x256xi32, #blocked1>
    %37 = tile.splat %arg1 : !tile.ptr<f16> -> tensor<64x256x!tile.ptr<f16>, #blocked1>
    %38 = tile.addptr %37, %36 : tensor<64x256x!tile.ptr<f16>, #blocked1>, tensor<64x256xi32, #blocked1>
    %39 = arith.addi %arg5, %c63_i32 : i32
    %40 = arith.divsi %39, %c64_i32 : i32
    %41 = arith.muli %arg7, %c64_i32 : i32
    %42 = tile.splat %41 : i32 -> tensor<64x256xi32, #blocked1>
    // expected-remark @+1 {{warp-specialized: operand 0 tma-block; operand 1 cp.async; producer carries [2]; 3 slots; registers unmoved}}
    %43:3 = scf.for %arg9 = %c0_i32 to %40 step %c1_i32 iter_args(%arg10 = %cst, %arg11 = %29, %arg12 = %38) -> (tensor<128x256xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<64x256x!tile.ptr<f16>, #blocked1>)  : i32 {
      %53 = tile.load %arg11 : tensor<128x64x!tile.ptr<f16>, #blocked>
      %54 = tile.load %arg12 : tensor<64x256x!tile.ptr<f16>, #blocked1>
      %55 = tilegpu.local_alloc %53 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %56 = tilegpu.local_alloc %54 : (tensor<64x256xf16, #blocked1>) -> !tilegpu.memdesc<64x256xf16, #nvmma>
      %57 = tilegpu.warp_group_dot %55, %56, %arg10 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmma> -> tensor<128x256xf32, #wgmma>
      %58 = tilegpu.warp_group_dot_wait %57 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      %59 = tile.addptr %arg11, %cst_0 : tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<128x64xi32, #blocked>
      %60 = tile.addptr %arg12, %42 : tensor<64x256x!tile.ptr<f16>, #blocked1>, tensor<64x256xi32, #blocked1>
      scf.yield %58, %59, %60 : tensor<128x256xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blocked>, tensor<64x256x!tile.ptr<f16>, #blocked1>
    }
    %44 = arith.truncf %43#0 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %45 = tilegpu.convert_layout %44 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked1>
    %46 = tile.splat %arg8 : i32 -> tensor<128x1xi32, #blocked1>
    %47 = arith.muli %46, %20 : tensor<128x1xi32, #blocked1>
    %48 = tile.splat %arg2 : !tile.ptr<f16> -> tensor<128x1x!tile.ptr<f16>, #blocked1>
    %49 = tile.addptr %48, %47 : tensor<128x1x!tile.ptr<f16>, #blocked1>, tensor<128x1xi32, #blocked1>
    %50 = tile.broadcast %49 : tensor<128x1x!tile.ptr<f16>, #blocked1> -> tensor<128x256x!tile.ptr<f16>, #blocked1>
    %51 = tile.broadcast %33 : tensor<1x256xi32, #blocked1> -> tensor<128x256xi32, #blocked1>
    %52 = tile.addptr %50, %51 : tensor<128x256x!tile.ptr<f16>, #blocked1>, tensor<128x256xi32, #blocked1>
    tile.store %52, %45 : tensor<128x256x!tile.ptr<f16>, #blocked1>
    tile.return
  }
}

