// RUN: warpforge-opt %s --split-input-file --convert-tilegpu-to-llvm --canonicalize | FileCheck %s

// make_range: each element is the thread's coordinate plus the start.
// 4 warps of 32 lanes, 2 consecutive elements each: 256 elements in one
// pass, so a 512-element range gives each thread 4 (2 per repetition).
#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @range
  // CHECK-DAG: llvm.mlir.constant(16 : i32)
  // CHECK-DAG: llvm.mlir.constant(256 : i32)
  // CHECK: nvvm.read.ptx.sreg.tid.x
  // CHECK-COUNT-4: st.global.b32
  // CHECK-NOT: st.global
  tile.func public @range(%p: !tile.ptr<i32>) {
    %r = tile.make_range {start = 16 : i32, end = 528 : i32} : tensor<512xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<512x!tile.ptr<i32>, #b>
    %pp = tile.addptr %ps, %r : tensor<512x!tile.ptr<i32>, #b>, tensor<512xi32, #b>
    tile.store %pp, %r : tensor<512x!tile.ptr<i32>, #b>
    tile.return
  }
}

// -----

// expand_dims from a slice keeps the elements; broadcast repeats them along
// the new dimension.
#b2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @broadcast_row
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: llvm.load
  // CHECK: llvm.return
  tile.func public @broadcast_row(%p: !tile.ptr<i32>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 0, parent = #b2>>
    %e = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32, #tilegpu.slice<dim = 0, parent = #b2>> -> tensor<1x32xi32, #b2>
    %b = tile.broadcast %e : tensor<1x32xi32, #b2> -> tensor<16x32xi32, #b2>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<16x32x!tile.ptr<i32>, #b2>
    %pp = tile.addptr %ps, %b : tensor<16x32x!tile.ptr<i32>, #b2>, tensor<16x32xi32, #b2>
    tile.store %pp, %b : tensor<16x32x!tile.ptr<i32>, #b2>
    tile.return
  }
}

// -----

// trans into the permuted layout moves no data.
#r = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#c = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @trans
  // CHECK-NOT: nvvm.shfl
  // CHECK-NOT: llvm.load
  // CHECK: llvm.return
  tile.func public @trans(%x: tensor<16x32xf32, #r>) {
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x32xf32, #r> -> tensor<32x16xf32, #c>
    tile.return
  }
}
