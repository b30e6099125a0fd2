// RUN: warpforge-opt %s --tilegpu-remove-layout-conversions | FileCheck %s

// Each function shows one way a conversion goes (or why it stays).

// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[COL:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[BT:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-DAG: #[[ROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>
// CHECK-DAG: #[[COLS:slice[0-9]*]] = #tilegpu.slice<dim = 0, parent = #[[B2]]>
// CHECK-DAG: #[[COLROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[COL]]>
// CHECK-DAG: #[[BTROWS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[BT]]>
// CHECK-DAG: #[[BTCOLS:slice[0-9]*]] = #tilegpu.slice<dim = 0, parent = #[[BT]]>

#b1 = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#rows = #tilegpu.slice<dim = 1, parent = #b2>
#cols = #tilegpu.slice<dim = 0, parent = #b2>
#colrows = #tilegpu.slice<dim = 1, parent = #col>
#opa = #tilegpu.dot_op<opIdx = 0, parent = #b2, kWidth = 1>

// A conversion to the layout the value has is no conversion.
// CHECK-LABEL: tile.func public @identity(
// CHECK-SAME: %[[X:[^:]*]]:
// CHECK-NEXT: tile.return %[[X]]
tile.func public @identity(%x: tensor<64xf32, #rows>) -> tensor<64xf32, #rows> {
  %0 = tilegpu.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #rows>
  tile.return %0 : tensor<64xf32, #rows>
}

// A conversion of a conversion converts from the first source.
// CHECK-LABEL: tile.func public @convert_of_convert(
// CHECK-SAME: %[[X:[^:]*]]:
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[X]] : tensor<64xf32, #[[ROWS]]> -> tensor<64xf32, #[[COLROWS]]>
// CHECK-NEXT: tile.return %[[C]]
tile.func public @convert_of_convert(%x: tensor<64xf32, #rows>) -> tensor<64xf32, #colrows> {
  %0 = tilegpu.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
  %1 = tilegpu.convert_layout %0 : tensor<64xf32, #b1> -> tensor<64xf32, #colrows>
  tile.return %1 : tensor<64xf32, #colrows>
}

// An index computation feeds expand_dims in another layout.
// CHECK-LABEL: tile.func public @remat_index(
// CHECK-NEXT: %[[R:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[COLROWS]]>
// CHECK-NEXT: %[[S:.*]] = tile.splat %{{.*}} : i32 -> tensor<64xi32, #[[COLROWS]]>
// CHECK-NEXT: %[[O:.*]] = arith.addi %[[S]], %[[R]] : tensor<64xi32, #[[COLROWS]]>
// CHECK-NEXT: tile.expand_dims %[[O]] {axis = 1 : i32} : tensor<64xi32, #[[COLROWS]]> -> tensor<64x1xi32, #[[COL]]>
// CHECK-NEXT: tile.return
tile.func public @remat_index(%start: i32) -> tensor<64x1xi32, #col> {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b1>
  %s = tile.splat %start : i32 -> tensor<64xi32, #b1>
  %o = arith.addi %s, %r : tensor<64xi32, #b1>
  %c = tilegpu.convert_layout %o : tensor<64xi32, #b1> -> tensor<64xi32, #colrows>
  %e = tile.expand_dims %c {axis = 1 : i32} : tensor<64xi32, #colrows> -> tensor<64x1xi32, #col>
  tile.return %e : tensor<64x1xi32, #col>
}

// A constant that is not a splat is created again in the target layout.
// CHECK-LABEL: tile.func public @remat_dense_constant(
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #[[COLROWS]]>
// CHECK-NEXT: tile.return %[[C]]
tile.func public @remat_dense_constant() -> tensor<4xi32, #colrows> {
  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #b1>
  %0 = tilegpu.convert_layout %c : tensor<4xi32, #b1> -> tensor<4xi32, #colrows>
  tile.return %0 : tensor<4xi32, #colrows>
}

// 2-D pointers from row and column indices, then broadcast.
// CHECK-LABEL: tile.func public @remat_pointer_grid(
// CHECK-NEXT: %[[R:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32, #[[ROWS]]> -> tensor<64x1xi32, #[[B2]]>
// CHECK-NEXT: %[[S:.*]] = tile.splat %{{.*}} : i32 -> tensor<64x1xi32, #[[B2]]>
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[E]], %[[S]] : tensor<64x1xi32, #[[B2]]>
// CHECK-NEXT: %[[P:.*]] = tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #[[B2]]>
// CHECK-NEXT: %[[A:.*]] = tile.addptr %[[P]], %[[M]] : tensor<64x1x!tile.ptr<f32>, #[[B2]]>, tensor<64x1xi32, #[[B2]]>
// CHECK-NEXT: tile.broadcast %[[A]] : tensor<64x1x!tile.ptr<f32>, #[[B2]]> -> tensor<64x64x!tile.ptr<f32>, #[[B2]]>
// CHECK-NEXT: tile.return
tile.func public @remat_pointer_grid(%p: !tile.ptr<f32>, %stride: i32) -> tensor<64x64x!tile.ptr<f32>, #b2> {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b1>
  %rc = tilegpu.convert_layout %r : tensor<64xi32, #b1> -> tensor<64xi32, #colrows>
  %rows = tile.expand_dims %rc {axis = 1 : i32} : tensor<64xi32, #colrows> -> tensor<64x1xi32, #col>
  %st = tile.splat %stride : i32 -> tensor<64x1xi32, #col>
  %ro = arith.muli %rows, %st : tensor<64x1xi32, #col>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x1x!tile.ptr<f32>, #col>
  %rp = tile.addptr %ps, %ro : tensor<64x1x!tile.ptr<f32>, #col>, tensor<64x1xi32, #col>
  %rpc = tilegpu.convert_layout %rp : tensor<64x1x!tile.ptr<f32>, #col> -> tensor<64x1x!tile.ptr<f32>, #b2>
  %g = tile.broadcast %rpc : tensor<64x1x!tile.ptr<f32>, #b2> -> tensor<64x64x!tile.ptr<f32>, #b2>
  tile.return %g : tensor<64x64x!tile.ptr<f32>, #b2>
}

// Through a transposition: its source is computed in the inverse
// permutation of the target layout.
// CHECK-LABEL: tile.func public @remat_through_trans(
// CHECK-NEXT: %[[R:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[BTCOLS]]>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 0 : i32} : tensor<64xi32, #[[BTCOLS]]> -> tensor<1x64xi32, #[[BT]]>
// CHECK-NEXT: %[[G:.*]] = tile.broadcast %[[E]] : tensor<1x64xi32, #[[BT]]> -> tensor<64x64xi32, #[[BT]]>
// CHECK-NEXT: %[[T:.*]] = tile.trans %[[G]] {order = array<i32: 1, 0>} : tensor<64x64xi32, #[[BT]]> -> tensor<64x64xi32, #[[B2]]>
// CHECK-NEXT: tile.return %[[T]]
tile.func public @remat_through_trans() -> tensor<64x64xi32, #b2> {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #cols>
  %e = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #b2>
  %g = tile.broadcast %e : tensor<1x64xi32, #b2> -> tensor<64x64xi32, #b2>
  %t = tile.trans %g {order = array<i32: 1, 0>} : tensor<64x64xi32, #b2> -> tensor<64x64xi32, #bt>
  %c = tilegpu.convert_layout %t : tensor<64x64xi32, #bt> -> tensor<64x64xi32, #b2>
  tile.return %c : tensor<64x64xi32, #b2>
}

// The original stays for its other users.
// CHECK-LABEL: tile.func public @remat_keeps_other_users(
// CHECK-DAG: %[[R1:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[B1]]>
// CHECK-DAG: %[[R2:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[COLROWS]]>
// CHECK-NEXT: tile.return %[[R1]], %[[R2]]
tile.func public @remat_keeps_other_users(%start: i32) -> (tensor<64xi32, #b1>, tensor<64xi32, #colrows>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b1>
  %c = tilegpu.convert_layout %r : tensor<64xi32, #b1> -> tensor<64xi32, #colrows>
  tile.return %r, %c : tensor<64xi32, #b1>, tensor<64xi32, #colrows>
}

// A loaded value is not loaded again: the conversion stays.
// CHECK-LABEL: tile.func public @no_remat_of_load(
// CHECK-NEXT: %[[X:.*]] = tile.load
// CHECK-NEXT: tilegpu.convert_layout %[[X]] : tensor<64xf32, #[[B1]]> -> tensor<64xf32, #[[COLROWS]]>
tile.func public @no_remat_of_load(%p: tensor<64x!tile.ptr<f32>, #b1>) -> tensor<64xf32, #colrows> {
  %x = tile.load %p : tensor<64x!tile.ptr<f32>, #b1>
  %c = tilegpu.convert_layout %x : tensor<64xf32, #b1> -> tensor<64xf32, #colrows>
  tile.return %c : tensor<64xf32, #colrows>
}

// Row sums stored: the store and its pointers and mask take the
// reduction's layout.
// CHECK-LABEL: tile.func public @forward_into_store(
// CHECK: %[[S:.*]] = tile.reduce
// CHECK: %[[I:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT: %[[N:.*]] = tile.splat %{{.*}} : i32 -> tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT: %[[M:.*]] = arith.cmpi slt, %[[I]], %[[N]] : tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT: %[[P:.*]] = tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #[[ROWS]]>
// CHECK-NEXT: %[[PP:.*]] = tile.addptr %[[P]], %[[I]] : tensor<64x!tile.ptr<f32>, #[[ROWS]]>, tensor<64xi32, #[[ROWS]]>
// CHECK-NEXT: tile.store %[[PP]], %[[S]], %[[M]] : tensor<64x!tile.ptr<f32>, #[[ROWS]]>
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.return
tile.func public @forward_into_store(%x: tensor<64x64xf32, #b2>, %out: !tile.ptr<f32>, %n: i32) {
  %s = tile.reduce %x axis = 1 : tensor<64x64xf32, #b2> -> tensor<64xf32, #rows> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  %sc = tilegpu.convert_layout %s : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
  %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #b1>
  %ns = tile.splat %n : i32 -> tensor<64xi32, #b1>
  %m = arith.cmpi slt, %i, %ns : tensor<64xi32, #b1>
  %ps = tile.splat %out : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>, #b1>
  %pp = tile.addptr %ps, %i : tensor<64x!tile.ptr<f32>, #b1>, tensor<64xi32, #b1>
  tile.store %pp, %sc, %m : tensor<64x!tile.ptr<f32>, #b1>
  tile.return
}

// A softmax row maximum expanded and broadcast back: no conversion left.
// CHECK-LABEL: tile.func public @forward_softmax(
// CHECK-SAME: %[[X:[^:]*]]:
// CHECK: %[[M:.*]] = tile.reduce
// CHECK: %[[E:.*]] = tile.expand_dims %[[M]] {axis = 1 : i32} : tensor<64xf32, #[[ROWS]]> -> tensor<64x1xf32, #[[B2]]>
// CHECK-NEXT: %[[B:.*]] = tile.broadcast %[[E]] : tensor<64x1xf32, #[[B2]]> -> tensor<64x64xf32, #[[B2]]>
// CHECK-NEXT: arith.subf %[[X]], %[[B]] : tensor<64x64xf32, #[[B2]]>
// CHECK-NEXT: tile.return
tile.func public @forward_softmax(%x: tensor<64x64xf32, #b2>) -> tensor<64x64xf32, #b2> {
  %m = tile.reduce %x axis = 1 : tensor<64x64xf32, #b2> -> tensor<64xf32, #rows> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.maxnumf %l, %r : f32
    tile.reduce.return %a : f32
  }
  %mc = tilegpu.convert_layout %m : tensor<64xf32, #rows> -> tensor<64xf32, #colrows>
  %e = tile.expand_dims %mc {axis = 1 : i32} : tensor<64xf32, #colrows> -> tensor<64x1xf32, #col>
  %ec = tilegpu.convert_layout %e : tensor<64x1xf32, #col> -> tensor<64x1xf32, #b2>
  %b = tile.broadcast %ec : tensor<64x1xf32, #b2> -> tensor<64x64xf32, #b2>
  %d = arith.subf %x, %b : tensor<64x64xf32, #b2>
  tile.return %d : tensor<64x64xf32, #b2>
}

// Loop-carried values keep their layout: re-typing the sum would need a
// conversion of the accumulator and one back before the yield.
// CHECK-LABEL: tile.func public @forward_stops_at_loop(
// CHECK: scf.for
// CHECK: %[[S:.*]] = tile.reduce
// CHECK: %[[C:.*]] = tilegpu.convert_layout %[[S]] : tensor<64xf32, #[[ROWS]]> -> tensor<64xf32, #[[B1]]>
// CHECK-NEXT: %[[N:.*]] = arith.addf %{{.*}}, %[[C]] : tensor<64xf32, #[[B1]]>
// CHECK-NEXT: scf.yield %[[N]] : tensor<64xf32, #[[B1]]>
tile.func public @forward_stops_at_loop(%x: tensor<64x64xf32, #b2>, %n: i32) -> tensor<64xf32, #b1> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64xf32, #b1>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64xf32, #b1>) : i32 {
    %s = tile.reduce %x axis = 1 : tensor<64x64xf32, #b2> -> tensor<64xf32, #rows> {
    ^bb0(%l: f32, %rr: f32):
      %a = arith.addf %l, %rr : f32
      tile.reduce.return %a : f32
    }
    %sc = tilegpu.convert_layout %s : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
    %next = arith.addf %acc, %sc : tensor<64xf32, #b1>
    scf.yield %next : tensor<64xf32, #b1>
  }
  tile.return %r : tensor<64xf32, #b1>
}

// A conversion back and forth around an element-wise op: the op moves to
// the source layout; the first conversion stays for the user that keeps
// its layout.
// CHECK-LABEL: tile.func public @forward_with_kept_use(
// CHECK-SAME: %[[X:[^:]*]]:
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[X]] : tensor<64xf32, #[[ROWS]]> -> tensor<64xf32, #[[B1]]>
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT: tile.return %[[C]], %[[E]]
tile.func public @forward_with_kept_use(%x: tensor<64xf32, #rows>) -> (tensor<64xf32, #b1>, tensor<64xf32, #rows>) {
  %c = tilegpu.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
  %e = math.exp %c : tensor<64xf32, #b1>
  %back = tilegpu.convert_layout %e : tensor<64xf32, #b1> -> tensor<64xf32, #rows>
  tile.return %c, %back : tensor<64xf32, #b1>, tensor<64xf32, #rows>
}

// Two operands converted from different layouts: computing in one of them
// needs a single conversion.
// CHECK-LABEL: tile.func public @forward_two_sources(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64xf32, #[[ROWS]]>, %[[Y:[^:]*]]: tensor<64xf32, #[[COLS]]>, %[[P:[^:]*]]:
// CHECK-NEXT: %[[YC:.*]] = tilegpu.convert_layout %[[Y]] : tensor<64xf32, #[[COLS]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT: %[[Z:.*]] = arith.addf %[[X]], %[[YC]] : tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT: %[[W:.*]] = arith.mulf %[[Z]], %[[Z]] : tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT: %[[Q:.*]] = tilegpu.convert_layout %[[P]] : tensor<64x!tile.ptr<f32>, #[[B1]]> -> tensor<64x!tile.ptr<f32>, #[[ROWS]]>
// CHECK-NEXT: tile.store %[[Q]], %[[W]] : tensor<64x!tile.ptr<f32>, #[[ROWS]]>
tile.func public @forward_two_sources(%x: tensor<64xf32, #rows>, %y: tensor<64xf32, #cols>, %p: tensor<64x!tile.ptr<f32>, #b1>) {
  %xc = tilegpu.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
  %yc = tilegpu.convert_layout %y : tensor<64xf32, #cols> -> tensor<64xf32, #b1>
  %z = arith.addf %xc, %yc : tensor<64xf32, #b1>
  %w = arith.mulf %z, %z : tensor<64xf32, #b1>
  %wc = tilegpu.convert_layout %w : tensor<64xf32, #b1> -> tensor<64xf32, #rows>
  %q = tilegpu.convert_layout %p : tensor<64x!tile.ptr<f32>, #b1> -> tensor<64x!tile.ptr<f32>, #rows>
  tile.store %q, %wc : tensor<64x!tile.ptr<f32>, #rows>
  tile.return
}

// Conversions to dot operand layouts stay.
// CHECK-LABEL: tile.func public @dot_operands_stay(
// CHECK-NEXT: tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #[[B2]]> -> tensor<64x64xf16, #{{dot_op[0-9]*}}>
// CHECK-NEXT: tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #[[B2]]> -> tensor<64x64xf16, #{{dot_op[0-9]*}}>
// CHECK-NEXT: tile.dot
tile.func public @dot_operands_stay(%a: tensor<64x64xf16, #b2>, %b: tensor<64x64xf16, #b2>, %c: tensor<64x64xf32, #b2>) -> tensor<64x64xf32, #b2> {
  %ac = tilegpu.convert_layout %a : tensor<64x64xf16, #b2> -> tensor<64x64xf16, #opa>
  %bc = tilegpu.convert_layout %b : tensor<64x64xf16, #b2> -> tensor<64x64xf16, #tilegpu.dot_op<opIdx = 1, parent = #b2, kWidth = 1>>
  %d = tile.dot %ac, %bc, %c : tensor<64x64xf16, #opa> * tensor<64x64xf16, #tilegpu.dot_op<opIdx = 1, parent = #b2, kWidth = 1>> -> tensor<64x64xf32, #b2>
  tile.return %d : tensor<64x64xf32, #b2>
}

// A transposed tile is stored in the transposition's layout; its pointers
// are computed there.
// CHECK-LABEL: tile.func public @forward_transposed_store(
// CHECK-NEXT: %[[T:.*]] = tile.trans %{{.*}} {order = array<i32: 1, 0>} : tensor<64x64xf32, #[[B2]]> -> tensor<64x64xf32, #[[BT]]>
// CHECK-NEXT: %[[R:.*]] = tile.make_range {{.*}} : tensor<64xi32, #[[BTCOLS]]>
// CHECK-NEXT: %[[E:.*]] = tile.expand_dims %[[R]] {axis = 0 : i32} : tensor<64xi32, #[[BTCOLS]]> -> tensor<1x64xi32, #[[BT]]>
// CHECK-NEXT: %[[G:.*]] = tile.broadcast %[[E]] : tensor<1x64xi32, #[[BT]]> -> tensor<64x64xi32, #[[BT]]>
// CHECK-NEXT: %[[S:.*]] = tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #[[BT]]>
// CHECK-NEXT: %[[P:.*]] = tile.addptr %[[S]], %[[G]] : tensor<64x64x!tile.ptr<f32>, #[[BT]]>, tensor<64x64xi32, #[[BT]]>
// CHECK-NEXT: tile.store %[[P]], %[[T]] : tensor<64x64x!tile.ptr<f32>, #[[BT]]>
tile.func public @forward_transposed_store(%x: tensor<64x64xf32, #b2>, %p: !tile.ptr<f32>) {
  %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x64xf32, #b2> -> tensor<64x64xf32, #bt>
  %tc = tilegpu.convert_layout %t : tensor<64x64xf32, #bt> -> tensor<64x64xf32, #b2>
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #cols>
  %e = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #cols> -> tensor<1x64xi32, #b2>
  %g = tile.broadcast %e : tensor<1x64xi32, #b2> -> tensor<64x64xi32, #b2>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #b2>
  %pp = tile.addptr %ps, %g : tensor<64x64x!tile.ptr<f32>, #b2>, tensor<64x64xi32, #b2>
  tile.store %pp, %tc : tensor<64x64x!tile.ptr<f32>, #b2>
  tile.return
}

// Users inside a region are re-typed too.
// CHECK-LABEL: tile.func public @forward_into_region(
// CHECK-SAME: %[[X:[^:]*]]:
// CHECK-NEXT: scf.if
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT: tile.store %{{.*}}, %[[E]] : tensor<64x!tile.ptr<f32>, #[[ROWS]]>
tile.func public @forward_into_region(%x: tensor<64xf32, #rows>, %c: i1, %p: tensor<64x!tile.ptr<f32>, #rows>) {
  %xc = tilegpu.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
  scf.if %c {
    %e = math.exp %xc : tensor<64xf32, #b1>
    %ec = tilegpu.convert_layout %e : tensor<64xf32, #b1> -> tensor<64xf32, #rows>
    tile.store %p, %ec : tensor<64x!tile.ptr<f32>, #rows>
  }
  tile.return
}

// A reduction of a converted tile reduces in the source layout.
// CHECK-LABEL: tile.func public @forward_into_reduce(
// CHECK-SAME: %[[X:[^:]*]]: tensor<64x64xf32, #[[BT]]>)
// CHECK-NEXT: %[[S:.*]] = tile.reduce %[[X]] axis = 1 : tensor<64x64xf32, #[[BT]]> -> tensor<64xf32, #[[BTROWS]]>
// CHECK: %[[E:.*]] = math.exp %[[S]] : tensor<64xf32, #[[BTROWS]]>
// CHECK-NEXT: %[[C:.*]] = tilegpu.convert_layout %[[E]] : tensor<64xf32, #[[BTROWS]]> -> tensor<64xf32, #[[ROWS]]>
// CHECK-NEXT: tile.return %[[C]]
tile.func public @forward_into_reduce(%x: tensor<64x64xf32, #bt>) -> tensor<64xf32, #rows> {
  %xc = tilegpu.convert_layout %x : tensor<64x64xf32, #bt> -> tensor<64x64xf32, #b2>
  %s = tile.reduce %xc axis = 1 : tensor<64x64xf32, #b2> -> tensor<64xf32, #rows> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  %e = math.exp %s : tensor<64xf32, #rows>
  %ec = tilegpu.convert_layout %e : tensor<64xf32, #rows> -> tensor<64xf32, #tilegpu.slice<dim = 1, parent = #bt>>
  %back = tilegpu.convert_layout %ec : tensor<64xf32, #tilegpu.slice<dim = 1, parent = #bt>> -> tensor<64xf32, #rows>
  tile.return %back : tensor<64xf32, #rows>
}

// A printed tensor can be in any layout.
// CHECK-LABEL: tile.func public @forward_into_print(
// CHECK-SAME: %[[X:[^:]*]]:
// CHECK-NEXT: tile.print " x: " {{.*}} : %[[X]] : tensor<64xf32, #[[ROWS]]>
tile.func public @forward_into_print(%x: tensor<64xf32, #rows>) {
  %xc = tilegpu.convert_layout %x : tensor<64xf32, #rows> -> tensor<64xf32, #b1>
  tile.print " x: " {hex = false, isSigned = array<i32: 0>} : %xc : tensor<64xf32, #b1>
  tile.return
}

