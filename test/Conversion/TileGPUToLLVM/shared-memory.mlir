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
  // The thread's 4 consecutive f16 along the contiguous dim are one 8-byte
  // vector store.
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.barrier0
  // Row-major: element (r, c) at r * 32 + c.
  // CHECK: %[[STRIDE:.*]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK-NEXT: %[[ROW:.*]] = llvm.mul %{{.*}}, %[[STRIDE]] : i32
  // CHECK-NEXT: %[[OFFSET:.*]] = llvm.add %[[ROW]], %{{.*}} : i32
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[B]][%[[OFFSET]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK-NEXT: llvm.load %[[P]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
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
  // fenced by barriers on both sides.  The thread's runs go along dim 1,
  // which is not contiguous here: one store per element.
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
  // CHECK: llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
  tile.func public @memdesc_index_and_subslice(%i: i32) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #shared, mutable, buffers = 3>
    %b = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<32x64xf16, #shared, mutable, buffers = 3> -> !tilegpu.memdesc<32x64xf16, #shared, mutable>
    %t = tilegpu.memdesc_subslice %b [16, 32] : !tilegpu.memdesc<32x64xf16, #shared, mutable> -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    %y = tilegpu.local_load %t : !tilegpu.memdesc<16x32xf16, #shared, mutable> -> tensor<16x32xf16, #blocked>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // 128-byte swizzle of f16 [64, 64], dim 1 contiguous: W = 64 elements per
  // row, one column block (j = c >> 6) of 64 rows x 128 bytes; u = j * 8192
  // + r * 128 + (c & 63) * 2, then bits 7..9 xor into bits 4..6.  Each
  // thread's 8 elements are one 16-byte vector store; the async proxy is
  // fenced before the closing barrier.
  // CHECK-LABEL: llvm.func @local_alloc_nvmma_swizzle_128
  // CHECK: %[[WM1:.*]] = llvm.mlir.constant(63 : i32) : i32
  // CHECK-NEXT: %[[COL:.*]] = llvm.and %[[C:.*]], %[[WM1]] : i32
  // CHECK-NEXT: %[[LOGW:.*]] = llvm.mlir.constant(6 : i32) : i32
  // CHECK-NEXT: %[[J:.*]] = llvm.lshr %[[C]], %[[LOGW]] : i32
  // CHECK-NEXT: %[[SB:.*]] = llvm.mlir.constant(13 : i32) : i32
  // CHECK-NEXT: %[[JB:.*]] = llvm.shl %[[J]], %[[SB]] : i32
  // CHECK-NEXT: %[[SR:.*]] = llvm.mlir.constant(7 : i32) : i32
  // CHECK-NEXT: %[[RB:.*]] = llvm.shl %{{.*}}, %[[SR]] : i32
  // CHECK-NEXT: %[[U0:.*]] = llvm.add %[[JB]], %[[RB]] : i32
  // CHECK-NEXT: %[[SE:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[CB:.*]] = llvm.shl %[[COL]], %[[SE]] : i32
  // CHECK-NEXT: %[[U:.*]] = llvm.add %[[U0]], %[[CB]] : i32
  // CHECK-NEXT: %[[S7:.*]] = llvm.mlir.constant(7 : i32) : i32
  // CHECK-NEXT: %[[LINE:.*]] = llvm.lshr %[[U]], %[[S7]] : i32
  // CHECK-NEXT: %[[M7:.*]] = llvm.mlir.constant(7 : i32) : i32
  // CHECK-NEXT: %[[PHASE:.*]] = llvm.and %[[LINE]], %[[M7]] : i32
  // CHECK-NEXT: %[[S4:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK-NEXT: %[[X:.*]] = llvm.shl %[[PHASE]], %[[S4]] : i32
  // CHECK-NEXT: %[[OFF:.*]] = llvm.xor %[[U]], %[[X]] : i32
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store %{{.*}}, %[[P]] {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
  // CHECK-COUNT-3: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK-NEXT: nvvm.barrier0
  tile.func public @local_alloc_nvmma_swizzle_128(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<64x64xf16, #blocked>
    %m = tilegpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 32>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // 64-byte swizzle of f32 [32, 32]: W = 16, two column blocks of 32 rows
  // x 64 bytes (j * 2048); bits 7..8 xor into bits 4..5.  Four f32 are one
  // 16-byte vector; each thread stores two.
  // CHECK-LABEL: llvm.func @local_alloc_nvmma_swizzle_64
  // CHECK: llvm.mlir.constant(15 : i32) : i32
  // CHECK-NEXT: llvm.and
  // CHECK-NEXT: llvm.mlir.constant(4 : i32) : i32
  // CHECK-NEXT: llvm.lshr
  // CHECK-NEXT: llvm.mlir.constant(11 : i32) : i32
  // CHECK-NEXT: llvm.shl
  // CHECK-NEXT: llvm.mlir.constant(6 : i32) : i32
  // CHECK-NEXT: llvm.shl
  // CHECK-NEXT: llvm.add
  // CHECK-NEXT: llvm.mlir.constant(2 : i32) : i32
  // CHECK-NEXT: llvm.shl
  // CHECK-NEXT: llvm.add
  // CHECK-NEXT: llvm.mlir.constant(7 : i32) : i32
  // CHECK-NEXT: llvm.lshr
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: llvm.and %{{.*}}, %[[M]] : i32
  // CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.fence.proxy
  tile.func public @local_alloc_nvmma_swizzle_64(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<32x32xf32, #blocked>
    %m = tilegpu.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !tilegpu.memdesc<32x32xf32, #nvmma>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 8>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // 32-byte swizzle of i8: W = 32, bit 7 xor into bit 4; 16 i8 per vector,
  // two per thread.
  // CHECK-LABEL: llvm.func @local_store_nvmma_swizzle_32
  // The thread's last column offset, then the first vector's address:
  // CHECK: llvm.mlir.constant(47 : i32) : i32
  // CHECK: llvm.mlir.constant(31 : i32) : i32
  // CHECK-NEXT: llvm.and
  // CHECK-NEXT: llvm.mlir.constant(5 : i32) : i32
  // CHECK-NEXT: llvm.lshr
  // CHECK: llvm.mlir.constant(7 : i32) : i32
  // CHECK-NEXT: llvm.lshr
  // CHECK-NEXT: %[[M:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: llvm.and %{{.*}}, %[[M]] : i32
  // CHECK: nvvm.barrier0
  // CHECK-NEXT: llvm.mlir.poison : vector<16xi8>
  // CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<16xi8>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.barrier0
  tile.func public @local_store_nvmma_swizzle_32(%v: i8) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #nvmma, mutable>
    %x = tile.splat %v : i8 -> tensor<64x64xi8, #blocked>
    tilegpu.local_store %x, %m : tensor<64x64xi8, #blocked> -> !tilegpu.memdesc<64x64xi8, #nvmma, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Transposed: dim 0 (64 rows of the [64, 32] tile) is contiguous, so the
  // column index is the swizzled row (c = coord 1 scaled by 128 bytes) and
  // a thread's 8 consecutive elements along dim 0 are one vector load.
  // CHECK-LABEL: llvm.func @local_load_nvmma_transposed
  // CHECK: %[[WM1:.*]] = llvm.mlir.constant(63 : i32) : i32
  // CHECK-NEXT: llvm.and %[[ROW:.*]], %[[WM1]] : i32
  // CHECK-NEXT: %[[LOGW:.*]] = llvm.mlir.constant(6 : i32) : i32
  // CHECK-NEXT: llvm.lshr %[[ROW]], %[[LOGW]] : i32
  // CHECK-NEXT: llvm.mlir.constant(12 : i32) : i32
  // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
  // CHECK-COUNT-8: llvm.extractelement
  tile.func public @local_load_nvmma_transposed() {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #nvmma, mutable>
    %x = tilegpu.local_load %m : !tilegpu.memdesc<64x32xf16, #nvmma, mutable> -> tensor<64x32xf16, #blocked>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Transposed buffer, threads holding runs along dim 1: consecutive
  // elements are 128 bytes apart, so every element is its own access.
  // CHECK-LABEL: llvm.func @local_load_nvmma_transposed_scalar
  // CHECK-NOT: vector<
  // CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f16
  // CHECK-NOT: vector<
  // CHECK: llvm.return
  tile.func public @local_load_nvmma_transposed_scalar() {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #nvmma, mutable>
    %x = tilegpu.local_load %m : !tilegpu.memdesc<64x32xf16, #nvmma, mutable> -> tensor<64x32xf16, #blocked>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // No swizzle: dense row-major, (r * 8 + c) * 2 bytes; two f16 per thread
  // make a 4-byte vector.
  // CHECK-LABEL: llvm.func @local_alloc_nvmma_unswizzled
  // CHECK: %[[S3:.*]] = llvm.mlir.constant(3 : i32) : i32
  // CHECK-NEXT: %[[R:.*]] = llvm.shl %{{.*}}, %[[S3]] : i32
  // CHECK-NEXT: %[[E:.*]] = llvm.add %[[R]], %{{.*}} : i32
  // CHECK-NEXT: %[[S1:.*]] = llvm.mlir.constant(1 : i32) : i32
  // CHECK-NEXT: %[[OFF:.*]] = llvm.shl %[[E]], %[[S1]] : i32
  // CHECK-NEXT: llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.fence.proxy
  tile.func public @local_alloc_nvmma_unswizzled(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<32x8xf16, #blocked>
    %m = tilegpu.local_alloc %x : (tensor<32x8xf16, #blocked>) -> !tilegpu.memdesc<32x8xf16, #nvmma>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // 16 f16 per thread: two 16-byte vectors (the widest a swizzled chunk
  // keeps together), each with its own address.
  // CHECK-LABEL: llvm.func @local_load_nvmma_two_vectors
  // CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
  // CHECK-NOT: llvm.load
  // CHECK: llvm.return
  tile.func public @local_load_nvmma_two_vectors() {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #nvmma, mutable>
    %x = tilegpu.local_load %m : !tilegpu.memdesc<64x32xf16, #nvmma, mutable> -> tensor<64x32xf16, #blocked>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Plain buffers are read by threads, not the async proxy: no fence.
  // CHECK-LABEL: llvm.func @local_store_plain_has_no_fence
  // CHECK: nvvm.barrier0
  // CHECK-NOT: nvvm.fence.proxy
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
  // CHECK-NEXT: nvvm.barrier0
  tile.func public @local_store_plain_has_no_fence(%f: f16) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    %x = tile.splat %f : f16 -> tensor<16x32xf16, #blocked>
    tilegpu.local_store %x, %m : tensor<16x32xf16, #blocked> -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    tile.return
  }
}

// -----

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // A 16-bit wgmma accumulator into a swizzled buffer (a TMA-store
  // epilogue): each thread's 16 elements are two stmatrix.x4, four 8x8
  // matrices each; the second instruction's rows are the first's 16
  // columns on, within the 32-column (64-byte) swizzle line: an xor.
  // CHECK-LABEL: llvm.func @stmatrix_wgmma_accumulator
  // CHECK: %[[ROW0:.*]] = llvm.getelementptr %{{.*}}[%[[OFF:.*]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: %[[X:.*]] = llvm.xor %[[OFF]], %{{.*}} : i32
  // CHECK-NEXT: %[[ROW1:.*]] = llvm.getelementptr %{{.*}}[%[[X]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: nvvm.barrier0
  // CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
  // CHECK: nvvm.stmatrix %[[ROW0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : !llvm.ptr<3>, i32, i32, i32, i32
  // CHECK: nvvm.stmatrix %[[ROW1]],
  // CHECK-NOT: llvm.store
  // CHECK: nvvm.fence.proxy
  // CHECK-NEXT: nvvm.barrier0
  tile.func public @stmatrix_wgmma_accumulator(%f: f16) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #nvmma, mutable>
    %x = tile.splat %f : f16 -> tensor<64x32xf16, #wgmma>
    tilegpu.local_store %x, %m : tensor<64x32xf16, #wgmma> -> !tilegpu.memdesc<64x32xf16, #nvmma, mutable>
    tile.return
  }
}

// -----

#mma = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 32, 16]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32, tilegpu.target = "cuda:80"} {
  // stmatrix and the async proxy are sm_90's: on sm_80 a 16-bit mma.sync
  // accumulator (a batched product's batch) is stored element by element,
  // and no proxy fence follows.
  // CHECK-LABEL: llvm.func @accumulator_store_on_sm80
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
  // CHECK-NOT: nvvm.stmatrix
  // CHECK-NOT: nvvm.fence.proxy
  // CHECK: llvm.return
  tile.func public @accumulator_store_on_sm80(%f: f16) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    %x = tile.splat %f : f16 -> tensor<16x32xf16, #mma>
    tilegpu.local_store %x, %m : tensor<16x32xf16, #mma> -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    tile.return
  }
}

// -----

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // 32-bit elements have no stmatrix: element stores.
  // CHECK-LABEL: llvm.func @no_stmatrix_for_f32
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: llvm.return
  tile.func public @no_stmatrix_for_f32(%f: f32) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf32, #nvmma, mutable>
    %x = tile.splat %f : f32 -> tensor<64x32xf32, #wgmma>
    tilegpu.local_store %x, %m : tensor<64x32xf32, #wgmma> -> !tilegpu.memdesc<64x32xf32, #nvmma, mutable>
    tile.return
  }
}

// -----

#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 32, 16]>
#shared = #tilegpu.shared<order = [0, 1]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Into a column-major buffer a thread's pair is not along the rows of
  // 16 bytes stmatrix writes: element stores.
  // CHECK-LABEL: llvm.func @no_stmatrix_across_contiguous_dim
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f16, !llvm.ptr<3>
  // CHECK-NOT: nvvm.stmatrix
  // CHECK: llvm.return
  tile.func public @no_stmatrix_across_contiguous_dim(%f: f16) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    %x = tile.splat %f : f16 -> tensor<64x32xf16, #wgmma>
    tilegpu.local_store %x, %m : tensor<64x32xf16, #wgmma> -> !tilegpu.memdesc<64x32xf16, #shared, mutable>
    tile.return
  }
}

// -----

// Below sm_90 there is no async proxy: the stores into a swizzled buffer
// (read by mma.sync operand loads, generic ones) need no proxy fence, only
// the barrier (fence.proxy.async does not exist on sm_80).
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  // CHECK-LABEL: llvm.func @local_alloc_nvmma_sm80(
  // CHECK: llvm.store %{{.*}} : vector<8xf16>, !llvm.ptr<3>
  // CHECK-NOT: nvvm.fence.proxy
  // CHECK: nvvm.barrier0
  // CHECK-NOT: nvvm.fence.proxy
  // CHECK: llvm.return
  tile.func public @local_alloc_nvmma_sm80(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<64x64xf16, #blocked>
    %m = tilegpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    tile.return
  }
}

// -----

#b3 = #tilegpu.blocked<sizePerThread = [2, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // A tensor with a leading dimension over the buffers (a batched
  // product's operand): coordinate b of it is buffer b, 16 x 32 = 512
  // elements on.  Each thread holds both batches: its second vector is
  // its first one buffer later, in the store and in the load.
  // CHECK-LABEL: llvm.func @all_buffers
  // CHECK: %[[BUF:.*]] = llvm.mlir.constant(512 : i32) : i32
  // CHECK-NEXT: %[[BSTART:.*]] = llvm.mul %{{.*}}, %[[BUF]] : i32
  // CHECK: %[[P0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK-NEXT: %[[NEXT:.*]] = llvm.mlir.constant(512 : i32) : i32
  // CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[P0]][%[[NEXT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK: llvm.store %{{.*}}, %[[P0]] {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
  // CHECK: llvm.store %{{.*}}, %[[P1]] {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
  // CHECK: %[[Q0:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK-NEXT: %[[NEXT2:.*]] = llvm.mlir.constant(512 : i32) : i32
  // CHECK-NEXT: %[[Q1:.*]] = llvm.getelementptr %[[Q0]][%[[NEXT2]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK-NEXT: llvm.load %[[Q0]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
  // CHECK: llvm.load %[[Q1]] {alignment = 8 : i64} : !llvm.ptr<3> -> vector<4xf16>
  tile.func public @all_buffers(%f: f16) {
    %x = tile.splat %f : f16 -> tensor<2x16x32xf16, #b3>
    %m = tilegpu.local_alloc %x : (tensor<2x16x32xf16, #b3>) -> !tilegpu.memdesc<16x32xf16, #shared, mutable, buffers = 2>
    %y = tilegpu.local_load %m : !tilegpu.memdesc<16x32xf16, #shared, mutable, buffers = 2> -> tensor<2x16x32xf16, #b3>
    tile.return
  }
}
