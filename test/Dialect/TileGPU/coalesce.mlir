// RUN: warpforge-opt %s --split-input-file --tilegpu-coalesce | FileCheck %s
// RUN: warpforge-opt %s --split-input-file --tilegpu-coalesce --tilegpu-remove-layout-conversions --canonicalize | FileCheck %s --check-prefix=CLEAN

// Each function is a 64x128 access in the default layout (threads along
// dimension 1) whose addresses are `base + i + j * stride`: contiguous
// along dimension 0, as for a column-major operand.

// The load runs along dimension 0 instead: 8 f16 (16 bytes) per thread
// there; the pointers go in converted, the values come out converted back.
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: tile.func public @column_major_load(
// CHECK: %[[P:.*]] = tile.addptr %{{.*}}, %{{.*}} : tensor<64x128x!tile.ptr<f16>, #[[ROWS]]>
// CHECK-NEXT: %[[Q:.*]] = tilegpu.convert_layout %[[P]] : tensor<64x128x!tile.ptr<f16>, #[[ROWS]]> -> tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK-NEXT: %[[X:.*]] = tile.load %[[Q]] {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK-NEXT: %[[Y:.*]] = tilegpu.convert_layout %[[X]] : tensor<64x128xf16, #[[COLS]]> -> tensor<64x128xf16, #[[ROWS]]>
// CHECK-NEXT: tile.return %[[Y]]
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @column_major_load(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) -> tensor<64x128xf16, #rows> {
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %s = tile.splat %stride : i32 -> tensor<1x128xi32, #rows>
    %js = arith.muli %j2, %s : tensor<1x128xi32, #rows>
    %ib = tile.broadcast %i2 : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jb = tile.broadcast %js : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %ib, %jb : tensor<64x128xi32, #rows>
    %bs = tile.splat %base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %p = tile.addptr %bs, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %x = tile.load %p : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.return %x : tensor<64x128xf16, #rows>
  }
}

// -----

// A store gets the same treatment: pointers and values converted in.
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: tile.func public @column_major_store(
// CHECK: %[[Q:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x128x!tile.ptr<f16>, #{{.*}}> -> tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK-NEXT: %[[V:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x128xf16, #{{.*}}> -> tensor<64x128xf16, #[[COLS]]>
// CHECK-NEXT: tile.store %[[Q]], %[[V]] {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @column_major_store(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %v: tensor<64x128xf16, #rows>) {
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %s = tile.splat %stride : i32 -> tensor<1x128xi32, #rows>
    %js = arith.muli %j2, %s : tensor<1x128xi32, #rows>
    %ib = tile.broadcast %i2 : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jb = tile.broadcast %js : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %ib, %jb : tensor<64x128xi32, #rows>
    %bs = tile.splat %base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %p = tile.addptr %bs, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    tile.store %p, %v : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.return
  }
}

// -----

// Addresses contiguous along the layout's own fastest dimension (row
// major: `base + i * stride + j`) keep their layout.
// CHECK-LABEL: tile.func public @row_major_load_unchanged(
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.load
// CHECK-NOT: tilegpu.convert_layout
// CHECK: tile.return
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @row_major_load_unchanged(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) -> tensor<64x128xf16, #rows> {
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %s = tile.splat %stride : i32 -> tensor<64x1xi32, #rows>
    %is = arith.muli %i2, %s : tensor<64x1xi32, #rows>
    %ib = tile.broadcast %is : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jb = tile.broadcast %j2 : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %ib, %jb : tensor<64x128xi32, #rows>
    %bs = tile.splat %base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %p = tile.addptr %bs, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %x = tile.load %p : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.return %x : tensor<64x128xf16, #rows>
  }
}

// -----

// A mask that changes value along dimension 0 from one element to the
// next (i < n, n of unknown alignment) bounds the vector to one element
// there: one f16 per thread along dimension 0.
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]>
// CHECK-LABEL: tile.func public @mask_bounds_vector(
// CHECK: tile.load %{{.*}}, %{{.*}} : tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @mask_bounds_vector(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) -> tensor<64x128xf16, #rows> {
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %s = tile.splat %stride : i32 -> tensor<1x128xi32, #rows>
    %js = arith.muli %j2, %s : tensor<1x128xi32, #rows>
    %ib = tile.broadcast %i2 : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jb = tile.broadcast %js : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %ib, %jb : tensor<64x128xi32, #rows>
    %bs = tile.splat %base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %p = tile.addptr %bs, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %ns = tile.splat %n : i32 -> tensor<64x128xi32, #rows>
    %m = arith.cmpi slt, %ib, %ns : tensor<64x128xi32, #rows>
    %x = tile.load %p, %m : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.return %x : tensor<64x128xf16, #rows>
  }
}

// -----

// A pointer tensor the loop advances is carried in the new layout: the
// initial value is converted once before the loop, the loop argument and
// result are re-typed, the yielded value is converted before the yield,
// and the argument's users get it back in the old layout (the load's own
// conversion then converts a conversion: remove-layout-conversions folds
// both away).
// CHECK-DAG: #[[ROWS:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[COLS:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK-LABEL: tile.func public @loop_carried_pointer(
// CHECK: %[[INIT:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x128x!tile.ptr<f16>, #[[ROWS]]> -> tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[ARG:.*]] = %[[INIT]]) -> (tensor<64x128xf16, #[[ROWS]]>, tensor<64x128x!tile.ptr<f16>, #[[COLS]]>)
// CHECK-NEXT: %[[OLD:.*]] = tilegpu.convert_layout %[[ARG]] : tensor<64x128x!tile.ptr<f16>, #[[COLS]]> -> tensor<64x128x!tile.ptr<f16>, #[[ROWS]]>
// CHECK-NEXT: %[[Q:.*]] = tilegpu.convert_layout %[[OLD]] : {{.*}} -> tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK-NEXT: tile.load %[[Q]] {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK: %[[NEXT:.*]] = tile.addptr %[[OLD]], %{{.*}} : tensor<64x128x!tile.ptr<f16>, #[[ROWS]]>
// CHECK-NEXT: %[[YIELDED:.*]] = tilegpu.convert_layout %[[NEXT]] : {{.*}} -> tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK-NEXT: scf.yield %{{.*}}, %[[YIELDED]] : tensor<64x128xf16, #[[ROWS]]>, tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CHECK: tilegpu.convert_layout %[[R]]#1 : tensor<64x128x!tile.ptr<f16>, #[[COLS]]> -> tensor<64x128x!tile.ptr<f16>, #[[ROWS]]>
// After remove-layout-conversions the pointers are computed in the new
// layout from the start; in the loop only the loaded values convert.
// CLEAN-LABEL: tile.func public @loop_carried_pointer(
// CLEAN: %[[P0:.*]] = tile.addptr %{{.*}} : tensor<64x128x!tile.ptr<f16>, #[[COLS:blocked[0-9]*]]>,
// CLEAN-NEXT: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ARG:.*]] = %[[P0]])
// CLEAN-NEXT: %[[X:.*]] = tile.load %[[ARG]] {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CLEAN-NEXT: tilegpu.convert_layout %[[X]] : tensor<64x128xf16, #[[COLS]]>
// CLEAN-NOT: convert_layout
// CLEAN: scf.yield
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @loop_carried_pointer(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}, %n: i32) -> (tensor<64x128xf16, #rows>, tensor<64x128x!tile.ptr<f16>, #rows>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %s = tile.splat %stride : i32 -> tensor<1x128xi32, #rows>
    %js = arith.muli %j2, %s : tensor<1x128xi32, #rows>
    %ib = tile.broadcast %i2 : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jb = tile.broadcast %js : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %off = arith.addi %ib, %jb : tensor<64x128xi32, #rows>
    %bs = tile.splat %base : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %p0 = tile.addptr %bs, %off : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %step = arith.constant dense<64> : tensor<64x128xi32, #rows>
    %zero = arith.constant dense<0.0> : tensor<64x128xf16, #rows>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<64x128xf16, #rows>, tensor<64x128x!tile.ptr<f16>, #rows>) : i32 {
      %x = tile.load %p : tensor<64x128x!tile.ptr<f16>, #rows>
      %sum = arith.addf %acc, %x : tensor<64x128xf16, #rows>
      %next = tile.addptr %p, %step : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
      scf.yield %sum, %next : tensor<64x128xf16, #rows>, tensor<64x128x!tile.ptr<f16>, #rows>
    }
    tile.return %r#0, %r#1 : tensor<64x128xf16, #rows>, tensor<64x128x!tile.ptr<f16>, #rows>
  }
}

// -----

// A transposing copy (Triton's test_permute): the load is contiguous along
// dimension 1, the store along dimension 0.  The store keeps the layout
// coalesce gave it (tilegpu.coalesced: remove-layout-conversions never
// re-types it to the load's layout, which would store element by element);
// the values cross in one conversion.
// CLEAN-LABEL: tile.func public @transposing_copy(
// CLEAN: %[[X:.*]] = tile.load %{{.*}} : tensor<64x128x!tile.ptr<f16>, #[[ROWS:blocked[0-9]*]]>
// CLEAN-NEXT: %[[Y:.*]] = tilegpu.convert_layout %[[X]] : tensor<64x128xf16, #[[ROWS]]> -> tensor<64x128xf16, #[[COLS:blocked[0-9]*]]>
// CLEAN-NEXT: tile.store %{{.*}}, %[[Y]] {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS]]>
// CLEAN-NOT: convert_layout
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @transposing_copy(%src: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %c128 = arith.constant dense<128> : tensor<64x1xi32, #rows>
    %c64 = arith.constant dense<64> : tensor<1x128xi32, #rows>
    // Source: i * 128 + j (rows contiguous); destination: i + j * 64.
    %is = arith.muli %i2, %c128 : tensor<64x1xi32, #rows>
    %js = arith.muli %j2, %c64 : tensor<1x128xi32, #rows>
    %isb = tile.broadcast %is : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %j2b = tile.broadcast %j2 : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %i2b = tile.broadcast %i2 : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jsb = tile.broadcast %js : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %soff = arith.addi %isb, %j2b : tensor<64x128xi32, #rows>
    %doff = arith.addi %i2b, %jsb : tensor<64x128xi32, #rows>
    %sb = tile.splat %src : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %db = tile.splat %dst : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %sp = tile.addptr %sb, %soff : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %dp = tile.addptr %db, %doff : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %x = tile.load %sp : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.store %dp, %x : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.return
  }
}

// -----

// A transposing copy: the load is contiguous along dimension 0 (re-laid
// out), the store along dimension 1, which its default layout already runs
// along. The store is marked too, so that remove-layout-conversions
// converts the values to it (one exchange) rather than storing in the
// load's layout element by element.
// CHECK-LABEL: tile.func public @transposing_copy(
// CHECK: tile.load %{{.*}} {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS:blocked[0-9]*]]>
// CHECK: tile.store %{{.*}}, %{{.*}} {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[ROWS:blocked[0-9]*]]>
// CLEAN-LABEL: tile.func public @transposing_copy(
// CLEAN: tile.load %{{.*}} {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[COLS:blocked[0-9]*]]>
// CLEAN: %[[V:.*]] = tilegpu.convert_layout %{{.*}} : tensor<64x128xf16, #[[COLS]]> -> tensor<64x128xf16, #[[ROWS:blocked[0-9]*]]>
// CLEAN: tile.store %{{.*}}, %[[V]] {tilegpu.coalesced} : tensor<64x128x!tile.ptr<f16>, #[[ROWS]]>
#rows = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#r = #tilegpu.slice<dim = 1, parent = #rows>
#c = #tilegpu.slice<dim = 0, parent = #rows>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @transposing_copy(%src: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %stride: i32 {tile.divisibility = 16 : i32}) {
    %i = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #r>
    %j = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #c>
    %i2 = tile.expand_dims %i {axis = 1 : i32} : tensor<64xi32, #r> -> tensor<64x1xi32, #rows>
    %j2 = tile.expand_dims %j {axis = 0 : i32} : tensor<128xi32, #c> -> tensor<1x128xi32, #rows>
    %s = tile.splat %stride : i32 -> tensor<1x128xi32, #rows>
    %t = tile.splat %stride : i32 -> tensor<64x1xi32, #rows>
    %js = arith.muli %j2, %s : tensor<1x128xi32, #rows>
    %is = arith.muli %i2, %t : tensor<64x1xi32, #rows>
    %ib = tile.broadcast %i2 : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %jb = tile.broadcast %js : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %isb = tile.broadcast %is : tensor<64x1xi32, #rows> -> tensor<64x128xi32, #rows>
    %j2b = tile.broadcast %j2 : tensor<1x128xi32, #rows> -> tensor<64x128xi32, #rows>
    %in = arith.addi %ib, %jb : tensor<64x128xi32, #rows>
    %out = arith.addi %isb, %j2b : tensor<64x128xi32, #rows>
    %bs = tile.splat %src : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %bd = tile.splat %dst : !tile.ptr<f16> -> tensor<64x128x!tile.ptr<f16>, #rows>
    %p = tile.addptr %bs, %in : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %q = tile.addptr %bd, %out : tensor<64x128x!tile.ptr<f16>, #rows>, tensor<64x128xi32, #rows>
    %x = tile.load %p : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.store %q, %x : tensor<64x128x!tile.ptr<f16>, #rows>
    tile.return
  }
}
