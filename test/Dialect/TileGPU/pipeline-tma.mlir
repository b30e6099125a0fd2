// RUN: warpforge-opt %s --split-input-file --tilegpu-software-pipeline --mlir-print-local-scope | FileCheck %s -DNV128='#tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>' -DNV128T='#tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>' -DBAR='!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>'
// The kernel's num_stages from the module (tilegpu.num-stages): 4.
// RUN: sed -e 's/^module attributes {/module attributes {"tilegpu.num-stages" = 4 : i32, /' %s | warpforge-opt --split-input-file --tilegpu-software-pipeline --mlir-print-local-scope | FileCheck %s --check-prefix=OPT4 -DNV128='#tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>' -DBAR='!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>'

// The software pipeliner on K loops whose operands come from descriptor
// loads (tile.descriptor_load -> [convert_layout | tile.trans] ->
// local_alloc -> warp_group_dot), as tilegpu-accelerate-matmul leaves a
// TMA matmul: each operand gets a ring of S buffers in the TMA layout
// (the descriptor's, NV128 here), there is one full mbarrier per stage
// (BAR is one of them), armed by thread 0 with the bytes of every copy of
// its iteration, and the loop carries the read and write ring indices and
// the parity of the phase it waits for.  Each function is the K loop of a
// 128x128x64 f16 matmul with 4 warps: 16 KiB per operand, 32 KiB per
// stage.

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A [M, K] and B [K, N], both loaded directly; three stages (the
  // default).
  // CHECK-LABEL: tile.func public @tma_direct(
  // CHECK-SAME: %[[DA:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[DB:[^:]*]]: !tile.tensordesc<tensor<64x128xf16>>, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[N:[^:]*]]: i32)
  // The rings and the barriers; each barrier counts one arrival (the
  // expect's), the inits are fenced for the async proxy and published with
  // a CTA barrier before anything uses them.
  // CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>
  // CHECK-NEXT: %[[S0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[BAR0:.*]] = tilegpu.memdesc_index %[[BARS]][%[[S0]]] : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3> -> [[BAR]]
  // CHECK-NEXT: tilegpu.init_barrier %[[BAR0]], 1 : [[BAR]]
  // CHECK-NEXT: %[[S1:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[BAR1:.*]] = tilegpu.memdesc_index %[[BARS]][%[[S1]]]
  // CHECK-NEXT: tilegpu.init_barrier %[[BAR1]], 1 : [[BAR]]
  // CHECK-NEXT: %[[S2:.*]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[BAR2:.*]] = tilegpu.memdesc_index %[[BARS]][%[[S2]]]
  // CHECK-NEXT: tilegpu.init_barrier %[[BAR2]], 1 : [[BAR]]
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NOT: tilegpu.init_barrier
  // Prologue iteration 0: K offset 0 * 64, predicate 0 < n; barrier 0 is
  // armed with both copies' bytes (32768) under the predicate, then both
  // copies go into buffer 0 of their rings on barrier 0.
  // CHECK-NEXT: %[[K0:.*]] = arith.muli %[[LB:.*]], %{{.*}} : i32
  // CHECK-NEXT: %[[P0:.*]] = arith.cmpi slt, %[[LB]], %[[N]] : i32
  // CHECK-NEXT: %[[I0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[E0:.*]] = tilegpu.memdesc_index %[[BARS]][%[[I0]]]
  // CHECK-NEXT: tilegpu.barrier_expect %[[E0]], 32768, %[[P0]] : [[BAR]]
  // CHECK-NEXT: %[[A0:.*]] = tilegpu.memdesc_index %[[A]][%[[I0]]] : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 3> -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[K0]]] %[[A0]], %[[E0]], %[[P0]]
  // CHECK-NEXT: %[[B0:.*]] = tilegpu.memdesc_index %[[B]][%[[I0]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[K0]], %[[J]]] %[[B0]], %[[E0]], %[[P0]]
  // Prologue iteration 1: induction value lb + 1 * step, buffer and
  // barrier 1.
  // CHECK: %[[IV1:.*]] = arith.addi %[[LB]], %{{.*}} : i32
  // CHECK-NEXT: %[[K1:.*]] = arith.muli %[[IV1]], %{{.*}} : i32
  // CHECK-NEXT: %[[P1:.*]] = arith.cmpi slt, %[[IV1]], %[[N]] : i32
  // CHECK-NEXT: %[[I1:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[E1:.*]] = tilegpu.memdesc_index %[[BARS]][%[[I1]]]
  // CHECK-NEXT: tilegpu.barrier_expect %[[E1]], 32768, %[[P1]] : [[BAR]]
  // CHECK-NEXT: %[[A1:.*]] = tilegpu.memdesc_index %[[A]][%[[I1]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[K1]]] %[[A1]], %[[E1]], %[[P1]]
  // CHECK-NEXT: %[[B1:.*]] = tilegpu.memdesc_index %[[B]][%[[I1]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[K1]], %[[J]]] %[[B1]], %[[E1]], %[[P1]]
  // The loop carries the accumulator, read index 0, write index 2 and
  // phase 0.  Iteration k waits for its barrier's phase, then multiplies
  // the TMA buffers in place; one product stays in flight.
  // CHECK-NEXT: %[[RD0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[WR0:.*]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[PH0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[R:.*]]:4 = scf.for %[[K:[^ ]*]] = %[[LB]] to %[[N]] step %[[STEP:[^ ]*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[RD:.*]] = %[[RD0]], %[[WR:.*]] = %[[WR0]], %[[PH:.*]] = %[[PH0]])
  // CHECK-NEXT: %[[FULL:.*]] = tilegpu.memdesc_index %[[BARS]][%[[RD]]]
  // CHECK-NEXT: tilegpu.wait_barrier %[[FULL]], %[[PH]] : [[BAR]]
  // CHECK-NEXT: %[[VA:.*]] = tilegpu.memdesc_index %[[A]][%[[RD]]]
  // CHECK-NEXT: %[[VB:.*]] = tilegpu.memdesc_index %[[B]][%[[RD]]]
  // CHECK-NEXT: %[[D:.*]] = tilegpu.warp_group_dot %[[VA]], %[[VB]], %[[ACC]] : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> * !tilegpu.memdesc<64x128xf16, [[NV128]], mutable>
  // CHECK-NEXT: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
  // After the CTA barrier (every warpgroup's product k-1 is done), the
  // copies of iteration k + 2 refill the buffers product k-1 read, on
  // barrier (k + 2) % 3, predicated on k + 2 < n.
  // CHECK-NEXT: tile.barrier
  // CHECK: %[[K2:.*]] = arith.addi %[[K]], %{{.*}} : i32
  // CHECK-NEXT: %[[KK2:.*]] = arith.muli %[[K2]], %{{.*}} : i32
  // CHECK-NEXT: %[[P2:.*]] = arith.cmpi slt, %[[K2]], %[[N]] : i32
  // CHECK-NEXT: %[[E2:.*]] = tilegpu.memdesc_index %[[BARS]][%[[WR]]]
  // CHECK-NEXT: tilegpu.barrier_expect %[[E2]], 32768, %[[P2]] : [[BAR]]
  // CHECK-NEXT: %[[WA:.*]] = tilegpu.memdesc_index %[[A]][%[[WR]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[KK2]]] %[[WA]], %[[E2]], %[[P2]]
  // CHECK-NEXT: %[[WB:.*]] = tilegpu.memdesc_index %[[B]][%[[WR]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[KK2]], %[[J]]] %[[WB]], %[[E2]], %[[P2]]
  // Both indices advance modulo 3; the phase flips when the read index
  // wraps to 0.
  // CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[RD1:.*]] = arith.addi %[[RD]], %[[ONE]] : i32
  // CHECK-NEXT: %[[THREE:.*]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[RWRAP:.*]] = arith.cmpi eq, %[[RD1]], %[[THREE]] : i32
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[NRD:.*]] = arith.select %[[RWRAP]], %[[Z]], %[[RD1]] : i32
  // CHECK: %[[WR1:.*]] = arith.addi %[[WR]], %{{.*}} : i32
  // CHECK: %[[NWR:.*]] = arith.select %{{.*}}, %{{.*}}, %[[WR1]] : i32
  // CHECK-NEXT: %[[Z2:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[WRAPPED:.*]] = arith.cmpi eq, %[[NRD]], %[[Z2]] : i32
  // CHECK-NEXT: %[[ONE2:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[FLIP:.*]] = arith.xori %[[PH]], %[[ONE2]] : i32
  // CHECK-NEXT: %[[NPH:.*]] = arith.select %[[WRAPPED]], %[[FLIP]], %[[PH]] : i32
  // CHECK-NEXT: scf.yield %[[W]], %[[NRD]], %[[NWR]], %[[NPH]] :
  // CHECK-NEXT: }
  // After the loop: the last product, a CTA barrier (no thread still
  // reads a buffer or polls a barrier: the copies past the end were
  // predicated off), the rings freed, every barrier invalidated, the
  // barriers freed.  No cp.async wait: there are no cp.async copies.
  // CHECK-NEXT: %[[FINAL:.*]] = tilegpu.warp_group_dot_wait %[[R]]#0 {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[A]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[B]]
  // CHECK-NEXT: %[[X0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[V0:.*]] = tilegpu.memdesc_index %[[BARS]][%[[X0]]]
  // CHECK-NEXT: tilegpu.inval_barrier %[[V0]] : [[BAR]]
  // CHECK-NEXT: %[[X1:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[V1:.*]] = tilegpu.memdesc_index %[[BARS]][%[[X1]]]
  // CHECK-NEXT: tilegpu.inval_barrier %[[V1]] : [[BAR]]
  // CHECK-NEXT: %[[X2:.*]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[V2:.*]] = tilegpu.memdesc_index %[[BARS]][%[[X2]]]
  // CHECK-NEXT: tilegpu.inval_barrier %[[V2]] : [[BAR]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[BARS]]
  // CHECK-NEXT: tile.return %[[FINAL]]
  //
  // Four stages: four buffers and barriers, three prologue iterations
  // (buffers 0, 1, 2), the loop reads 0 and writes 3 first, refills with
  // the copies of k + 3 and wraps at 4; four invals after the loop.
  // OPT4-LABEL: tile.func public @tma_direct(
  // OPT4: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 4>
  // OPT4-NEXT: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, [[NV128]], mutable, buffers = 4>
  // OPT4-NEXT: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 4>
  // OPT4-COUNT-4: tilegpu.init_barrier
  // OPT4-NEXT: tilegpu.fence_async_shared
  // OPT4-NEXT: tile.barrier
  // OPT4: arith.cmpi slt
  // OPT4-NEXT: %[[I0:.*]] = arith.constant 0 : i32
  // OPT4-NEXT: %[[E0:.*]] = tilegpu.memdesc_index %[[BARS]][%[[I0]]]
  // OPT4-NEXT: tilegpu.barrier_expect %[[E0]], 32768,
  // OPT4: arith.cmpi slt
  // OPT4-NEXT: %[[I1:.*]] = arith.constant 1 : i32
  // OPT4-NEXT: %[[E1:.*]] = tilegpu.memdesc_index %[[BARS]][%[[I1]]]
  // OPT4-NEXT: tilegpu.barrier_expect %[[E1]], 32768,
  // OPT4: arith.cmpi slt
  // OPT4-NEXT: %[[I2:.*]] = arith.constant 2 : i32
  // OPT4-NEXT: %[[E2:.*]] = tilegpu.memdesc_index %[[BARS]][%[[I2]]]
  // OPT4-NEXT: tilegpu.barrier_expect %[[E2]], 32768,
  // OPT4-NEXT: %[[A2:.*]] = tilegpu.memdesc_index %[[A]][%[[I2]]]
  // OPT4-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[A2]], %[[E2]],
  // OPT4-NEXT: %[[B2:.*]] = tilegpu.memdesc_index %[[B]][%[[I2]]]
  // OPT4-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[B2]], %[[E2]],
  // OPT4-NEXT: %[[RD0:.*]] = arith.constant 0 : i32
  // OPT4-NEXT: %[[WR0:.*]] = arith.constant 3 : i32
  // OPT4-NEXT: %[[PH0:.*]] = arith.constant 0 : i32
  // OPT4-NEXT: scf.for %[[K:[^ ]*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[RD:.*]] = %[[RD0]], %[[WR:.*]] = %[[WR0]], %[[PH:.*]] = %[[PH0]])
  // OPT4-NEXT: %[[FULL:.*]] = tilegpu.memdesc_index %[[BARS]][%[[RD]]]
  // OPT4-NEXT: tilegpu.wait_barrier %[[FULL]], %[[PH]]
  // OPT4: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
  // OPT4-NEXT: tile.barrier
  // OPT4-NEXT: %[[THREE:.*]] = arith.constant 3 : i32
  // OPT4-NEXT: %[[D:.*]] = arith.muli %[[THREE]], %{{.*}} : i32
  // OPT4-NEXT: %[[K3:.*]] = arith.addi %[[K]], %[[D]] : i32
  // OPT4: arith.cmpi slt, %[[K3]], %{{.*}} : i32
  // OPT4-NEXT: %[[EW:.*]] = tilegpu.memdesc_index %[[BARS]][%[[WR]]]
  // OPT4-NEXT: tilegpu.barrier_expect %[[EW]], 32768,
  // OPT4: %[[FOUR:.*]] = arith.constant 4 : i32
  // OPT4-NEXT: arith.cmpi eq, %{{.*}}, %[[FOUR]] : i32
  // OPT4: arith.xori %[[PH]],
  // OPT4: scf.yield
  // OPT4-COUNT-4: tilegpu.inval_barrier
  // OPT4-NEXT: tilegpu.local_dealloc %[[BARS]]
  // OPT4-NOT: tilegpu.inval_barrier
  // OPT4: tile.return
  tile.func public @tma_direct(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<64x128xf16>>, %i: i32, %j: i32, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%kk, %j] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // B loaded as [N, K] blocks and transposed (tile.trans) into the [K, N]
  // operand: B's ring is in the layout of the [N, K] block, and the
  // product reads its buffer through memdesc_trans; tile.trans goes away.
  // CHECK-LABEL: tile.func public @tma_transposed(
  // CHECK-SAME: %[[DA:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[DB:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[N:[^:]*]]: i32)
  // CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>
  // CHECK: tilegpu.barrier_expect %{{.*}}, 32768,
  // CHECK-NEXT: %[[A0:.*]] = tilegpu.memdesc_index %[[A]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[K0:.*]]] %[[A0]],
  // CHECK-NEXT: %[[B0:.*]] = tilegpu.memdesc_index %[[B]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[J]], %[[K0]]] %[[B0]], {{.*}} -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[RD:.*]] = %{{.*}}, %[[WR:.*]] = %{{.*}}, %[[PH:.*]] = %{{.*}})
  // CHECK-NEXT: %[[FULL:.*]] = tilegpu.memdesc_index %[[BARS]][%[[RD]]]
  // CHECK-NEXT: tilegpu.wait_barrier %[[FULL]], %[[PH]]
  // CHECK-NEXT: %[[VA:.*]] = tilegpu.memdesc_index %[[A]][%[[RD]]]
  // CHECK-NEXT: %[[VB:.*]] = tilegpu.memdesc_index %[[B]][%[[RD]]] : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 3> -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: %[[VBT:.*]] = tilegpu.memdesc_trans %[[VB]] : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> -> !tilegpu.memdesc<64x128xf16, [[NV128T]], mutable>
  // CHECK-NEXT: %[[D:.*]] = tilegpu.warp_group_dot %[[VA]], %[[VBT]], %[[ACC]] : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> * !tilegpu.memdesc<64x128xf16, [[NV128T]], mutable>
  // CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK: tilegpu.barrier_expect %{{.*}}, 32768,
  // CHECK-NEXT: %[[WA:.*]] = tilegpu.memdesc_index %[[A]][%[[WR]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[KK:.*]]] %[[WA]],
  // CHECK-NEXT: %[[WB:.*]] = tilegpu.memdesc_index %[[B]][%[[WR]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[J]], %[[KK]]] %[[WB]],
  // CHECK-NOT: tile.trans
  // CHECK-NOT: tile.descriptor_load
  // CHECK: scf.yield
  // OPT4-LABEL: tile.func public @tma_transposed(
  // OPT4: tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 4>
  // OPT4: tilegpu.memdesc_trans
  tile.func public @tma_transposed(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %j: i32, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%j, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bt = tile.trans %bb {order = array<i32: 1, 0>} : tensor<128x64xf16, #b> -> tensor<64x128xf16, #bt>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bt : (tensor<64x128xf16, #bt>) -> !tilegpu.memdesc<64x128xf16, #nvt>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nvt> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // The K offset is carried by the loop (an i32 iter_arg advanced by 64):
  // the new loop carries it two iterations ahead (0 and 64 go to the
  // prologue, 128 is the initial value) and advances it after the refill.
  // CHECK-LABEL: tile.func public @tma_carried_offset(
  // CHECK-SAME: %[[DA:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[DB:[^:]*]]: !tile.tensordesc<tensor<64x128xf16>>, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[N:[^:]*]]: i32)
  // CHECK: %[[OFF1:.*]] = arith.addi %[[OFF0:[a-z0-9_]+]], %[[C64:.*]] : i32
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[OFF0]]]
  // CHECK-NEXT: tilegpu.memdesc_index
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[OFF0]], %[[J]]]
  // CHECK: %[[OFF2:.*]] = arith.addi %[[OFF1]], %[[C64]] : i32
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[OFF1]]]
  // CHECK-NEXT: tilegpu.memdesc_index
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[OFF1]], %[[J]]]
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[AHEAD:.*]] = %[[OFF2]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<128x128xf32, {{.*}}>, i32, i32, i32, i32)
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DA]][%[[I]], %[[AHEAD]]]
  // CHECK-NEXT: tilegpu.memdesc_index
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[DB]][%[[AHEAD]], %[[J]]]
  // CHECK: %[[NEXT:.*]] = arith.addi %[[AHEAD]], %[[C64]] : i32
  // CHECK-NEXT: scf.yield %{{.*}}, %[[NEXT]], %{{.*}}, %{{.*}}, %{{.*}} :
  tile.func public @tma_carried_offset(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<64x128xf16>>, %i: i32, %j: i32, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc, %off = %c0) -> (tensor<128x128xf32, #w>, i32) : i32 {
      %a = tile.descriptor_load %da[%i, %off] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%off, %j] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      %next = arith.addi %off, %c64 : i32
      scf.yield %w, %next : tensor<128x128xf32, #w>, i32
    }
    tile.return %r#0 : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Two stages asked for by the loop (over the module's option): rings
  // and barriers of 2, one prologue iteration, write index 1, wrap at 2.
  // CHECK-LABEL: tile.func public @tma_two_stages(
  // CHECK: tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 2>
  // CHECK: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 2>
  // CHECK-COUNT-2: tilegpu.init_barrier
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK: tilegpu.barrier_expect
  // CHECK-COUNT-2: tilegpu.async_tma_copy_global_to_local
  // CHECK-NOT: tilegpu.barrier_expect
  // CHECK: %[[WR0:.*]] = arith.constant 1 : i32
  // CHECK-NEXT: %[[PH0:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[RD:.*]] = %{{.*}}, %[[WR:.*]] = %[[WR0]], %[[PH:.*]] = %[[PH0]])
  // CHECK-NEXT: tilegpu.memdesc_index %[[BARS]][%[[RD]]]
  // CHECK-NEXT: tilegpu.wait_barrier %{{.*}}, %[[PH]]
  // CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
  // CHECK: %[[TWO:.*]] = arith.constant 2 : i32
  // CHECK-NEXT: arith.cmpi eq, %{{.*}}, %[[TWO]] : i32
  // CHECK: arith.xori %[[PH]]
  // CHECK-NOT: tile.num_stages
  // CHECK: scf.yield
  // CHECK-COUNT-2: tilegpu.inval_barrier
  // CHECK-NOT: tilegpu.inval_barrier
  // CHECK: tile.return
  // OPT4-LABEL: tile.func public @tma_two_stages(
  // OPT4: buffers = 2
  // OPT4-NOT: buffers = 4
  // OPT4: tile.return
  tile.func public @tma_two_stages(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<64x128xf16>>, %i: i32, %j: i32, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%kk, %j] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    } {tile.num_stages = 2 : i32}
    tile.return %r : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #b>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A from a pointer tensor (cp.async), B from a descriptor (TMA): both
  // protocols in one loop.  An iteration's copies are the TMA's (barrier
  // armed with B's bytes only, 16384) and the cp.async ones as one commit
  // group; the loop waits for its cp.async group (async_wait 1, CTA
  // barrier) and its full barrier; after the loop, async_wait 0 as well as
  // the invals.
  // CHECK-LABEL: tile.func public @tma_and_cp_async(
  // CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>
  // CHECK-COUNT-3: tilegpu.init_barrier
  // CHECK: tilegpu.barrier_expect %{{.*}}, 16384, %[[P0:.*]] : [[BAR]]
  // CHECK-NEXT: %[[B0:.*]] = tilegpu.memdesc_index %[[B]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[B0]], %{{.*}}, %[[P0]]
  // CHECK-NEXT: %[[M0:.*]] = tile.splat %[[P0]] : i1 -> tensor<128x64xi1,
  // CHECK-NEXT: %[[A0:.*]] = tilegpu.memdesc_index %[[A]]
  // CHECK-NEXT: %[[T0:.*]] = tilegpu.async_copy_global_to_local %{{.*}}, %[[A0]] mask %[[M0]]
  // CHECK-NEXT: tilegpu.async_commit_group tokens %[[T0]]
  // CHECK: tilegpu.barrier_expect %{{.*}}, 16384,
  // CHECK: tilegpu.async_commit_group tokens
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[RD:.*]] = %{{.*}}, %[[WR:.*]] = %{{.*}}, %[[PH:.*]] = %{{.*}})
  // CHECK-NEXT: tilegpu.async_wait {num = 1 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: %[[FULL:.*]] = tilegpu.memdesc_index %[[BARS]][%[[RD]]]
  // CHECK-NEXT: tilegpu.wait_barrier %[[FULL]], %[[PH]]
  // CHECK-NEXT: %[[VA:.*]] = tilegpu.memdesc_index %[[A]][%[[RD]]]
  // CHECK-NEXT: %[[VB:.*]] = tilegpu.memdesc_index %[[B]][%[[RD]]]
  // CHECK-NEXT: tilegpu.warp_group_dot %[[VA]], %[[VB]],
  // CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK: %[[EW:.*]] = tilegpu.memdesc_index %[[BARS]][%[[WR]]]
  // CHECK-NEXT: tilegpu.barrier_expect %[[EW]], 16384,
  // CHECK-NEXT: %[[WB:.*]] = tilegpu.memdesc_index %[[B]][%[[WR]]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[WB]], %[[EW]],
  // CHECK: %[[WA:.*]] = tilegpu.memdesc_index %[[A]][%[[WR]]]
  // CHECK-NEXT: tilegpu.async_copy_global_to_local %{{.*}}, %[[WA]] mask
  // CHECK-NEXT: tilegpu.async_commit_group tokens
  // CHECK: scf.yield
  // CHECK-NEXT: }
  // CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.async_wait {num = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[A]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[B]]
  // CHECK-COUNT-3: tilegpu.inval_barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BARS]]
  // OPT4-LABEL: tile.func public @tma_and_cp_async(
  // OPT4: scf.for
  // OPT4-NEXT: tilegpu.async_wait {num = 2 : i32}
  tile.func public @tma_and_cp_async(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %db: !tile.tensordesc<tensor<64x128xf16>>, %j: i32, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
    %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #b>
    %offA = tile.broadcast %ra2 : tensor<1x64xi32, #b> -> tensor<128x64xi32, #b>
    %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #b>
    %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #b>, tensor<128x64xi32, #b>
    %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #b>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc, %ap = %pa0) -> (tensor<128x128xf32, #w>, tensor<128x64x!tile.ptr<f16>, #b>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.load %ap : tensor<128x64x!tile.ptr<f16>, #b>
      %bb = tile.descriptor_load %db[%kk, %j] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      %an = tile.addptr %ap, %stepA : tensor<128x64x!tile.ptr<f16>, #b>, tensor<128x64xi32, #b>
      scf.yield %w, %an : tensor<128x128xf32, #w>, tensor<128x64x!tile.ptr<f16>, #b>
    }
    tile.return %r#0 : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A's tile is also used in registers (stored to global memory): its load
  // is not pipelined and stays a descriptor_load in the loop; B's is.  The
  // barrier is armed with B's bytes only.  With a product reading a
  // buffer that is not a ring, the product waits stay at pendings = 0.
  // CHECK-LABEL: tile.func public @tma_registers_not_pipelined(
  // CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, [[NV128]], mutable, buffers = 3>
  // CHECK-NEXT: %[[BARS:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>
  // CHECK-NOT: tilegpu.local_alloc
  // CHECK: tilegpu.barrier_expect %{{.*}}, 16384,
  // CHECK: scf.for
  // CHECK: tilegpu.wait_barrier
  // CHECK: %[[X:.*]] = tile.descriptor_load %{{.*}} : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16,
  // CHECK-NEXT: %[[SA:.*]] = tilegpu.local_alloc %[[X]]
  // CHECK: tilegpu.warp_group_dot %[[SA]],
  // CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK: tile.store %{{.*}}, %[[X]]
  // CHECK: scf.yield
  tile.func public @tma_registers_not_pipelined(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<64x128xf16>>, %i: i32, %j: i32, %n: i32,
                                                 %p: tensor<128x64x!tile.ptr<f16>, #b>) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%kk, %j] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      tile.store %p, %a : tensor<128x64x!tile.ptr<f16>, #b>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // No load qualifies (the only descriptor load's tile is used in
  // registers; B is a loop invariant): the loop is left as it is, with no
  // ring, no barrier and its descriptor_load.
  // CHECK-LABEL: tile.func public @tma_nothing_to_pipeline(
  // CHECK-NOT: tilegpu.init_barrier
  // CHECK: scf.for
  // CHECK-NEXT: arith.muli
  // CHECK-NEXT: tile.descriptor_load
  // CHECK-NEXT: tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.warp_group_dot
  // CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK-NEXT: tile.store
  // CHECK-NEXT: scf.yield
  // CHECK-NOT: tilegpu.inval_barrier
  // CHECK: tile.return
  tile.func public @tma_nothing_to_pipeline(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %i: i32, %n: i32,
                                             %p: tensor<128x64x!tile.ptr<f16>, #b>) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      tile.store %p, %a : tensor<128x64x!tile.ptr<f16>, #b>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A load whose coordinates depend on a load from memory in the loop
  // cannot be issued iterations ahead: nothing is pipelined.
  // CHECK-LABEL: tile.func public @tma_index_from_memory(
  // CHECK-NOT: tilegpu.init_barrier
  // CHECK: scf.for
  // CHECK: tile.descriptor_load
  // CHECK: tile.descriptor_load
  // CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK-NOT: tilegpu.async_tma_copy_global_to_local
  // CHECK: tile.return
  tile.func public @tma_index_from_memory(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<64x128xf16>>, %idx: !tile.ptr<i32>, %i: i32, %j: i32, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %pk = tile.addptr %idx, %k : !tile.ptr<i32>, i32
      %kk = tile.load %pk : !tile.ptr<i32>
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%kk, %j] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}
