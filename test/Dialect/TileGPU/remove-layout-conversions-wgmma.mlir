// RUN: warpforge-opt %s --split-input-file --tilegpu-remove-layout-conversions | FileCheck %s

// Conversions out of wgmma accumulator layouts: the ops that can compute in
// the accumulator's registers do (forced forward propagation), a loop and
// an if carry such values in the accumulator's layout, and a 16-bit A
// operand in a wgmma layout is read from registers.

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#rows = #tilegpu.slice<dim = 1, parent = #b>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A row softmax of a product: the max, the exp2 and the sum in the wgmma
// layout and its row slice; the one conversion left is the f16 result's,
// before its store.
// CHECK-LABEL: tile.func public @softmax_in_accumulator_registers(
// CHECK: %[[M:.*]] = tile.reduce %[[X:[^ ]*]] axis = 1 : tensor<64x64xf32, #wgmma> -> tensor<64xf32, #[[SL:slice[0-9]*]]>
// CHECK: tile.expand_dims %[[M]] {axis = 1 : i32} : tensor<64xf32, #[[SL]]> -> tensor<64x1xf32, #wgmma>
// CHECK: math.exp2 %{{.*}} : tensor<64x64xf32, #wgmma>
// CHECK: arith.truncf %{{.*}} : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
// CHECK-NEXT: tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
// CHECK-NOT: tilegpu.convert_layout
tile.func public @softmax_in_accumulator_registers(%acc: tensor<64x64xf32, #w>, %out: tensor<64x64x!tile.ptr<f16>, #b>) {
  %x = tilegpu.convert_layout %acc : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
  %m = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %v = arith.maxnumf %l, %r : f32
    tile.reduce.return %v : f32
  }) : (tensor<64x64xf32, #b>) -> tensor<64xf32, #rows>
  %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32, #rows> -> tensor<64x1xf32, #b>
  %mb = tile.broadcast %me : tensor<64x1xf32, #b> -> tensor<64x64xf32, #b>
  %d = arith.subf %x, %mb : tensor<64x64xf32, #b>
  %e = math.exp2 %d : tensor<64x64xf32, #b>
  %h = arith.truncf %e : tensor<64x64xf32, #b> to tensor<64x64xf16, #b>
  tile.store %out, %h : tensor<64x64x!tile.ptr<f16>, #b>
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#rows = #tilegpu.slice<dim = 1, parent = #b>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A running row maximum the loop carries: in the accumulator's row slice
// (converted once before and once after the loop, nothing inside).
// CHECK-LABEL: tile.func public @loop_carries_the_row_slice(
// CHECK: %[[INIT:.*]] = arith.constant dense<0xFF800000> : tensor<64xf32, #[[SL:slice[0-9]*]]>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ARG:.*]] = %[[INIT]]) -> (tensor<64xf32, #[[SL]]>)
// CHECK-NOT: tilegpu.convert_layout
// CHECK: arith.maxnumf %[[ARG]], %{{.*}} : tensor<64xf32, #[[SL]]>
// CHECK: scf.yield %{{.*}} : tensor<64xf32, #[[SL]]>
// CHECK: tilegpu.convert_layout %[[R]] : tensor<64xf32, #[[SL]]> -> tensor<64xf32, #blocked{{[0-9]*}}>
tile.func public @loop_carries_the_row_slice(%acc: tensor<64x64xf32, #w>, %n: i32, %out: tensor<64x!tile.ptr<f32>, #b1>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant dense<0xFF800000> : tensor<64xf32, #b1>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%m = %init) -> (tensor<64xf32, #b1>) : i32 {
    %x = tilegpu.convert_layout %acc : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
    %row = "tile.reduce"(%x) <{axis = 1 : i32}> ({
    ^bb0(%l: f32, %rr: f32):
      %v = arith.maxnumf %l, %rr : f32
      tile.reduce.return %v : f32
    }) : (tensor<64x64xf32, #b>) -> tensor<64xf32, #rows>
    %row1 = tilegpu.convert_layout %row : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
    %next = arith.maxnumf %m, %row1 : tensor<64xf32, #b1>
    scf.yield %next : tensor<64xf32, #b1>
  }
  tile.store %out, %r : tensor<64x!tile.ptr<f32>, #b1>
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// An if whose branches both yield a value converted out of the accumulator
// layout yields it in that layout.
// CHECK-LABEL: tile.func public @if_yields_the_accumulator_layout(
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<64x64xf32, #wgmma>)
// CHECK: tilegpu.convert_layout %[[R]] : tensor<64x64xf32, #wgmma> -> tensor<64x64xf32, #blocked>
tile.func public @if_yields_the_accumulator_layout(%a: tensor<64x64xf32, #w>, %c: i1, %out: tensor<64x64x!tile.ptr<f32>, #b>) {
  %r = scf.if %c -> (tensor<64x64xf32, #b>) {
    %x = arith.addf %a, %a : tensor<64x64xf32, #w>
    %xb = tilegpu.convert_layout %x : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
    scf.yield %xb : tensor<64x64xf32, #b>
  } else {
    %ab = tilegpu.convert_layout %a : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
    scf.yield %ab : tensor<64x64xf32, #b>
  }
  tile.store %out, %r : tensor<64x64x!tile.ptr<f32>, #b>
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// P, a 16-bit value in a wgmma layout with the product's warps, stored to
// shared memory only for the product's A: read from registers instead.
// CHECK-LABEL: tile.func public @p_from_registers(
// CHECK-NOT: tilegpu.local_alloc
// CHECK: %[[A:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #dot_op>
// CHECK: tilegpu.warp_group_dot %[[A]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #dot_op> * !tilegpu.memdesc
tile.func public @p_from_registers(%p: tensor<64x64xf16, #w>, %v: !tilegpu.memdesc<64x64xf16, #nv>, %acc: tensor<64x64xf32, #w>, %out: tensor<64x64x!tile.ptr<f32>, #b>) {
  %pb = tilegpu.convert_layout %p : tensor<64x64xf16, #w> -> tensor<64x64xf16, #b>
  %ps = tilegpu.local_alloc %pb : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<64x64xf16, #nv>
  %d = tilegpu.warp_group_dot %ps, %v, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
  %o = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #w>
  %ob = tilegpu.convert_layout %o : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
  tile.store %out, %ob : tensor<64x64x!tile.ptr<f32>, #b>
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// Pure inline PTX is arithmetic: it computes in the accumulator's
// registers, four of a thread's 32 elements per invocation (an exp2 partly
// on the FMA pipes); only the f16 result is converted, for its store.
// CHECK-LABEL: tile.func public @pure_inline_asm_in_accumulator_registers(
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.elementwise_inline_asm {{.*}} : tensor<64x64xf32, #wgmma> -> tensor<64x64xf32, #wgmma>
// CHECK: arith.truncf %{{.*}} : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
// CHECK-NEXT: tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
tile.func public @pure_inline_asm_in_accumulator_registers(%acc: tensor<64x64xf32, #w>, %out: tensor<64x64x!tile.ptr<f16>, #b>) {
  %x = tilegpu.convert_layout %acc : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
  %e = tile.elementwise_inline_asm "ex2.approx.ftz.f32 $0, $4;\0Aex2.approx.ftz.f32 $1, $5;\0Aex2.approx.ftz.f32 $2, $6;\0Aex2.approx.ftz.f32 $3, $7;" {constraints = "=r,=r,=r,=r,r,r,r,r", packed_element = 4 : i32, pure = true} %x : tensor<64x64xf32, #b> -> tensor<64x64xf32, #b>
  %h = arith.truncf %e : tensor<64x64xf32, #b> to tensor<64x64xf16, #b>
  tile.store %out, %h : tensor<64x64x!tile.ptr<f16>, #b>
  tile.return
}

// Inline PTX that may touch memory keeps the blocked layout (it is not
// moved): the conversion stays before it.
// CHECK-LABEL: tile.func public @impure_inline_asm_stays_blocked(
// CHECK: %[[X:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x64xf32, #wgmma> -> tensor<64x64xf32, #blocked>
// CHECK: tile.elementwise_inline_asm {{.*}} %[[X]] : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #blocked>
tile.func public @impure_inline_asm_stays_blocked(%acc: tensor<64x64xf32, #w>, %out: tensor<64x64x!tile.ptr<f32>, #b>) {
  %x = tilegpu.convert_layout %acc : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
  %e = tile.elementwise_inline_asm "mov.b32 $0, $1;" {constraints = "=r,r", packed_element = 1 : i32, pure = false} %x : tensor<64x64xf32, #b> -> tensor<64x64xf32, #b>
  tile.store %out, %e : tensor<64x64x!tile.ptr<f32>, #b>
  tile.return
}
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#b = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#rows = #tilegpu.slice<dim = 1, parent = #b>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
// A pack must divide a thread's elements: the row maximum sits in the
// accumulator's row slice (2 rows a thread), too few for a pack of 4, so
// the inline PTX stays in the blocked row slice (8 rows a thread) and the
// row vector is converted before it.
// CHECK-LABEL: tile.func public @inline_asm_pack_must_divide_the_elements(
// CHECK: %[[M:.*]] = tile.reduce %{{.*}} axis = 1 : tensor<64x64xf32, #wgmma> -> tensor<64xf32, #[[SL:slice[0-9]*]]>
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[M]] : tensor<64xf32, #[[SL]]> -> tensor<64xf32, #[[ROWS:slice[0-9]*]]>
// CHECK: tile.elementwise_inline_asm {{.*}} %[[C]] : tensor<64xf32, #[[ROWS]]> -> tensor<64xf32, #[[ROWS]]>
tile.func public @inline_asm_pack_must_divide_the_elements(%acc: tensor<64x64xf32, #w>, %out: tensor<64x!tile.ptr<f32>, #rows>) {
  %x = tilegpu.convert_layout %acc : tensor<64x64xf32, #w> -> tensor<64x64xf32, #b>
  %m = "tile.reduce"(%x) <{axis = 1 : i32}> ({
  ^bb0(%l: f32, %r: f32):
    %v = arith.maxnumf %l, %r : f32
    tile.reduce.return %v : f32
  }) : (tensor<64x64xf32, #b>) -> tensor<64xf32, #rows>
  %e = tile.elementwise_inline_asm "ex2.approx.ftz.f32 $0, $4;\0Aex2.approx.ftz.f32 $1, $5;\0Aex2.approx.ftz.f32 $2, $6;\0Aex2.approx.ftz.f32 $3, $7;" {constraints = "=r,=r,=r,=r,r,r,r,r", packed_element = 4 : i32, pure = true} %m : tensor<64xf32, #rows> -> tensor<64xf32, #rows>
  tile.store %out, %e : tensor<64x!tile.ptr<f32>, #rows>
  tile.return
}
}
