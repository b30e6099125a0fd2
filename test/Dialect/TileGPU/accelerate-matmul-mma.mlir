// RUN: warpforge-opt %s --split-input-file --tilegpu-accelerate-matmul | FileCheck %s

// Dots wgmma cannot take but mma.sync can (fewer than 4 warps, fewer than
// 64 rows per warpgroup, targets below sm_90) become tile.dot in mma.sync
// layouts: the accumulator a #tilegpu.wgmma with instrShape M = 16 (the
// warps split the larger share of M and N, counted in 16s, as Triton's
// mma v2), the operands its dot_op layouts with kWidth the elements of a
// 32-bit register.

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// 32 rows on 4 warps: fewer than a warpgroup's 64; 2 x 2 warps.
// CHECK-DAG: #[[NV64:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
// CHECK-DAG: #[[NV128:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [2, 2], instrShape = [16, 32, 16]>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[MMA]], kWidth = 2>
// CHECK-DAG: #[[OPB:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[MMA]], kWidth = 2>
// CHECK-LABEL: tile.func public @too_few_rows(
// The operands go through swizzled shared buffers (the pipeliner makes
// them cp.async rings in a K loop) into their register layouts.
// CHECK: %[[AS:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<32x32xf16, #[[NV64]]>
// CHECK-NEXT: %[[A:.*]] = tilegpu.local_load %[[AS]] : {{.*}} -> tensor<32x32xf16, #[[OPA]]>
// CHECK: %[[BS:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<32x64xf16, #[[NV128]]>
// CHECK-NEXT: %[[B:.*]] = tilegpu.local_load %[[BS]] : {{.*}} -> tensor<32x64xf16, #[[OPB]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %arg2 : {{.*}} -> tensor<32x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[C]] : tensor<32x32xf16, #[[OPA]]> * tensor<32x64xf16, #[[OPB]]> -> tensor<32x64xf32, #[[MMA]]>
// CHECK-NEXT: tilegpu.convert_layout %[[D]] : tensor<32x64xf32, #[[MMA]]> -> tensor<32x64xf32, #blocked>
// CHECK-NOT: tilegpu.fma
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @too_few_rows(%a: tensor<32x32xf16, #opA>, %b: tensor<32x64xf16, #opB>, %c: tensor<32x64xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<32x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<32x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// Two warps, not a warpgroup: each takes 32 of the 64 rows.
// CHECK: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [2, 1], instrShape = [16, 64, 16]>
// CHECK-LABEL: tile.func public @partial_warpgroup(
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #[[MMA]]>
module attributes {"tilegpu.num-warps" = 2 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @partial_warpgroup(%a: tensor<64x32xf16, #opA>, %b: tensor<32x64xf16, #opB>, %c: tensor<64x64xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// sm_80 has no wgmma: a tile wgmma would take on Hopper runs on mma.sync.
// CHECK: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [2, 2], instrShape = [16, 64, 16]>
// CHECK-LABEL: tile.func public @sm80(
// CHECK-NOT: tilegpu.warp_group_dot
// CHECK: tile.dot {{.*}} -> tensor<128x128xf32, #[[MMA]]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:80"} {
  tile.func public @sm80(%a: tensor<128x64xf16, #opA>, %b: tensor<64x128xf16, #opB>, %c: tensor<128x128xf32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<128x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<128x128xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// int8 on one warp: k32, four elements per register.
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 32, 32]>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[MMA]], kWidth = 4>
// CHECK-LABEL: tile.func public @int8_one_warp(
// CHECK: tile.dot {{.*}} : tensor<16x64xi8, #[[OPA]]> * {{.*}} -> tensor<16x32xi32, #[[MMA]]>
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @int8_one_warp(%a: tensor<16x64xi8, #opA>, %b: tensor<64x32xi8, #opB>, %c: tensor<16x32xi32, #bl>) {
    %d = tile.dot %a, %b, %c : tensor<16x64xi8, #opA> * tensor<64x32xi8, #opB> -> tensor<16x32xi32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// float32 as tf32: k8, one element per register.
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [2, 1], instrShape = [16, 32, 8]>
// CHECK-DAG: #[[OPB:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[MMA]], kWidth = 1>
// CHECK-LABEL: tile.func public @tf32(
// CHECK: tile.dot {{.*}} inputPrecision = tf32 : {{.*}} * tensor<16x32xf32, #[[OPB]]> -> tensor<32x32xf32, #[[MMA]]>
module attributes {"tilegpu.num-warps" = 2 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @tf32(%a: tensor<32x16xf32, #opA>, %b: tensor<16x32xf32, #opB>, %c: tensor<32x32xf32, #bl>) {
    %d = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<32x16xf32, #opA> * tensor<16x32xf32, #opB> -> tensor<32x32xf32, #bl>
    tile.return
  }
}

// -----

#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
// A K loop's accumulator is carried in the mma.sync layout, converted
// once before and once after the loop.
// CHECK: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 32, 16]>
// CHECK-LABEL: tile.func public @k_loop(
// CHECK: %[[INIT:.*]] = tilegpu.convert_layout %arg2 : {{.*}} -> tensor<16x32xf32, #[[MMA]]>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<16x32xf32, #[[MMA]]>)
// CHECK: %[[D:.*]] = tile.dot {{.*}}, %[[ACC]] : {{.*}} -> tensor<16x32xf32, #[[MMA]]>
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: tilegpu.convert_layout %[[LOOP]] : tensor<16x32xf32, #[[MMA]]> -> tensor<16x32xf32, #blocked>
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @k_loop(%a: tensor<16x32xf16, #opA>, %b: tensor<32x32xf16, #opB>, %c: tensor<16x32xf32, #bl>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c) -> (tensor<16x32xf32, #bl>) : i32 {
      %d = tile.dot %a, %b, %acc : tensor<16x32xf16, #opA> * tensor<32x32xf16, #opB> -> tensor<16x32xf32, #bl>
      scf.yield %d : tensor<16x32xf32, #bl>
    }
    tile.return
  }
}

// -----

#b3 = #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
// Batched (3-D): each operand goes to shared memory whole, one buffer per
// batch (the leading dimension walks the buffers); each batch's product
// reads its buffers in the dot_op layouts of the 2-D accumulator planned
// for one batch, on all 4 warps, and writes its batch of the result,
// which is read back whole.  A splat accumulator is made again per batch.
// CHECK-DAG: #[[MMA:.*]] = #tilegpu.wgmma<warpsPerCTA = [2, 2], instrShape = [16, 32, 16]>
// CHECK-DAG: #[[OPA:.*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[MMA]], kWidth = 2>
// CHECK-DAG: #[[OPB:.*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[MMA]], kWidth = 2>
// CHECK-LABEL: tile.func public @batched_zero_acc(
// CHECK: %[[AS:.*]] = tilegpu.local_alloc %arg0 : (tensor<2x32x32xf16, #{{.*}}>) -> !tilegpu.memdesc<32x32xf16, #{{.*}}, buffers = 2>
// CHECK-NEXT: %[[BS:.*]] = tilegpu.local_alloc %arg1 : (tensor<2x32x64xf16, #{{.*}}>) -> !tilegpu.memdesc<32x64xf16, #{{.*}}, buffers = 2>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x64xf32, #[[MMA]]>
// CHECK-NEXT: %[[OUT:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf32, #{{.*}}, mutable, buffers = 2>
// CHECK: %[[A0:.*]] = tilegpu.memdesc_index %[[AS]][%[[I0:.*]]]
// CHECK-NEXT: %[[LA0:.*]] = tilegpu.local_load %[[A0]] : {{.*}} -> tensor<32x32xf16, #[[OPA]]>
// CHECK-NEXT: %[[B0:.*]] = tilegpu.memdesc_index %[[BS]][%[[I0]]]
// CHECK-NEXT: %[[LB0:.*]] = tilegpu.local_load %[[B0]] : {{.*}} -> tensor<32x64xf16, #[[OPB]]>
// CHECK-NEXT: %[[O0:.*]] = tilegpu.memdesc_index %[[OUT]][%[[I0]]]
// CHECK-NEXT: %[[D0:.*]] = tile.dot %[[LA0]], %[[LB0]], %[[ZERO]] : {{.*}} -> tensor<32x64xf32, #[[MMA]]>
// CHECK-NEXT: tilegpu.local_store %[[D0]], %[[O0]]
// CHECK: %[[A1:.*]] = tilegpu.memdesc_index %[[AS]][%[[I1:.*]]]
// CHECK: tile.dot {{.*}}, %[[ZERO]] : {{.*}} -> tensor<32x64xf32, #[[MMA]]>
// CHECK: tilegpu.local_store
// CHECK-NEXT: tilegpu.local_load %[[OUT]] : !tilegpu.memdesc<32x64xf32, #{{.*}}, mutable, buffers = 2> -> tensor<2x32x64xf32, #{{.*}}>
// CHECK-NOT: tilegpu.fma
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  tile.func public @batched_zero_acc(%a: tensor<2x32x32xf16, #b3>, %b: tensor<2x32x64xf16, #b3>) {
    %c = arith.constant dense<0.0> : tensor<2x32x64xf32, #b3>
    %d = tile.dot %a, %b, %c : tensor<2x32x32xf16, #b3> * tensor<2x32x64xf16, #b3> -> tensor<2x32x64xf32, #b3>
    tile.return
  }
}

// -----

#b3 = #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 1, 1], order = [2, 1, 0]>
// Any other accumulator initializes the result's buffers; each batch reads
// its own before its product and writes its product back over it.
// CHECK-LABEL: tile.func public @batched_acc(
// CHECK: %[[OUT:.*]] = tilegpu.local_alloc %arg2 : (tensor<4x16x8xi32, #{{.*}}>) -> !tilegpu.memdesc<16x8xi32, #{{.*}}, mutable, buffers = 4>
// CHECK: %[[O0:.*]] = tilegpu.memdesc_index %[[OUT]]
// CHECK-NEXT: %[[C0:.*]] = tilegpu.local_load %[[O0]] : {{.*}} -> tensor<16x8xi32, #[[MMA:wgmma[0-9]*]]>
// CHECK-NEXT: %[[D0:.*]] = tile.dot %{{.*}}, %{{.*}}, %[[C0]] : tensor<16x32xi8, {{.*}}> * tensor<32x8xi8, {{.*}}> -> tensor<16x8xi32, #[[MMA]]>
// CHECK-NEXT: tilegpu.local_store %[[D0]], %[[O0]]
// CHECK-COUNT-3: tile.dot
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:80"} {
  tile.func public @batched_acc(%a: tensor<4x16x32xi8, #b3>, %b: tensor<4x32x8xi8, #b3>, %c: tensor<4x16x8xi32, #b3>) {
    %d = tile.dot %a, %b, %c : tensor<4x16x32xi8, #b3> * tensor<4x32x8xi8, #b3> -> tensor<4x16x8xi32, #b3>
    tile.return
  }
}
