// RUN: warpforge-opt %s | FileCheck %s
// RUN: warpforge-opt %s | warpforge-opt | FileCheck %s
// RUN: warpforge-opt %s --mlir-print-op-generic | warpforge-opt | FileCheck %s

// Round trip of every tile op and every optional form of its syntax.

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @get_program_id()
tile.func public @get_program_id() {
  // CHECK-NEXT: tile.get_program_id x : i32
  // CHECK-NEXT: tile.get_program_id y : i32
  // CHECK-NEXT: tile.get_program_id z : i32
  %0 = tile.get_program_id x : i32
  %1 = tile.get_program_id y : i32
  %2 = tile.get_program_id z : i32
  tile.return
}

// CHECK-LABEL: tile.func public @get_num_programs()
tile.func public @get_num_programs() {
  // CHECK-NEXT: tile.get_num_programs x : i32
  // CHECK-NEXT: tile.get_num_programs y : i32
  // CHECK-NEXT: tile.get_num_programs z : i32
  %0 = tile.get_num_programs x : i32
  %1 = tile.get_num_programs y : i32
  %2 = tile.get_num_programs z : i32
  tile.return
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape manipulation
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @make_range()
tile.func public @make_range() {
  // CHECK-NEXT: tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
  // CHECK-NEXT: tile.make_range {end = 144 : i32, start = 16 : i32} : tensor<128xi32>
  %0 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %1 = tile.make_range {start = 16 : i32, end = 144 : i32} : tensor<128xi32>
  tile.return
}

// CHECK-LABEL: tile.func public @splat(
// CHECK-SAME: %[[I:.*]]: i32, %[[F:.*]]: f16, %[[P:.*]]: !tile.ptr<f32>)
tile.func public @splat(%i: i32, %f: f16, %p: !tile.ptr<f32>) {
  // CHECK-NEXT: tile.splat %[[I]] : i32 -> tensor<128xi32>
  // CHECK-NEXT: tile.splat %[[F]] : f16 -> tensor<16x16xf16>
  // CHECK-NEXT: tile.splat %[[P]] : !tile.ptr<f32> -> tensor<4x8x!tile.ptr<f32>>
  %0 = tile.splat %i : i32 -> tensor<128xi32>
  %1 = tile.splat %f : f16 -> tensor<16x16xf16>
  %2 = tile.splat %p : !tile.ptr<f32> -> tensor<4x8x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @broadcast(
// CHECK-SAME: %[[X:.*]]: tensor<1x128xf32>, %[[Y:.*]]: tensor<4x1x1xi8>)
tile.func public @broadcast(%x: tensor<1x128xf32>, %y: tensor<4x1x1xi8>) {
  // CHECK-NEXT: tile.broadcast %[[X]] : tensor<1x128xf32> -> tensor<64x128xf32>
  // CHECK-NEXT: tile.broadcast %[[Y]] : tensor<4x1x1xi8> -> tensor<4x8x16xi8>
  %0 = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf32>
  %1 = tile.broadcast %y : tensor<4x1x1xi8> -> tensor<4x8x16xi8>
  tile.return
}

// CHECK-LABEL: tile.func public @expand_dims(
// CHECK-SAME: %[[X:.*]]: tensor<128xi32>)
tile.func public @expand_dims(%x: tensor<128xi32>) {
  // CHECK-NEXT: tile.expand_dims %[[X]] {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  // CHECK-NEXT: tile.expand_dims %[[X]] {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %1 = tile.expand_dims %x {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  tile.return
}

// CHECK-LABEL: tile.func public @reshape(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf16>)
tile.func public @reshape(%x: tensor<64x32xf16>) {
  // CHECK-NEXT: tile.reshape %[[X]] : tensor<64x32xf16> -> tensor<2048xf16>
  %0 = tile.reshape %x : tensor<64x32xf16> -> tensor<2048xf16>
  tile.return
}

// CHECK-LABEL: tile.func public @reshape_allow_reorder(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf16>)
tile.func public @reshape_allow_reorder(%x: tensor<64x32xf16>) {
  // CHECK-NEXT: tile.reshape %[[X]] allow_reorder : tensor<64x32xf16> -> tensor<32x64xf16>
  %0 = tile.reshape %x allow_reorder : tensor<64x32xf16> -> tensor<32x64xf16>
  tile.return
}

// CHECK-LABEL: tile.func public @trans(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf16>, %[[Y:.*]]: tensor<2x3x4xi8>)
tile.func public @trans(%x: tensor<64x32xf16>, %y: tensor<2x3x4xi8>) {
  // CHECK-NEXT: tile.trans %[[X]] {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  // CHECK-NEXT: tile.trans %[[Y]] {order = array<i32: 2, 0, 1>} : tensor<2x3x4xi8> -> tensor<4x2x3xi8>
  %0 = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
  %1 = tile.trans %y {order = array<i32: 2, 0, 1>} : tensor<2x3x4xi8> -> tensor<4x2x3xi8>
  tile.return
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @addptr_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[O:.*]]: i32)
tile.func public @addptr_scalar(%p: !tile.ptr<f32>, %o: i32) {
  // CHECK-NEXT: tile.addptr %[[P]], %[[O]] : !tile.ptr<f32>, i32
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, i32
  tile.return
}

// CHECK-LABEL: tile.func public @addptr_tensor(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[O:.*]]: tensor<128xi32>, %[[O64:.*]]: tensor<128xi64>)
tile.func public @addptr_tensor(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<128xi32>, %o64: tensor<128xi64>) {
  // CHECK-NEXT: tile.addptr %[[P]], %[[O]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  // CHECK-NEXT: tile.addptr %[[P]], %[[O64]] : tensor<128x!tile.ptr<f32>>, tensor<128xi64>
  %0 = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %1 = tile.addptr %p, %o64 : tensor<128x!tile.ptr<f32>>, tensor<128xi64>
  tile.return
}

// CHECK-LABEL: tile.func public @int_to_ptr(
// CHECK-SAME: %[[I:.*]]: i64, %[[T:.*]]: tensor<8xi64>)
tile.func public @int_to_ptr(%i: i64, %t: tensor<8xi64>) {
  // CHECK-NEXT: tile.int_to_ptr %[[I]] : i64 -> !tile.ptr<f32>
  // CHECK-NEXT: tile.int_to_ptr %[[T]] : tensor<8xi64> -> tensor<8x!tile.ptr<f16>>
  %0 = tile.int_to_ptr %i : i64 -> !tile.ptr<f32>
  %1 = tile.int_to_ptr %t : tensor<8xi64> -> tensor<8x!tile.ptr<f16>>
  tile.return
}

// CHECK-LABEL: tile.func public @ptr_to_int(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<f32>, %[[T:.*]]: tensor<8x!tile.ptr<f16>>)
tile.func public @ptr_to_int(%p: !tile.ptr<f32>, %t: tensor<8x!tile.ptr<f16>>) {
  // CHECK-NEXT: tile.ptr_to_int %[[P]] : !tile.ptr<f32> -> i64
  // CHECK-NEXT: tile.ptr_to_int %[[T]] : tensor<8x!tile.ptr<f16>> -> tensor<8xi64>
  %0 = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
  %1 = tile.ptr_to_int %t : tensor<8x!tile.ptr<f16>> -> tensor<8xi64>
  tile.return
}

// CHECK-LABEL: tile.func public @bitcast(
// CHECK-SAME: %[[P:.*]]: tensor<64x!tile.ptr<f16>>, %[[X:.*]]: tensor<128xf32>, %[[H:.*]]: f16)
tile.func public @bitcast(%p: tensor<64x!tile.ptr<f16>>, %x: tensor<128xf32>, %h: f16) {
  // CHECK-NEXT: tile.bitcast %[[P]] : tensor<64x!tile.ptr<f16>> -> tensor<64x!tile.ptr<i16>>
  // CHECK-NEXT: tile.bitcast %[[X]] : tensor<128xf32> -> tensor<128xi32>
  // CHECK-NEXT: tile.bitcast %[[H]] : f16 -> i16
  %0 = tile.bitcast %p : tensor<64x!tile.ptr<f16>> -> tensor<64x!tile.ptr<i16>>
  %1 = tile.bitcast %x : tensor<128xf32> -> tensor<128xi32>
  %2 = tile.bitcast %h : f16 -> i16
  tile.return
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// The default address space (1) is not printed; others are.
// CHECK-LABEL: tile.func public @ptr_types(
// CHECK-SAME: %{{.*}}: !tile.ptr<f16, 3>, %{{.*}}: !tile.ptr<f16>, %{{.*}}: !tile.ptr<!tile.ptr<f32>>, %{{.*}}: tensor<4x!tile.ptr<i64, 3>>)
tile.func public @ptr_types(%s: !tile.ptr<f16, 3>, %g: !tile.ptr<f16, 1>, %pp: !tile.ptr<!tile.ptr<f32>>, %t: tensor<4x!tile.ptr<i64, 3>>) {
  tile.return
}

// CHECK-LABEL: tile.func public @load_shared(
// CHECK-SAME: %[[S:.*]]: !tile.ptr<f16, 3>)
tile.func public @load_shared(%s: !tile.ptr<f16, 3>) {
  // CHECK-NEXT: %{{.*}} = tile.load %[[S]] : !tile.ptr<f16, 3>
  %0 = tile.load %s : !tile.ptr<f16, 3>
  tile.return
}

//===----------------------------------------------------------------------===//
// Loads and stores
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @load(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
tile.func public @load(%p: tensor<128x!tile.ptr<f32>>) {
  // CHECK-NEXT: tile.load %[[P]] : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @load_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<i64>)
tile.func public @load_scalar(%p: !tile.ptr<i64>) {
  // CHECK-NEXT: tile.load %[[P]] : !tile.ptr<i64>
  %0 = tile.load %p : !tile.ptr<i64>
  tile.return
}

// CHECK-LABEL: tile.func public @load_mask(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>)
tile.func public @load_mask(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>) {
  // CHECK-NEXT: tile.load %[[P]], %[[M]] : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p, %m : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @load_mask_other(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
tile.func public @load_mask_other(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) {
  // CHECK-NEXT: tile.load %[[P]], %[[M]], %[[O]] : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p, %m, %o : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @load_cache_modifier(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
tile.func public @load_cache_modifier(%p: tensor<128x!tile.ptr<f32>>) {
  // CHECK-NEXT: tile.load %[[P]] cacheModifier = ca : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.load %[[P]] cacheModifier = cg : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.load %[[P]] cacheModifier = cv : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p cacheModifier = ca : tensor<128x!tile.ptr<f32>>
  %1 = tile.load %p cacheModifier = cg : tensor<128x!tile.ptr<f32>>
  %2 = tile.load %p cacheModifier = cv : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @load_eviction_policy(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
tile.func public @load_eviction_policy(%p: tensor<128x!tile.ptr<f32>>) {
  // CHECK-NEXT: tile.load %[[P]] evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.load %[[P]] evictionPolicy = evict_last : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
  %1 = tile.load %p evictionPolicy = evict_last : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @load_volatile(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
tile.func public @load_volatile(%p: tensor<128x!tile.ptr<f32>>) {
  // CHECK-NEXT: tile.load %[[P]] volatile : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p volatile : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @load_all_options(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[M:.*]]: tensor<128xi1>, %[[O:.*]]: tensor<128xf32>)
tile.func public @load_all_options(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi1>, %o: tensor<128xf32>) {
  // CHECK-NEXT: tile.load %[[P]], %[[M]], %[[O]] cacheModifier = cg evictionPolicy = evict_first volatile : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p, %m, %o cacheModifier = cg evictionPolicy = evict_first volatile : tensor<128x!tile.ptr<f32>>
  tile.return
}

// The default hints are not printed.
// CHECK-LABEL: tile.func public @load_default_hints(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>)
tile.func public @load_default_hints(%p: tensor<128x!tile.ptr<f32>>) {
  // CHECK-NEXT: tile.load %[[P]] : tensor<128x!tile.ptr<f32>>
  %0 = tile.load %p cacheModifier = none evictionPolicy = evict_normal : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @store(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[V:.*]]: tensor<128xf32>)
tile.func public @store(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>) {
  // CHECK-NEXT: tile.store %[[P]], %[[V]] : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @store_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<i64>, %[[V:.*]]: i64)
tile.func public @store_scalar(%p: !tile.ptr<i64>, %v: i64) {
  // CHECK-NEXT: tile.store %[[P]], %[[V]] : !tile.ptr<i64>
  tile.store %p, %v : !tile.ptr<i64>
  tile.return
}

// CHECK-LABEL: tile.func public @store_mask(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[V:.*]]: tensor<128xf32>, %[[M:.*]]: tensor<128xi1>)
tile.func public @store_mask(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>) {
  // CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v, %m : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @store_hints(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[V:.*]]: tensor<128xf32>, %[[M:.*]]: tensor<128xi1>)
tile.func public @store_hints(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>) {
  // CHECK-NEXT: tile.store %[[P]], %[[V]] cacheModifier = cs : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.store %[[P]], %[[V]] evictionPolicy = evict_last : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] cacheModifier = wb evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.store %[[P]], %[[V]], %[[M]] cacheModifier = wt : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v cacheModifier = cs : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v evictionPolicy = evict_last : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v, %m cacheModifier = wb evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
  tile.store %p, %v, %m cacheModifier = wt : tensor<128x!tile.ptr<f32>>
  tile.return
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @atomic_rmw_float(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<f32>>, %[[V:.*]]: tensor<128xf32>, %[[M:.*]]: tensor<128xi1>, %[[HP:.*]]: tensor<64x!tile.ptr<f16>>, %[[HV:.*]]: tensor<64xf16>)
tile.func public @atomic_rmw_float(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>, %hp: tensor<64x!tile.ptr<f16>>, %hv: tensor<64xf16>) {
  // CHECK-NEXT: tile.atomic_rmw fadd, acq_rel, gpu, %[[P]], %[[V]], %[[M]] : tensor<128x!tile.ptr<f32>>
  // CHECK-NEXT: tile.atomic_rmw fadd, relaxed, cta, %[[HP]], %[[HV]] : tensor<64x!tile.ptr<f16>>
  // CHECK-NEXT: tile.atomic_rmw xchg, release, sys, %[[P]], %[[V]] : tensor<128x!tile.ptr<f32>>
  %0 = tile.atomic_rmw fadd, acq_rel, gpu, %p, %v, %m : tensor<128x!tile.ptr<f32>>
  %1 = tile.atomic_rmw fadd, relaxed, cta, %hp, %hv : tensor<64x!tile.ptr<f16>>
  %2 = tile.atomic_rmw xchg, release, sys, %p, %v : tensor<128x!tile.ptr<f32>>
  tile.return
}

// CHECK-LABEL: tile.func public @atomic_rmw_int(
// CHECK-SAME: %[[P:.*]]: tensor<128x!tile.ptr<i32>>, %[[V:.*]]: tensor<128xi32>, %[[M:.*]]: tensor<128xi1>)
tile.func public @atomic_rmw_int(%p: tensor<128x!tile.ptr<i32>>, %v: tensor<128xi32>, %m: tensor<128xi1>) {
  // CHECK-NEXT: tile.atomic_rmw add, relaxed, cta, %[[P]], %[[V]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw and, acquire, sys, %[[P]], %[[V]], %[[M]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw or, release, gpu, %[[P]], %[[V]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw xor, acq_rel, gpu, %[[P]], %[[V]], %[[M]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw xchg, acq_rel, gpu, %[[P]], %[[V]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw max, acq_rel, gpu, %[[P]], %[[V]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw min, acq_rel, gpu, %[[P]], %[[V]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw umax, acq_rel, cta, %[[P]], %[[V]], %[[M]] : tensor<128x!tile.ptr<i32>>
  // CHECK-NEXT: tile.atomic_rmw umin, relaxed, gpu, %[[P]], %[[V]] : tensor<128x!tile.ptr<i32>>
  %0 = tile.atomic_rmw add, relaxed, cta, %p, %v : tensor<128x!tile.ptr<i32>>
  %1 = tile.atomic_rmw and, acquire, sys, %p, %v, %m : tensor<128x!tile.ptr<i32>>
  %2 = tile.atomic_rmw or, release, gpu, %p, %v : tensor<128x!tile.ptr<i32>>
  %3 = tile.atomic_rmw xor, acq_rel, gpu, %p, %v, %m : tensor<128x!tile.ptr<i32>>
  %4 = tile.atomic_rmw xchg, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<i32>>
  %5 = tile.atomic_rmw max, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<i32>>
  %6 = tile.atomic_rmw min, acq_rel, gpu, %p, %v : tensor<128x!tile.ptr<i32>>
  %7 = tile.atomic_rmw umax, acq_rel, cta, %p, %v, %m : tensor<128x!tile.ptr<i32>>
  %8 = tile.atomic_rmw umin, relaxed, gpu, %p, %v : tensor<128x!tile.ptr<i32>>
  tile.return
}

// CHECK-LABEL: tile.func public @atomic_rmw_scalar(
// CHECK-SAME: %[[P:.*]]: !tile.ptr<i64>, %[[V:.*]]: i64, %[[M:.*]]: i1)
tile.func public @atomic_rmw_scalar(%p: !tile.ptr<i64>, %v: i64, %m: i1) {
  // CHECK-NEXT: tile.atomic_rmw add, acq_rel, gpu, %[[P]], %[[V]], %[[M]] : !tile.ptr<i64>
  // CHECK-NEXT: tile.atomic_rmw max, relaxed, sys, %[[P]], %[[V]] : !tile.ptr<i64>
  %0 = tile.atomic_rmw add, acq_rel, gpu, %p, %v, %m : !tile.ptr<i64>
  %1 = tile.atomic_rmw max, relaxed, sys, %p, %v : !tile.ptr<i64>
  tile.return
}

// CHECK-LABEL: tile.func public @atomic_cas(
// CHECK-SAME: %[[L:.*]]: !tile.ptr<i32>, %[[C0:.*]]: i32, %[[C1:.*]]: i32, %[[P:.*]]: tensor<64x!tile.ptr<f16>>, %[[A:.*]]: tensor<64xf16>, %[[B:.*]]: tensor<64xf16>)
tile.func public @atomic_cas(%lock: !tile.ptr<i32>, %c0: i32, %c1: i32, %p: tensor<64x!tile.ptr<f16>>, %a: tensor<64xf16>, %b: tensor<64xf16>) {
  // CHECK-NEXT: tile.atomic_cas acq_rel, gpu, %[[L]], %[[C0]], %[[C1]] : !tile.ptr<i32>
  // CHECK-NEXT: tile.atomic_cas relaxed, cta, %[[P]], %[[A]], %[[B]] : tensor<64x!tile.ptr<f16>>
  %0 = tile.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : !tile.ptr<i32>
  %1 = tile.atomic_cas relaxed, cta, %p, %a, %b : tensor<64x!tile.ptr<f16>>
  tile.return
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @tensor_descriptor(
// CHECK-SAME: %[[BASE:.*]]: !tile.ptr<f16>, %[[M:.*]]: i32, %[[K:.*]]: i32, %[[SM:.*]]: i64, %[[ONE:.*]]: i64, %[[I:.*]]: i32, %[[J:.*]]: i32)
tile.func public @tensor_descriptor(%base: !tile.ptr<f16>, %m: i32, %k: i32, %sm: i64, %c1: i64, %i: i32, %j: i32) {
  // CHECK-NEXT: %[[D:.*]] = tile.make_tensor_descriptor %[[BASE]], [%[[M]], %[[K]]], [%[[SM]], %[[ONE]]] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  // CHECK-NEXT: %[[A:.*]] = tile.descriptor_load %[[D]][%[[I]], %[[J]]] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  // CHECK-NEXT: tile.descriptor_store %[[D]][%[[I]], %[[J]]], %[[A]] : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  %d = tile.make_tensor_descriptor %base, [%m, %k], [%sm, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
  %a = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tile.descriptor_store %d[%i, %j], %a : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
  tile.return
}

// CHECK-LABEL: tile.func public @descriptor_load_hints(
// CHECK-SAME: %[[D:.*]]: !tile.tensordesc<tensor<64x64xf16>>, %[[I:.*]]: i32, %[[J:.*]]: i32)
tile.func public @descriptor_load_hints(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %j: i32) {
  // CHECK-NEXT: tile.descriptor_load %[[D]][%[[I]], %[[J]]] cacheModifier = cg : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  // CHECK-NEXT: tile.descriptor_load %[[D]][%[[I]], %[[J]]] evictionPolicy = evict_first : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  // CHECK-NEXT: tile.descriptor_load %[[D]][%[[I]], %[[J]]] cacheModifier = ca evictionPolicy = evict_last : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %0 = tile.descriptor_load %d[%i, %j] cacheModifier = cg : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %1 = tile.descriptor_load %d[%i, %j] evictionPolicy = evict_first : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  %2 = tile.descriptor_load %d[%i, %j] cacheModifier = ca evictionPolicy = evict_last : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
  tile.return
}

// CHECK-LABEL: tile.func public @tensor_descriptor_rank1(
// CHECK-SAME: %[[BASE:.*]]: !tile.ptr<i32>, %[[N:.*]]: i32, %[[ONE:.*]]: i64, %[[I:.*]]: i32)
tile.func public @tensor_descriptor_rank1(%base: !tile.ptr<i32>, %n: i32, %c1: i64, %i: i32) {
  // CHECK-NEXT: %[[D:.*]] = tile.make_tensor_descriptor %[[BASE]], [%[[N]]], [%[[ONE]]] : !tile.ptr<i32>, !tile.tensordesc<tensor<128xi32>>
  // CHECK-NEXT: %[[A:.*]] = tile.descriptor_load %[[D]][%[[I]]] : !tile.tensordesc<tensor<128xi32>> -> tensor<128xi32>
  // CHECK-NEXT: tile.descriptor_store %[[D]][%[[I]]], %[[A]] : !tile.tensordesc<tensor<128xi32>>, tensor<128xi32>
  %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<i32>, !tile.tensordesc<tensor<128xi32>>
  %a = tile.descriptor_load %d[%i] : !tile.tensordesc<tensor<128xi32>> -> tensor<128xi32>
  tile.descriptor_store %d[%i], %a : !tile.tensordesc<tensor<128xi32>>, tensor<128xi32>
  tile.return
}

//===----------------------------------------------------------------------===//
// Dot
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @dot_f16_f32(
// CHECK-SAME: %[[A:.*]]: tensor<128x64xf16>, %[[B:.*]]: tensor<64x128xf16>, %[[C:.*]]: tensor<128x128xf32>)
tile.func public @dot_f16_f32(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf32>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  %0 = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_f16_f16_acc(
// CHECK-SAME: %[[A:.*]]: tensor<128x64xf16>, %[[B:.*]]: tensor<64x128xf16>, %[[C:.*]]: tensor<128x128xf16>)
tile.func public @dot_f16_f16_acc(%a: tensor<128x64xf16>, %b: tensor<64x128xf16>, %c: tensor<128x128xf16>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf16>
  %0 = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf16>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_f64_small(
// CHECK-SAME: %[[A:.*]]: tensor<8x4xf64>, %[[B:.*]]: tensor<4x2xf64>, %[[C:.*]]: tensor<8x2xf64>)
tile.func public @dot_f64_small(%a: tensor<8x4xf64>, %b: tensor<4x2xf64>, %c: tensor<8x2xf64>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] : tensor<8x4xf64> * tensor<4x2xf64> -> tensor<8x2xf64>
  %0 = tile.dot %a, %b, %c : tensor<8x4xf64> * tensor<4x2xf64> -> tensor<8x2xf64>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_f32_input_precision(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<32x64xf32>, %[[C:.*]]: tensor<64x64xf32>)
tile.func public @dot_f32_input_precision(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>, %c: tensor<64x64xf32>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] inputPrecision = tf32x3 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  // ieee is the default and is not printed.
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %0 = tile.dot %a, %b, %c inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %1 = tile.dot %a, %b, %c inputPrecision = tf32x3 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  %2 = tile.dot %a, %b, %c inputPrecision = ieee : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_fp8_max_num_imprecise_acc(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xf8E4M3FN>, %[[B:.*]]: tensor<32x64xf8E5M2>, %[[C:.*]]: tensor<64x64xf32>, %[[CH:.*]]: tensor<64x64xf16>)
tile.func public @dot_fp8_max_num_imprecise_acc(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E5M2>, %c: tensor<64x64xf32>, %ch: tensor<64x64xf16>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] maxNumImpreciseAcc = 32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[CH]] : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf16>
  %0 = tile.dot %a, %b, %c maxNumImpreciseAcc = 32 : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf32>
  %1 = tile.dot %a, %b, %ch : tensor<64x32xf8E4M3FN> * tensor<32x64xf8E5M2> -> tensor<64x64xf16>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_i8_i32(
// CHECK-SAME: %[[A:.*]]: tensor<64x32xi8>, %[[B:.*]]: tensor<32x64xi8>, %[[C:.*]]: tensor<64x64xi32>)
tile.func public @dot_i8_i32(%a: tensor<64x32xi8>, %b: tensor<32x64xi8>, %c: tensor<64x64xi32>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
  %0 = tile.dot %a, %b, %c : tensor<64x32xi8> * tensor<32x64xi8> -> tensor<64x64xi32>
  tile.return
}

// CHECK-LABEL: tile.func public @dot_batched(
// CHECK-SAME: %[[A:.*]]: tensor<4x16x32xbf16>, %[[B:.*]]: tensor<4x32x16xbf16>, %[[C:.*]]: tensor<4x16x16xf32>)
tile.func public @dot_batched(%a: tensor<4x16x32xbf16>, %b: tensor<4x32x16xbf16>, %c: tensor<4x16x16xf32>) {
  // CHECK-NEXT: tile.dot %[[A]], %[[B]], %[[C]] : tensor<4x16x32xbf16> * tensor<4x32x16xbf16> -> tensor<4x16x16xf32>
  %0 = tile.dot %a, %b, %c : tensor<4x16x32xbf16> * tensor<4x32x16xbf16> -> tensor<4x16x16xf32>
  tile.return
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @reduce_to_scalar(
// CHECK-SAME: %[[X:.*]]: tensor<128xf32>)
tile.func public @reduce_to_scalar(%x: tensor<128xf32>) -> f32 {
  // CHECK-NEXT: %[[S:.*]] = tile.reduce %[[X]] axis = 0 : tensor<128xf32> -> f32 {
  // CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
  // CHECK-NEXT:   %[[A:.*]] = arith.addf %[[L]], %[[R]] : f32
  // CHECK-NEXT:   tile.reduce.return %[[A]] : f32
  // CHECK-NEXT: }
  // CHECK-NEXT: tile.return %[[S]] : f32
  %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
  ^bb0(%l: f32, %r: f32):
    %a = arith.addf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return %s : f32
}

// CHECK-LABEL: tile.func public @reduce_to_tensor(
// CHECK-SAME: %[[X:.*]]: tensor<32x64xf32>)
tile.func public @reduce_to_tensor(%x: tensor<32x64xf32>) -> tensor<32xf32> {
  // CHECK-NEXT: %[[S:.*]] = tile.reduce %[[X]] axis = 1 : tensor<32x64xf32> -> tensor<32xf32> {
  // CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
  // CHECK-NEXT:   %[[A:.*]] = arith.maximumf %[[L]], %[[R]] : f32
  // CHECK-NEXT:   tile.reduce.return %[[A]] : f32
  // CHECK-NEXT: }
  // CHECK-NEXT: tile.return %[[S]] : tensor<32xf32>
  %s = tile.reduce %x axis = 1 : tensor<32x64xf32> -> tensor<32xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.maximumf %l, %r : f32
    tile.reduce.return %a : f32
  }
  tile.return %s : tensor<32xf32>
}

// Argmax: values and indices reduced together.
// CHECK-LABEL: tile.func public @reduce_two_operands(
// CHECK-SAME: %[[X:.*]]: tensor<32x64xf32>, %[[I:.*]]: tensor<32x64xi32>)
tile.func public @reduce_two_operands(%x: tensor<32x64xf32>, %idx: tensor<32x64xi32>) -> (tensor<32xf32>, tensor<32xi32>) {
  // CHECK-NEXT: %[[R:.*]]:2 = tile.reduce %[[X]], %[[I]] axis = 1 : tensor<32x64xf32>, tensor<32x64xi32> -> tensor<32xf32>, tensor<32xi32> {
  // CHECK-NEXT: ^bb0(%[[LV:.*]]: f32, %[[LI:.*]]: i32, %[[RV:.*]]: f32, %[[RI:.*]]: i32):
  // CHECK-NEXT:   %[[GT:.*]] = arith.cmpf ogt, %[[LV]], %[[RV]] : f32
  // CHECK-NEXT:   %[[MV:.*]] = arith.select %[[GT]], %[[LV]], %[[RV]] : f32
  // CHECK-NEXT:   %[[MI:.*]] = arith.select %[[GT]], %[[LI]], %[[RI]] : i32
  // CHECK-NEXT:   tile.reduce.return %[[MV]], %[[MI]] : f32, i32
  // CHECK-NEXT: }
  // CHECK-NEXT: tile.return %[[R]]#0, %[[R]]#1 : tensor<32xf32>, tensor<32xi32>
  %v, %i = tile.reduce %x, %idx axis = 1 : tensor<32x64xf32>, tensor<32x64xi32> -> tensor<32xf32>, tensor<32xi32> {
  ^bb0(%lv: f32, %li: i32, %rv: f32, %ri: i32):
    %gt = arith.cmpf ogt, %lv, %rv : f32
    %mv = arith.select %gt, %lv, %rv : f32
    %mi = arith.select %gt, %li, %ri : i32
    tile.reduce.return %mv, %mi : f32, i32
  }
  tile.return %v, %i : tensor<32xf32>, tensor<32xi32>
}

// CHECK-LABEL: tile.func public @scan(
// CHECK-SAME: %[[X:.*]]: tensor<128xi32>)
tile.func public @scan(%x: tensor<128xi32>) {
  // CHECK-NEXT: tile.scan %[[X]] axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  // CHECK-NEXT: ^bb0(%[[L:.*]]: i32, %[[R:.*]]: i32):
  // CHECK-NEXT:   %[[A:.*]] = arith.addi %[[L]], %[[R]] : i32
  // CHECK-NEXT:   tile.scan.return %[[A]] : i32
  // CHECK-NEXT: }
  %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
  ^bb0(%l: i32, %r: i32):
    %a = arith.addi %l, %r : i32
    tile.scan.return %a : i32
  }
  tile.return
}

// CHECK-LABEL: tile.func public @scan_reverse(
// CHECK-SAME: %[[X:.*]]: tensor<32x64xf32>)
tile.func public @scan_reverse(%x: tensor<32x64xf32>) {
  // CHECK-NEXT: tile.scan %[[X]] axis = 1 reverse : tensor<32x64xf32> -> tensor<32x64xf32> {
  // CHECK-NEXT: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
  // CHECK-NEXT:   %[[A:.*]] = arith.mulf %[[L]], %[[R]] : f32
  // CHECK-NEXT:   tile.scan.return %[[A]] : f32
  // CHECK-NEXT: }
  %c = tile.scan %x axis = 1 reverse : tensor<32x64xf32> -> tensor<32x64xf32> {
  ^bb0(%l: f32, %r: f32):
    %a = arith.mulf %l, %r : f32
    tile.scan.return %a : f32
  }
  tile.return
}

// CHECK-LABEL: tile.func public @scan_two_operands(
// CHECK-SAME: %[[X:.*]]: tensor<128xf32>, %[[Y:.*]]: tensor<128xi32>)
tile.func public @scan_two_operands(%x: tensor<128xf32>, %y: tensor<128xi32>) {
  // CHECK-NEXT: %{{.*}}:2 = tile.scan %[[X]], %[[Y]] axis = 0 : tensor<128xf32>, tensor<128xi32> -> tensor<128xf32>, tensor<128xi32> {
  // CHECK-NEXT: ^bb0(%[[LX:.*]]: f32, %[[LY:.*]]: i32, %[[RX:.*]]: f32, %[[RY:.*]]: i32):
  // CHECK-NEXT:   %[[A:.*]] = arith.addf %[[LX]], %[[RX]] : f32
  // CHECK-NEXT:   %[[B:.*]] = arith.addi %[[LY]], %[[RY]] : i32
  // CHECK-NEXT:   tile.scan.return %[[A]], %[[B]] : f32, i32
  // CHECK-NEXT: }
  %c:2 = tile.scan %x, %y axis = 0 : tensor<128xf32>, tensor<128xi32> -> tensor<128xf32>, tensor<128xi32> {
  ^bb0(%lx: f32, %ly: i32, %rx: f32, %ry: i32):
    %a = arith.addf %lx, %rx : f32
    %b = arith.addi %ly, %ry : i32
    tile.scan.return %a, %b : f32, i32
  }
  tile.return
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @fp_to_fp_narrow(
// CHECK-SAME: %[[X:.*]]: tensor<128xf32>, %[[H:.*]]: f16)
tile.func public @fp_to_fp_narrow(%x: tensor<128xf32>, %h: f16) {
  // CHECK-NEXT: tile.fp_to_fp %[[X]], rounding = rtne : tensor<128xf32> -> tensor<128xf8E4M3FN>
  // CHECK-NEXT: tile.fp_to_fp %[[H]], rounding = rtz : f16 -> f8E5M2
  %0 = tile.fp_to_fp %x, rounding = rtne : tensor<128xf32> -> tensor<128xf8E4M3FN>
  %1 = tile.fp_to_fp %h, rounding = rtz : f16 -> f8E5M2
  tile.return
}

// CHECK-LABEL: tile.func public @fp_to_fp_widen(
// CHECK-SAME: %[[X:.*]]: tensor<128xf8E4M3FN>, %[[Y:.*]]: f8E5M2)
tile.func public @fp_to_fp_widen(%x: tensor<128xf8E4M3FN>, %y: f8E5M2) {
  // CHECK-NEXT: tile.fp_to_fp %[[X]] : tensor<128xf8E4M3FN> -> tensor<128xf16>
  // CHECK-NEXT: tile.fp_to_fp %[[Y]] : f8E5M2 -> f32
  %0 = tile.fp_to_fp %x : tensor<128xf8E4M3FN> -> tensor<128xf16>
  %1 = tile.fp_to_fp %y : f8E5M2 -> f32
  tile.return
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @assert(
// CHECK-SAME: %[[T:.*]]: tensor<128xi1>, %[[S:.*]]: i1)
tile.func public @assert(%t: tensor<128xi1>, %s: i1) {
  // CHECK-NEXT: tile.assert %[[T]], "index out of range" : tensor<128xi1>
  // CHECK-NEXT: tile.assert %[[S]], "scalar check" : i1
  tile.assert %t, "index out of range" : tensor<128xi1>
  tile.assert %s, "scalar check" : i1
  tile.return
}

// CHECK-LABEL: tile.func public @print_no_args()
tile.func public @print_no_args() {
  // CHECK-NEXT: tile.print "hello" {isSigned = array<i32>}
  tile.print "hello" {isSigned = array<i32>}
  tile.return
}

// CHECK-LABEL: tile.func public @print_args(
// CHECK-SAME: %[[X:.*]]: tensor<128xi32>, %[[Y:.*]]: f32)
tile.func public @print_args(%x: tensor<128xi32>, %y: f32) {
  // hex = false is the default and is not printed.
  // CHECK-NEXT: tile.print " x: " {isSigned = array<i32: 1>} : %[[X]] : tensor<128xi32>
  // CHECK-NEXT: tile.print " xy: " {hex = true, isSigned = array<i32: 0, 1>} : %[[X]], %[[Y]] : tensor<128xi32>, f32
  tile.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<128xi32>
  tile.print " xy: " {hex = true, isSigned = array<i32: 0, 1>} : %x, %y : tensor<128xi32>, f32
  tile.return
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func private @helper(
// CHECK-SAME: %[[A:.*]]: f32, %[[B:.*]]: tensor<4xi32>) -> (f32, tensor<4xi32>) {
// CHECK-NEXT: tile.return %[[A]], %[[B]] : f32, tensor<4xi32>
tile.func private @helper(%a: f32, %b: tensor<4xi32>) -> (f32, tensor<4xi32>) {
  tile.return %a, %b : f32, tensor<4xi32>
}

// CHECK-LABEL: tile.func private @no_results() {
// CHECK-NEXT: tile.return{{$}}
tile.func private @no_results() {
  tile.return
}

// CHECK-LABEL: tile.func private @declaration(f32) -> f32{{$}}
tile.func private @declaration(f32) -> f32

// CHECK-LABEL: tile.func public @kernel_arg_attrs(
// CHECK-SAME: %{{.*}}: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %{{.*}}: i32 {tile.divisibility = 8 : i32}, %{{.*}}: i32) {
tile.func public @kernel_arg_attrs(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 8 : i32}, %m: i32) {
  tile.return
}

// CHECK-LABEL: tile.func public @call(
// CHECK-SAME: %[[F:.*]]: f32, %[[T:.*]]: tensor<4xi32>)
tile.func public @call(%f: f32, %t: tensor<4xi32>) {
  // CHECK-NEXT: %{{.*}}:2 = tile.call @helper(%[[F]], %[[T]]) : (f32, tensor<4xi32>) -> (f32, tensor<4xi32>)
  // CHECK-NEXT: tile.call @no_results() : () -> ()
  %r:2 = tile.call @helper(%f, %t) : (f32, tensor<4xi32>) -> (f32, tensor<4xi32>)
  tile.call @no_results() : () -> ()
  tile.return
}

// CHECK-LABEL: tile.func public @barrier(
// CHECK-NEXT: tile.store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.load
tile.func public @barrier(%p: !tile.ptr<f32>, %v: f32) -> f32 {
  tile.store %p, %v : !tile.ptr<f32>
  tile.barrier
  %x = tile.load %p : !tile.ptr<f32>
  tile.return %x : f32
}

// CHECK-LABEL: tile.func public @grid_dependency(
// CHECK-NEXT: tile.grid_dependency "wait"
// CHECK-NEXT: tile.load
// CHECK-NEXT: tile.grid_dependency "launch_dependents"
// CHECK-NEXT: tile.store
tile.func public @grid_dependency(%p: !tile.ptr<f32>) {
  tile.grid_dependency "wait"
  %x = tile.load %p : !tile.ptr<f32>
  tile.grid_dependency "launch_dependents"
  tile.store %p, %x : !tile.ptr<f32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func public @descriptor_reduce(
// CHECK: tile.descriptor_reduce add, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
// CHECK: tile.descriptor_reduce xor, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<64x64xi32>>, tensor<64x64xi32>
tile.func public @descriptor_reduce(%d: !tile.tensordesc<tensor<64x64xf32>>, %e: !tile.tensordesc<tensor<64x64xi32>>, %i: i32, %v: tensor<64x64xf32>, %w: tensor<64x64xi32>) {
  tile.descriptor_reduce add, %d[%i, %i], %v : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
  tile.descriptor_reduce xor, %e[%i, %i], %w : !tile.tensordesc<tensor<64x64xi32>>, tensor<64x64xi32>
  tile.return
}

// -----

// CHECK-LABEL: tile.func public @elementwise_inline_asm(
// CHECK: %{{.*}} = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, 17;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %{{.*}}, %{{.*}} : tensor<128xi32>, tensor<128xi32> -> tensor<128xi32>
// CHECK: %{{.*}}:2 = tile.elementwise_inline_asm "sub.u32 $0, $2, $3; sub.u32 $1, $3, $2;" {constraints = "=r,=r,r,r", packed_element = 1 : i32, pure = true} %{{.*}}, %{{.*}} : tensor<128xi32>, tensor<128xi32> -> tensor<128xi32>, tensor<128xi32>
// CHECK: %{{.*}} = tile.elementwise_inline_asm "mov.u32 $0, %smid;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
tile.func public @elementwise_inline_asm(%x: tensor<128xi32>, %y: tensor<128xi32>) {
  %z = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, 17;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %x, %y : tensor<128xi32>, tensor<128xi32> -> tensor<128xi32>
  %c:2 = tile.elementwise_inline_asm "sub.u32 $0, $2, $3; sub.u32 $1, $3, $2;" {constraints = "=r,=r,r,r", packed_element = 1 : i32, pure = true} %x, %y : tensor<128xi32>, tensor<128xi32> -> tensor<128xi32>, tensor<128xi32>
  %s = tile.elementwise_inline_asm "mov.u32 $0, %smid;" {constraints = "=r", packed_element = 1 : i32, pure = false} -> i32
  tile.return
}
