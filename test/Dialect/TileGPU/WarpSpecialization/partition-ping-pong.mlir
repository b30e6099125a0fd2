// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize --canonicalize | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize --canonicalize | warpforge-opt --split-input-file | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize=remarks=true -verify-diagnostics -o /dev/null

// Ping-pong (tilegpu.ping-pong): the kernel's layouts are one consumer
// group's 4 warps; a second group runs a copy of the consumers as
// partition 1.  Group g takes tiles start + g * step by 2 * step, its
// channel count starts at g times the K loop's trip count and skips the
// other group's tile after each of its own; tile_id_c, which the tile loop
// advances by 132, starts one step on in group 1 and advances by 264.
// Turns at the tensor cores: group g waits on barrier 4 + g before its K
// loop and arrives on the other's after it (before the wait that retires
// its last products); group 1 primes barrier 4.

// CHECK-LABEL: tile.func public @mm(
// CHECK: tilegpu.warp_specialize({{.*}}) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40, 232>}
// CHECK-NEXT: default(
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[C264:.*]] = arith.constant 264 : i32
// CHECK-DAG: %[[PID:.*]] = tile.get_program_id x : i32
// CHECK-DAG: %[[KT:.*]] = arith.divsi %{{.*}}, %c64_i32
// CHECK: %[[TRIPS:.*]] = arith.maxsi %[[KT]], %[[C0]] : i32
// CHECK: %[[TILES:.*]]:2 = scf.for %{{.*}} = %[[PID]] to %{{.*}} step %[[C264]] iter_args(%[[TC:.*]] = %{{.*}}, %[[N:.*]] = %[[C0]]) -> (i32, i32)
// CHECK-NEXT: tilegpu.named_barrier_wait 4, 256
// CHECK-NEXT: %[[K:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[C:.*]] = %[[N]])
// CHECK-NEXT: tilegpu.channel_wait %{{.*}}, %[[C]]
// CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK: %[[PREV:.*]] = arith.subi %[[C]], %{{.*}} : i32
// CHECK-NEXT: tilegpu.channel_release %{{.*}}, %[[PREV]]
// CHECK: } {tilegpu.partition = "consumer"}
// The turn passes as soon as the last products are issued: the other group
// issues its own while this one's retire.
// CHECK-NEXT: tilegpu.named_barrier_arrive 5, 256
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[K]]#0 {pendings = 0 : i32}
// CHECK: tile.descriptor_store
// CHECK: %[[NEXTC:.*]] = arith.addi %[[TC]], %[[C264]] : i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]]#1, %[[TRIPS]] : i32
// CHECK-NEXT: scf.yield %[[NEXTC]], %[[NEXT]] : i32, i32
// CHECK-NEXT: } {tile.num_stages = 1 : i32, "tilegpu.consumer-group" = 0 : i32, tilegpu.partition = "consumer-tiles"}
// CHECK-NEXT: tilegpu.warp_yield
// The producer walks every tile, as without ping-pong.
// CHECK: partition0(
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c132_i32
// CHECK: tilegpu.channel_acquire
// CHECK: } {tilegpu.partition = "producer-tiles"}
// CHECK-NEXT: tilegpu.warp_return
// CHECK-NEXT: }
// CHECK-NEXT: partition1(
// CHECK-DAG: %[[C132B:.*]] = arith.constant 132 : i32
// CHECK-DAG: %[[C264B:.*]] = arith.constant 264 : i32
// CHECK-DAG: %[[PIDB:.*]] = tile.get_program_id x : i32
// CHECK-DAG: %[[KTB:.*]] = arith.divsi %{{.*}}, %c64_i32
// CHECK: %[[SECOND:.*]] = arith.addi %[[PIDB]], %[[C132B]] : i32
// CHECK: %[[TRIPSB:.*]] = arith.maxsi %[[KTB]], %{{.*}} : i32
// CHECK: tilegpu.named_barrier_arrive 4, 256
// CHECK-NEXT: %{{.*}}:2 = scf.for %{{.*}} = %[[SECOND]] to %{{.*}} step %[[C264B]] iter_args(%[[TCB:.*]] = %[[PIDB]], %[[NB:.*]] = %[[TRIPSB]]) -> (i32, i32)
// CHECK-NEXT: tilegpu.named_barrier_wait 5, 256
// CHECK-NEXT: %[[KB:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[CB:.*]] = %[[NB]])
// CHECK-NEXT: tilegpu.channel_wait %{{.*}}, %[[CB]]
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: tilegpu.named_barrier_arrive 4, 256
// CHECK: tile.descriptor_store
// CHECK: %[[NEXTB:.*]] = arith.addi %[[KB]]#1, %[[TRIPSB]] : i32
// CHECK-NEXT: scf.yield %{{.*}}, %[[NEXTB]] : i32, i32
// CHECK-NEXT: } {tile.num_stages = 1 : i32, "tilegpu.consumer-group" = 1 : i32, tilegpu.partition = "consumer-tiles"}
// CHECK-NEXT: tilegpu.warp_return
// CHECK-NEXT: }
// CHECK-NEXT: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, "tilegpu.ping-pong" = true, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %dc: !tile.tensordesc<tensor<128x128xf16>>, %m: i32, %n: i32, %k: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c127_i32 = arith.constant 127 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %6 = arith.addi %m, %c127_i32 : i32
    %7 = arith.divsi %6, %c128_i32 : i32
    %8 = arith.addi %n, %c127_i32 : i32
    %9 = arith.divsi %8, %c128_i32 : i32
    %tiles = arith.muli %7, %9 : i32
    %11 = arith.addi %k, %c63_i32 : i32
    %ktiles = arith.divsi %11, %c64_i32 : i32
    %first_c = arith.subi %pid, %c132_i32 : i32
    %r = scf.for %t = %pid to %tiles step %c132_i32 iter_args(%tc = %first_c) -> (i32) : i32 {
      %13 = arith.divsi %t, %9 : i32
      %14 = arith.remsi %t, %9 : i32
      %15 = arith.muli %13, %c128_i32 : i32
      %16 = arith.muli %14, %c128_i32 : i32
      // expected-remark @+1 {{warp-specialized: operand 0 tma; operand 1 tma; producer carries []; 3 slots; ping-pong; registers 40/232}}
      %17 = scf.for %kk = %c0_i32 to %ktiles step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>) : i32 {
        %20 = arith.muli %kk, %c64_i32 : i32
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedT>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
        %25 = tilegpu.local_alloc %23 : (tensor<64x128xf16, #blockedT>) -> !tilegpu.memdesc<64x128xf16, #nvmmaT>
        %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmmaT> -> tensor<128x128xf32, #wgmma>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        scf.yield %27 : tensor<128x128xf32, #wgmma>
      }
      %tc2 = arith.addi %tc, %c132_i32 : i32
      %cm = arith.divsi %tc2, %9 : i32
      %cn = arith.remsi %tc2, %9 : i32
      %om = arith.muli %cm, %c128_i32 : i32
      %on = arith.muli %cn, %c128_i32 : i32
      %18 = arith.truncf %17 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #out>
      tile.descriptor_store %dc[%om, %on], %19 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #out>
      scf.yield %tc2 : i32
    } {tile.warp_specialize}
    tile.return
  }
}

// -----

// The product loop's trip count from a run-time bound and a step of 64:
// (k + 63) / 64 with plain arithmetic (arith.ceildivsi has no lowering to
// LLVM), in both groups.
// CHECK-LABEL: tile.func public @mm_step_64(
// CHECK: default(
// CHECK-NOT: arith.ceildivsi
// CHECK: %[[SPAN:.*]] = arith.addi %{{.*}}, %c63_i32 : i32
// CHECK-NEXT: %[[KT:.*]] = arith.divsi %[[SPAN]], %c64_i32 : i32
// CHECK-NEXT: arith.maxsi %[[KT]], %c0_i32 : i32
// CHECK: partition1(
// CHECK-NOT: arith.ceildivsi
// CHECK: arith.maxsi
// CHECK-NOT: arith.ceildivsi
// CHECK: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, "tilegpu.ping-pong" = true, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @mm_step_64(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %dc: !tile.tensordesc<tensor<128x128xf16>>, %m: i32, %n: i32, %k: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c127_i32 = arith.constant 127 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %6 = arith.addi %m, %c127_i32 : i32
    %7 = arith.divsi %6, %c128_i32 : i32
    %8 = arith.addi %n, %c127_i32 : i32
    %9 = arith.divsi %8, %c128_i32 : i32
    %tiles = arith.muli %7, %9 : i32
    %11 = arith.addi %k, %c63_i32 : i32
    %ktiles = arith.divsi %11, %c64_i32 : i32
    %first_c = arith.subi %pid, %c132_i32 : i32
    %r = scf.for %t = %pid to %tiles step %c132_i32 iter_args(%tc = %first_c) -> (i32) : i32 {
      %13 = arith.divsi %t, %9 : i32
      %14 = arith.remsi %t, %9 : i32
      %15 = arith.muli %13, %c128_i32 : i32
      %16 = arith.muli %14, %c128_i32 : i32
      // expected-remark @+1 {{warp-specialized: operand 0 tma; operand 1 tma; producer carries []; 3 slots; ping-pong; registers 40/232}}
      %17 = scf.for %kk = %c0_i32 to %k step %c64_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>) : i32 {
        %20 = arith.addi %kk, %c0_i32 : i32
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedT>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
        %25 = tilegpu.local_alloc %23 : (tensor<64x128xf16, #blockedT>) -> !tilegpu.memdesc<64x128xf16, #nvmmaT>
        %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmmaT> -> tensor<128x128xf32, #wgmma>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        scf.yield %27 : tensor<128x128xf32, #wgmma>
      }
      %tc2 = arith.addi %tc, %c132_i32 : i32
      %cm = arith.divsi %tc2, %9 : i32
      %cn = arith.remsi %tc2, %9 : i32
      %om = arith.muli %cm, %c128_i32 : i32
      %on = arith.muli %cn, %c128_i32 : i32
      %18 = arith.truncf %17 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #out>
      tile.descriptor_store %dc[%om, %on], %19 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #out>
      scf.yield %tc2 : i32
    } {tile.warp_specialize}
    tile.return
  }
}

// -----

// One tile per program: nothing to take turns over.  One cooperative
// group of the kernel's 4 warps, and a warning at the loop.
// CHECK: #[[LOC:loc[0-9]*]] = loc("{{.*}}partition-ping-pong.mlir":[[@LINE+27]]:{{[0-9]+}})
// CHECK: "tilegpu.warp-specialize-declined" = [{instead = "one consumer group of num_warps warps instead", loc = #[[LOC]], reason = "the kernel has no persistent tile loop (the groups take every other tile)", what = "ping-pong"}]
// CHECK-LABEL: tile.func public @one_tile(
// CHECK: tilegpu.warp_specialize(
// CHECK-NOT: named_barrier
// CHECK: num_warps(4) {
// CHECK-NOT: partition1
// CHECK: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, "tilegpu.ping-pong" = true, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @one_tile(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %dc: !tile.tensordesc<tensor<128x128xf16>>, %tiles: i32, %ktiles: i32, %out: !tile.ptr<i32>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %15 = arith.muli %pid, %c128_i32 : i32
    %16 = arith.muli %pid, %c128_i32 : i32
    // expected-remark @+1 {{warp-specialized: operand 0 tma; operand 1 tma; producer carries []; 3 slots; registers unmoved}}
    %17 = scf.for %kk = %c0_i32 to %ktiles step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>) : i32 {
        %20 = arith.muli %kk, %c64_i32 : i32
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedT>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
        %25 = tilegpu.local_alloc %23 : (tensor<64x128xf16, #blockedT>) -> !tilegpu.memdesc<64x128xf16, #nvmmaT>
        %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmmaT> -> tensor<128x128xf32, #wgmma>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        scf.yield %27 : tensor<128x128xf32, #wgmma>
      }
      %18 = arith.truncf %17 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #out>
      tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #out>
    tile.return
  }
}

// -----

// The tile loop carries a value each tile doubles: a group that skips
// every other tile cannot know it.
// CHECK: reason = "the tile loop carries a value that does not advance by a fixed step from one tile to the next, and each group runs only every other tile"
// CHECK-LABEL: tile.func public @carried(
// CHECK-NOT: partition1
// CHECK: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, "tilegpu.ping-pong" = true, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @carried(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %dc: !tile.tensordesc<tensor<128x128xf16>>, %tiles: i32, %ktiles: i32, %out: !tile.ptr<i32>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %r = scf.for %t = %pid to %tiles step %c132_i32 iter_args(%x = %c1_i32) -> (i32) : i32 {
      %15 = arith.muli %t, %c128_i32 : i32
      %16 = arith.muli %t, %c128_i32 : i32
      %xn = arith.muli %x, %c128_i32 : i32
      // expected-remark @+1 {{warp-specialized: operand 0 tma; operand 1 tma; producer carries []; 3 slots; registers unmoved}}
      %17 = scf.for %kk = %c0_i32 to %ktiles step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>) : i32 {
        %20 = arith.muli %kk, %c64_i32 : i32
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedT>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
        %25 = tilegpu.local_alloc %23 : (tensor<64x128xf16, #blockedT>) -> !tilegpu.memdesc<64x128xf16, #nvmmaT>
        %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmmaT> -> tensor<128x128xf32, #wgmma>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        scf.yield %27 : tensor<128x128xf32, #wgmma>
      }
      %18 = arith.truncf %17 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #out>
      tile.descriptor_store %dc[%15, %xn], %19 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #out>
      %x2 = arith.muli %x, %x : i32
      scf.yield %x2 : i32
    } {tile.warp_specialize}
    tile.return
  }
}

// -----

// The K loop's trip count depends on the tile (a triangle): a group cannot
// count the other's channel uses.
// CHECK: reason = "the loop of products runs a different number of times from tile to tile"
// CHECK-LABEL: tile.func public @triangle(
// CHECK-NOT: partition1
// CHECK: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, "tilegpu.ping-pong" = true, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @triangle(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %dc: !tile.tensordesc<tensor<128x128xf16>>, %tiles: i32, %ktiles: i32, %out: !tile.ptr<i32>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    scf.for %t = %pid to %tiles step %c132_i32 : i32 {
      %15 = arith.muli %t, %c128_i32 : i32
      %16 = arith.muli %t, %c128_i32 : i32
      %kt = arith.addi %t, %c1_i32 : i32
      // expected-remark @+1 {{warp-specialized: operand 0 tma; operand 1 tma; producer carries []; 3 slots; registers unmoved}}
      %17 = scf.for %kk = %c0_i32 to %kt step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>) : i32 {
        %20 = arith.muli %kk, %c64_i32 : i32
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedT>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
        %25 = tilegpu.local_alloc %23 : (tensor<64x128xf16, #blockedT>) -> !tilegpu.memdesc<64x128xf16, #nvmmaT>
        %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmmaT> -> tensor<128x128xf32, #wgmma>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        scf.yield %27 : tensor<128x128xf32, #wgmma>
      }
      %18 = arith.truncf %17 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #out>
      tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #out>
    } {tile.warp_specialize}
    tile.return
  }
}

// -----

// A store before the tile loop: both groups would make it.
// CHECK: reason = "code outside the tile loop writes memory, which both groups would run"
// CHECK-LABEL: tile.func public @store_outside(
// CHECK-NOT: partition1
// CHECK: tile.return

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, "tilegpu.ping-pong" = true, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @store_outside(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %dc: !tile.tensordesc<tensor<128x128xf16>>, %tiles: i32, %ktiles: i32, %out: !tile.ptr<i32>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c132_i32 = arith.constant 132 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    tile.store %out, %pid : !tile.ptr<i32>
    scf.for %t = %pid to %tiles step %c132_i32 : i32 {
      %15 = arith.muli %t, %c128_i32 : i32
      %16 = arith.muli %t, %c128_i32 : i32
      // expected-remark @+1 {{warp-specialized: operand 0 tma; operand 1 tma; producer carries []; 3 slots; registers unmoved}}
      %17 = scf.for %kk = %c0_i32 to %ktiles step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x128xf32, #wgmma>) : i32 {
        %20 = arith.muli %kk, %c64_i32 : i32
        %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
        %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<128x64xf16, #blocked> -> tensor<64x128xf16, #blockedT>
        %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
        %25 = tilegpu.local_alloc %23 : (tensor<64x128xf16, #blockedT>) -> !tilegpu.memdesc<64x128xf16, #nvmmaT>
        %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x128xf16, #nvmmaT> -> tensor<128x128xf32, #wgmma>
        %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
        scf.yield %27 : tensor<128x128xf32, #wgmma>
      }
      %18 = arith.truncf %17 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
      %19 = tilegpu.convert_layout %18 : tensor<128x128xf16, #wgmma> -> tensor<128x128xf16, #out>
      tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #out>
    } {tile.warp_specialize}
    tile.return
  }
}
