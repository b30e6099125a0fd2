// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s
// The JIT's lowering runs convert-nvvm-to-llvm after: the typed NVVM ops
// become PTX (the wait a loop around try_wait.parity).
// RUN: warpforge-opt %s --split-input-file --tilegpu-to-llvm | FileCheck %s --check-prefix=PTX

// mbarriers (lib/Conversion/TileGPUToLLVM/BarrierOpToLLVM.cpp): a barrier
// is the !llvm.ptr<3> of its 8 bytes; init, expect and inval are done by
// thread 0 alone (threadIdx.x == 0, and the op's own predicate for the
// expect), arrive and wait by every thread that executes them.

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @init_barrier(
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
  // CHECK-NEXT: %[[COUNT:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: nvvm.mbarrier.init %[[BAR]], %[[COUNT]], predicate = %[[T0]] : !llvm.ptr<3>, i32, i1
  // CHECK-NEXT: llvm.return
  // PTX-LABEL: llvm.func @init_barrier(
  // PTX: "@$2 mbarrier.init.shared.b64 [$0], $1;"
  tile.func public @init_barrier() {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.init_barrier %bar, 3 : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // The expect is thread 0's arrival with the transaction bytes, when the
  // op's predicate holds too.
  // CHECK-LABEL: llvm.func @barrier_expect(
  // CHECK-SAME: %[[PRED:[^:]*]]: i1)
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
  // CHECK-NEXT: %[[P:.*]] = llvm.and %[[T0]], %[[PRED]] : i1
  // CHECK-NEXT: %[[BYTES:.*]] = llvm.mlir.constant(49152 : i32) : i32
  // CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx %[[BAR]], %[[BYTES]], predicate = %[[P]] : !llvm.ptr<3>, i32, i1
  // CHECK-NEXT: llvm.return
  // PTX-LABEL: llvm.func @barrier_expect(
  // PTX: "@$2 mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;"
  tile.func public @barrier_expect(%pred: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.barrier_expect %bar, 49152, %pred : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Every thread arrives `count` times, unpredicated (in PTX, since the typed op
  // takes no count).
  // CHECK-LABEL: llvm.func @arrive_barrier(
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NOT: nvvm.read.ptx.sreg.tid.x
  // CHECK-NEXT: llvm.inline_asm has_side_effects "mbarrier.arrive.release.cta.shared::cta.b64 _, [ $0 + 0 ], 2;", "r" %[[BAR]] : (!llvm.ptr<3>) -> ()
  // CHECK-NEXT: llvm.return
  tile.func public @arrive_barrier() {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.arrive_barrier %bar, 2 : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Every thread arrives once its own cp.async copies have landed, without
  // raising the expected count (noinc): the barrier was initialized with
  // one arrival per copying thread.
  // CHECK-LABEL: llvm.func @async_copy_mbarrier_arrive(
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NOT: nvvm.read.ptx.sreg.tid.x
  // CHECK-NEXT: nvvm.cp.async.mbarrier.arrive %[[BAR]] {noinc = true} : !llvm.ptr<3>
  // CHECK-NEXT: llvm.return
  // PTX-LABEL: llvm.func @async_copy_mbarrier_arrive(
  // PTX: nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
  tile.func public @async_copy_mbarrier_arrive() {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.async_copy_mbarrier_arrive %bar : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Every thread waits for the phase of the given parity, with CUTLASS's
  // suspend-time hint (10000000 ns) per try; the PTX spins on try_wait.
  // CHECK-LABEL: llvm.func @wait_barrier(
  // CHECK-SAME: %[[PHASE:[^:]*]]: i32)
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NOT: nvvm.read.ptx.sreg.tid.x
  // CHECK-NEXT: %[[HINT:.*]] = llvm.mlir.constant(10000000 : i32) : i32
  // CHECK-NEXT: nvvm.mbarrier.try_wait.parity %[[BAR]], %[[PHASE]], %[[HINT]] : !llvm.ptr<3>, i32, i32
  // CHECK-NEXT: llvm.return
  // PTX-LABEL: llvm.func @wait_barrier(
  // PTX: LAB_WAIT: \0A\09mbarrier.try_wait.parity.shared.b64 P1, [$0], $1, $2; \0A\09@P1 bra.uni DONE; \0A\09bra.uni     LAB_WAIT; \0A\09DONE:
  tile.func public @wait_barrier(%phase: i32) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Thread 0 invalidates (in PTX, since the typed op takes no predicate).
  // CHECK-LABEL: llvm.func @inval_barrier(
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 mbarrier.inval.shared::cta.b64 [ $0 + 0 ];", "r,b" %[[BAR]], %[[T0]] : (!llvm.ptr<3>, i1) -> ()
  // CHECK-NEXT: llvm.return
  tile.func public @inval_barrier() {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // One barrier of a ring: the address of buffer i is the ring's plus
  // i * 8 bytes.
  // CHECK-LABEL: llvm.func @barrier_ring(
  // CHECK-SAME: %[[I:[^:]*]]: i32, %[[PHASE:[^:]*]]: i32)
  // CHECK: %[[RING:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32) : i32
  // CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[I]], %[[EIGHT]] : i32
  // CHECK-NEXT: %[[BAR:.*]] = llvm.getelementptr %[[RING]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.mbarrier.try_wait.parity %[[BAR]], %[[PHASE]], %{{.*}} : !llvm.ptr<3>, i32, i32
  tile.func public @barrier_ring(%i: i32, %phase: i32) {
    %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3>
    %bar = tilegpu.memdesc_index %ring[%i] : !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3> -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.num-ctas" = 2 : i32, tilegpu.target = "cuda:90"} {
  // An arrival on the barrier at the same offset in CTA %cta of the
  // cluster: mapa to its address, then the arrival there.
  // CHECK-LABEL: llvm.func @arrive_barrier_remote(
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: llvm.inline_asm has_side_effects "{\0A\09.reg .b32 remote;\0A\09mapa.shared::cluster.u32 remote, $0, $1;\0A\09mbarrier.arrive.shared::cluster.b64 _, [remote];\0A\09}", "r,r" %[[BAR]], %arg0 : (!llvm.ptr<3>, i32) -> ()
  tile.func public @arrive_barrier_remote(%cta: i32) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.arrive_barrier %bar, 1 cta %cta : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.num-ctas" = 2 : i32, tilegpu.target = "cuda:90"} {
  // per_warp: lane 0 arrives for its warp once all its lanes are there.
  // CHECK-LABEL: llvm.func @arrive_barrier_per_warp(
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[LANE:.*]] = llvm.urem %[[TID]], %{{.*}} : i32
  // CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.warp.sync -1;\0A\09{\0A\09.reg .b32 remote;\0A\09mapa.shared::cluster.u32 remote, $0, $2;\0A\09@$1 mbarrier.arrive.shared::cluster.b64 _, [remote];\0A\09}", "r,b,r" %{{.*}}, %[[FIRST]], %arg0
  tile.func public @arrive_barrier_per_warp(%cta: i32) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.arrive_barrier %bar, 1 cta %cta {per_warp} : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.num-ctas" = 2 : i32, tilegpu.target = "cuda:90"} {
  // Every thread: the barrier initializations made visible to the
  // cluster, then the cluster-wide arrive and wait.
  // CHECK-LABEL: llvm.func @cluster_barrier(
  // CHECK: nvvm.fence.mbarrier.init
  // CHECK-NEXT: nvvm.cluster.arrive {aligned}
  // CHECK-NEXT: nvvm.cluster.wait {aligned}
  // CHECK-NEXT: llvm.return
  // PTX-LABEL: llvm.func @cluster_barrier(
  // PTX: nvvm.cluster.arrive {aligned}
  tile.func public @cluster_barrier() {
    tilegpu.cluster_barrier
    tile.return
  }
}
