// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-scf-to-cf --convert-tilegpu-to-llvm | FileCheck %s

// tilegpu.warp_all: the thread's elements and-ed, one vote over the warp
// (no shuffle, no shared memory), deciding a branch around the rescale.
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @skip_when_all_ones
  // CHECK: %[[A:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i1, i1)>
  // CHECK-NEXT: %[[B:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(i1, i1)>
  // CHECK-NEXT: %[[AB:.*]] = llvm.and %[[A]], %[[B]] : i1
  // CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(-1 : i32) : i32
  // CHECK-NEXT: %[[ALL:.*]] = nvvm.vote.sync  all %[[MASK]], %[[AB]] -> i1
  // CHECK-NEXT: llvm.cond_br %[[ALL]], ^[[SKIP:.*]], ^[[MUL:.*]]
  // CHECK: ^[[MUL]]:
  // CHECK-COUNT-2: llvm.fmul
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @skip_when_all_ones(%c: tensor<64x1xi1, #w>, %x: tensor<64x1xf32, #w>, %p: !tile.ptr<f32>) {
    %all = tilegpu.warp_all %c : tensor<64x1xi1, #w>
    %r = scf.if %all -> (tensor<64x1xf32, #w>) {
      scf.yield %x : tensor<64x1xf32, #w>
    } else {
      %m = arith.mulf %x, %x : tensor<64x1xf32, #w>
      scf.yield %m : tensor<64x1xf32, #w>
    }
    tile.return
  }
}
