// RUN: warpforge-opt %s --split-input-file --tilegpu-to-llvm | FileCheck %s

// tilegpu.warp_specialize lowered to a dispatch on the warp index: the
// kernel launches its 8 warps and the partition's 4 (384 threads) and
// starts from the even register share (65536 / 384, down to a multiple of
// 8: 168); warps 0-7 run the default region after setmaxnreg.inc, warps
// 8-11 the partition after setmaxnreg.dec; each region's CTA barriers are
// its own named barrier (1 with 256 threads, 2 with 128); all meet at a
// CTA barrier after the op.  The launch reads tilegpu.partition-warps.

// CHECK: module attributes {{{.*}}"tilegpu.partition-warps" = 4 : i32
// CHECK-LABEL: llvm.func @ws(
// CHECK-SAME: nvvm.maxnreg = 168 : i32, nvvm.reqntid = array<i32: 384, 1, 1>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[WARP:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// CHECK-NEXT: %[[DEF:.*]] = llvm.icmp "ult" %[[WARP]], %[[EIGHT:.*]] : i32
// CHECK-NEXT: llvm.cond_br %[[DEF]], ^[[DEFAULT:bb[0-9]+]](%arg0 : !llvm.ptr<1>), ^[[TEST:bb[0-9]+]]
// CHECK: ^[[DEFAULT]](%[[P:.*]]: !llvm.ptr<1>):
// CHECK-NEXT: nvvm.setmaxregister increase 232
// CHECK: llvm.inline_asm has_side_effects "bar.sync 1, 256;"
// CHECK: st.global.b32
// CHECK: llvm.br ^[[JOIN:bb[0-9]+]]
// CHECK: ^[[PARTITION:bb[0-9]+]]:
// CHECK-NEXT: nvvm.setmaxregister decrease 40
// CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 2, 128;"
// CHECK-NEXT: llvm.br ^[[JOIN]]
// CHECK: ^[[TEST]]:
// CHECK-NEXT: %[[PART:.*]] = llvm.icmp "ult" %[[WARP]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[PART]], ^[[PARTITION]], ^[[NONE:bb[0-9]+]]
// CHECK: ^[[NONE]]:
// CHECK-NEXT: llvm.br ^[[JOIN]]
// CHECK: ^[[JOIN]]:
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.return

#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
module attributes {"tilegpu.num-warps" = 8 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @ws(%p: !tile.ptr<f32>, %n: i32) {
    tilegpu.warp_specialize(%p, %n) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40>}
    default(%dp: !tile.ptr<f32>, %dn: i32) {
      %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #blocked>
      %f = arith.sitofp %r : tensor<256xi32, #blocked> to tensor<256xf32, #blocked>
      %ptrs = tile.splat %dp : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #blocked>
      %addr = tile.addptr %ptrs, %r : tensor<256x!tile.ptr<f32>, #blocked>, tensor<256xi32, #blocked>
      tile.barrier
      tile.store %addr, %f : tensor<256x!tile.ptr<f32>, #blocked>
      tilegpu.warp_yield
    }
    partition0(%pp: !tile.ptr<f32>, %pn: i32) num_warps(4) {
      tile.barrier
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

#shared = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  // Inside a partition, thread ids count from its first thread: the
  // barrier's initializing thread is the partition's first (tid.x - 128),
  // not the CTA's.  No register requests: no setmaxnreg, no .maxnreg.
  // CHECK-LABEL: llvm.func @partition_thread_zero(
  // CHECK-SAME: nvvm.reqntid = array<i32: 160, 1, 1>
  // CHECK-NOT: nvvm.maxnreg
  // CHECK-NOT: setmaxregister
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: ^{{bb[0-9]+}}(%[[BAR:.*]]: !llvm.ptr<3>):
  // CHECK-NEXT: %[[REL:.*]] = llvm.sub %[[TID]], %{{.*}} : i32
  // CHECK-NEXT: %[[FIRST:.*]] = llvm.icmp "eq" %[[REL]], %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm {{.*}}mbarrier.init.shared.b64{{.*}} %[[BAR]], %{{.*}}, %[[FIRST]]
  tile.func public @partition_thread_zero() {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #shared, mutable>
    tilegpu.warp_specialize(%bar)
    default(%d: !tilegpu.memdesc<1xi64, #shared, mutable>) {
      tilegpu.warp_yield
    }
    partition0(%b: !tilegpu.memdesc<1xi64, #shared, mutable>) num_warps(1) {
      tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<1xi64, #shared, mutable>
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// Ping-pong: a second consumer group as partition 1 asks for more than
// the even share (65536 / 384 -> 168) and gets setmaxnreg.inc, the
// producer setmaxnreg.dec; the groups' turns are bar.sync and bar.arrive
// on named barriers 4 and 5 with both groups' 256 threads.
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @ping_pong(
  // CHECK-SAME: nvvm.maxnreg = 168 : i32, nvvm.reqntid = array<i32: 384, 1, 1>
  // CHECK: nvvm.setmaxregister increase 232
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 4, 256;"
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive 5, 256;"
  // CHECK: nvvm.setmaxregister decrease 40
  // CHECK: nvvm.setmaxregister increase 232
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive 4, 256;"
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 5, 256;"
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive 4, 256;"
  tile.func public @ping_pong() {
    tilegpu.warp_specialize() attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40, 232>}
    default() {
      tilegpu.named_barrier_wait 4, 256
      tilegpu.named_barrier_arrive 5, 256
      tilegpu.warp_yield
    }
    partition0() num_warps(4) {
      tilegpu.warp_return
    }
    partition1() num_warps(4) {
      tilegpu.named_barrier_arrive 4, 256
      tilegpu.named_barrier_wait 5, 256
      tilegpu.named_barrier_arrive 4, 256
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// Turns among the two warpgroups of one consumer group: the barrier is
// computed from the thread's warpgroup in its region (tid / 128); a wait
// is bar.sync on first + group, a pass bar.arrive on first + (group + 1)
// mod 2.  `only g` fixes the warpgroup, so its barrier is an immediate,
// and predicates the instruction on the warpgroup.
module attributes {"tilegpu.num-warps" = 8 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @warp_group_turns(
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[G:.*]] = llvm.udiv %[[TID]], %[[C128:.*]] : i32
  // CHECK-NEXT: %[[ONE:.*]] = llvm.icmp "eq" %[[G]], %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 bar.arrive 3, 256;", "b" %[[ONE]]
  // CHECK-NEXT: %[[ID2:.*]] = llvm.add %[[G]], %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync $0, 256;", "r" %[[ID2]]
  // CHECK-NEXT: %[[NEXT:.*]] = llvm.add %[[G]], %{{.*}} : i32
  // CHECK-NEXT: %[[MOD:.*]] = llvm.urem %[[NEXT]], %{{.*}} : i32
  // CHECK-NEXT: %[[ID3:.*]] = llvm.add %[[MOD]], %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.arrive $0, 256;", "r" %[[ID3]]
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.icmp "eq" %[[G]], %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "@$0 bar.sync 3, 256;", "b" %[[ZERO]]
  tile.func public @warp_group_turns() {
    tilegpu.warp_specialize()
    default() {
      tilegpu.warp_group_turn_pass 3, 2 only 1
      tilegpu.warp_group_turn_wait 3, 2
      tilegpu.warp_group_turn_pass 3, 2
      tilegpu.warp_group_turn_wait 3, 2 only 0
      tilegpu.warp_yield
    }
    partition0() num_warps(4) {
      tilegpu.warp_return
    }
    tile.return
  }
}
