// RUN: warpforge-opt %s | FileCheck %s
// RUN: warpforge-opt %s | warpforge-opt | FileCheck %s

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 8 : i32} {
  // A producer partition and the default (consumer) warps, with the
  // channel between them: every op prints and parses back.  Every region
  // takes the captures as its arguments.
  // CHECK-LABEL: tile.func public @producer_consumer
  // CHECK: %[[CH:.*]] = tilegpu.create_channel %{{.*}}, %{{.*}} : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  // CHECK: tilegpu.warp_specialize(%[[CH]], %arg0, %arg1, %arg2) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40>}
  // CHECK-NEXT: default(%[[DCH:.*]]: !tilegpu.channel<3>, %{{.*}}: !tile.tensordesc<tensor<128x64xf16>>, %{{.*}}: !tile.tensordesc<tensor<256x64xf16>>, %{{.*}}: i32) {
  // CHECK: %[[BUFS:.*]]:2 = tilegpu.channel_wait %[[DCH]], %{{.*}} : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable>
  // CHECK: tilegpu.channel_release %[[DCH]], %{{.*}} : !tilegpu.channel<3>
  // CHECK: tilegpu.warp_yield
  // CHECK-NEXT: }
  // CHECK-NEXT: partition0(%[[PCH:.*]]: !tilegpu.channel<3>, %[[DA:.*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[DB:.*]]: !tile.tensordesc<tensor<256x64xf16>>, %[[N:.*]]: i32) num_warps(4) {
  // CHECK: tilegpu.channel_acquire %[[PCH]], %{{.*}} : !tilegpu.channel<3>
  // CHECK: tilegpu.channel_tma_load %[[PCH]][%{{.*}}] %[[DA]][%{{.*}}, %{{.*}}] -> 0 : !tilegpu.channel<3>, !tile.tensordesc<tensor<128x64xf16>>
  // CHECK: tilegpu.channel_tma_load %[[PCH]][%{{.*}}] %[[DB]][%{{.*}}, %{{.*}}] -> 1 : !tilegpu.channel<3>, !tile.tensordesc<tensor<256x64xf16>>
  // CHECK: tilegpu.channel_commit %[[PCH]], %{{.*}} : !tilegpu.channel<3>
  // CHECK: tilegpu.warp_return
  tile.func public @producer_consumer(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<256x64xf16>>, %n: i32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>
    %ch = tilegpu.create_channel %a, %b : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
    tilegpu.warp_specialize(%ch, %da, %db, %n) attributes {requestedRegisters = array<i32: 40>, defaultRegisters = 232 : i32}
    default(%dch: !tilegpu.channel<3>, %dda: !tile.tensordesc<tensor<128x64xf16>>, %ddb: !tile.tensordesc<tensor<256x64xf16>>, %dn: i32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      scf.for %k = %c0 to %dn step %c1 : i32 {
        %bufs:2 = tilegpu.channel_wait %dch, %k : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable>
        tilegpu.channel_release %dch, %k : !tilegpu.channel<3>
      }
      tilegpu.warp_yield
    }
    partition0(%pch: !tilegpu.channel<3>, %pa: !tile.tensordesc<tensor<128x64xf16>>, %pb: !tile.tensordesc<tensor<256x64xf16>>, %pn: i32) num_warps(4) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      scf.for %k = %c0 to %pn step %c1 : i32 {
        %off = arith.muli %k, %c64 : i32
        tilegpu.channel_acquire %pch, %k : !tilegpu.channel<3>
        tilegpu.channel_tma_load %pch[%k] %pa[%c0, %off] -> 0 : !tilegpu.channel<3>, !tile.tensordesc<tensor<128x64xf16>>
        tilegpu.channel_tma_load %pch[%k] %pb[%c0, %off] -> 1 : !tilegpu.channel<3>, !tile.tensordesc<tensor<256x64xf16>>
        tilegpu.channel_commit %pch, %k : !tilegpu.channel<3>
      }
      tilegpu.warp_return
    }
    tile.return
  }

  // Two partitions of different sizes, no captures, no register requests.
  // CHECK-LABEL: tile.func public @two_partitions
  // CHECK: tilegpu.warp_specialize()
  // CHECK-NEXT: default() {
  // CHECK: partition0() num_warps(4) {
  // CHECK: partition1() num_warps(1) {
  tile.func public @two_partitions() {
    tilegpu.warp_specialize()
    default() {
      tilegpu.warp_yield
    }
    partition0() num_warps(4) {
      tilegpu.warp_return
    }
    partition1() num_warps(1) {
      tilegpu.warp_return
    }
    tile.return
  }

  // Ping-pong consumer groups take turns on named barriers above the
  // regions' own (the default region's 1, the partitions' 2 and 3).
  // CHECK-LABEL: tile.func public @named_barriers
  // CHECK: default() {
  // CHECK-NEXT: tilegpu.named_barrier_wait 4, 256
  // CHECK-NEXT: tilegpu.named_barrier_arrive 5, 256
  // CHECK: partition1() num_warps(4) {
  // CHECK-NEXT: tilegpu.named_barrier_arrive 4, 256
  // CHECK-NEXT: tilegpu.named_barrier_wait 5, 256
  tile.func public @named_barriers() {
    tilegpu.warp_specialize()
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
      tilegpu.warp_return
    }
    tile.return
  }

  // A cooperative consumer group of two warpgroups taking turns at its
  // products: the first turn given before the loop, the last taken back
  // after it.
  // CHECK-LABEL: tile.func public @warp_group_turns
  // CHECK: default() {
  // CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2 only 1
  // CHECK-NEXT: tilegpu.warp_group_turn_wait 3, 2{{$}}
  // CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2{{$}}
  // CHECK-NEXT: tilegpu.warp_group_turn_wait 3, 2 only 0
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

  // A cp.async producer: pointers, with and without mask and fill, into a
  // channel's rings; and the arrival that the copies complete.
  // CHECK-LABEL: tile.func public @async_copy_producer
  // CHECK: tilegpu.channel_async_copy %[[PCH:.*]][%[[K:.*]]] %{{.*}} -> 0 : !tilegpu.channel<2>, tensor<64x64x!tile.ptr<f16>, #blocked>
  // CHECK-NEXT: tilegpu.channel_async_copy %[[PCH]][%[[K]]] %{{.*}} mask %{{.*}} : tensor<64x64xi1, #blocked> other %{{.*}} : tensor<64x64xf16, #blocked> -> 1 : !tilegpu.channel<2>, tensor<64x64x!tile.ptr<f16>, #blocked>
  // CHECK: tilegpu.async_copy_mbarrier_arrive %{{.*}} : !tilegpu.memdesc<1xi64, #shared, mutable>
  tile.func public @async_copy_producer(%pa: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: tensor<64x64xi1, #blocked>, %k: i32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2>
    %ch = tilegpu.create_channel %a, %b : !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2>, !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2> -> !tilegpu.channel<2>
    %zero = arith.constant dense<0.0> : tensor<64x64xf16, #blocked>
    tilegpu.channel_async_copy %ch[%k] %pa -> 0 : !tilegpu.channel<2>, tensor<64x64x!tile.ptr<f16>, #blocked>
    tilegpu.channel_async_copy %ch[%k] %pa mask %m : tensor<64x64xi1, #blocked> other %zero : tensor<64x64xf16, #blocked> -> 1 : !tilegpu.channel<2>, tensor<64x64x!tile.ptr<f16>, #blocked>
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    tilegpu.async_copy_mbarrier_arrive %bar : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    tile.return
  }
}
