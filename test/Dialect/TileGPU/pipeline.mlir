// RUN: warpforge-opt %s --split-input-file --tilegpu-software-pipeline | FileCheck %s
// The kernel's num_stages comes from the module (tilegpu.num-stages, which
// convert-tile-to-tilegpu stamps): wrap each function in a module that says 4.
// RUN: sed -e 's/^tile.func /module attributes {"tilegpu.num-stages" = 4 : i32} {\ntile.func /' -e 's/^}$/}\n}/' %s | warpforge-opt --split-input-file --tilegpu-software-pipeline | FileCheck %s --check-prefix=OPT4

// Each function is the K loop of a 128x128x64 f16 matmul as the Hopper
// layout pass leaves it: operand loads into local_alloc, warp_group_dot,
// warp_group_dot_wait {pendings = 0}, pointer increments.  The mask of A
// is computed from the induction variable (k * 64 < K).

// -----

// Three stages (the default): two iterations in flight.
// CHECK-LABEL: tile.func public @stages3(
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable, buffers = 3>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #{{.*}}, mutable, buffers = 3>
// Prologue iteration 0: the pointers advance once for iteration 1, the
// predicate 0 < n is and-ed into the mask, buffer 0.
// CHECK: %[[PA1:.*]] = tile.addptr %[[PA0:[^,]*]], %[[STEPA:[^ ]*]] :
// CHECK: %[[PB1:.*]] = tile.addptr %[[PB0:[^,]*]], %[[STEPB:[^ ]*]] :
// CHECK: %[[P0:.*]] = arith.cmpi slt, %c0_i32, %[[N:.*]] : i32
// CHECK: %[[P0A:.*]] = tile.splat %[[P0]] : i1 -> tensor<128x64xi1, #{{.*}}>
// CHECK: %[[M0:.*]] = arith.andi %{{.*}}, %[[P0A]]
// CHECK: %[[A0:.*]] = tilegpu.memdesc_index %[[A]][%[[I0:.*]]]
// CHECK: %[[CA0:.*]] = tilegpu.async_copy_global_to_local %[[PA0]], %[[A0]] mask %[[M0]]
// CHECK: %[[B0:.*]] = tilegpu.memdesc_index %[[B]][%[[I0]]]
// CHECK: %[[CB0:.*]] = tilegpu.async_copy_global_to_local %[[PB0]], %[[B0]] mask
// CHECK: tilegpu.async_commit_group tokens %[[CA0]], %[[CB0]]
// Prologue iteration 1: buffer 1.
// CHECK: %[[PA2:.*]] = tile.addptr %[[PA1]], %[[STEPA]]
// CHECK: %[[PB2:.*]] = tile.addptr %[[PB1]], %[[STEPB]]
// CHECK: tilegpu.async_copy_global_to_local %[[PA1]], %{{.*}} mask
// CHECK: tilegpu.async_copy_global_to_local %[[PB1]], %{{.*}} mask
// CHECK: tilegpu.async_commit_group tokens
// CHECK-NOT: async_copy
// CHECK-NOT: async_wait
// The loop carries acc, the pointers two iterations ahead, and the ring
// indices 0 and 2.  It waits for its own copies first (all but the newest
// group), then multiplies.
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[TWO:.*]] = arith.constant 2 : i32
// CHECK: %[[R:.*]]:5 = scf.for %[[K:.*]] = %c0_i32 to %[[N]] step %[[ST:[^ ]*]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[QA:.*]] = %[[PA2]], %[[QB:.*]] = %[[PB2]], %[[RD:.*]] = %[[ZERO]], %[[WR:.*]] = %[[TWO]])
// CHECK-NEXT: tilegpu.async_wait {num = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[VA:.*]] = tilegpu.memdesc_index %[[A]][%[[RD]]] : !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable, buffers = 3> -> !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable>
// CHECK-NEXT: %[[VB:.*]] = tilegpu.memdesc_index %[[B]][%[[RD]]]
// CHECK-NEXT: %[[D:.*]] = tilegpu.warp_group_dot %[[VA]], %[[VB]], %[[ACC]]
// CHECK-NEXT: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NOT: async_wait
// The mask and predicate of iteration k + 2.
// CHECK: %[[K2:.*]] = arith.addi %[[K]], %{{.*}} : i32
// CHECK: arith.muli %[[K2]], %c64_i32
// CHECK: arith.cmpi slt, %[[K2]], %[[N]] : i32
// CHECK: tilegpu.memdesc_index %[[A]][%[[WR]]]
// CHECK: tilegpu.async_copy_global_to_local %[[QA]], %{{.*}} mask
// CHECK: tilegpu.memdesc_index %[[B]][%[[WR]]]
// CHECK: tilegpu.async_copy_global_to_local %[[QB]], %{{.*}} mask
// CHECK: tilegpu.async_commit_group tokens
// CHECK-NOT: tile.load
// The next pointers are computed after the copies' last use of the current
// ones, right before the yield (so the two can share registers).
// CHECK: %[[NA:.*]] = tile.addptr %[[QA]], %[[STEPA]]
// CHECK-NEXT: %[[NB:.*]] = tile.addptr %[[QB]], %[[STEPB]]
// CHECK-NEXT: scf.yield %[[W]], %[[NA]], %[[NB]], %{{.*}}, %{{.*}} :
// CHECK-NEXT: }
// CHECK-NEXT: %[[FINAL:.*]] = tilegpu.warp_group_dot_wait %[[R]]#0 {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.async_wait {num = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tilegpu.local_dealloc %[[A]]
// CHECK-NEXT: tilegpu.local_dealloc %[[B]]
// CHECK-NEXT: arith.truncf %[[FINAL]]
// OPT4-LABEL: tile.func public @stages3(
// OPT4: buffers = 4
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @stages3(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// Two stages (per-loop attribute, also over the option): the copies for
// k + 1 are issued in iteration k, after the barrier that frees their
// buffer, and waited for at the top of iteration k + 1.
// CHECK-LABEL: tile.func public @stages2(
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable, buffers = 2>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #{{.*}}, mutable, buffers = 2>
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local
// CHECK-NEXT: tilegpu.async_commit_group tokens
// CHECK-NOT: async_wait
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[RD:.*]] = %c0_i32{{.*}}, %[[WR:.*]] = %c1_i32{{.*}})
// CHECK-NEXT: tilegpu.async_wait {num = 0 : i32}
// CHECK-NEXT: tile.barrier
// CHECK-NOT: tile.num_stages
// CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK: tilegpu.memdesc_index %[[A]][%[[WR]]]
// CHECK: tilegpu.async_copy_global_to_local
// CHECK: tilegpu.memdesc_index %[[B]][%[[WR]]]
// CHECK: tilegpu.async_copy_global_to_local
// CHECK-NEXT: tilegpu.async_commit_group tokens
// CHECK-NOT: async_wait
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.async_wait {num = 0 : i32}
// OPT4-LABEL: tile.func public @stages2(
// OPT4: tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable, buffers = 2>
// OPT4-NOT: buffers = 4
// OPT4: tile.return
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @stages2(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  } {tile.num_stages = 2 : i32}
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// Four stages: three prologue groups; each iteration waits for all but
// the two newest.
// CHECK-LABEL: tile.func public @stages4(
// CHECK: %[[A:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable, buffers = 4>
// CHECK: %[[B:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #{{.*}}, mutable, buffers = 4>
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local
// CHECK-NEXT: tilegpu.async_commit_group tokens
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local
// CHECK-NEXT: tilegpu.async_commit_group tokens
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local
// CHECK-NEXT: tilegpu.async_commit_group tokens
// CHECK: %[[THREE:.*]] = arith.constant 3 : i32
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[RD:.*]] = %c0_i32{{.*}}, %[[WR:.*]] = %[[THREE]])
// CHECK-NEXT: tilegpu.async_wait {num = 2 : i32}
// CHECK-NEXT: tile.barrier
// CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK-NEXT: tile.barrier
// CHECK: %[[NEXT:.*]] = arith.addi %[[RD]], %{{.*}} : i32
// CHECK: %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %{{.*}} : i32
// CHECK: arith.select %[[WRAP]], %{{.*}}, %[[NEXT]] : i32
// CHECK: scf.yield
// CHECK: tilegpu.local_dealloc %[[A]] : !tilegpu.memdesc<128x64xf16, #{{.*}}, mutable, buffers = 4>
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @stages4(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  } {tile.num_stages = 4 : i32}
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// One stage: nothing to overlap, the loop stays (the option too loses to
// the attribute).
// CHECK-LABEL: tile.func public @stages1(
// CHECK-NOT: tilegpu.async_copy_global_to_local
// CHECK: tile.load
// CHECK: tile.load
// CHECK: {pendings = 0 : i32}
// CHECK: {tile.num_stages = 1 : i32}
// OPT4-LABEL: tile.func public @stages1(
// OPT4-NOT: async_copy
// OPT4: tile.return
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @stages1(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  } {tile.num_stages = 1 : i32}
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// Without a mask, the copies' mask is the predicate alone.
// CHECK-LABEL: tile.func public @no_mask(
// CHECK: %[[P0:.*]] = arith.cmpi slt, %c0_i32, %{{.*}} : i32
// CHECK: %[[M0:.*]] = tile.splat %[[P0]] : i1 -> tensor<128x64xi1, #{{.*}}>
// CHECK: %[[A0:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.async_copy_global_to_local %{{.*}}, %[[A0]] mask %[[M0]] :
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @no_mask(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %a = tile.load %a_ptrs : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// A non-zero `other` keeps A a synchronous load; B is still pipelined, and
// the product, which reads A's per-iteration buffer, is waited for fully.
// CHECK-LABEL: tile.func public @other_not_zero(
// CHECK-COUNT-2: tilegpu.async_copy_global_to_local {{.*}} : tensor<64x128x!tile.ptr<f16>
// CHECK: scf.for
// CHECK: %[[LA:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64x!tile.ptr<f16>
// CHECK: tilegpu.local_alloc %[[LA]] :
// CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK: tilegpu.async_copy_global_to_local {{.*}} : tensor<64x128x!tile.ptr<f16>
// CHECK-NOT: async_copy
// CHECK: scf.yield
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @other_not_zero(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<1.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// A loaded value read elsewhere than by its allocation stays synchronous.
// CHECK-LABEL: tile.func public @load_has_other_user(
// CHECK: scf.for
// CHECK: %[[LA:.*]] = tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>
// CHECK: tilegpu.local_alloc %[[LA]] :
// CHECK: arith.addf %[[LA]], %[[LA]]
// CHECK: {pendings = 0 : i32}
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @load_has_other_user(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %twice = arith.addf %a, %a : tensor<128x64xf16, #blA>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// A's base pointer has no alignment hint: each thread could copy only 2
// bytes, below cp.async's 4, so A stays synchronous.
// CHECK-LABEL: tile.func public @unaligned(
// CHECK-NOT: tilegpu.async_copy_global_to_local {{.*}} : tensor<128x64x!tile.ptr<f16>
// CHECK: scf.for
// CHECK: tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>
// CHECK-NOT: tilegpu.async_copy_global_to_local {{.*}} : tensor<128x64x!tile.ptr<f16>
// CHECK: tilegpu.async_copy_global_to_local {{.*}} : tensor<64x128x!tile.ptr<f16>
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @unaligned(%pa: !tile.ptr<f16>, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// A loop without a product is left alone.
// CHECK-LABEL: tile.func public @no_dot(
// CHECK-NOT: async_copy
// CHECK: tile.load
// CHECK: tile.load
// CHECK: tile.return
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @no_dot(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %w = arith.addf %acc, %acc : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}

// -----

// A's pointers are also read by another load: carried ahead they would be
// wrong for it, so the loop is left alone.
// CHECK-LABEL: tile.func public @chain_read_elsewhere(
// CHECK-NOT: async_copy
// CHECK: scf.for
// CHECK-COUNT-3: tile.load
// CHECK: {pendings = 0 : i32}
#blA = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blB = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#sA = #tilegpu.slice<dim = 0, parent = #blA>
#sB = #tilegpu.slice<dim = 0, parent = #blB>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

tile.func public @chain_read_elsewhere(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %K: i32 {tile.divisibility = 16 : i32}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %n = arith.divsi %K, %c64 : i32
  %acc0 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #wgmma>
  %ra = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #sA>
  %ra2 = tile.expand_dims %ra {axis = 0 : i32} : tensor<64xi32, #sA> -> tensor<1x64xi32, #blA>
  %offA = tile.broadcast %ra2 : tensor<1x64xi32, #blA> -> tensor<128x64xi32, #blA>
  %pas = tile.splat %pa : !tile.ptr<f16> -> tensor<128x64x!tile.ptr<f16>, #blA>
  %pa0 = tile.addptr %pas, %offA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
  %rb = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #sB>
  %rb2 = tile.expand_dims %rb {axis = 0 : i32} : tensor<128xi32, #sB> -> tensor<1x128xi32, #blB>
  %offB = tile.broadcast %rb2 : tensor<1x128xi32, #blB> -> tensor<64x128xi32, #blB>
  %pbs = tile.splat %pb : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #blB>
  %pb0 = tile.addptr %pbs, %offB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
  %stepA = tile.splat %c64 : i32 -> tensor<128x64xi32, #blA>
  %stepB = arith.constant dense<8192> : tensor<64x128xi32, #blB>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x64xf16, #blA>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %acc0, %a_ptrs = %pa0, %b_ptrs = %pb0) -> (tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>) : i32 {
    %kk = arith.muli %k, %c64 : i32
    %rem = arith.subi %K, %kk : i32
    %remA = tile.splat %rem : i32 -> tensor<128x64xi32, #blA>
    %ma = arith.cmpi slt, %offA, %remA : tensor<128x64xi32, #blA>
    %a = tile.load %a_ptrs, %ma, %zero : tensor<128x64x!tile.ptr<f16>, #blA>
    %b = tile.load %b_ptrs : tensor<64x128x!tile.ptr<f16>, #blB>
    %as = tilegpu.local_alloc %a : (tensor<128x64xf16, #blA>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %bs = tilegpu.local_alloc %b : (tensor<64x128xf16, #blB>) -> !tilegpu.memdesc<64x128xf16, #nv>
    %peek = tile.load %a_ptrs : tensor<128x64x!tile.ptr<f16>, #blA>
    %d = tilegpu.warp_group_dot %as, %bs, %acc : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<128x128xf32, #wgmma>
    %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    %a_next = tile.addptr %a_ptrs, %stepA : tensor<128x64x!tile.ptr<f16>, #blA>, tensor<128x64xi32, #blA>
    %b_next = tile.addptr %b_ptrs, %stepB : tensor<64x128x!tile.ptr<f16>, #blB>, tensor<64x128xi32, #blB>
    scf.yield %w, %a_next, %b_next : tensor<128x128xf32, #wgmma>, tensor<128x64x!tile.ptr<f16>, #blA>, tensor<64x128x!tile.ptr<f16>, #blB>
  }
  %out = arith.truncf %r#0 : tensor<128x128xf32, #wgmma> to tensor<128x128xf16, #wgmma>
  %pcs = tile.splat %pc : !tile.ptr<f16> -> tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.store %pcs, %out : tensor<128x128x!tile.ptr<f16>, #wgmma>
  tile.return
}
