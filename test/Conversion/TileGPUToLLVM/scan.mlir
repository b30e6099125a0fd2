// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// One warp holds the whole line: Kogge-Stone over the 32 lanes (5 steps),
// then each lane takes the prefix of the lanes before it (one shuffle) and
// the warp's total comes from the last lane (one shuffle); no shared memory.
#blocked = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @scan_within_warp
  // CHECK: llvm.add
  // CHECK-NOT: llvm.xor
  // CHECK-COUNT-7: nvvm.shfl.sync  idx
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @scan_within_warp(%i: i32) {
    %x = tile.splat %i : i32 -> tensor<64xi32, #blocked>
    %c = tile.scan %x axis = 0 : tensor<64xi32, #blocked> -> tensor<64xi32, #blocked> {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.scan.return %a : i32
    }
    tile.return
  }
}

// -----

// Four warps along the axis: the warps' totals go through scratch shared
// memory, and each thread combines those of the warps before it.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @scan_across_warps
  // CHECK: nvvm.shfl.sync  idx
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK: llvm.icmp "ugt"
  // CHECK: llvm.return
  tile.func public @scan_across_warps(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<128xf32, #blocked>
    %c = tile.scan %x axis = 0 : tensor<128xf32, #blocked> -> tensor<128xf32, #blocked> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      tile.scan.return %a : f32
    }
    tile.return
  }
}

// -----

// A reverse scan visits lanes from the last: the lane's position is
// mirrored (xor with 31) and partners are the lanes above.
#blocked = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @scan_reverse
  // CHECK: llvm.xor %{{.*}}, %{{.*}} : i32
  // CHECK: nvvm.shfl.sync  idx
  // CHECK: llvm.return
  tile.func public @scan_reverse(%i: i32) {
    %x = tile.splat %i : i32 -> tensor<32xi32, #blocked>
    %c = tile.scan %x axis = 0 reverse : tensor<32xi32, #blocked> -> tensor<32xi32, #blocked> {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.scan.return %a : i32
    }
    tile.return
  }
}

// -----

// Along a dimension each thread holds whole (size 4 per thread, 1 lane):
// only the in-thread scan.
#blocked = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @scan_in_thread
  // CHECK-COUNT-3: llvm.add
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @scan_in_thread(%i: i32) {
    %x = tile.splat %i : i32 -> tensor<4x128xi32, #blocked>
    %c = tile.scan %x axis = 0 : tensor<4x128xi32, #blocked> -> tensor<4x128xi32, #blocked> {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.scan.return %a : i32
    }
    tile.return
  }
}
