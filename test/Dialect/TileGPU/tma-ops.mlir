// RUN: warpforge-opt %s -split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: warpforge-opt %s -split-input-file | warpforge-opt -split-input-file --mlir-print-local-scope | FileCheck %s
// RUN: warpforge-opt %s -split-input-file --mlir-print-op-generic | warpforge-opt -split-input-file --mlir-print-local-scope | FileCheck %s

// Round trip of the TMA ops (memdesc_trans, inval_barrier, the TMA copies
// both ways and the store wait): parse and print, parse the printed form
// (with its layout aliases) again, and parse the generic form.  Layouts are
// printed inline (--mlir-print-local-scope) so that each check names the
// layout it means.  A TMA buffer is in the layout the descriptor's block
// gets (tma::encodingFor): NVMMA swizzled by min(128, row bytes) for 2-D
// blocks with rows of 32 bytes or more, else dense and row-major.

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>

// An NVMMA buffer read transposed: the shape swaps and `transposed`
// flips; mutability is kept; transposing twice gives the original type.
// CHECK-LABEL: tile.func public @memdesc_trans_nvmma(
// CHECK-SAME: %[[B:.*]]: !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>)
// CHECK-NEXT: %[[T:.*]] = tilegpu.memdesc_trans %[[B]] : !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable> -> !tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tilegpu.memdesc_trans %[[T]] : !tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable> -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tile.return
tile.func public @memdesc_trans_nvmma(%b: !tilegpu.memdesc<128x64xf16, #nv, mutable>) {
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #nv, mutable> -> !tilegpu.memdesc<64x128xf16, #nvt, mutable>
  %tt = tilegpu.memdesc_trans %t : !tilegpu.memdesc<64x128xf16, #nvt, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

// An immutable, multi-buffered NVMMA ring transposes as a whole (each of
// its buffers is transposed; the buffer count is kept), with other swizzles
// and element widths.
// CHECK-LABEL: tile.func public @memdesc_trans_nvmma_ring(
// CHECK-NEXT: tilegpu.memdesc_trans %{{.*}} : !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, buffers = 3> -> !tilegpu.memdesc<32x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>, buffers = 3>
// CHECK-NEXT: tilegpu.memdesc_trans %{{.*}} : !tilegpu.memdesc<64x128xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>> -> !tilegpu.memdesc<128x64xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8>>
// CHECK-NEXT: tile.return
tile.func public @memdesc_trans_nvmma_ring(
    %b: !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, buffers = 3>,
    %c: !tilegpu.memdesc<64x128xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>>) {
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, buffers = 3> -> !tilegpu.memdesc<32x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>, buffers = 3>
  %u = tilegpu.memdesc_trans %c : !tilegpu.memdesc<64x128xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>> -> !tilegpu.memdesc<128x64xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8>>
  tile.return
}

// -----

// A plain (dense) buffer read transposed: its order swaps.
// CHECK-LABEL: tile.func public @memdesc_trans_plain(
// CHECK-NEXT: %[[T:.*]] = tilegpu.memdesc_trans %{{.*}} : !tilegpu.memdesc<32x8xf16, #tilegpu.shared<order = [1, 0]>, mutable> -> !tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [0, 1]>, mutable>
// CHECK-NEXT: tilegpu.memdesc_trans %[[T]] : !tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [0, 1]>, mutable> -> !tilegpu.memdesc<32x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
// CHECK-NEXT: tile.return
tile.func public @memdesc_trans_plain(%b: !tilegpu.memdesc<32x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>) {
  %t = tilegpu.memdesc_trans %b : !tilegpu.memdesc<32x8xf16, #tilegpu.shared<order = [1, 0]>, mutable> -> !tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [0, 1]>, mutable>
  %tt = tilegpu.memdesc_trans %t : !tilegpu.memdesc<8x32xf16, #tilegpu.shared<order = [0, 1]>, mutable> -> !tilegpu.memdesc<32x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>

// The whole mbarrier life cycle, with inval_barrier last, on a single
// barrier and on one barrier of a ring.
// CHECK-LABEL: tile.func public @inval_barrier(
// CHECK-SAME: %[[PRED:.*]]: i1, %[[PHASE:.*]]: i32, %[[I:.*]]: i32)
// CHECK-NEXT: %[[BAR:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.init_barrier %[[BAR]], 1 : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.barrier_expect %[[BAR]], 32768, %[[PRED]] : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.wait_barrier %[[BAR]], %[[PHASE]] : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.inval_barrier %[[BAR]] : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.local_dealloc %[[BAR]]
// CHECK-NEXT: %[[RING:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 3>
// CHECK-NEXT: %[[ONE:.*]] = tilegpu.memdesc_index %[[RING]][%[[I]]]
// CHECK-NEXT: tilegpu.inval_barrier %[[ONE]] : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
tile.func public @inval_barrier(%pred: i1, %phase: i32, %i: i32) {
  %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.barrier_expect %bar, 32768, %pred : !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.local_dealloc %bar : !tilegpu.memdesc<1xi64, #sh, mutable>
  %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3>
  %one = tilegpu.memdesc_index %ring[%i] : !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3> -> !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.inval_barrier %one : !tilegpu.memdesc<1xi64, #sh, mutable>
  tile.return
}

// -----

// The store wait, with nothing and with two groups left in flight.
// CHECK-LABEL: tile.func public @store_wait(
// CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.async_tma_store_wait {pendings = 2 : i32}
// CHECK-NEXT: tile.return
tile.func public @store_wait() {
  tilegpu.async_tma_store_wait {pendings = 0 : i32}
  tilegpu.async_tma_store_wait {pendings = 2 : i32}
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

// A 2-D block with 128-byte rows lands NVMMA-swizzled by 128: the load
// names the descriptor, one index per dimension (outermost first), the
// buffer, the barrier and the predicate; the store the descriptor, the
// indices and the buffer (which need not be mutable).
// CHECK-LABEL: tile.func public @tma_2d_nvmma(
// CHECK-SAME: %[[D:.*]]: !tile.tensordesc<tensor<128x64xf16>>, %[[I:.*]]: i32, %[[J:.*]]: i32, %[[P:.*]]: i1,
// CHECK-SAME: %[[BUF:.*]]: !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>,
// CHECK-SAME: %[[BAR:.*]]: !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>,
// CHECK-SAME: %[[SRC:.*]]: !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>)
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %[[D]][%[[I]], %[[J]]] %[[BUF]], %[[BAR]], %[[P]] : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable> -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[D]][%[[I]], %[[J]]] %[[SRC]] : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %[[D]][%[[I]], %[[J]]] %[[BUF]] : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tile.return
tile.func public @tma_2d_nvmma(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %j: i32, %p: i1,
                               %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>,
                               %bar: !tilegpu.memdesc<1xi64, #sh, mutable>,
                               %src: !tilegpu.memdesc<128x64xf16, #nv>) {
  tilegpu.async_tma_copy_global_to_local %d[%i, %j] %buf, %bar, %p : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tilegpu.async_tma_copy_local_to_global %d[%i, %j] %src : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #nv>
  tilegpu.async_tma_copy_local_to_global %d[%i, %j] %buf : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>

// The other swizzles: rows of 32 and 64 bytes swizzle by their width; rows
// wider than 128 bytes (64x256 f16: 512 bytes) by 128; 8- and 32-bit
// elements give their width to the layout.
// CHECK-LABEL: tile.func public @tma_2d_swizzles(
// CHECK: tilegpu.async_tma_copy_global_to_local {{.*}} -> !tilegpu.memdesc<64x16xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local {{.*}} -> !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local {{.*}} -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local {{.*}} -> !tilegpu.memdesc<128x128xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global {{.*}} : !tile.tensordesc<tensor<64x32xf32>>, !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>>
// CHECK-NEXT: tile.return
tile.func public @tma_2d_swizzles(%i: i32, %p: i1, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>,
    %d32: !tile.tensordesc<tensor<64x16xf16>>, %b32: !tilegpu.memdesc<64x16xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>, mutable>,
    %d64: !tile.tensordesc<tensor<64x32xf16>>, %b64: !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, mutable>,
    %dw: !tile.tensordesc<tensor<64x256xf16>>, %bw: !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>,
    %d8: !tile.tensordesc<tensor<128x128xf8E4M3FN>>, %b8: !tilegpu.memdesc<128x128xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>, mutable>,
    %df: !tile.tensordesc<tensor<64x32xf32>>, %bf: !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>>) {
  tilegpu.async_tma_copy_global_to_local %d32[%i, %i] %b32, %bar, %p : !tile.tensordesc<tensor<64x16xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x16xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>, mutable>
  tilegpu.async_tma_copy_global_to_local %d64[%i, %i] %b64, %bar, %p : !tile.tensordesc<tensor<64x32xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>, mutable>
  tilegpu.async_tma_copy_global_to_local %dw[%i, %i] %bw, %bar, %p : !tile.tensordesc<tensor<64x256xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>
  tilegpu.async_tma_copy_global_to_local %d8[%i, %i] %b8, %bar, %p : !tile.tensordesc<tensor<128x128xf8E4M3FN>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x128xf8E4M3FN, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>, mutable>
  tilegpu.async_tma_copy_local_to_global %df[%i, %i] %bf : !tile.tensordesc<tensor<64x32xf32>>, !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>

// Blocks that land densely, in row-major order: 1-D, 2-D with 16-byte rows
// and 3-D, both ways.
// CHECK-LABEL: tile.func public @tma_plain(
// CHECK-SAME: %[[I:[^:]*]]: i32, %[[P:[^:]*]]: i1,
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}}[%[[I]]] %{{.*}}, %{{.*}}, %[[P]] : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable> -> !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}}[%[[I]], %[[I]]] %{{.*}}, %{{.*}}, %[[P]] : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable> -> !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}}[%[[I]], %[[I]], %[[I]]] %{{.*}}, %{{.*}}, %[[P]] : !tile.tensordesc<tensor<2x64x32xf16>>, !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable> -> !tilegpu.memdesc<2x64x32xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%[[I]]] %{{.*}} : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%[[I]], %[[I]]] %{{.*}} : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
// CHECK-NEXT: tilegpu.async_tma_copy_local_to_global %{{.*}}[%[[I]], %[[I]], %[[I]]] %{{.*}} : !tile.tensordesc<tensor<2x64x32xf16>>, !tilegpu.memdesc<2x64x32xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
// CHECK-NEXT: tile.return
tile.func public @tma_plain(%i: i32, %p: i1, %bar: !tilegpu.memdesc<1xi64, #sh, mutable>,
    %d1: !tile.tensordesc<tensor<256xf32>>, %b1: !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>,
    %d2: !tile.tensordesc<tensor<64x8xf16>>, %b2: !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>,
    %d3: !tile.tensordesc<tensor<2x64x32xf16>>, %b3: !tilegpu.memdesc<2x64x32xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>) {
  tilegpu.async_tma_copy_global_to_local %d1[%i] %b1, %bar, %p : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
  tilegpu.async_tma_copy_global_to_local %d2[%i, %i] %b2, %bar, %p : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
  tilegpu.async_tma_copy_global_to_local %d3[%i, %i, %i] %b3, %bar, %p : !tile.tensordesc<tensor<2x64x32xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<2x64x32xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
  tilegpu.async_tma_copy_local_to_global %d1[%i] %b1 : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<256xf32, #tilegpu.shared<order = [0]>, mutable>
  tilegpu.async_tma_copy_local_to_global %d2[%i, %i] %b2 : !tile.tensordesc<tensor<64x8xf16>>, !tilegpu.memdesc<64x8xf16, #tilegpu.shared<order = [1, 0]>, mutable>
  tilegpu.async_tma_copy_local_to_global %d3[%i, %i, %i] %b3 : !tile.tensordesc<tensor<2x64x32xf16>>, !tilegpu.memdesc<2x64x32xf16, #tilegpu.shared<order = [2, 1, 0]>, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

// The copy's buffer can be one buffer of a ring (memdesc_index), as the
// software pipeliner builds them; the product then reads it transposed.
// CHECK-LABEL: tile.func public @tma_into_ring(
// CHECK: %[[BUF:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: %[[BAR:.*]] = tilegpu.memdesc_index
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}} %[[BUF]], %[[BAR]], %{{.*}} : !tile.tensordesc<tensor<256x64xf16>>
// CHECK-NEXT: tilegpu.memdesc_trans %[[BUF]] : !tilegpu.memdesc<256x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable> -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable>
tile.func public @tma_into_ring(%d: !tile.tensordesc<tensor<256x64xf16>>, %i: i32, %p: i1) {
  %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nv, mutable, buffers = 3>
  %bars = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3>
  %buf = tilegpu.memdesc_index %ring[%i] : !tilegpu.memdesc<256x64xf16, #nv, mutable, buffers = 3> -> !tilegpu.memdesc<256x64xf16, #nv, mutable>
  %bar = tilegpu.memdesc_index %bars[%i] : !tilegpu.memdesc<1xi64, #sh, mutable, buffers = 3> -> !tilegpu.memdesc<1xi64, #sh, mutable>
  tilegpu.async_tma_copy_global_to_local %d[%i, %i] %buf, %bar, %p : !tile.tensordesc<tensor<256x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<256x64xf16, #nv, mutable>
  %t = tilegpu.memdesc_trans %buf : !tilegpu.memdesc<256x64xf16, #nv, mutable> -> !tilegpu.memdesc<64x256xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>, mutable>
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>

// Multicast over a cluster of 2: each CTA copies half of the 128 rows to
// both.
// CHECK-LABEL: tile.func public @tma_multicast(
// CHECK-NEXT: tilegpu.async_tma_copy_global_to_local %{{.*}}[%{{.*}}, %{{.*}}] %{{.*}}, %{{.*}}, %{{.*}} {multicast = 2 : i32} : !tile.tensordesc<tensor<128x64xf16>>
tile.func public @tma_multicast(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32, %j: i32, %p: i1,
                                %buf: !tilegpu.memdesc<128x64xf16, #nv, mutable>,
                                %bar: !tilegpu.memdesc<1xi64, #sh, mutable>) {
  tilegpu.async_tma_copy_global_to_local %d[%i, %j] %buf, %bar, %p {multicast = 2 : i32} : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<128x64xf16, #nv, mutable>
  tile.return
}
