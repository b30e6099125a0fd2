// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// A transposing conversion goes through shared memory: barrier, every
// thread stores its elements at their padded row-major slot, barrier,
// every thread loads the elements of the new layout.  Rows of 64 f32 get
// one word of padding: slot = i + (i >> 6) * 1.  The loads walk down
// columns; 16-byte stores would need 16 bytes of padding, which puts 8
// lanes' column reads in one bank (4-way), so the stores stay scalar.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert_through_shared_memory
  // CHECK: nvvm.barrier0
  // CHECK: %[[SHIFT:.*]] = llvm.mlir.constant(6 : i32) : i32
  // CHECK-NEXT: %[[ROW:.*]] = llvm.lshr %[[INDEX:.*]], %[[SHIFT]] : i32
  // CHECK-NEXT: %[[PAD:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[ROWPAD:.*]] = llvm.mul %[[ROW]], %[[PAD]] : i32
  // CHECK-NEXT: %[[SLOT:.*]] = llvm.add %[[INDEX]], %[[ROWPAD]] : i32
  // CHECK-NEXT: %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[SLOT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  // CHECK-NEXT: llvm.store %{{.*}}, %[[PTR]] : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-NOT: llvm.store
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @convert_through_shared_memory(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<64x64xf32, #row>
    %y = tilegpu.convert_layout %x : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    tile.return
  }
}

// -----

// Layouts differing only along a dimension of size 1 place every element
// in the same thread: no data movement.
#a = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [2, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert_in_registers
  // CHECK-NOT: nvvm.barrier0
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  tile.func public @convert_in_registers(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<1x128xf32, #a>
    %y = tilegpu.convert_layout %x : tensor<1x128xf32, #a> -> tensor<1x128xf32, #b>
    tile.return
  }
}

// -----

// 128x256 f32 is 128 KB: it moves in rounds of 64 KB (minus padding), each
// element stored and loaded under a predicate for its round.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert_in_rounds
  // CHECK: nvvm.barrier0
  // CHECK: "@$2 st.shared.b32 [$0], $1;"
  // CHECK: nvvm.barrier0
  // CHECK: "mov.b32 $0, 0;\0A\09@$2 ld.shared.b32 $0, [$1];"
  // CHECK: nvvm.barrier0
  // CHECK: "@$2 st.shared.b32 [$0], $1;"
  // CHECK: llvm.return
  tile.func public @convert_in_rounds(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<128x256xf32, #row>
    %y = tilegpu.convert_layout %x : tensor<128x256xf32, #row> -> tensor<128x256xf32, #col>
    tile.return
  }
}

// -----

// i1 is a byte in shared memory.
#a = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert_i1
  // CHECK: llvm.zext %{{.*}} : i1 to i8
  // CHECK: llvm.store %{{.*}}, %{{.*}} : i8, !llvm.ptr<3>
  // CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> vector<4xi8>
  // CHECK: llvm.trunc %{{.*}} : i8 to i1
  tile.func public @convert_i1(%c: i1) {
    %x = tile.splat %c : i1 -> tensor<128xi1, #a>
    %y = tilegpu.convert_layout %x : tensor<128xi1, #a> -> tensor<128xi1, #b>
    tile.return
  }
}

// -----

// A reshape moves elements by their row-major index.
#flat = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#tile2 = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @reshape_through_shared_memory
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
  tile.func public @reshape_through_shared_memory(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<1024xf16, #flat>
    %y = tile.reshape %x : tensor<1024xf16, #flat> -> tensor<8x128xf16, #tile2>
    tile.return
  }
}

// -----

// A reshape that keeps each thread's elements in row-major order (here a
// row per warp, as the flat tensor had) needs no data movement.
#flat = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#tile2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @reshape_in_registers
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @reshape_in_registers(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<512xf32, #flat>
    %y = tile.reshape %x : tensor<512xf32, #flat> -> tensor<4x128xf32, #tile2>
    tile.return
  }
}

// -----

// With allow_reorder, a reshape keeps the registers as they are when that
// is one permutation of the elements.
#a = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#flat = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @reshape_reordered
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @reshape_reordered(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<32x16xf32, #a>
    %y = tile.reshape %x allow_reorder : tensor<32x16xf32, #a> -> tensor<512xf32, #flat>
    tile.return
  }
}

// -----

// A wgmma accumulator goes to a blocked layout through shared memory: each
// thread stores its 32 elements (m64n64: 64*64/128) as 16 pairs of
// adjacent columns (8 bytes) and loads 32 as 8 runs of 4 (16 bytes).
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert_from_wgmma
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-16: llvm.store %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  // CHECK-NOT: llvm.load
  // CHECK: llvm.return
  tile.func public @convert_from_wgmma(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<64x64xf32, #wgmma>
    %y = tilegpu.convert_layout %x : tensor<64x64xf32, #wgmma> -> tensor<64x64xf32, #blocked>
    tile.return
  }
}

// -----

// The accumulator of one wgmma is the A operand of the next (the RS form)
// without moving: a thread's columns 8j + 2(l%4) + {0,1} are the A
// fragment's 16s + 8h + 2(l%4) + {0,1}.  Only the order changes.
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #wgmma, kWidth = 2>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @convert_acc_to_rs_operand
  // CHECK-NOT: nvvm.barrier0
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  tile.func public @convert_acc_to_rs_operand(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<64x32xf16, #wgmma>
    %y = tilegpu.convert_layout %x : tensor<64x32xf16, #wgmma> -> tensor<64x32xf16, #opA>
    tile.return
  }
}

// -----

// A 128x256 f16 accumulator (a 128x256 matmul tile with two warpgroups)
// goes to the store's blocked layout in one round: 4-byte stores of column
// pairs, 16-byte loads of runs of 8.  Rows of 512 bytes get 16 bytes of
// padding: the stores' 8 rows of 4 lanes then fill all 32 banks.
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
module attributes {"tilegpu.num-warps" = 8 : i32} {
  // CHECK-LABEL: llvm.func @convert_wide_tile_vectorized
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-64: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-16: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
  // CHECK-NOT: nvvm.barrier0
  // CHECK: llvm.return
  tile.func public @convert_wide_tile_vectorized(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<128x256xf16, #wgmma>
    %y = tilegpu.convert_layout %x : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked>
    tile.return
  }
}
