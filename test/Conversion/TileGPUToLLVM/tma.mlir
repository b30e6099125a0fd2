// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// TMA copies, store waits and tensor descriptors
// (lib/Conversion/TileGPUToLLVM/TMAOpToLLVM.cpp, FuncOpToLLVM.cpp).  A
// descriptor is the generic address of its 128-byte tensor map; thread 0
// issues every copy.  A block lands in the layout tma::encodingFor gives
// it: 2-D blocks with rows of 32 bytes or more NVMMA-swizzled, moved as
// one box per `swizzle`-byte column block (box j: inner coordinate + j *
// the box's inner extent, destination + j * rows * swizzle bytes); other
// blocks dense, in one box.  Coordinates run innermost first.

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A host descriptor argument is passed by value (the 128-byte map,
  // 64-byte aligned) and is a grid constant: the kernel uses the
  // parameter's address, with no copy.  A 128x64 f16 block has 128-byte
  // rows: one copy, coordinates (j, i), into the buffer, completing on the
  // barrier, predicated on thread 0 and the op's predicate.
  // CHECK-LABEL: llvm.func @load_one_box(
  // CHECK-SAME: %[[D:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
  // CHECK-SAME: %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[P:[^:]*]]: i1)
  // CHECK-SAME: nvvm.kernel
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK: %[[BUF:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
  // CHECK-NEXT: %[[PRED:.*]] = llvm.and %[[T0]], %[[P]] : i1
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[BUF]], %[[D]], %[[BAR]], box[%[[J]], %[[I]]] predicate = %[[PRED]] : !llvm.ptr<3>, !llvm.ptr
  // CHECK-NEXT: llvm.return
  tile.func public @load_one_box(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %j: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
    tilegpu.async_tma_copy_global_to_local %d[%i, %j] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A 64x256 f16 block (512-byte rows): four boxes of 64 columns, the j-th
  // at inner coordinate + 64 * j and 64 rows * 128 bytes * j into the
  // buffer, all on the same barrier under the same predicate.
  // CHECK-LABEL: llvm.func @load_four_boxes(
  // CHECK-SAME: %[[D:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
  // CHECK-SAME: %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[P:[^:]*]]: i1)
  // CHECK: %[[BAR:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK: %[[BUF:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: %[[PRED:.*]] = llvm.and %{{.*}}, %[[P]] : i1
  // CHECK-NEXT: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[J1:.*]] = llvm.add %[[J]], %[[C64]] : i32
  // CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK-NEXT: %[[J2:.*]] = llvm.add %[[J]], %[[C128]] : i32
  // CHECK-NEXT: %[[C192:.*]] = llvm.mlir.constant(192 : i32) : i32
  // CHECK-NEXT: %[[J3:.*]] = llvm.add %[[J]], %[[C192]] : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[BUF]], %[[D]], %[[BAR]], box[%[[J]], %[[I]]] predicate = %[[PRED]]
  // CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(8192 : i32) : i32
  // CHECK-NEXT: %[[B1:.*]] = llvm.getelementptr %[[BUF]][%[[O1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B1]], %[[D]], %[[BAR]], box[%[[J1]], %[[I]]] predicate = %[[PRED]]
  // CHECK-NEXT: %[[O2:.*]] = llvm.mlir.constant(16384 : i32) : i32
  // CHECK-NEXT: %[[B2:.*]] = llvm.getelementptr %[[BUF]][%[[O2]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B2]], %[[D]], %[[BAR]], box[%[[J2]], %[[I]]] predicate = %[[PRED]]
  // CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(24576 : i32) : i32
  // CHECK-NEXT: %[[B3:.*]] = llvm.getelementptr %[[BUF]][%[[O3]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B3]], %[[D]], %[[BAR]], box[%[[J3]], %[[I]]] predicate = %[[PRED]]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  // CHECK: llvm.return
  tile.func public @load_four_boxes(%d: !tile.tensordesc<tensor<64x256xf16>>, %i: i32, %j: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x256xf16, #nv, mutable>
    tilegpu.async_tma_copy_global_to_local %d[%i, %j] %buf, %bar, %p : !tile.tensordesc<tensor<64x256xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x256xf16, #nv, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Two boxes for other element widths: 64x64 f32 (256-byte rows: boxes
  // of 32 columns, 64 * 128 bytes apart) and 128x256 fp8 (boxes of 128
  // columns, 128 * 128 bytes apart).
  // CHECK-LABEL: llvm.func @load_two_boxes(
  // CHECK-SAME: %[[DF:[^:]*]]: !llvm.ptr {{{.*}}}, %[[D8:[^:]*]]: !llvm.ptr {{{.*}}}, %[[I:[^:]*]]: i32, %[[P:[^:]*]]: i1)
  // CHECK: %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
  // CHECK-NEXT: %[[IF:.*]] = llvm.add %[[I]], %[[C32]] : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[BF:[^,]*]], %[[DF]], %{{.*}}, box[%[[I]], %[[I]]]
  // CHECK-NEXT: %[[OF:.*]] = llvm.mlir.constant(8192 : i32) : i32
  // CHECK-NEXT: %[[BF1:.*]] = llvm.getelementptr %[[BF]][%[[OF]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[BF1]], %[[DF]], %{{.*}}, box[%[[IF]], %[[I]]]
  // CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK-NEXT: %[[I8:.*]] = llvm.add %[[I]], %[[C128]] : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B8:[^,]*]], %[[D8]], %{{.*}}, box[%[[I]], %[[I]]]
  // CHECK-NEXT: %[[O8:.*]] = llvm.mlir.constant(16384 : i32) : i32
  // CHECK-NEXT: %[[B81:.*]] = llvm.getelementptr %[[B8]][%[[O8]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[B81]], %[[D8]], %{{.*}}, box[%[[I8]], %[[I]]]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  tile.func public @load_two_boxes(%df: !tile.tensordesc<tensor<64x64xf32>>, %d8: !tile.tensordesc<tensor<128x256xf8E4M3FN>>, %i: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %bf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>, mutable>
    %b8 = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x256xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>, mutable>
    tilegpu.async_tma_copy_global_to_local %df[%i, %i] %bf, %bar, %p : !tile.tensordesc<tensor<64x64xf32>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x64xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>, mutable>
    tilegpu.async_tma_copy_global_to_local %d8[%i, %i] %b8, %bar, %p : !tile.tensordesc<tensor<128x256xf8E4M3FN>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x256xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Dense blocks are one box each, however wide: 1-D (one coordinate),
  // 2-D with 16-byte rows, and 3-D (coordinates k, j, i).
  // CHECK-LABEL: llvm.func @load_plain(
  // CHECK-SAME: %[[D1:[^:]*]]: !llvm.ptr {{{.*}}}, %[[D2:[^:]*]]: !llvm.ptr {{{.*}}}, %[[D3:[^:]*]]: !llvm.ptr {{{.*}}}, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[K:[^:]*]]: i32, %[[P:[^:]*]]: i1)
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D1]], %{{.*}}, box[%[[I]]] predicate
  // CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D1]]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D2]], %{{.*}}, box[%[[J]], %[[I]]] predicate
  // CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D2]]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D3]], %{{.*}}, box[%[[K]], %[[J]], %[[I]]] predicate
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  tile.func public @load_plain(%d1: !tile.tensordesc<tensor<256xf32>>, %d2: !tile.tensordesc<tensor<64x8xf16>>, %d3: !tile.tensordesc<tensor<2x64x128xf16>>,
                               %i: i32, %j: i32, %k: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %b1 = tilegpu.local_alloc : () -> !tilegpu.memdesc<256xf32, #sh, mutable>
    %b2 = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
    %b3 = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x128xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
    tilegpu.async_tma_copy_global_to_local %d1[%i] %b1, %bar, %p : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<256xf32, #sh, mutable>
    tilegpu.async_tma_copy_global_to_local %d2[%i, %j] %b2, %bar, %p : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
    tilegpu.async_tma_copy_global_to_local %d3[%i, %j, %k] %b3, %bar, %p : !tile.tensordesc<tensor<2x64x128xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<2x64x128xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // An outermost dimension over 256 elements moves in pieces of 256: a 1-D
  // block of 1024 f32 in 4 boxes, 1 KB apart, at i, i+256, i+512, i+768;
  // a 512x128 f16 block in 2 pieces of rows times 2 column blocks: the
  // pieces 256 rows (32 KB) apart within each column block (64 KB apart).
  // CHECK-LABEL: llvm.func @load_outer_pieces(
  // CHECK-SAME: %[[D1:[^:]*]]: !llvm.ptr {{{.*}}}, %[[D2:[^:]*]]: !llvm.ptr {{{.*}}}, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[P:[^:]*]]: i1)
  // CHECK: %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
  // CHECK-NEXT: %[[I1:.*]] = llvm.add %[[I]], %[[C256]] : i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D1]], %{{.*}}, box[%[[I]]] predicate
  // CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(1024 : i32) : i32
  // CHECK-NEXT: %[[S1:.*]] = llvm.getelementptr %{{.*}}[%[[O1]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[S1]], %[[D1]], %{{.*}}, box[%[[I1]]] predicate
  // CHECK-NEXT: llvm.mlir.constant(2048 : i32) : i32
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D1]]
  // CHECK-NEXT: llvm.mlir.constant(3072 : i32) : i32
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D1]]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D1]]
  // CHECK: %[[J1:.*]] = llvm.add %[[J]], %{{.*}} : i32
  // CHECK: %[[I2:.*]] = llvm.add %[[I]], %{{.*}} : i32
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D2]], %{{.*}}, box[%[[J]], %[[I]]] predicate
  // CHECK-NEXT: llvm.mlir.constant(65536 : i32) : i32
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D2]], %{{.*}}, box[%[[J1]], %[[I]]] predicate
  // CHECK-NEXT: llvm.mlir.constant(32768 : i32) : i32
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D2]], %{{.*}}, box[%[[J]], %[[I2]]] predicate
  // CHECK-NEXT: llvm.mlir.constant(98304 : i32) : i32
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[D2]]
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  tile.func public @load_outer_pieces(%d1: !tile.tensordesc<tensor<1024xf32>>, %d2: !tile.tensordesc<tensor<512x128xf16>>,
                                      %i: i32, %j: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %b1 = tilegpu.local_alloc : () -> !tilegpu.memdesc<1024xf32, #sh, mutable>
    %b2 = tilegpu.local_alloc : () -> !tilegpu.memdesc<512x128xf16, #nv, mutable>
    tilegpu.async_tma_copy_global_to_local %d1[%i] %b1, %bar, %p : !tile.tensordesc<tensor<1024xf32>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<1024xf32, #sh, mutable>
    tilegpu.async_tma_copy_global_to_local %d2[%i, %j] %b2, %bar, %p : !tile.tensordesc<tensor<512x128xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<512x128xf16, #nv, mutable>
    tile.return
  }
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A store: the same boxes the other way (thread 0 only, no op
  // predicate), then one bulk group is committed (by every thread: the
  // others' groups are empty).
  // CHECK-LABEL: llvm.func @store_four_boxes(
  // CHECK-SAME: %[[D:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
  // CHECK-SAME: %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32)
  // CHECK: %[[BUF:.*]] = llvm.mlir.addressof @warpforge_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
  // CHECK-NEXT: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[J1:.*]] = llvm.add %[[J]], %[[C64]] : i32
  // CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK-NEXT: %[[J2:.*]] = llvm.add %[[J]], %[[C128]] : i32
  // CHECK-NEXT: %[[C192:.*]] = llvm.mlir.constant(192 : i32) : i32
  // CHECK-NEXT: %[[J3:.*]] = llvm.add %[[J]], %[[C192]] : i32
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[D]], %[[BUF]], box[%[[J]], %[[I]]], predicate = %[[T0]] : !llvm.ptr, <3>
  // CHECK-NEXT: %[[O1:.*]] = llvm.mlir.constant(8192 : i32) : i32
  // CHECK-NEXT: %[[B1:.*]] = llvm.getelementptr %[[BUF]][%[[O1]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[D]], %[[B1]], box[%[[J1]], %[[I]]], predicate = %[[T0]]
  // CHECK-NEXT: %[[O2:.*]] = llvm.mlir.constant(16384 : i32) : i32
  // CHECK-NEXT: %[[B2:.*]] = llvm.getelementptr %[[BUF]][%[[O2]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[D]], %[[B2]], box[%[[J2]], %[[I]]], predicate = %[[T0]]
  // CHECK-NEXT: %[[O3:.*]] = llvm.mlir.constant(24576 : i32) : i32
  // CHECK-NEXT: %[[B3:.*]] = llvm.getelementptr %[[BUF]][%[[O3]]]
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.global.shared.cta %[[D]], %[[B3]], box[%[[J3]], %[[I]]], predicate = %[[T0]]
  // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
  // CHECK-NEXT: llvm.return
  tile.func public @store_four_boxes(%d: !tile.tensordesc<tensor<64x256xf16>>, %i: i32, %j: i32) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x256xf16, #nv, mutable>
    tilegpu.async_tma_copy_local_to_global %d[%i, %j] %buf : !tile.tensordesc<tensor<64x256xf16>>, !tilegpu.memdesc<64x256xf16, #nv, mutable>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A dense store is one box; the store wait waits for the bulk groups to
  // have read shared memory (.read), leaving `pendings` in flight.
  // CHECK-LABEL: llvm.func @store_plain_and_wait(
  // CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}], predicate = %{{.*}} : !llvm.ptr, <3>
  // CHECK-NEXT: nvvm.cp.async.bulk.commit.group
  // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 1 {read}
  // CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
  // CHECK-NEXT: llvm.return
  tile.func public @store_plain_and_wait(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
    tilegpu.async_tma_copy_local_to_global %d[%i] %buf : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
    tilegpu.async_tma_store_wait {pendings = 1 : i32}
    tilegpu.async_tma_store_wait {pendings = 0 : i32}
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Without tile.make_tensor_descriptor there is no global scratch: no
  // extra parameter, no module attributes for it.
  // CHECK-NOT: tilegpu.global-scratch
  // CHECK-LABEL: llvm.func @no_scratch(
  // CHECK-SAME: %{{[^:]*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{[^:]*}}: i32)
  // CHECK-SAME: attributes
  tile.func public @no_scratch(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32) {
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // A descriptor made on the device: the kernel takes one more, last,
  // parameter (the global scratch, noalias), and the module records 128
  // bytes of it per program, 128-byte aligned.  This program's map is at
  // scratch + (x + nx * (y + ny * z)) * 128 + 0.  Thread 0 zeroes it and
  // writes it field by field with tensormap.replace: the base address,
  // rank - 1, per dimension innermost first the box (64, then 128), the
  // global size (K, then M) and the element stride (1), the outer
  // dimension's byte stride (stride * 2), the element type (f16: 6), no
  // interleave, the 128-byte swizzle (3) and zero fill.  Then the map is
  // released to the tensormap proxy and acquired there through its generic
  // address, which the copies use.
  // CHECK: module attributes {"tilegpu.global-scratch-align" = 128 : i32, "tilegpu.global-scratch-bytes" = 128 : i32
  // CHECK-LABEL: llvm.func @make_descriptor(
  // CHECK-SAME: %[[BASE:[^:]*]]: !llvm.ptr<1> {llvm.align = 16 : i64}, %[[M:[^:]*]]: i32, %[[K:[^:]*]]: i32, %[[SM:[^:]*]]: i64, %[[I:[^:]*]]: i32, %[[P:[^:]*]]: i1, %[[SCRATCH:[^:]*]]: !llvm.ptr<1> {llvm.noalias})
  // CHECK: %[[X:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-NEXT: %[[Y:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK-NEXT: %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
  // CHECK-NEXT: %[[NX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
  // CHECK-NEXT: %[[NY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
  // CHECK-NEXT: %[[NYZ:.*]] = llvm.mul %[[NY]], %[[Z]] : i32
  // CHECK-NEXT: %[[YZ:.*]] = llvm.add %[[Y]], %[[NYZ]] : i32
  // CHECK-NEXT: %[[NXYZ:.*]] = llvm.mul %[[NX]], %[[YZ]] : i32
  // CHECK-NEXT: %[[PROG:.*]] = llvm.add %[[X]], %[[NXYZ]] : i32
  // CHECK-NEXT: %[[OFF:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[PER:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: %[[PROG64:.*]] = llvm.zext %[[PROG]] : i32 to i64
  // CHECK-NEXT: %[[SLOT:.*]] = llvm.mul %[[PROG64]], %[[PER]] : i64
  // CHECK-NEXT: %[[BYTE:.*]] = llvm.add %[[SLOT]], %[[OFF]] : i64
  // CHECK-NEXT: %[[MAP:.*]] = llvm.getelementptr %[[SCRATCH]][%[[BYTE]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
  // CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
  // CHECK-NEXT: %[[Z64:.*]] = llvm.mlir.constant(0 : i64) : i64
  // The run-time alignment check (a trapping predicate) comes first.
  // CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[BASE]] : !llvm.ptr<1> to i64
  // CHECK: llvm.or
  // CHECK: llvm.inline_asm has_side_effects
  // CHECK-SAME: "@$3 trap;
  // CHECK-SAME: @$1 cp.async.bulk.wait_group 0;
  // CHECK-SAME: @$1 st.global.v2.b64 [$0 + 0], {$2, $2};
  // CHECK-SAME: @$1 st.global.v2.b64 [$0 + 112], {$2, $2};
  // CHECK-SAME: @$1 tensormap.replace.tile.global_address.global.b1024.b64 [$0 + 0], $4;
  // CHECK-SAME: @$1 tensormap.replace.tile.rank.global.b1024.b32 [$0 + 0], $5;
  // CHECK-SAME: @$1 tensormap.replace.tile.box_dim.global.b1024.b32 [$0 + 0], 0, $6;
  // CHECK-SAME: @$1 tensormap.replace.tile.global_dim.global.b1024.b32 [$0 + 0], 0, $7;
  // CHECK-SAME: @$1 tensormap.replace.tile.element_stride.global.b1024.b32 [$0 + 0], 0, $8;
  // CHECK-SAME: @$1 tensormap.replace.tile.box_dim.global.b1024.b32 [$0 + 0], 1, $9;
  // CHECK-SAME: @$1 tensormap.replace.tile.global_dim.global.b1024.b32 [$0 + 0], 1, $10;
  // CHECK-SAME: @$1 tensormap.replace.tile.element_stride.global.b1024.b32 [$0 + 0], 1, $11;
  // CHECK-SAME: @$1 tensormap.replace.tile.global_stride.global.b1024.b64 [$0 + 0], 0, $12;
  // CHECK-SAME: @$1 tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 6;
  // CHECK-SAME: @$1 tensormap.replace.tile.interleave_layout.global.b1024.b32 [$0 + 0], 0;
  // CHECK-SAME: @$1 tensormap.replace.tile.swizzle_mode.global.b1024.b32 [$0 + 0], 3;
  // CHECK-SAME: @$1 tensormap.replace.tile.fill_mode.global.b1024.b32 [$0 + 0], 0;"
  // CHECK-SAME: "l,b,l,b,l,r,r,r,r,r,r,r,l" %[[MAP]], %[[T0]], %[[Z64]], %{{[^,]*}}, %[[ADDR]], %{{[^,]*}}, %{{[^,]*}}, %[[K]], %{{[^,]*}}, %{{[^,]*}}, %[[M]], %{{[^,]*}}, %{{[^ ]*}} :
  // CHECK-NEXT: %[[DESC:.*]] = llvm.addrspacecast %[[MAP]] : !llvm.ptr<1> to !llvm.ptr
  // CHECK-NEXT: nvvm.fence.proxy.release <gpu>
  // CHECK-NEXT: %[[SIZE:.*]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK-NEXT: nvvm.fence.proxy.acquire <gpu> %[[DESC]], %[[SIZE]]
  // CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DESC]], %{{.*}}, box[%[[I]], %[[I]]]
  tile.func public @make_descriptor(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %m: i32, %k: i32, %sm: i64, %i: i32, %p: i1) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%m, %k], [%sm, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x64xf16>>
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
    tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // Two descriptors made on the device get consecutive 128-byte slots of
  // the program's scratch (256 bytes per program).  A 3-D block is dense
  // (swizzle 0) with three boxes and two byte strides, the innermost
  // dimension first; f32 elements are type 7.
  // CHECK: module attributes {"tilegpu.global-scratch-align" = 128 : i32, "tilegpu.global-scratch-bytes" = 256 : i32
  // CHECK-LABEL: llvm.func @make_two_descriptors(
  // CHECK-SAME: %{{[^:]*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %{{[^:]*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %[[S0:[^:]*]]: i32, %[[S1:[^:]*]]: i32, %[[S2:[^:]*]]: i32, %[[T0:[^:]*]]: i64, %[[T1:[^:]*]]: i64, %[[N:[^:]*]]: i32, %[[SCRATCH:[^:]*]]: !llvm.ptr<1> {llvm.noalias})
  // CHECK: %[[OFF0:.*]] = llvm.mlir.constant(0 : i64) : i64
  // CHECK-NEXT: %[[PER0:.*]] = llvm.mlir.constant(256 : i64) : i64
  // CHECK: llvm.getelementptr %[[SCRATCH]]
  // CHECK: llvm.inline_asm has_side_effects
  // CHECK-SAME: tensormap.replace.tile.box_dim.global.b1024.b32 [$0 + 0], 2, $13;
  // CHECK-SAME: tensormap.replace.tile.global_dim.global.b1024.b32 [$0 + 0], 2, $14;
  // CHECK-SAME: tensormap.replace.tile.global_stride.global.b1024.b64 [$0 + 0], 1, $16;
  // CHECK-SAME: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 6;
  // CHECK-SAME: tensormap.replace.tile.swizzle_mode.global.b1024.b32 [$0 + 0], 0;
  // CHECK-SAME: "l,b,l,b,l,r,r,r,r,r,r,r,l,r,r,r,l" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S2]], %{{.*}}, %{{.*}}, %[[S1]], %{{.*}}, %{{.*}}, %{{.*}}, %[[S0]], %{{.*}}, %{{.*}} :
  // CHECK: %[[OFF1:.*]] = llvm.mlir.constant(128 : i64) : i64
  // CHECK-NEXT: %[[PER1:.*]] = llvm.mlir.constant(256 : i64) : i64
  // CHECK: llvm.getelementptr %[[SCRATCH]]
  // CHECK: llvm.inline_asm has_side_effects
  // CHECK-SAME: tensormap.replace.tile.box_dim.global.b1024.b32 [$0 + 0], 0, $6;
  // CHECK-SAME: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 7;
  // CHECK-SAME: tensormap.replace.tile.swizzle_mode.global.b1024.b32 [$0 + 0], 0;
  // CHECK-SAME: "l,b,l,b,l,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[N]], %{{.*}} :
  tile.func public @make_two_descriptors(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f32> {tile.divisibility = 16 : i32},
                                         %s0: i32, %s1: i32, %s2: i32, %t0: i64, %t1: i64, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %a, [%s0, %s1, %s2], [%t0, %t1, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<2x32x64xf16>>
    %e = tile.make_tensor_descriptor %b, [%n], [%c1] : !tile.ptr<f32>, !tile.tensordesc<tensor<256xf32>>
    tile.return
  }
}

// -----

// A TMA reduction: thread 0 issues cp.reduce.async.bulk.tensor (one per
// 128-byte column block: a 32x64 f32 block is two), then the bulk commit.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @reduce_max(
  // CHECK: llvm.inline_asm has_side_effects
  // CHECK-SAME: "@$4 cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group [$0, {$2, $3}], [ $1 + 0 ];"
  // CHECK: llvm.inline_asm has_side_effects
  // CHECK-SAME: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group
  // CHECK: nvvm.cp.async.bulk.commit.group
  tile.func public @reduce_max(%d: !tile.tensordesc<tensor<32x64xi32>>, %i: i32) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xi32, #nv, mutable>
    tilegpu.async_tma_copy_local_to_global %d[%i, %i] %buf reduce max : !tile.tensordesc<tensor<32x64xi32>>, !tilegpu.memdesc<32x64xi32, #nv, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.num-ctas" = 2 : i32, tilegpu.target = "cuda:90"} {
  // Multicast over a cluster of 2: this CTA copies its 64 of the block's
  // 128 rows (rank * 64 rows further, rank * 64 * 128 bytes into the
  // buffer) to both CTAs (mask 0b11).
  // CHECK-LABEL: llvm.func @load_multicast(
  // CHECK-SAME: %[[D:[^:]*]]: !llvm.ptr {{.*}}, %[[I:[^:]*]]: i32, %[[J:[^:]*]]: i32, %[[P:[^:]*]]: i1
  // CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
  // CHECK-NEXT: %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
  // CHECK-NEXT: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[ROW:.*]] = llvm.mul %[[RANK]], %[[C64]] : i32
  // CHECK-NEXT: %[[I2:.*]] = llvm.add %[[I]], %[[ROW]] : i32
  // CHECK-NEXT: %[[C128:.*]] = llvm.mlir.constant(128 : i32) : i32
  // CHECK-NEXT: %[[OFF:.*]] = llvm.mul %[[ROW]], %[[C128]] : i32
  // CHECK-NEXT: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[D]], %{{.*}}, box[%[[J]], %[[I2]]] multicast_mask = %[[MASK]] predicate = %{{.*}}
  // CHECK-NOT: nvvm.cp.async.bulk.tensor
  tile.func public @load_multicast(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %j: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
    tilegpu.async_tma_copy_global_to_local %d[%i, %j] %buf, %bar, %p {multicast = 2 : i32} : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
    tile.return
  }
}
