// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// Eight lanes along the axis (lane-id stride 1): three butterfly shuffles,
// no shared memory.
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @reduce_within_warp
  // CHECK-COUNT-3: llvm.fadd
  // CHECK: llvm.bitcast %{{.*}} : f32 to i32
  // CHECK-NEXT: llvm.mlir.constant(31 : i32)
  // CHECK-NEXT: %[[M1:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(-1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[M1]], %{{.*}} : i32 -> i32
  // CHECK: llvm.bitcast %{{.*}} : f32 to i32
  // CHECK-NEXT: llvm.mlir.constant(31 : i32)
  // CHECK-NEXT: %[[M2:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(-1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[M2]], %{{.*}} : i32 -> i32
  // CHECK: llvm.bitcast %{{.*}} : f32 to i32
  // CHECK-NEXT: llvm.mlir.constant(31 : i32)
  // CHECK-NEXT: %[[M4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(-1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[M4]], %{{.*}} : i32 -> i32
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.insertvalue {{.*}} : !llvm.struct<(f32)>
  // CHECK-NEXT: llvm.return
  tile.func public @reduce_within_warp(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<16x32xf32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<16x32xf32, #blocked> -> tensor<16xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      tile.reduce.return %a : f32
    }
    tile.return
  }
}

// -----

// Lanes along dim 1 have lane-id stride 4 when dim 0 is fastest.  An
// integer sum is the same in any order: each lane combines its own value
// with its partner's, no lane-order select.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [0, 1]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @reduce_lane_stride
  // CHECK-NOT: llvm.select
  // CHECK: %[[M4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(-1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[M4]], %{{.*}} : i32 -> i32
  // CHECK-NOT: llvm.select
  // CHECK: %[[M8:.*]] = llvm.mlir.constant(8 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(-1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[M8]], %{{.*}} : i32 -> i32
  // CHECK-NOT: llvm.select
  // CHECK: %[[M16:.*]] = llvm.mlir.constant(16 : i32) : i32
  // CHECK-NEXT: llvm.mlir.constant(-1 : i32)
  // CHECK-NEXT: nvvm.shfl.sync  bfly %{{.*}}, %{{.*}}, %[[M16]], %{{.*}} : i32 -> i32
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: llvm.select
  // CHECK: llvm.return
  tile.func public @reduce_lane_stride(%i: i32) {
    %x = tile.splat %i : i32 -> tensor<4x8xi32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<4x8xi32, #blocked> -> tensor<4xi32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.reduce.return %a : i32
    }
    tile.return
  }
}

// -----

// A float sum depends on the order: the lower lane of each shuffle pair is
// the left operand on both sides (a select on the lane bit).
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @reduce_float_sum_lane_order
  // CHECK: %[[UPPER:.*]] = llvm.icmp "ne"
  // CHECK: %[[OTHER:.*]] = nvvm.shfl.sync  bfly
  // CHECK: %[[O:.*]] = llvm.bitcast %[[OTHER]] : i32 to f32
  // CHECK-NEXT: %[[L:.*]] = llvm.select %[[UPPER]], %[[O]], %[[V:.*]] : i1, f32
  // CHECK-NEXT: %[[R:.*]] = llvm.select %[[UPPER]], %[[V]], %[[O]] : i1, f32
  // CHECK-NEXT: llvm.fadd %[[L]], %[[R]]
  tile.func public @reduce_float_sum_lane_order(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<16x2xf32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<16x2xf32, #blocked> -> tensor<16xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      tile.reduce.return %a : f32
    }
    tile.return
  }
}

// -----

// A maximum is the same in any order and grouping: a thread's elements
// combine as a balanced tree ((e0, e1), (e2, e3)), not a chain, and the
// shuffle combines without a lane-order select.
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @reduce_max_tree
  // CHECK: %[[E0:.*]] = llvm.extractvalue %{{.*}}[0]
  // CHECK-NEXT: %[[E1:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK-NEXT: %[[E2:.*]] = llvm.extractvalue %{{.*}}[2]
  // CHECK-NEXT: %[[E3:.*]] = llvm.extractvalue %{{.*}}[3]
  // CHECK-NEXT: %[[A:.*]] = llvm.call @__nv_fmaxf(%[[E0]], %[[E1]])
  // CHECK-NEXT: %[[B:.*]] = llvm.call @__nv_fmaxf(%[[E2]], %[[E3]])
  // CHECK-NEXT: %[[T:.*]] = llvm.call @__nv_fmaxf(%[[A]], %[[B]])
  // CHECK-NOT: llvm.select
  // CHECK: %[[S:.*]] = nvvm.shfl.sync  bfly
  // CHECK-NEXT: %[[O:.*]] = llvm.bitcast %[[S]] : i32 to f32
  // CHECK-NEXT: llvm.call @__nv_fmaxf(%[[T]], %[[O]])
  // CHECK-NOT: llvm.select
  // CHECK: llvm.return
  tile.func public @reduce_max_tree(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<16x8xf32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<16x8xf32, #blocked> -> tensor<16xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.maxnumf %l, %r : f32
      tile.reduce.return %a : f32
    }
    tile.return
  }
}

// -----

// Four warps along the axis: each warp's partial goes to scratch shared
// memory between barriers, then every thread combines the four.
#blocked = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @reduce_across_warps
  // CHECK-COUNT-3: nvvm.shfl.sync  bfly
  // CHECK: llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @reduce_across_warps(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<16x64xf32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<16x64xf32, #blocked> -> tensor<16xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.maximumf %l, %r : f32
      tile.reduce.return %a : f32
    }
    tile.return
  }
}

// -----

// 8 elements along the axis but 16 lanes and 2 warps: lanes 8-15 and the
// second warp hold copies, so the reduction spans 8 lanes only and needs
// no shared memory (summing the copies would double the result).
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 2], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 8 : i32} {
  // CHECK-LABEL: llvm.func @reduce_wrapping
  // CHECK-COUNT-3: nvvm.shfl.sync  bfly
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @reduce_wrapping(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<4x8xf32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<4x8xf32, #blocked> -> tensor<4xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      tile.reduce.return %a : f32
    }
    tile.return
  }
}

// -----

// A 1-D reduction yields a scalar every thread holds: all partials are read
// back by every thread.
#blocked = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @reduce_to_scalar
  // CHECK-COUNT-5: nvvm.shfl.sync  bfly
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: %[[P0:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK: %[[P1:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK-NEXT: %[[S1:.*]] = llvm.add %[[P0]], %[[P1]] : i32
  // CHECK: %[[P2:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK-NEXT: %[[S2:.*]] = llvm.add %[[S1]], %[[P2]] : i32
  // CHECK: %[[P3:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32
  // CHECK-NEXT: llvm.add %[[S2]], %[[P3]] : i32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @reduce_to_scalar(%i: i32) {
    %x = tile.splat %i : i32 -> tensor<512xi32, #blocked>
    %s = tile.reduce %x axis = 0 : tensor<512xi32, #blocked> -> i32 {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.reduce.return %a : i32
    }
    tile.return
  }
}

// -----

// argmax as tl.argmax writes it: (value, index) pairs, ties to the lower
// index.  Both operands move through each shuffle.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @argmax
  // CHECK: nvvm.shfl.sync  bfly {{.*}} : i32 -> i32
  // CHECK: llvm.bitcast %{{.*}} : i32 to f32
  // CHECK: nvvm.shfl.sync  bfly {{.*}} : i32 -> i32
  // CHECK-NOT: llvm.bitcast
  // CHECK: llvm.fcmp "ogt"
  // CHECK: llvm.fcmp "oeq"
  // CHECK: llvm.icmp "slt"
  // CHECK: llvm.select {{.*}} : i1, f32
  // CHECK: llvm.select {{.*}} : i1, i32
  tile.func public @argmax(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<32xf32, #blocked>
    %i = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #blocked>
    %r:2 = tile.reduce %x, %i axis = 0 : tensor<32xf32, #blocked>, tensor<32xi32, #blocked> -> f32, i32 {
    ^bb0(%v1: f32, %i1: i32, %v2: f32, %i2: i32):
      %gt = arith.cmpf ogt, %v1, %v2 : f32
      %eq = arith.cmpf oeq, %v1, %v2 : f32
      %lt = arith.cmpi slt, %i1, %i2 : i32
      %tie = arith.andi %eq, %lt : i1
      %pick = arith.ori %gt, %tie : i1
      %v = arith.select %pick, %v1, %v2 : f32
      %j = arith.select %pick, %i1, %i2 : i32
      tile.reduce.return %v, %j : f32, i32
    }
    tile.return
  }
}
