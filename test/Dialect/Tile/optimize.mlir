// RUN: warpforge-opt %s --tile-optimize | FileCheck %s
// RUN: warpforge-opt %s --pass-pipeline='builtin.module(tile-optimize)' | FileCheck %s
// RUN: warpforge-opt %s --tile-optimize --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// The tile-optimize pipeline on a small matmul kernel: the device function
// is inlined and removed, constants fold, the masks that are always true go,
// dot(a, b, 0) + acc becomes dot(a, b, acc), the two addptrs combine, and
// the source locations survive all of it.

// No device function is left anywhere in the output.
// CHECK-NOT: tile.func private
// CHECK-NOT: @helper
// CHECK-NOT: @unused_helper

// CHECK-LABEL: tile.func public @kernel(
// CHECK-SAME: %[[PA:[^:]*]]: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %[[PB:[^:]*]]: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %[[PC:[^:]*]]: !tile.ptr<f32> {tile.divisibility = 16 : i32})
// CHECK-NEXT: %[[C16:.*]] = arith.constant dense<16> : tensor<16x16xi32>
// CHECK-NEXT: %[[R:.*]] = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
// CHECK-NEXT: %[[OFFS:.*]] = tile.reshape %[[R]] : tensor<256xi32> -> tensor<16x16xi32>
// CHECK-NEXT: %[[PA_T:.*]] = tile.splat %[[PA]] : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>>
// CHECK-NEXT: %[[PA_O:.*]] = tile.addptr %[[PA_T]], %[[OFFS]] : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
// CHECK-NEXT: %[[A:.*]] = tile.load %[[PA_O]] : tensor<16x16x!tile.ptr<f16>>
// CHECK-NEXT: %[[PB_T:.*]] = tile.splat %[[PB]] : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>>
// CHECK-NEXT: %[[PB_O:.*]] = tile.addptr %[[PB_T]], %[[OFFS]] : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32>
// CHECK-NEXT: %[[B:.*]] = tile.load %[[PB_O]] : tensor<16x16x!tile.ptr<f16>>
// CHECK-NEXT: %[[PC_T:.*]] = tile.splat %[[PC]] : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
// CHECK-NEXT: %[[PC_O:.*]] = tile.addptr %[[PC_T]], %[[OFFS]] : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
// CHECK-NEXT: %[[ACC:.*]] = tile.load %[[PC_O]] : tensor<16x16x!tile.ptr<f32>>
// CHECK-NEXT: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]] : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[OFFS]], %[[C16]] : tensor<16x16xi32>
// CHECK-NEXT: %[[PC_S:.*]] = tile.addptr %[[PC_T]], %[[SUM]] : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32>
// CHECK-NEXT: tile.store %[[PC_S]], %[[D]] : tensor<16x16x!tile.ptr<f32>>
// CHECK-NEXT: tile.return
// CHECK-NEXT: }
// CHECK-NOT: tile.func private
// CHECK-NOT: tile.call
// CHECK-NOT: @helper
// CHECK-NOT: @unused_helper
// CHECK-NOT: @pick

// LOC-LABEL: tile.func public @kernel(
// LOC: tile.make_range {{.*}} loc("matmul.py":11:11)
// The fused dot takes the add's location, inside the inlined call.
// LOC: tile.dot {{.*}} loc(callsite("matmul.py":6:13 at "matmul.py":16:8))
// LOC: tile.store {{.*}} loc("matmul.py":17:4)
// LOC-NEXT: tile.return loc("matmul.py":18:4)
// LOC-NEXT: } loc("matmul.py":9:0)

tile.func private @helper(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %acc: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32 loc("matmul.py":4:11)
  %z = tile.splat %zero : f32 -> tensor<16x16xf32> loc("matmul.py":4:11)
  %p = tile.dot %a, %b, %z : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32> loc("matmul.py":5:8)
  %s = arith.addf %acc, %p : tensor<16x16xf32> loc("matmul.py":6:13)
  tile.return %s : tensor<16x16xf32> loc("matmul.py":6:4)
} loc("matmul.py":3:0)

tile.func private @unused_helper(%a: f32) -> f32 {
  tile.return %a : f32
}

tile.func public @kernel(%pa: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
  %c4 = arith.constant 4 : i32 loc("matmul.py":10:9)
  %c4b = arith.constant 4 : i32 loc("matmul.py":10:9)
  %c16 = arith.muli %c4, %c4b : i32 loc("matmul.py":10:9)
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32> loc("matmul.py":11:11)
  %offs = tile.reshape %r : tensor<256xi32> -> tensor<16x16xi32> loc("matmul.py":11:11)
  %t = arith.constant true loc("matmul.py":12:11)
  %mask = tile.splat %t : i1 -> tensor<16x16xi1> loc("matmul.py":12:11)
  %pa_t = tile.splat %pa : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>> loc("matmul.py":13:8)
  %pa_o = tile.addptr %pa_t, %offs : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32> loc("matmul.py":13:8)
  %a = tile.load %pa_o, %mask : tensor<16x16x!tile.ptr<f16>> loc("matmul.py":13:8)
  %pb_t = tile.splat %pb : !tile.ptr<f16> -> tensor<16x16x!tile.ptr<f16>> loc("matmul.py":14:8)
  %pb_o = tile.addptr %pb_t, %offs : tensor<16x16x!tile.ptr<f16>>, tensor<16x16xi32> loc("matmul.py":14:8)
  %b = tile.load %pb_o : tensor<16x16x!tile.ptr<f16>> loc("matmul.py":14:8)
  %pc_t = tile.splat %pc : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>> loc("matmul.py":15:10)
  %pc_o = tile.addptr %pc_t, %offs : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32> loc("matmul.py":15:10)
  %acc = tile.load %pc_o : tensor<16x16x!tile.ptr<f32>> loc("matmul.py":15:10)
  %d = tile.call @helper(%a, %b, %acc) : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("matmul.py":16:8)
  %c16t = tile.splat %c16 : i32 -> tensor<16x16xi32> loc("matmul.py":17:4)
  %pc_s = tile.addptr %pc_o, %c16t : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xi32> loc("matmul.py":17:4)
  tile.store %pc_s, %d, %mask : tensor<16x16x!tile.ptr<f32>> loc("matmul.py":17:4)
  tile.return loc("matmul.py":18:4)
} loc("matmul.py":9:0)

// A device function with several blocks inlines through cf branches, which
// then simplify to a select; loop-invariant splats leave the loop.

// CHECK-LABEL: tile.func public @multi_block_and_loop(
// CHECK-SAME: %[[P:[^:]*]]: !tile.ptr<f32>, %[[C:[^:]*]]: i1, %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32, %[[N:[^:]*]]: index)
// CHECK-NOT: tile.call
// CHECK-NOT: cf.
// CHECK: %[[SEL:.*]] = arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK-NEXT: tile.store %[[P]], %[[SEL]] : !tile.ptr<f32>
// CHECK-NEXT: %[[X:.*]] = tile.splat %[[A]] : f32 -> tensor<4xf32>
// CHECK-NEXT: %[[Q:.*]] = tile.splat %[[P]] : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: scf.for
// CHECK-NEXT: tile.store %[[Q]], %[[X]] : tensor<4x!tile.ptr<f32>>
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
// CHECK-NEXT: }
// CHECK-NOT: tile.func private
// CHECK-NOT: @pick

tile.func private @pick(%c: i1, %a: f32, %b: f32) -> f32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  tile.return %a : f32
^bb2:
  tile.return %b : f32
}

tile.func public @multi_block_and_loop(%p: !tile.ptr<f32>, %c: i1, %a: f32, %b: f32, %n: index) {
  %r = tile.call @pick(%c, %a, %b) : (i1, f32, f32) -> f32
  tile.store %p, %r : !tile.ptr<f32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = tile.splat %a : f32 -> tensor<4xf32>
    %q = tile.splat %p : !tile.ptr<f32> -> tensor<4x!tile.ptr<f32>>
    tile.store %q, %x : tensor<4x!tile.ptr<f32>>
  }
  tile.return
}
