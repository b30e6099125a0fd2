// RUN: warpforge-opt %s --split-input-file --tilegpu-lower-tma --mlir-print-local-scope | FileCheck %s -DNV128='#tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>' -DNV128T='#tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>' -DNV64='#tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>' -DBAR='!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>'

// tilegpu-lower-tma: descriptor loads and stores become the explicit TMA
// protocol (buffers in the descriptor's layout, mbarriers, copies, waits).
// Layouts print inline (--mlir-print-local-scope); NV128 is the 128-byte
// swizzle every 2-D f16 block with rows of 128 bytes or more lands in,
// NV128T its transpose, BAR the type of one mbarrier.

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A load whose tile is used in registers: a buffer in the TMA layout and
  // a barrier; the barrier is initialized for one arrival, fenced for the
  // async proxy and published (CTA barrier) before thread 0 arms it with
  // the block's bytes (64 * 64 * 2 = 8192) and the copy is issued; every
  // thread waits for phase 0; a CTA barrier (nobody still polls) before the
  // barrier is invalidated and freed; then the tile is read into the load's
  // layout and the buffer freed.
  // CHECK-LABEL: tile.func public @load_to_registers(
  // CHECK-SAME: %[[D:[^:]*]]: !tile.tensordesc<tensor<64x64xf16>>, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32
  // CHECK-NEXT: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: %[[MB:.*]] = tilegpu.local_alloc : () -> [[BAR]]
  // CHECK-NEXT: tilegpu.init_barrier %[[MB]], 1 : [[BAR]]
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: %[[TRUE:.*]] = arith.constant true
  // CHECK-NEXT: tilegpu.barrier_expect %[[MB]], 8192, %[[TRUE]] : [[BAR]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[D]][%[[I]], %[[J]]] %[[BUF]], %[[MB]], %[[TRUE]] : !tile.tensordesc<tensor<64x64xf16>>, [[BAR]] -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: %[[PHASE:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: tilegpu.wait_barrier %[[MB]], %[[PHASE]] : [[BAR]]
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.inval_barrier %[[MB]] : [[BAR]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[MB]] : [[BAR]]
  // CHECK-NEXT: %[[X:.*]] = tilegpu.local_load %[[BUF]] : !tilegpu.memdesc<64x64xf16, [[NV128]], mutable> -> tensor<64x64xf16, #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NEXT: %[[PS:.*]] = tile.splat
  // CHECK-NEXT: tile.store %[[PS]], %[[X]]
  // CHECK-NOT: tile.descriptor_load
  tile.func public @load_to_registers(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %j: i32, %p: !tile.ptr<f16>) {
    %x = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #b>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>, #b>
    tile.store %ps, %x : tensor<64x64x!tile.ptr<f16>, #b>
    tile.return
  }
}

// -----

#b1 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b3 = #tilegpu.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 8, 4], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Blocks that are not 2-D land densely: a 1-D block of f32 (1 KiB) and a
  // 3-D block (2 * 32 * 32 * 2 = 4 KiB), each with its own barrier.
  // CHECK-LABEL: tile.func public @load_plain_to_registers(
  // CHECK: %[[B1:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
  // CHECK: tilegpu.barrier_expect %{{.*}}, 1024, %{{.*}} : [[BAR]]
  // CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}}[%{{.*}}] %[[B1]]
  // CHECK: tilegpu.local_load %[[B1]] : !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable> -> tensor<256xf32,
  // CHECK: %[[B3:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x32x32xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
  // CHECK: tilegpu.barrier_expect %{{.*}}, 4096, %{{.*}} : [[BAR]]
  // CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] %[[B3]]
  // CHECK: tilegpu.local_load %[[B3]]
  tile.func public @load_plain_to_registers(%d1: !tile.tensordesc<tensor<256xf32>>, %d3: !tile.tensordesc<tensor<2x32x32xf16>>, %i: i32,
                                             %p1: tensor<256x!tile.ptr<f32>, #b1>, %p3: tensor<2x32x32x!tile.ptr<f16>, #b3>) {
    %x1 = tile.descriptor_load %d1[%i] : !tile.tensordesc<tensor<256xf32>> -> tensor<256xf32, #b1>
    tile.store %p1, %x1 : tensor<256x!tile.ptr<f32>, #b1>
    %x3 = tile.descriptor_load %d3[%i, %i, %i] : !tile.tensordesc<tensor<2x32x32xf16>> -> tensor<2x32x32xf16, #b3>
    tile.store %p3, %x3 : tensor<2x32x32x!tile.ptr<f16>, #b3>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Loads that only go into shared memory for a product, in the layout the
  // TMA writes: the product reads the TMA buffers in place (no local_load,
  // no second allocation), each after its barrier's wait.
  // CHECK-LABEL: tile.func public @load_for_product(
  // CHECK-SAME: %[[DA:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[DB:[^:]*]]: !tile.tensordesc<tensor<64x128xf16>>
  // CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: tilegpu.barrier_expect %{{.*}}, 16384, %{{.*}}
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DA]]{{.*}} %[[A]],
  // CHECK: tilegpu.wait_barrier
  // CHECK: tilegpu.inval_barrier
  // CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, [[NV128]], mutable>
  // CHECK: tilegpu.barrier_expect %{{.*}}, 16384, %{{.*}}
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DB]]{{.*}} %[[B]],
  // CHECK: tilegpu.wait_barrier
  // CHECK: tilegpu.inval_barrier
  // CHECK-NEXT: tilegpu.local_dealloc
  // CHECK-NEXT: %[[D:.*]] = tilegpu.warp_group_dot %[[A]], %[[B]], %{{.*}} : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> * !tilegpu.memdesc<64x128xf16, [[NV128]], mutable>
  // CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D]]
  // CHECK-NOT: tilegpu.local_load
  // CHECK-NOT: tilegpu.local_alloc
  // CHECK: tile.return
  tile.func public @load_for_product(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<64x128xf16>>, %i: i32, %j: i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %a = tile.descriptor_load %da[%i, %j] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %bb = tile.descriptor_load %db[%j, %i] : !tile.tensordesc<tensor<64x128xf16>> -> tensor<64x128xf16, #b>
    %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %sb = tilegpu.local_alloc %bb : (tensor<64x128xf16, #b>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Layout conversions between the load and the allocation go with them:
  // the product still reads the TMA buffer.
  // CHECK-LABEL: tile.func public @load_for_product_through_convert(
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[A]],
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK-NOT: tilegpu.local_load
  // CHECK: tilegpu.warp_group_dot %[[A]], %{{.*}}, %{{.*}} : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> *
  tile.func public @load_for_product_through_convert(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %i: i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %a = tile.descriptor_load %da[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %c = tilegpu.convert_layout %a : tensor<128x64xf16, #b> -> tensor<128x64xf16, #b2>
    %sa = tilegpu.local_alloc %c : (tensor<128x64xf16, #b2>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // B loaded as an [N, K] block and transposed (tile.trans) into the [K, N]
  // operand: the TMA writes the [N, K] block in its own layout and the
  // product reads it through memdesc_trans (K-major B), in place.
  // CHECK-LABEL: tile.func public @load_transposed_for_product(
  // CHECK-SAME: %[[DA:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[DB:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>
  // CHECK-NOT: tile.trans
  // CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DA]]{{.*}} %[[A]],
  // CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: tilegpu.async_tma_copy_global_to_local %[[DB]]{{.*}} %[[B]],
  // CHECK: tilegpu.inval_barrier
  // CHECK-NEXT: tilegpu.local_dealloc
  // CHECK-NEXT: %[[BT:.*]] = tilegpu.memdesc_trans %[[B]] : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> -> !tilegpu.memdesc<64x128xf16, [[NV128T]], mutable>
  // CHECK-NEXT: tilegpu.warp_group_dot %[[A]], %[[BT]], %{{.*}} : !tilegpu.memdesc<128x64xf16, [[NV128]], mutable> * !tilegpu.memdesc<64x128xf16, [[NV128T]], mutable>
  // CHECK-NOT: tile.trans
  // CHECK-NOT: tilegpu.local_load
  tile.func public @load_transposed_for_product(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %j: i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %a = tile.descriptor_load %da[%i, %j] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %bb = tile.descriptor_load %db[%i, %j] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %bt = tile.trans %bb {order = array<i32: 1, 0>} : tensor<128x64xf16, #b> -> tensor<64x128xf16, #bt>
    %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %sb = tilegpu.local_alloc %bt : (tensor<64x128xf16, #bt>) -> !tilegpu.memdesc<64x128xf16, #nvt>
    %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nvt> -> tensor<128x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nv64 = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // An allocation in another layout than the TMA's (a 64-byte swizzle for
  // 128-byte rows) cannot be the TMA buffer: the tile goes through
  // registers (local_load) into the allocation the product reads.
  // CHECK-LABEL: tile.func public @load_for_product_other_layout(
  // CHECK: %[[T:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[T]],
  // CHECK: %[[X:.*]] = tilegpu.local_load %[[T]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[T]]
  // CHECK-NEXT: %[[A:.*]] = tilegpu.local_alloc %[[X]] : (tensor<128x64xf16, {{.*}}>) -> !tilegpu.memdesc<128x64xf16, [[NV64]]>
  // CHECK-NEXT: tilegpu.warp_group_dot %[[A]],
  tile.func public @load_for_product_other_layout(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %i: i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %a = tile.descriptor_load %da[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv64>
    %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<128x64xf16, #nv64> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A tile that is also used in registers is loaded into registers once;
  // the allocation for the product stays.
  // CHECK-LABEL: tile.func public @load_for_product_and_registers(
  // CHECK: %[[T:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK: %[[X:.*]] = tilegpu.local_load %[[T]]
  // CHECK: tilegpu.local_alloc %[[X]] : (tensor<128x64xf16, {{.*}}>) -> !tilegpu.memdesc<128x64xf16, [[NV128]]>
  // CHECK: tile.store %{{.*}}, %[[X]]
  tile.func public @load_for_product_and_registers(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %i: i32,
                                                    %p: tensor<128x64x!tile.ptr<f16>, #b>) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %a = tile.descriptor_load %da[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.store %p, %a : tensor<128x64x!tile.ptr<f16>, #b>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A load in a loop that is not pipelined: the whole protocol (a fresh
  // barrier, init, fence, CTA barrier, expect, copy, wait for phase 0,
  // inval) stays in the body, so each iteration's copy starts only after
  // every thread is past the previous iteration's product.
  // CHECK-LABEL: tile.func public @load_in_loop(
  // CHECK: scf.for
  // CHECK-NEXT: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: %[[MB:.*]] = tilegpu.local_alloc : () -> [[BAR]]
  // CHECK-NEXT: tilegpu.init_barrier %[[MB]], 1
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK: tilegpu.barrier_expect %[[MB]], 16384,
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[A]], %[[MB]],
  // CHECK: tilegpu.wait_barrier %[[MB]], %{{.*}}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.inval_barrier %[[MB]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[MB]]
  // CHECK-NEXT: tilegpu.warp_group_dot %[[A]],
  // CHECK: scf.yield
  tile.func public @load_in_loop(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %a = tile.descriptor_load %da[%c0, %k] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A store of a product's result: the conversion out of the accumulator's
  // layout is skipped (it would go through shared memory itself) and the
  // buffer is written straight from the wgmma layout (local_alloc fences
  // the async proxy for swizzled buffers); thread 0 stores it; the wait
  // for the store to have read the buffer is as late as possible, before
  // the block's terminator, then a CTA barrier and the deallocation.
  // CHECK-LABEL: tile.func public @store_from_product(
  // CHECK-SAME: %[[D:[^:]*]]: !tile.tensordesc<tensor<128x128xf16>>, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32,
  // CHECK-NEXT: %[[H:.*]] = arith.truncf
  // CHECK-NEXT: %[[BUF:.*]] = tilegpu.local_alloc %[[H]] : (tensor<128x128xf16, #tilegpu.wgmma<{{.*}}>>) -> !tilegpu.memdesc<128x128xf16, [[NV128]]>
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[D]][%[[I]], %[[J]]] %[[BUF]] : !tile.tensordesc<tensor<128x128xf16>>, !tilegpu.memdesc<128x128xf16, [[NV128]]>
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NEXT: tile.return
  tile.func public @store_from_product(%d: !tile.tensordesc<tensor<128x128xf16>>, %i: i32, %j: i32, %acc: tensor<128x128xf32, #w>) {
    %h = arith.truncf %acc : tensor<128x128xf32, #w> to tensor<128x128xf16, #w>
    %c = tilegpu.convert_layout %h : tensor<128x128xf16, #w> -> tensor<128x128xf16, #b>
    tile.descriptor_store %d[%i, %j], %c : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #b>
    %z = arith.addi %i, %j : i32
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b3 = #tilegpu.blocked<sizePerThread = [1, 1, 8], threadsPerWarp = [1, 8, 4], warpsPerCTA = [2, 2, 1], order = [2, 1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Dense buffers (1-D, 16-byte rows, 3-D): local_alloc does not fence the
  // async proxy for them, so the pass does (fence_async_shared, then a CTA
  // barrier) before the copy.  Each store waits before the terminator.
  // CHECK-LABEL: tile.func public @store_plain(
  // CHECK-NEXT: %[[B1:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<256xf32, {{.*}}>) -> !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>>
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%{{.*}}] %[[B1]]
  // CHECK-NEXT: %[[B2:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x8xf16, {{.*}}>) -> !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>>
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%{{.*}}, %{{.*}}] %[[B2]]
  // CHECK-NEXT: %[[B3:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<2x32x32xf16, {{.*}}>) -> !tilegpu.memdesc<2x32x32xf16, #tilegpu.shared<order = [2, 1, 0]>>
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] %[[B3]]
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[B1]]
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[B2]]
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[B3]]
  // CHECK-NEXT: tile.return
  tile.func public @store_plain(%d1: !tile.tensordesc<tensor<256xf32>>, %d2: !tile.tensordesc<tensor<64x8xf16>>, %d3: !tile.tensordesc<tensor<2x32x32xf16>>, %i: i32,
                                %x1: tensor<256xf32, #b1>, %x2: tensor<64x8xf16, #b>, %x3: tensor<2x32x32xf16, #b3>) {
    tile.descriptor_store %d1[%i], %x1 : !tile.tensordesc<tensor<256xf32>>, tensor<256xf32, #b1>
    tile.descriptor_store %d2[%i, %i], %x2 : !tile.tensordesc<tensor<64x8xf16>>, tensor<64x8xf16, #b>
    tile.descriptor_store %d3[%i, %i, %i], %x3 : !tile.tensordesc<tensor<2x32x32xf16>>, tensor<2x32x32xf16, #b3>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A store at the top level of a loop body (a persistent kernel's
  // epilogue) keeps one mutable buffer for the whole loop, allocated before
  // it: each iteration waits for the previous iteration's store to have
  // read the buffer just before rewriting it (local_store, whose leading
  // CTA barrier holds the other threads back), and the last wait, CTA
  // barrier and deallocation follow the loop.
  // CHECK-LABEL: tile.func public @store_in_loop(
  // CHECK-SAME: %[[D:[^:]*]]: !tile.tensordesc<tensor<64x64xf16>>
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: scf.for %[[K:[^ ]*]] =
  // CHECK-NEXT: %[[Y:.*]] = arith.addf
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %[[Y]], %[[BUF]] : tensor<64x64xf16, {{.*}}> -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[D]][%[[K]], %[[K]]] %[[BUF]]
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: }
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NEXT: tile.return
  tile.func public @store_in_loop(%d: !tile.tensordesc<tensor<64x64xf16>>, %n: i32, %x: tensor<64x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %y = arith.addf %x, %x : tensor<64x64xf16, #b>
      tile.descriptor_store %d[%k, %k], %y : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
      %z = arith.addi %k, %k : i32
    }
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // The same in a loop for a dense buffer: local_store does not fence the
  // async proxy for it, so the pass does.
  // CHECK-LABEL: tile.func public @store_plain_in_loop(
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[BUF]]
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}} %[[BUF]]
  // CHECK-NEXT: }
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  tile.func public @store_plain_in_loop(%d: !tile.tensordesc<tensor<64x8xf16>>, %n: i32, %x: tensor<64x8xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      tile.descriptor_store %d[%k, %k], %x : !tile.tensordesc<tensor<64x8xf16>>, tensor<64x8xf16, #b>
    }
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A store in an scf.if of a loop body (one of two epilogues chosen per
  // tile) keeps a loop-wide buffer too: the wait for the stores before it
  // sits in the branch, before the local_store.
  // CHECK-LABEL: tile.func public @store_in_if(
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: arith.cmpi
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[BUF]]
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}} %[[BUF]]
  // CHECK-NEXT: arith.addi
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NEXT: tile.return
  tile.func public @store_in_if(%d: !tile.tensordesc<tensor<64x64xf16>>, %n: i32, %x: tensor<64x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %c = arith.cmpi slt, %k, %c1 : i32
      scf.if %c {
        tile.descriptor_store %d[%k, %k], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
        %z = arith.addi %k, %k : i32
      }
    }
    tile.return
  }

  // Two stores of one block type, one in each branch (through two
  // descriptors), share one loop-wide buffer and one final wait.
  // CHECK-LABEL: tile.func public @stores_in_both_branches(
  // CHECK-SAME: %[[D:[^:]*]]: !tile.tensordesc<tensor<64x64xf16>>, %[[E:[^:]*]]: !tile.tensordesc<tensor<64x64xf16>>
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: arith.cmpi
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[BUF]]
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[D]][{{.*}}] %[[BUF]]
  // CHECK-NEXT: } else {
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[BUF]]
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[E]][{{.*}}] %[[BUF]]
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NOT: tilegpu.local_alloc
  // CHECK: tile.return
  tile.func public @stores_in_both_branches(%d: !tile.tensordesc<tensor<64x64xf16>>, %e: !tile.tensordesc<tensor<64x64xf16>>, %n: i32, %x: tensor<64x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %c = arith.cmpi slt, %k, %c1 : i32
      scf.if %c {
        tile.descriptor_store %d[%k, %k], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
      } else {
        tile.descriptor_store %e[%k, %c0], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
      }
    }
    tile.return
  }

  // Two stores one after the other (an epilogue in two halves, here in a
  // branch; at the top level of the body alike) keep a buffer each: the
  // second does not wait for the first to have been read.
  // CHECK-LABEL: tile.func public @stores_in_sequence_in_a_branch(
  // CHECK: %[[B0:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK: %[[B1:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, [[NV128]], mutable>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: arith.cmpi
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[B0]]
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}} %[[B0]]
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[B1]]
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}} %[[B1]]
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  tile.func public @stores_in_sequence_in_a_branch(%d: !tile.tensordesc<tensor<64x64xf16>>, %n: i32, %x: tensor<64x64xf16, #b>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %k = %c0 to %n step %c1 : i32 {
      %c = arith.cmpi slt, %k, %c1 : i32
      scf.if %c {
        tile.descriptor_store %d[%k, %c0], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
        tile.descriptor_store %d[%k, %c1], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
      }
    }
    tile.return
  }

  // A store in an scf.if outside any loop waits before the branch's
  // terminator.
  // CHECK-LABEL: tile.func public @store_in_if_outside_loops(
  // CHECK: scf.if
  // CHECK-NEXT: %[[BUF:.*]] = tilegpu.local_alloc %{{.*}} -> !tilegpu.memdesc<64x64xf16, [[NV128]]>
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}} %[[BUF]]
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NEXT: }
  // CHECK-NEXT: tile.return
  tile.func public @store_in_if_outside_loops(%d: !tile.tensordesc<tensor<64x64xf16>>, %n: i32, %x: tensor<64x64xf16, #b>) {
    %c1 = arith.constant 1 : i32
    %c = arith.cmpi slt, %n, %c1 : i32
    scf.if %c {
      tile.descriptor_store %d[%n, %n], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
    }
    tile.return
  }
}

// -----

// A reduction goes out as a store does, the copy carrying its kind
// (cp.reduce.async.bulk.tensor); the wait comes at the end of the block.
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: tile.func public @reduce_add(
  // CHECK-NEXT: %[[BUF:.*]] = tilegpu.local_alloc %{{.*}} : (tensor<64x64xf16, {{.*}}>) -> !tilegpu.memdesc<64x64xf16, [[NV128]]>
  // CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%{{.*}}, %{{.*}}] %[[BUF]] reduce add :
  // CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.local_dealloc %[[BUF]]
  // CHECK-NEXT: tile.return
  tile.func public @reduce_add(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %c: tensor<64x64xf16, #b>) {
    tile.descriptor_reduce add, %d[%i, %i], %c : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
    tile.return
  }
}

// -----

// acc.to(tl.float16) stored through a bf16 descriptor: the casts after the
// conversion to the default layout are redone in the product's layout, and
// the buffer is written from there (no layout exchange, no scratch).
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: tile.func public @store_cast_chain(
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: %[[H:.*]] = arith.truncf %{{.*}} : tensor<128x128xf32, #tilegpu.wgmma<{{.*}}>> to tensor<128x128xf16, #tilegpu.wgmma<{{.*}}>>
  // CHECK-NEXT: %[[E:.*]] = arith.extf %[[H]] : tensor<128x128xf16, #tilegpu.wgmma<{{.*}}>> to tensor<128x128xf32, #tilegpu.wgmma<{{.*}}>>
  // CHECK-NEXT: %[[T:.*]] = arith.truncf %[[E]] : tensor<128x128xf32, #tilegpu.wgmma<{{.*}}>> to tensor<128x128xbf16, #tilegpu.wgmma<{{.*}}>>
  // CHECK-NEXT: tilegpu.local_alloc %[[T]]
  // CHECK-NOT: tilegpu.convert_layout
  tile.func public @store_cast_chain(%d: !tile.tensordesc<tensor<128x128xbf16>>, %i: i32, %acc: tensor<128x128xf32, #w>) {
    %h = arith.truncf %acc : tensor<128x128xf32, #w> to tensor<128x128xf16, #w>
    %c = tilegpu.convert_layout %h : tensor<128x128xf16, #w> -> tensor<128x128xf16, #b>
    %e = arith.extf %c : tensor<128x128xf16, #b> to tensor<128x128xf32, #b>
    %t = arith.truncf %e : tensor<128x128xf32, #b> to tensor<128x128xbf16, #b>
    tile.descriptor_store %d[%i, %i], %t : !tile.tensordesc<tensor<128x128xbf16>>, tensor<128x128xbf16, #b>
    tile.return
  }
}
