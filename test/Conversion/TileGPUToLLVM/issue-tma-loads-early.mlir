// RUN: warpforge-opt %s --split-input-file --tilegpu-lower-tma --tilegpu-issue-tma-loads-early | FileCheck %s

// tilegpu-issue-tma-loads-early: tilegpu-lower-tma makes each lone
// descriptor load a group (buffer, mbarrier, init, fence, CTA barrier,
// expect, copy) followed by its wait; in a loop body, the group (and the
// pure ops computing its coordinates) moves above the loops before it that
// write no global memory and place nothing in shared memory, the wait
// stays. Attention's last V block after the loop over K/V blocks is the
// case it is for.

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // The copy, with its row (%t + 64), goes above the inner loop; the wait
  // stays after it, before the product.
  // CHECK-LABEL: tile.func public @hoisted_above_inner_loop(
  // CHECK: scf.for %[[T:.*]] = {{.*}} iter_args
  // CHECK: %[[ROW:.*]] = arith.addi %[[T]], %{{.*}} : i32
  // CHECK-NEXT: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>
  // CHECK-NEXT: %[[MB:.*]] = tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.init_barrier %[[MB]], 1
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK: tilegpu.barrier_expect %[[MB]], 16384
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}}[%[[ROW]], %{{.*}}] %[[BUF]], %[[MB]]
  // CHECK-NEXT: scf.for
  // CHECK: scf.yield
  // CHECK-NEXT: }
  // CHECK: tilegpu.wait_barrier %[[MB]]
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.inval_barrier %[[MB]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[MB]]
  // CHECK-NEXT: tilegpu.warp_group_dot %[[BUF]],
  tile.func public @hoisted_above_inner_loop(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> (tensor<128x128xf32, #w>, i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%c = %acc, %s = %c0) -> (tensor<128x128xf32, #w>, i32) : i32 {
      %inner = scf.for %j = %c0 to %n step %c1 iter_args(%x = %s) -> (i32) : i32 {
        %y = arith.addi %x, %j : i32
        scf.yield %y : i32
      }
      %row = arith.addi %t, %c64 : i32
      %a = tile.descriptor_load %da[%row, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w, %inner : tensor<128x128xf32, #w>, i32
    }
    tile.return %r#0, %r#1 : tensor<128x128xf32, #w>, i32
  }

  // In the kernel's body the copy stays after the loop: there the
  // allocator frees a finished loop's buffers, which an earlier buffer
  // could no longer take.
  // CHECK-LABEL: tile.func public @kept_in_kernel_body(
  // CHECK: scf.for
  // CHECK: tilegpu.async_tma_copy_global_to_local
  tile.func public @kept_in_kernel_body(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> (tensor<128x128xf32, #w>, i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %inner = scf.for %j = %c0 to %n step %c1 iter_args(%x = %c0) -> (i32) : i32 {
      %y = arith.addi %x, %j : i32
      scf.yield %y : i32
    }
    %a = tile.descriptor_load %da[%n, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.return %w, %inner : tensor<128x128xf32, #w>, i32
  }
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A loop that stores to global memory keeps the copy after it (the copy
  // might read what it stores).
  // CHECK-LABEL: tile.func public @kept_after_global_store(
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: tile.store
  // CHECK-NEXT: }
  // CHECK: tilegpu.async_tma_copy_global_to_local
  tile.func public @kept_after_global_store(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %p: tensor<128x!tile.ptr<f32>, #b1>, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %v = arith.constant dense<1.0> : tensor<128xf32, #b1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      scf.for %j = %c0 to %n step %c1 : i32 {
        tile.store %p, %v : tensor<128x!tile.ptr<f32>, #b1>
      }
      %a = tile.descriptor_load %da[%t, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }

  // A row the loop computes keeps the copy after the loop.
  // CHECK-LABEL: tile.func public @kept_after_the_loop_computing_its_row(
  // CHECK: scf.for
  // CHECK: %[[ROW:.*]] = scf.for
  // CHECK: tilegpu.async_tma_copy_global_to_local %{{.*}}[%[[ROW]],
  tile.func public @kept_after_the_loop_computing_its_row(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%x = %t) -> (i32) : i32 {
        %y = arith.addi %x, %j : i32
        scf.yield %y : i32
      }
      %a = tile.descriptor_load %da[%row, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }

  // A product still in flight at the end of the body (no full wait after
  // it) may read the buffer when the next iteration starts: the copy stays
  // where tilegpu-lower-tma put it.
  // CHECK-LABEL: tile.func public @kept_with_product_in_flight(
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: scf.yield
  // CHECK: tilegpu.async_tma_copy_global_to_local
  tile.func public @kept_with_product_in_flight(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> (tensor<128x128xf32, #w>, i32) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%c = %acc, %s = %c0) -> (tensor<128x128xf32, #w>, i32) : i32 {
      %inner = scf.for %j = %c0 to %n step %c1 iter_args(%x = %s) -> (i32) : i32 {
        %y = arith.addi %x, %j : i32
        scf.yield %y : i32
      }
      %a = tile.descriptor_load %da[%t, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      scf.yield %d, %inner : tensor<128x128xf32, #w>, i32
    }
    tile.return %r#0, %r#1 : tensor<128x128xf32, #w>, i32
  }

  // A loop that allocates shared memory keeps the copy after it: with the
  // buffer live during the loop, the allocator might need more bytes.
  // CHECK-LABEL: tile.func public @kept_after_loop_that_allocates(
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK: tilegpu.local_alloc
  // CHECK: scf.yield
  // CHECK: tilegpu.async_tma_copy_global_to_local
  tile.func public @kept_after_loop_that_allocates(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> (tensor<128x128xf32, #w>, tensor<128xf32, #b1>) {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %v = arith.constant dense<1.0> : tensor<128xf32, #b1>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%c = %acc, %s = %v) -> (tensor<128x128xf32, #w>, tensor<128xf32, #b1>) : i32 {
      %inner = scf.for %j = %c0 to %n step %c1 iter_args(%x = %s) -> (tensor<128xf32, #b1>) : i32 {
        %m = tilegpu.local_alloc %x : (tensor<128xf32, #b1>) -> !tilegpu.memdesc<128xf32, #tilegpu.shared<order = [0]>>
        %y = tilegpu.local_load %m : !tilegpu.memdesc<128xf32, #tilegpu.shared<order = [0]>> -> tensor<128xf32, #b1>
        scf.yield %y : tensor<128xf32, #b1>
      }
      %a = tile.descriptor_load %da[%t, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w, %inner : tensor<128x128xf32, #w>, tensor<128xf32, #b1>
    }
    tile.return %r#0, %r#1 : tensor<128x128xf32, #w>, tensor<128xf32, #b1>
  }
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A load that starts the iteration, its row a function of the induction
  // variable (a persistent kernel's Q): the buffer and the barrier move
  // before the loop, which copies the first iteration's block (if there is
  // one); each iteration waits for its phase ((t - lb) / step) & 1, and
  // once its product is retired (the full wait) and every thread is past
  // it (CTA barrier), copies the next iteration's block (if there is one).
  // After the loop, a CTA barrier and the barrier's inval.
  // CHECK-LABEL: tile.func public @prefetched_by_previous_iteration(
  // CHECK-SAME: %[[D:[^:]*]]: !tile.tensordesc<tensor<128x64xf16>>, %{{[^:]*}}: !tilegpu.memdesc<64x128xf16, #nvmma>, %[[LB:[^:]*]]: i32, %[[UB:[^:]*]]: i32, %[[ST:[^:]*]]: i32
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>
  // CHECK-NEXT: %[[MB:.*]] = tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.init_barrier %[[MB]], 1
  // CHECK-NEXT: tilegpu.fence_async_shared
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: %[[P0:.*]] = arith.cmpi slt, %[[LB]], %[[UB]] : i32
  // CHECK-NEXT: %[[R0:.*]] = arith.muli %[[LB]], %{{.*}} : i32
  // CHECK-NEXT: tilegpu.barrier_expect %[[MB]], 16384, %[[P0]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[D]][%[[R0]], %{{.*}}] %[[BUF]], %[[MB]], %[[P0]]
  // CHECK-NEXT: scf.for %[[T:.*]] = %[[LB]] to %[[UB]] step %[[ST]]
  // CHECK: %[[K:.*]] = arith.subi %[[T]], %[[LB]] : i32
  // CHECK-NEXT: %[[N:.*]] = arith.divsi %[[K]], %[[ST]] : i32
  // CHECK: %[[PH:.*]] = arith.andi %[[N]], %{{.*}} : i32
  // CHECK-NEXT: tilegpu.wait_barrier %[[MB]], %[[PH]]
  // CHECK-NEXT: tilegpu.warp_group_dot %[[BUF]],
  // CHECK-NEXT: tilegpu.warp_group_dot_wait {{.*}} {pendings = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[T]], %[[ST]] : i32
  // CHECK-NEXT: %[[PN:.*]] = arith.cmpi slt, %[[NEXT]], %[[UB]] : i32
  // CHECK-NEXT: %[[RN:.*]] = arith.muli %[[NEXT]], %{{.*}} : i32
  // CHECK-NEXT: tilegpu.barrier_expect %[[MB]], 16384, %[[PN]]
  // CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[D]][%[[RN]], %{{.*}}] %[[BUF]], %[[MB]], %[[PN]]
  // CHECK-NEXT: scf.yield
  // CHECK-NEXT: }
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.inval_barrier %[[MB]]
  // CHECK-NEXT: tilegpu.local_dealloc %[[MB]]
  // CHECK-NOT: tilegpu.inval_barrier
  tile.func public @prefetched_by_previous_iteration(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %lb: i32, %ub: i32, %st: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c128 = arith.constant 128 : i32
    %r = scf.for %t = %lb to %ub step %st iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %row = arith.muli %t, %c128 : i32
      %a = tile.descriptor_load %da[%row, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }

  // A row carried by the loop is unknown for the next iteration: the load
  // stays as tilegpu-lower-tma made it.
  // CHECK-LABEL: tile.func public @kept_when_row_is_carried(
  // CHECK: scf.for
  // CHECK: tilegpu.local_alloc
  // CHECK: tilegpu.async_tma_copy_global_to_local
  // CHECK: tilegpu.inval_barrier
  // CHECK: scf.yield
  tile.func public @kept_when_row_is_carried(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i32) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %t = %c0 to %n step %c1 iter_args(%c = %acc, %row = %c0) -> (tensor<128x128xf32, #w>, i32) : i32 {
      %a = tile.descriptor_load %da[%row, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      %next = arith.addi %row, %c1 : i32
      scf.yield %w, %next : tensor<128x128xf32, #w>, i32
    }
    tile.return %r#0 : tensor<128x128xf32, #w>
  }

  // An i64 loop: the phase wait_barrier takes is an i32 computed from the
  // induction variable, so the load stays as tilegpu-lower-tma made it.
  // CHECK-LABEL: tile.func public @kept_in_i64_loop(
  // CHECK: scf.for
  // CHECK: tilegpu.local_alloc
  // CHECK: tilegpu.async_tma_copy_global_to_local
  // CHECK: tilegpu.inval_barrier
  // CHECK: scf.yield
  tile.func public @kept_in_i64_loop(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %n: i64) -> tensor<128x128xf32, #w> {
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %z = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %r = scf.for %t = %z to %n step %one iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i64 {
      %row = arith.trunci %t : i64 to i32
      %a = tile.descriptor_load %da[%row, %c0] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %d = tilegpu.warp_group_dot %sa, %sb, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    tile.return %r : tensor<128x128xf32, #w>
  }
}
