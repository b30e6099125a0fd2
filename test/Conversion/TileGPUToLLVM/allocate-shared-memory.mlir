// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory | FileCheck %s

// Allocations are laid out one after the other (1024-aligned); every op
// needing scratch gets the one offset after them, and the module records
// the offset plus the largest scratch.  A reduction across 4 warps of
// 16 rows needs 16 * 4 f32 partials; a transposing 64x64 f32 conversion
// 64 rows of 64 + 1 words (the last row unpadded needs only 64).
#blocked = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [1, 0]>
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#shared = #tilegpu.shared<order = [1, 0]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 18684 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @scratch
  tile.func public @scratch(%f: f32) {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 1024 : i32}
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #shared, mutable>
    %x = tile.splat %f : f32 -> tensor<16x64xf32, #blocked>
    // CHECK: tile.reduce {{.*}} {tilegpu.scratch = 2048 : i32}
    %s = tile.reduce %x axis = 1 : tensor<16x64xf32, #blocked> -> tensor<16xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %m = arith.addf %l, %r : f32
      tile.reduce.return %m : f32
    }
    %y = tile.splat %f : f32 -> tensor<64x64xf32, #row>
    // CHECK: tilegpu.convert_layout {{.*}} {tilegpu.scratch = 2048 : i32}
    %z = tilegpu.convert_layout %y : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    tile.return
  }
}

// -----

// Reductions within a warp and conversions that only pick registers need
// no scratch.
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#a = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [2, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 0 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @no_scratch
  // CHECK-NOT: tilegpu.scratch
  // CHECK: tile.return
  tile.func public @no_scratch(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<16x32xf32, #blocked>
    %s = tile.reduce %x axis = 1 : tensor<16x32xf32, #blocked> -> tensor<16xf32, #tilegpu.slice<dim = 1, parent = #blocked>> {
    ^bb0(%l: f32, %r: f32):
      %m = arith.addf %l, %r : f32
      tile.reduce.return %m : f32
    }
    %y = tile.splat %f : f32 -> tensor<1x128xf32, #a>
    %z = tilegpu.convert_layout %y : tensor<1x128xf32, #a> -> tensor<1x128xf32, #b>
    tile.return
  }
}

// -----

// A scan across 4 warps keeps each warp's total per repetition (2) and
// line (8): 2 * 4 * 8 i32.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 256 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @scan_scratch
  // CHECK: tile.scan {{.*}} {tilegpu.scratch = 0 : i32}
  tile.func public @scan_scratch(%i: i32) {
    %x = tile.splat %i : i32 -> tensor<256x8xi32, #blocked>
    %c = tile.scan %x axis = 0 : tensor<256x8xi32, #blocked> -> tensor<256x8xi32, #blocked> {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.scan.return %a : i32
    }
    tile.return
  }
}

// -----

// After its dealloc, an allocation's memory is reused: by a later scratch
// (the epilogue's exchange after a pipeline) and by a later allocation.
// The kernel needs the 16 KB pipeline ring, not the ring plus the rest.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#shared = #tilegpu.shared<order = [1, 0]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 16392 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @reuse_after_dealloc
  tile.func public @reuse_after_dealloc(%f: f32) {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 16384 : i32}
    %flag = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    tilegpu.local_dealloc %ring : !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>
    %y = tile.splat %f : f32 -> tensor<32x64xf32, #row>
    // CHECK: tilegpu.convert_layout {{.*}} {tilegpu.scratch = 0 : i32}
    %z = tilegpu.convert_layout %y : tensor<32x64xf32, #row> -> tensor<32x64xf32, #col>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %c = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    tile.return
  }
}

// -----

// The regions of a tilegpu.warp_specialize run at the same time: what one
// places (its buffer, its scratch) stays out of the way of the regions
// after it, even once freed; after the op, all of it is free again.  Two
// ping-pong consumer groups each store their own epilogue tile.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#shared = #tilegpu.shared<order = [1, 0]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 21628 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @concurrent_regions
  tile.func public @concurrent_regions(%f: f32) {
    tilegpu.warp_specialize(%f)
    default(%df: f32) {
      // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
      %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      %y = tile.splat %df : f32 -> tensor<32x64xf32, #row>
      // CHECK: tilegpu.convert_layout {{.*}} {tilegpu.scratch = 2048 : i32}
      %z = tilegpu.convert_layout %y : tensor<32x64xf32, #row> -> tensor<32x64xf32, #col>
      tilegpu.local_dealloc %b : !tilegpu.memdesc<32x32xf16, #shared, mutable>
      tilegpu.warp_yield
    }
    partition0(%pf: f32) num_warps(4) {
      // CHECK: tilegpu.local_alloc {tilegpu.offset = 11264 : i32}
      %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      %y = tile.splat %pf : f32 -> tensor<32x64xf32, #row>
      // CHECK: tilegpu.convert_layout {{.*}} {tilegpu.scratch = 13312 : i32}
      %z = tilegpu.convert_layout %y : tensor<32x64xf32, #row> -> tensor<32x64xf32, #col>
      tilegpu.local_dealloc %b : !tilegpu.memdesc<32x32xf16, #shared, mutable>
      tilegpu.warp_return
    }
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %after = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    tile.return
  }
}

// -----

// The immutable buffers a loop in the kernel's body makes and alone reads
// (here wgmma operands, retired by a full wait in the loop) are free after
// it: the next loop's buffer takes the same bytes.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 16384 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @loops_reuse
  tile.func public @loops_reuse(%a: tensor<64x64xf16, #bl>, %c: tensor<64x64xf32, #w>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: scf.for
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 8192 : i32}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #w>) : i32 {
      %x = arith.addf %a, %a : tensor<64x64xf16, #bl>
      %sa = tilegpu.local_alloc %x : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %sb = tilegpu.local_alloc %x : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %d = tilegpu.warp_group_dot %sa, %sb, %acc : !tilegpu.memdesc<64x64xf16, #sa> * !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf32, #w>
      %e = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #w>
      scf.yield %e : tensor<64x64xf32, #w>
    }
    // CHECK: scf.for
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32, #w>) : i32 {
      %x = arith.mulf %a, %a : tensor<64x64xf16, #bl>
      %sa = tilegpu.local_alloc %x : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %d = tilegpu.warp_group_dot %sa, %sa, %acc : !tilegpu.memdesc<64x64xf16, #sa> * !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf32, #w>
      %e = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #w>
      scf.yield %e : tensor<64x64xf32, #w>
    }
    tile.return
  }
}

// -----

// A loop that may end with products in flight (pendings = 1) keeps its
// buffers until the next full wait after it: a buffer made before that
// wait gets new bytes, one made after it the loop's.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @in_flight
  tile.func public @in_flight(%a: tensor<64x64xf16, #bl>, %c: tensor<64x64xf32, #w>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #w>) : i32 {
      %x = arith.addf %a, %a : tensor<64x64xf16, #bl>
      %sa = tilegpu.local_alloc %x : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %d = tilegpu.warp_group_dot %sa, %sa, %acc : !tilegpu.memdesc<64x64xf16, #sa> * !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf32, #w>
      %e = tilegpu.warp_group_dot_wait %d {pendings = 1 : i32} : tensor<64x64xf32, #w>
      scf.yield %e : tensor<64x64xf32, #w>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 8192 : i32}
    %before = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    %f = tilegpu.warp_group_dot_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #w>
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %after = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    tile.return
  }
}

// -----

// An earlier wait may leave later products in flight (pendings = 1, as
// tilegpu-overlap-products places them) when the last wait of the body
// retires everything: the loop ends with nothing in flight and its buffers
// are free right after it.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @last_wait_retires_all
  tile.func public @last_wait_retires_all(%a: tensor<64x64xf16, #bl>, %c: tensor<64x64xf32, #w>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #w>) : i32 {
      %x = arith.addf %a, %a : tensor<64x64xf16, #bl>
      %sa = tilegpu.local_alloc %x : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %d1 = tilegpu.warp_group_dot %sa, %sa, %acc : !tilegpu.memdesc<64x64xf16, #sa> * !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf32, #w>
      %d2 = tilegpu.warp_group_dot %sa, %sa, %acc : !tilegpu.memdesc<64x64xf16, #sa> * !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf32, #w>
      %e1 = tilegpu.warp_group_dot_wait %d1 {pendings = 1 : i32} : tensor<64x64xf32, #w>
      %e2 = tilegpu.warp_group_dot_wait %d2 {pendings = 0 : i32} : tensor<64x64xf32, #w>
      %s = arith.addf %e1, %e2 : tensor<64x64xf32, #w>
      scf.yield %s : tensor<64x64xf32, #w>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %next = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    tile.return
  }
}

// -----

// Inside an outer loop an inner loop's buffers stay (the code after the
// inner loop runs again before it), and after the outer loop all its
// buffers go.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @nested
  tile.func public @nested(%a: tensor<64x64xf16, #bl>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %m = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %a) -> (tensor<64x64xf16, #bl>) : i32 {
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
      %inner = scf.for %j = %c0 to %n step %c1 iter_args(%p = %prev) -> (tensor<64x64xf16, #bl>) : i32 {
        %s = tilegpu.local_alloc %p : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
        %l = tilegpu.local_load %s : !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf16, #bl>
        scf.yield %l : tensor<64x64xf16, #bl>
      }
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 8192 : i32}
      %t = tilegpu.local_alloc %inner : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %u = tilegpu.local_load %t : !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf16, #bl>
      scf.yield %u : tensor<64x64xf16, #bl>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %z = tilegpu.local_alloc %m : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    tile.return
  }
}

// -----

// A buffer something after the loop reads, or a TMA store reads (async,
// until a wait this pass does not track), stays.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @read_after
  tile.func public @read_after(%a: tensor<64x64xf16, #bl>, %d: !tile.tensordesc<tensor<64x64xf16>>, %n: i32, %q: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %s = scf.if %q -> (!tilegpu.memdesc<64x64xf16, #sa>) {
      %b = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      scf.yield %b : !tilegpu.memdesc<64x64xf16, #sa>
    } else {
      %b = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      scf.yield %b : !tilegpu.memdesc<64x64xf16, #sa>
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 16384 : i32}
      %t = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      tilegpu.async_tma_copy_local_to_global %d[%c0, %c0] %t : !tile.tensordesc<tensor<64x64xf16>>, !tilegpu.memdesc<64x64xf16, #sa>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 24576 : i32}
    %z = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    %l = tilegpu.local_load %s : !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf16, #bl>
    tile.return
  }
}

// -----

// Products with no wait in the loop are in flight at its end too: the
// buffer goes at the full wait after it.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @no_wait_in_loop
  tile.func public @no_wait_in_loop(%a: tensor<64x64xf16, #bl>, %c: tensor<64x64xf32, #w>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #w>) : i32 {
      %sa = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
      %d = tilegpu.warp_group_dot %sa, %sa, %acc : !tilegpu.memdesc<64x64xf16, #sa> * !tilegpu.memdesc<64x64xf16, #sa> -> tensor<64x64xf32, #w>
      scf.yield %d : tensor<64x64xf32, #w>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 8192 : i32}
    %before = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    %f = tilegpu.warp_group_dot_wait %r {pendings = 0 : i32} : tensor<64x64xf32, #w>
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %after = tilegpu.local_alloc %a : (tensor<64x64xf16, #bl>) -> !tilegpu.memdesc<64x64xf16, #sa>
    tile.return
  }
}

// -----

// A buffer filled without an initializing store (here by cp.async) in
// bytes a layout exchange's scratch used just before: a barrier goes before
// its first write, so that every thread has read the scratch first.  Bytes
// used for the first time, or a barrier already in between, need none.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @reused_bytes_written_after_a_barrier
  // CHECK: tilegpu.convert_layout {{.*}} {tilegpu.scratch = 0 : i32}
  // CHECK-NEXT: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.async_copy_global_to_local
  tile.func public @reused_bytes_written_after_a_barrier(%f: f32, %p: tensor<64x64x!tile.ptr<f16>, #blocked>) {
    %y = tile.splat %f : f32 -> tensor<32x64xf32, #row>
    %z = tilegpu.convert_layout %y : tensor<32x64xf32, #row> -> tensor<32x64xf32, #col>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    tile.return
  }
}

// -----

#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @fresh_bytes
  // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
  // CHECK-NEXT: tilegpu.async_copy_global_to_local
  tile.func public @fresh_bytes(%p: tensor<64x64x!tile.ptr<f16>, #blocked>) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    tile.return
  }
}

// -----

#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @barrier_already_there
  // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
  // CHECK-NEXT: tile.barrier
  // CHECK-NEXT: tilegpu.async_copy_global_to_local
  tile.func public @barrier_already_there(%f: f32, %p: tensor<64x64x!tile.ptr<f16>, #blocked>) {
    %y = tile.splat %f : f32 -> tensor<32x64xf32, #row>
    %z = tilegpu.convert_layout %y : tensor<32x64xf32, #row> -> tensor<32x64xf32, #col>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    tile.barrier
    %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
    tile.return
  }
}

// -----

// The channel slots of a warp_specialize (rings allocated before it) are
// free in its default region after the last consumer loop that reads them:
// every copy the producer made has landed once that loop has waited for
// it, so the epilogue's buffer takes the slots' bytes.  The other regions
// still keep out of them (the producer writes them), and so does
// everything after the op.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
#bar = #tilegpu.shared<order = [0]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 9216 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @slots_free_after_the_consumer_loop
  tile.func public @slots_free_after_the_consumer_loop(%n: i32) {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %slots = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 4096 : i32}
    %full = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable, buffers = 2>
    tilegpu.warp_specialize(%slots, %full, %n)
    default(%s: !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2>, %f: !tilegpu.memdesc<1xi64, #bar, mutable, buffers = 2>, %dn: i32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant dense<0.0> : tensor<32x32xf16, #row>
      %acc = scf.for %i = %c0 to %dn step %c1 iter_args(%a = %z) -> (tensor<32x32xf16, #row>) : i32 {
        %slot = tilegpu.memdesc_index %s[%c0] : !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
        %v = tilegpu.local_load %slot : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #row>
        %sum = arith.addf %a, %v : tensor<32x32xf16, #row>
        scf.yield %sum : tensor<32x32xf16, #row>
      } {tilegpu.partition = "consumer"}
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
      %epilogue = tilegpu.local_alloc %acc : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #shared>
      tilegpu.warp_yield
    }
    partition0(%ps: !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2>, %pf: !tilegpu.memdesc<1xi64, #bar, mutable, buffers = 2>, %pn: i32) num_warps(4) {
      // CHECK: tilegpu.local_alloc {tilegpu.offset = 5120 : i32}
      %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      tilegpu.warp_return
    }
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 7168 : i32}
    %after = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    tile.return
  }
}

// -----

// Slots the default region still reads after its last consumer loop stay.
// CHECK: module attributes {{{.*}}tilegpu.shared = 6144 : i32}
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @slots_read_after_the_loop_stay
  tile.func public @slots_read_after_the_loop_stay(%n: i32) {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %slots = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2>
    tilegpu.warp_specialize(%slots, %n)
    default(%s: !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2>, %dn: i32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant dense<0.0> : tensor<32x32xf16, #row>
      %acc = scf.for %i = %c0 to %dn step %c1 iter_args(%a = %z) -> (tensor<32x32xf16, #row>) : i32 {
        %slot = tilegpu.memdesc_index %s[%c0] : !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
        %v = tilegpu.local_load %slot : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #row>
        %sum = arith.addf %a, %v : tensor<32x32xf16, #row>
        scf.yield %sum : tensor<32x32xf16, #row>
      } {tilegpu.partition = "consumer"}
      %last = tilegpu.memdesc_index %s[%c1] : !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      %w = tilegpu.local_load %last : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #row>
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 4096 : i32}
      %epilogue = tilegpu.local_alloc %w : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #shared>
      tilegpu.warp_yield
    }
    partition0(%ps: !tilegpu.memdesc<32x32xf16, #shared, mutable, buffers = 2>, %pn: i32) num_warps(4) {
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// A one-slot buffer (the block the producer copies once: attention's Q)
// whose view is taken before the consumer loop that reads it is free after
// that loop too.
// CHECK: module attributes {{{.*}}tilegpu.shared = 2048 : i32}
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @view_before_the_loop_is_freed
  tile.func public @view_before_the_loop_is_freed(%n: i32) {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %q = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    tilegpu.warp_specialize(%q, %n)
    default(%dq: !tilegpu.memdesc<32x32xf16, #shared, mutable>, %dn: i32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant dense<0.0> : tensor<32x32xf16, #row>
      %view = tilegpu.memdesc_index %dq[%c0] : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      %acc = scf.for %i = %c0 to %dn step %c1 iter_args(%a = %z) -> (tensor<32x32xf16, #row>) : i32 {
        %v = tilegpu.local_load %view : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #row>
        %sum = arith.addf %a, %v : tensor<32x32xf16, #row>
        scf.yield %sum : tensor<32x32xf16, #row>
      } {tilegpu.partition = "consumer"}
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
      %epilogue = tilegpu.local_alloc %acc : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #shared>
      tilegpu.warp_yield
    }
    partition0(%pq: !tilegpu.memdesc<32x32xf16, #shared, mutable>, %pn: i32) num_warps(4) {
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// The same buffer stays when its view is read after the loop.
// CHECK: module attributes {{{.*}}tilegpu.shared = 4096 : i32}
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @view_read_after_the_loop_stays
  tile.func public @view_read_after_the_loop_stays(%n: i32) {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
    %q = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
    tilegpu.warp_specialize(%q, %n)
    default(%dq: !tilegpu.memdesc<32x32xf16, #shared, mutable>, %dn: i32) {
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %z = arith.constant dense<0.0> : tensor<32x32xf16, #row>
      %view = tilegpu.memdesc_index %dq[%c0] : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> !tilegpu.memdesc<32x32xf16, #shared, mutable>
      %acc = scf.for %i = %c0 to %dn step %c1 iter_args(%a = %z) -> (tensor<32x32xf16, #row>) : i32 {
        %v = tilegpu.local_load %view : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #row>
        %sum = arith.addf %a, %v : tensor<32x32xf16, #row>
        scf.yield %sum : tensor<32x32xf16, #row>
      } {tilegpu.partition = "consumer"}
      %w = tilegpu.local_load %view : !tilegpu.memdesc<32x32xf16, #shared, mutable> -> tensor<32x32xf16, #row>
      %r = arith.addf %acc, %w : tensor<32x32xf16, #row>
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 2048 : i32}
      %epilogue = tilegpu.local_alloc %r : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #shared>
      tilegpu.warp_yield
    }
    partition0(%pq: !tilegpu.memdesc<32x32xf16, #shared, mutable>, %pn: i32) num_warps(4) {
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// A TMA destination an if in the kernel's body makes, fills (waiting for
// the copy there) and alone reads (the masked last K/V block of attention)
// is free after the if: the epilogue's buffer takes its bytes.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
#bar = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @tma_buffer_free_after_the_if
  tile.func public @tma_buffer_free_after_the_if(%d: !tile.tensordesc<tensor<32x32xf16>>, %p: i1, %x: tensor<32x32xf16, #row>) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    %r = scf.if %p -> (tensor<32x32xf16, #row>) {
      // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
      %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
      %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
      tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<1xi64, #bar, mutable>
      tilegpu.barrier_expect %b, 2048, %true : !tilegpu.memdesc<1xi64, #bar, mutable>
      tilegpu.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %b, %true : !tile.tensordesc<tensor<32x32xf16>>, !tilegpu.memdesc<1xi64, #bar, mutable> -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
      tilegpu.wait_barrier %b, %c0 : !tilegpu.memdesc<1xi64, #bar, mutable>
      tilegpu.local_dealloc %b : !tilegpu.memdesc<1xi64, #bar, mutable>
      %v = tilegpu.local_load %buf : !tilegpu.memdesc<32x32xf16, #sa, mutable> -> tensor<32x32xf16, #row>
      scf.yield %v : tensor<32x32xf16, #row>
    } else {
      scf.yield %x : tensor<32x32xf16, #row>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
    %epilogue = tilegpu.local_alloc %r : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #sa>
    tile.return
  }
}

// -----

// A TMA destination whose copy is not waited for in the if stays: the copy
// may still be landing after it.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
#bar = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @tma_buffer_not_waited_for_stays
  tile.func public @tma_buffer_not_waited_for_stays(%d: !tile.tensordesc<tensor<32x32xf16>>, %p: i1, %b: !tilegpu.memdesc<1xi64, #bar, mutable>, %x: tensor<32x32xf16, #row>) {
    %c0 = arith.constant 0 : i32
    %true = arith.constant true
    scf.if %p {
      // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
      %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
      tilegpu.async_tma_copy_global_to_local %d[%c0, %c0] %buf, %b, %true : !tile.tensordesc<tensor<32x32xf16>>, !tilegpu.memdesc<1xi64, #bar, mutable> -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
      %v = tilegpu.local_load %buf : !tilegpu.memdesc<32x32xf16, #sa, mutable> -> tensor<32x32xf16, #row>
    }
    // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 2048 : i32}
    %epilogue = tilegpu.local_alloc %x : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #sa>
    tile.return
  }
}

// -----

// The same in a warp_specialize's default region: the masked block's TMA
// destination is free after its if, so the consumers' epilogue buffer takes
// its bytes (which the producer's region, placed after, keeps out of).
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#sa = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
#bar = #tilegpu.shared<order = [0]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 5120 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @tma_buffer_free_in_the_default_region
  tile.func public @tma_buffer_free_in_the_default_region(%d: !tile.tensordesc<tensor<32x32xf16>>, %p: i1, %x: tensor<32x32xf16, #row>) {
    tilegpu.warp_specialize(%d, %p, %x)
    default(%dd: !tile.tensordesc<tensor<32x32xf16>>, %dp: i1, %dx: tensor<32x32xf16, #row>) {
      %c0 = arith.constant 0 : i32
      %true = arith.constant true
      %r = scf.if %dp -> (tensor<32x32xf16, #row>) {
        // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32}
        %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
        %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
        tilegpu.init_barrier %b, 1 : !tilegpu.memdesc<1xi64, #bar, mutable>
        tilegpu.barrier_expect %b, 2048, %true : !tilegpu.memdesc<1xi64, #bar, mutable>
        tilegpu.async_tma_copy_global_to_local %dd[%c0, %c0] %buf, %b, %true : !tile.tensordesc<tensor<32x32xf16>>, !tilegpu.memdesc<1xi64, #bar, mutable> -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
        tilegpu.wait_barrier %b, %c0 : !tilegpu.memdesc<1xi64, #bar, mutable>
        tilegpu.local_dealloc %b : !tilegpu.memdesc<1xi64, #bar, mutable>
        %v = tilegpu.local_load %buf : !tilegpu.memdesc<32x32xf16, #sa, mutable> -> tensor<32x32xf16, #row>
        scf.yield %v : tensor<32x32xf16, #row>
      } else {
        scf.yield %dx : tensor<32x32xf16, #row>
      }
      // CHECK: tilegpu.local_alloc %{{.*}} {tilegpu.offset = 0 : i32}
      %epilogue = tilegpu.local_alloc %r : (tensor<32x32xf16, #row>) -> !tilegpu.memdesc<32x32xf16, #sa>
      tilegpu.warp_yield
    }
    partition0(%pd: !tile.tensordesc<tensor<32x32xf16>>, %pp: i1, %px: tensor<32x32xf16, #row>) num_warps(4) {
      // CHECK: tilegpu.local_alloc {tilegpu.offset = 3072 : i32}
      %own = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x32xf16, #sa, mutable>
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// mbarriers (dense i64 buffers without an initial value) are placed at
// 128 bytes, not 1024: two barriers share the kilobyte after a buffer, and
// the next buffer starts at the next kilobyte.
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#bar = #tilegpu.shared<order = [0]>
// CHECK: module attributes {{{.*}}tilegpu.shared = 6144 : i32}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: tile.func public @barriers_pack
  tile.func public @barriers_pack() {
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 0 : i32} : () -> !tilegpu.memdesc<32x64xf16
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #nv, mutable>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 4096 : i32} : () -> !tilegpu.memdesc<1xi64
    %b0 = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #bar, mutable>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 4224 : i32} : () -> !tilegpu.memdesc<2xi64
    %b1 = tilegpu.local_alloc : () -> !tilegpu.memdesc<2xi64, #bar, mutable>
    // CHECK: tilegpu.local_alloc {tilegpu.offset = 5120 : i32} : () -> !tilegpu.memdesc<8x64xf16
    %c = tilegpu.local_alloc : () -> !tilegpu.memdesc<8x64xf16, #nv, mutable>
    tile.return
  }
}
