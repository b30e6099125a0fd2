// RUN: warpforge-opt %s --split-input-file --tilegpu-overlap-products | FileCheck %s

// Each product is waited for where its result is first used; a wait moved
// past later products leaves them in flight (pendings), and a register A
// operand is kept alive to its product's wait. A wait moved past
// reductions (the softmax's row maximum) is preceded by a schedule_after on
// their results, so that ptxas does not issue the wait before the softmax.

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#da = #tilegpu.dot_op<opIdx = 0, parent = #w, kWidth = 2>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#s = #tilegpu.slice<dim = 1, parent = #w>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// CHECK-LABEL: tile.func public @rotated_attention_step(
// CHECK: scf.for
// CHECK: %[[QK:.*]] = tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} : !tilegpu.memdesc
// CHECK-NEXT: %[[PV:.*]] = tilegpu.warp_group_dot %[[P:[^,]*]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #{{.*}}>
// CHECK-NEXT: %[[S:.*]] = tilegpu.warp_group_dot_wait %[[QK]] {pendings = 1 : i32}
// CHECK-NEXT: %[[M:.*]] = tile.reduce %[[S]]
// CHECK: math.exp2
// CHECK: tilegpu.schedule_after %[[M]] : tensor<64xf32, #{{.*}}>
// CHECK-NEXT: %[[O:.*]]:2 = tilegpu.warp_group_dot_wait %[[PV]], %[[P]] {pendings = 0 : i32}
// CHECK-NEXT: arith.mulf %[[O]]#0
tile.func public @rotated_attention_step(%q: !tilegpu.memdesc<64x64xf16, #nv>, %k: !tilegpu.memdesc<64x64xf16, #nv>, %v: !tilegpu.memdesc<64x64xf16, #nv>, %p0: tensor<64x64xf16, #da>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #w>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %acc0) -> (tensor<64x64xf16, #da>, tensor<64x64xf32, #w>) : i32 {
    %qk = tilegpu.warp_group_dot %q, %k, %zero : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %s = tilegpu.warp_group_dot_wait %qk {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %pv = tilegpu.warp_group_dot %p, %v, %acc : tensor<64x64xf16, #da> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o = tilegpu.warp_group_dot_wait %pv {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %m = "tile.reduce"(%s) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %x = arith.maxnumf %a, %b : f32
      tile.reduce.return %x : f32
    }) : (tensor<64x64xf32, #w>) -> tensor<64xf32, #s>
    %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #s> -> tensor<64x1xf32, #w>
    %mb = tile.broadcast %me : tensor<64x1xf32, #w> -> tensor<64x64xf32, #w>
    %d = arith.subf %s, %mb : tensor<64x64xf32, #w>
    %e = math.exp2 %d : tensor<64x64xf32, #w>
    %scaled = arith.mulf %o, %e : tensor<64x64xf32, #w>
    %pn = arith.truncf %e : tensor<64x64xf32, #w> to tensor<64x64xf16, #w>
    %pd = tilegpu.convert_layout %pn : tensor<64x64xf16, #w> -> tensor<64x64xf16, #da>
    scf.yield %pd, %scaled : tensor<64x64xf16, #da>, tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A K loop's single product is the software pipeliner's to schedule.
// CHECK-LABEL: tile.func public @one_product_per_iteration(
// CHECK: %[[D:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D]] {pendings = 0 : i32}
tile.func public @one_product_per_iteration(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #w>) : i32 {
    %d = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %x = arith.addf %o, %o : tensor<64x64xf32, #w>
    scf.yield %x : tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A wait stops at another wait, and at a barrier (or a store into shared
// memory): a product may still read the buffer it orders.
// CHECK-LABEL: tile.func public @stops_at_a_barrier(
// CHECK: %[[D1:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: %[[D2:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D1]] {pendings = 1 : i32}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D2]] {pendings = 0 : i32}
// CHECK-NEXT: tile.barrier
tile.func public @stops_at_a_barrier(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #w>) : i32 {
    %d1 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o1 = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %d2 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o2 = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    tile.barrier
    %x = arith.addf %o1, %o2 : tensor<64x64xf32, #w>
    scf.yield %x : tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A warp-specialized consumer's release goes along with the full wait it
// follows (turns in between are passed), as long as the wait still
// retires every product: moved past the second product, it would release
// the slot that product may still read, so that wait stays.
// CHECK-LABEL: tile.func public @release_moves_with_its_wait(
// CHECK: %[[D1:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: %[[W1:.*]] = tilegpu.warp_group_dot_wait %[[D1]] {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release
// CHECK-NEXT: tilegpu.warp_group_turn_wait 3, 2
// CHECK-NEXT: %[[D2:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2
// CHECK-NEXT: arith.mulf %[[W1]]
// CHECK-NEXT: %[[W2:.*]] = tilegpu.warp_group_dot_wait %[[D2]] {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release
// CHECK-NEXT: arith.addf %[[W2]]
tile.func public @release_moves_with_its_wait(%ch: !tilegpu.channel<2>, %a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #w>) : i32 {
    %d1 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o1 = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    tilegpu.channel_release %ch, %i : !tilegpu.channel<2>
    tilegpu.warp_group_turn_wait 3, 2
    %d2 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_pass 3, 2
    %o2 = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    tilegpu.channel_release %ch, %i : !tilegpu.channel<2>
    %x = arith.mulf %o1, %o1 : tensor<64x64xf32, #w>
    %y = arith.addf %o2, %x : tensor<64x64xf32, #w>
    scf.yield %y : tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// Rotated, turn-taking: once the first product's wait has moved down to
// its use, the two products are issued back to back and share one turn
// (FlashAttention-3 issues both GEMMs of an iteration in one scheduler
// turn).
// CHECK-LABEL: tile.func public @back_to_back_products_share_a_turn(
// CHECK: tilegpu.warp_group_turn_wait 3, 2
// CHECK-NEXT: %[[D1:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: %[[D2:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2
// CHECK-NOT: tilegpu.warp_group_turn
// CHECK: scf.yield
tile.func public @back_to_back_products_share_a_turn(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %s0 = %acc0) -> (tensor<64x64xf32, #w>, tensor<64x64xf32, #w>) : i32 {
    tilegpu.warp_group_turn_wait 3, 2
    %d1 = tilegpu.warp_group_dot %a, %b, %acc0 : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_pass 3, 2
    %s = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_wait 3, 2
    %d2 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_pass 3, 2
    %o = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %x = arith.mulf %s, %s : tensor<64x64xf32, #w>
    %y = arith.addf %o, %s0 : tensor<64x64xf32, #w>
    scf.yield %y, %x : tensor<64x64xf32, #w>, tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// In order: the second product reads the first's result, so a wait stands
// between them (it sinks past the turns to its use) and each product keeps
// its own turn: holding the turn through the wait would keep the other
// warpgroup from the tensor cores meanwhile.
// CHECK-LABEL: tile.func public @in_order_products_keep_their_turns(
// CHECK: tilegpu.warp_group_turn_wait 3, 2
// CHECK-NEXT: tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2
// CHECK-NEXT: tilegpu.warp_group_turn_wait 3, 2
// CHECK-NEXT: tilegpu.warp_group_dot_wait
// CHECK-NEXT: tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_turn_pass 3, 2
tile.func public @in_order_products_keep_their_turns(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #w>) : i32 {
    tilegpu.warp_group_turn_wait 3, 2
    %d1 = tilegpu.warp_group_dot %a, %b, %acc0 : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_pass 3, 2
    %s = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_wait 3, 2
    %d2 = tilegpu.warp_group_dot %a, %b, %s : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    tilegpu.warp_group_turn_pass 3, 2
    %o = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    scf.yield %o : tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#da = #tilegpu.dot_op<opIdx = 0, parent = #w, kWidth = 2>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// FlashAttention-3's order: O (the previous iteration's PV, retired by the
// wait the body ends with) is rescaled between QK^T and PV. The rescale
// gets a wait of its own that leaves QK^T in flight (pendings 1), so that
// ptxas sees O retired after the latest commit instead of injecting a full
// wait there, which would hold PV back until QK^T is done.
// CHECK-LABEL: tile.func public @carried_product_used_between_products(
// CHECK: scf.for {{.*}} iter_args(%[[P:[^ ]*]] = %{{.*}}, %[[ACC:[^ ]*]] = %{{.*}}, %[[ALPHA:[^ ]*]] = %{{.*}})
// CHECK-NEXT: %[[QK:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: %[[O:.*]] = tilegpu.warp_group_dot_wait %[[ACC]] {pendings = 1 : i32}
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[O]], %[[ALPHA]]
// CHECK-NEXT: %[[PV:.*]] = tilegpu.warp_group_dot %[[P]], %{{.*}}, %[[R]]
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[QK]] {pendings = 1 : i32}
// CHECK: tilegpu.warp_group_dot_wait %[[PV]], %[[P]] {pendings = 0 : i32}
tile.func public @carried_product_used_between_products(%q: !tilegpu.memdesc<64x64xf16, #nv>, %k: !tilegpu.memdesc<64x64xf16, #nv>, %v: !tilegpu.memdesc<64x64xf16, #nv>, %p0: tensor<64x64xf16, #da>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #w>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %acc0, %alpha = %zero) -> (tensor<64x64xf16, #da>, tensor<64x64xf32, #w>, tensor<64x64xf32, #w>) : i32 {
    %qk = tilegpu.warp_group_dot %q, %k, %zero : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %s = tilegpu.warp_group_dot_wait %qk {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %rescaled = arith.mulf %acc, %alpha : tensor<64x64xf32, #w>
    %pv = tilegpu.warp_group_dot %p, %v, %rescaled : tensor<64x64xf16, #da> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o = tilegpu.warp_group_dot_wait %pv {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %e = math.exp2 %s : tensor<64x64xf32, #w>
    %pn = arith.truncf %e : tensor<64x64xf32, #w> to tensor<64x64xf16, #w>
    %pd = tilegpu.convert_layout %pn : tensor<64x64xf16, #w> -> tensor<64x64xf16, #da>
    scf.yield %pd, %o, %e : tensor<64x64xf16, #da>, tensor<64x64xf32, #w>, tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A carried product that only the next product reads (accumulates into)
// needs no wait of its own.
// CHECK-LABEL: tile.func public @carried_product_read_by_a_product(
// CHECK: scf.for
// CHECK-NEXT: tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NOT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK: scf.yield
tile.func public @carried_product_read_by_a_product(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #w>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %y = %zero) -> (tensor<64x64xf32, #w>, tensor<64x64xf32, #w>) : i32 {
    %d1 = tilegpu.warp_group_dot %a, %b, %zero : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %s = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %d2 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %x = arith.addf %s, %y : tensor<64x64xf32, #w>
    scf.yield %o, %x : tensor<64x64xf32, #w>, tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#da = #tilegpu.dot_op<opIdx = 0, parent = #w, kWidth = 2>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#s = #tilegpu.slice<dim = 1, parent = #w>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// The causal softmax's mask chosen per block by a uniform branch: a branch
// of pure ops (a reduction included) is passed like them, so PV is waited
// for after the softmax, not before it.
// CHECK-LABEL: tile.func public @wait_passes_a_pure_branch(
// CHECK: %[[QK:.*]] = tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} : !tilegpu.memdesc
// CHECK-NEXT: %[[PV:.*]] = tilegpu.warp_group_dot %[[P:[^,]*]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #{{.*}}>
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: %[[S:.*]] = tilegpu.warp_group_dot_wait %[[QK]] {pendings = 1 : i32}
// CHECK-NEXT: %[[E:.*]] = scf.if
// CHECK: tile.reduce
// CHECK: } else {
// CHECK: math.exp2
// CHECK: }
// CHECK-NEXT: %[[L:.*]] = tile.reduce %[[E]]
// CHECK: tilegpu.schedule_after %[[L]] : tensor<64xf32, #{{.*}}>
// CHECK-NEXT: %[[O:.*]]:2 = tilegpu.warp_group_dot_wait %[[PV]], %[[P]] {pendings = 0 : i32}
// CHECK-NEXT: arith.mulf %[[O]]#0
tile.func public @wait_passes_a_pure_branch(%q: !tilegpu.memdesc<64x64xf16, #nv>, %k: !tilegpu.memdesc<64x64xf16, #nv>, %v: !tilegpu.memdesc<64x64xf16, #nv>, %p0: tensor<64x64xf16, #da>, %acc0: tensor<64x64xf32, #w>, %lo: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #w>
  %ninf = arith.constant dense<0xFF800000> : tensor<64x64xf32, #w>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %acc0) -> (tensor<64x64xf16, #da>, tensor<64x64xf32, #w>) : i32 {
    %qk = tilegpu.warp_group_dot %q, %k, %zero : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %s = tilegpu.warp_group_dot_wait %qk {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %pv = tilegpu.warp_group_dot %p, %v, %acc : tensor<64x64xf16, #da> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o = tilegpu.warp_group_dot_wait %pv {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %diag = arith.cmpi sge, %i, %lo : i32
    %e = scf.if %diag -> (tensor<64x64xf32, #w>) {
      %m = "tile.reduce"(%s) <{axis = 1 : i32}> ({
      ^bb0(%a: f32, %b: f32):
        %x = arith.maxnumf %a, %b : f32
        tile.reduce.return %x : f32
      }) : (tensor<64x64xf32, #w>) -> tensor<64xf32, #s>
      %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #s> -> tensor<64x1xf32, #w>
      %mb = tile.broadcast %me : tensor<64x1xf32, #w> -> tensor<64x64xf32, #w>
      %d = arith.subf %s, %mb : tensor<64x64xf32, #w>
      %keep = arith.cmpf ogt, %d, %ninf : tensor<64x64xf32, #w>
      %dm = arith.select %keep, %d, %ninf : tensor<64x64xi1, #w>, tensor<64x64xf32, #w>
      %x = math.exp2 %dm : tensor<64x64xf32, #w>
      scf.yield %x : tensor<64x64xf32, #w>
    } else {
      %x = math.exp2 %s : tensor<64x64xf32, #w>
      scf.yield %x : tensor<64x64xf32, #w>
    }
    %l = "tile.reduce"(%e) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %x = arith.addf %a, %b : f32
      tile.reduce.return %x : f32
    }) : (tensor<64x64xf32, #w>) -> tensor<64xf32, #s>
    %le = tile.expand_dims %l {axis = 1 : i32} : tensor<64xf32, #s> -> tensor<64x1xf32, #w>
    %lb = tile.broadcast %le : tensor<64x1xf32, #w> -> tensor<64x64xf32, #w>
    %scaled = arith.mulf %o, %lb : tensor<64x64xf32, #w>
    %pn = arith.truncf %e : tensor<64x64xf32, #w> to tensor<64x64xf16, #w>
    %pd = tilegpu.convert_layout %pn : tensor<64x64xf16, #w> -> tensor<64x64xf16, #da>
    scf.yield %pd, %scaled : tensor<64x64xf16, #da>, tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A branch that issues a product of its own stops the wait: how many
// products the wait may leave in flight would depend on the branch taken.
// CHECK-LABEL: tile.func public @wait_stops_at_a_branch_with_a_product(
// CHECK: %[[D1:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: %[[D2:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D1]] {pendings = 1 : i32}
// CHECK-NEXT: %[[W2:.*]] = tilegpu.warp_group_dot_wait %[[D2]] {pendings = 0 : i32}
// CHECK-NEXT: scf.if
tile.func public @wait_stops_at_a_branch_with_a_product(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %c: i1, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #w>) : i32 {
    %d1 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o1 = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %d2 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o2 = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %y = scf.if %c -> (tensor<64x64xf32, #w>) {
      %d3 = tilegpu.warp_group_dot %a, %b, %o1 : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
      %o3 = tilegpu.warp_group_dot_wait %d3 {pendings = 0 : i32} : tensor<64x64xf32, #w>
      scf.yield %o3 : tensor<64x64xf32, #w>
    } else {
      scf.yield %o1 : tensor<64x64xf32, #w>
    }
    %x = arith.addf %o2, %y : tensor<64x64xf32, #w>
    scf.yield %x : tensor<64x64xf32, #w>
  }
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A branch that writes memory stops the wait (a product in flight may read
// what it writes).
// CHECK-LABEL: tile.func public @wait_stops_at_a_branch_that_stores(
// CHECK: %[[D1:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: %[[D2:.*]] = tilegpu.warp_group_dot
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D1]] {pendings = 1 : i32}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %[[D2]] {pendings = 0 : i32}
// CHECK-NEXT: scf.if
tile.func public @wait_stops_at_a_branch_that_stores(%a: !tilegpu.memdesc<64x64xf16, #nv, mutable>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %acc0: tensor<64x64xf32, #w>, %t: tensor<64x64xf16, #w>, %c: i1, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32, #w>) : i32 {
    %d1 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv, mutable> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o1 = tilegpu.warp_group_dot_wait %d1 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    %d2 = tilegpu.warp_group_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #nv, mutable> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
    %o2 = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
    scf.if %c {
      tilegpu.local_store %t, %a : tensor<64x64xf16, #w> -> !tilegpu.memdesc<64x64xf16, #nv, mutable>
    }
    %x = arith.addf %o1, %o2 : tensor<64x64xf32, #w>
    scf.yield %x : tensor<64x64xf32, #w>
  }
  tile.return
}
}
