// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // The second allocation starts at its offset (1024, aligned); an
  // initializing allocation stores the tensor between barriers.
  // CHECK-LABEL: llvm.func @local_alloc_and_load
  // CHECK: llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK: %[[BASE:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(1024 : i32) : i32
  // CHECK-NEXT: %[[B:.*]] = llvm.getelementptr %[[BASE]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // Row-major: element (r, c) at r * 32 + c.
  // CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK-NEXT: %[[ROW:.*]] = llvm.mul %{{.*}}, %[[STRIDE]] : i32
  // CHECK-NEXT: %[[OFFSET:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[B]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK: llvm.load %[[P]] : !llvm.ptr<3> -> f16
  tile.func public @local_alloc_and_load(%f: f16) {
    %first = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    %x = tile.splat %f : f16 -> tensor<16x32xf16, #blocked>
    %m = tilegpu.local_alloc %x : (tensor<16x32xf16, #blocked>) -> !tilegpu.memdesc<16x32xf16, #shared>
    %y = tilegpu.local_load %m : !tilegpu.memdesc<16x32xf16, #shared> -> tensor<16x32xf16, #blocked>
    tilegpu.local_dealloc %m : !tilegpu.memdesc<16x32xf16, #shared>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Column-major (order [0, 1]): element (r, c) at r + c * 16; a store is
  // fenced by barriers on both sides.
  // CHECK-LABEL: llvm.func @local_store_column_major
  // CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(16 : i32) : i32
  // CHECK: llvm.mul %{{.*}}, %[[STRIDE]] : i32
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: llvm.return
  tile.func public @local_store_column_major(%f: f32) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf32, #shared, mutable>
    %x = tile.splat %f : f32 -> tensor<16x32xf32, #blocked>
    tilegpu.local_store %x, %m : tensor<16x32xf32, #blocked> -> !tilegpu.memdesc<16x32xf32, #shared, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Buffer i of a ring starts i * 4096 bytes in; a sub-tile at [16, 32]
  // starts 16 * 64 + 32 elements in and keeps the row stride of 64.
  // CHECK-LABEL: llvm.func @memdesc_index_and_subslice
  // CHECK: %[[BYTES:.*]] = llvm.mlir.constant(4096 : i32) : i32
  // CHECK-NEXT: %[[OFF:.*]] = llvm.mul %arg0, %[[BYTES]] : i32
  // CHECK-NEXT: %[[BUF:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[START:.*]] = llvm.mlir.constant(1056 : i32) : i32
  // CHECK-NEXT: %[[SUB:.*]] = llvm.getelementptr %[[BUF]][%[[START]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: llvm.mul %{{.*}}, %[[STRIDE]] : i32
  // CHECK: llvm.getelementptr %[[SUB]]
  // CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
  tile.func public @memdesc_index_and_subslice(%i: i32) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #shared, mutable, buffers = 3>
    %b = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<32x64xf16, #shared, mutable, buffers = 3> -> !tilegpu.memdesc<32x64xf16, #shared, mutable>
    %t = tilegpu.memdesc_subslice %b [16, 32] : !tilegpu.memdesc<32x64xf16, #shared, mutable> -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    %y = tilegpu.local_load %t : !tilegpu.memdesc<16x32xf16, #shared, mutable> -> tensor<16x32xf16, #blocked>
    tile.return
  }
}
