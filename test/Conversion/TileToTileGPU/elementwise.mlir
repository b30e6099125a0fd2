// RUN: warpforge-opt %s --convert-tile-to-tilegpu -split-input-file | FileCheck %s

// Element-wise ops: all their tensors in the default layout of their shape.

// An element-wise chain: every tensor in the default layout of its shape,
// no conversion.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @vector_add(
// CHECK: tile.make_range {{.*}} : tensor<1024xi32, #[[B]]>
// CHECK-NEXT: tile.splat %{{.*}} : i32 -> tensor<1024xi32, #[[B]]>
// CHECK-NEXT: arith.addi %{{.*}}, %{{.*}} : tensor<1024xi32, #[[B]]>
// CHECK-NEXT: tile.splat %{{.*}} : i32 -> tensor<1024xi32, #[[B]]>
// CHECK-NEXT: arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<1024xi32, #[[B]]>
// CHECK-NEXT: tile.splat %{{.*}} : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #[[B]]>
// CHECK-NEXT: tile.addptr %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[B]]>, tensor<1024xi32, #[[B]]>
// CHECK-NEXT: tile.load %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<1024xf32, #[[B]]>
// CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
// CHECK-NOT: tilegpu.convert_layout
tile.func public @vector_add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>, %n: i32) {
  %c1024 = arith.constant 1024 : i32
  %pid = tile.get_program_id x : i32
  %start = arith.muli %pid, %c1024 : i32
  %range = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %starts = tile.splat %start : i32 -> tensor<1024xi32>
  %offs = arith.addi %starts, %range : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %xp = tile.addptr %xs, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %a = tile.load %xp, %mask : tensor<1024x!tile.ptr<f32>>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %yp = tile.addptr %ys, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %b = tile.load %yp, %mask : tensor<1024x!tile.ptr<f32>>
  %sum = arith.addf %a, %b : tensor<1024xf32>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %op = tile.addptr %os, %offs : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %op, %sum, %mask : tensor<1024x!tile.ptr<f32>>
  tile.return
}

// -----

// Dense constants carry the layout in their value's type too.
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @constants()
// CHECK-SAME: -> (tensor<64x64xf32, #[[B2]]>, tensor<4xi32, #[[B1]]>)
// CHECK-NEXT: arith.constant dense<1.500000e+00> : tensor<64x64xf32, #[[B2]]>
// CHECK-NEXT: arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32, #[[B1]]>
tile.func public @constants() -> (tensor<64x64xf32>, tensor<4xi32>) {
  %s = arith.constant dense<1.5> : tensor<64x64xf32>
  %d = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  tile.return %s, %d : tensor<64x64xf32>, tensor<4xi32>
}

// -----

// Function arguments and results, a load's mask and other, a select with a
// scalar condition, and the op's attributes.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @load_other_and_select(
// CHECK-SAME: %[[P:[^:]*]]: tensor<128x!tile.ptr<f16>, #[[B]]>, %[[M:[^:]*]]: tensor<128xi1, #[[B]]>, %[[O:[^:]*]]: tensor<128xf16, #[[B]]>, %[[C:[^:]*]]: i1) -> tensor<128xf16, #[[B]]>
// CHECK-NEXT: %[[V:.*]] = tile.load %[[P]], %[[M]], %[[O]] cacheModifier = cg : tensor<128x!tile.ptr<f16>, #[[B]]>
// CHECK-NEXT: %[[S:.*]] = arith.select %[[C]], %[[V]], %[[O]] : tensor<128xf16, #[[B]]>
// CHECK-NEXT: tile.return %[[S]] : tensor<128xf16, #[[B]]>
tile.func public @load_other_and_select(%p: tensor<128x!tile.ptr<f16>>, %m: tensor<128xi1>, %o: tensor<128xf16>, %c: i1) -> tensor<128xf16> {
  %v = tile.load %p, %m, %o cacheModifier = cg : tensor<128x!tile.ptr<f16>>
  %s = arith.select %c, %v, %o : tensor<128xf16>
  tile.return %s : tensor<128xf16>
}

// -----

// Pointer and float conversions are element-wise.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @conversions(
// CHECK-NEXT: tile.ptr_to_int %{{.*}} : tensor<256x!tile.ptr<f32>, #[[B]]> -> tensor<256xi64, #[[B]]>
// CHECK-NEXT: tile.int_to_ptr %{{.*}} : tensor<256xi64, #[[B]]> -> tensor<256x!tile.ptr<f16>, #[[B]]>
// CHECK-NEXT: tile.bitcast %{{.*}} : tensor<256x!tile.ptr<f32>, #[[B]]> -> tensor<256x!tile.ptr<i32>, #[[B]]>
// CHECK-NEXT: tile.fp_to_fp %{{.*}}, rounding = rtne : tensor<256xf32, #[[B]]> -> tensor<256xf8E4M3FN, #[[B]]>
// CHECK-NEXT: math.exp %{{.*}} : tensor<256xf32, #[[B]]>
tile.func public @conversions(%p: tensor<256x!tile.ptr<f32>>, %x: tensor<256xf32>, %q: tensor<256xi64>) {
  %i = tile.ptr_to_int %p : tensor<256x!tile.ptr<f32>> -> tensor<256xi64>
  %p2 = tile.int_to_ptr %q : tensor<256xi64> -> tensor<256x!tile.ptr<f16>>
  %b = tile.bitcast %p : tensor<256x!tile.ptr<f32>> -> tensor<256x!tile.ptr<i32>>
  %f8 = tile.fp_to_fp %x, rounding = rtne : tensor<256xf32> -> tensor<256xf8E4M3FN>
  %e = math.exp %x : tensor<256xf32>
  tile.return
}

// -----

// Atomics, assertions and prints.
// CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-LABEL: tile.func public @atomics_assert_print(
// CHECK-NEXT: %[[OLD:.*]] = tile.atomic_rmw add, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<i32>, #[[B]]>
// CHECK-NEXT: %[[CAS:.*]] = tile.atomic_cas acq_rel, gpu, %{{.*}}, %{{.*}}, %[[OLD]] : tensor<128x!tile.ptr<i32>, #[[B]]>
// CHECK-NEXT: tile.assert %{{.*}}, "mask" : tensor<128xi1, #[[B]]>
// CHECK-NEXT: tile.print " v: " {{.*}} : %[[CAS]], %{{.*}} : tensor<128xi32, #[[B]]>, i32
tile.func public @atomics_assert_print(%p: tensor<128x!tile.ptr<i32>>, %v: tensor<128xi32>, %m: tensor<128xi1>, %s: i32) {
  %old = tile.atomic_rmw add, acq_rel, gpu, %p, %v, %m : tensor<128x!tile.ptr<i32>>
  %cas = tile.atomic_cas acq_rel, gpu, %p, %v, %old : tensor<128x!tile.ptr<i32>>
  tile.assert %m, "mask" : tensor<128xi1>
  tile.print " v: " {hex = false, isSigned = array<i32: 1, 1>} : %cas, %s : tensor<128xi32>, i32
  tile.return
}
