// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm

// What convert-tilegpu-to-llvm refuses about TMA, at the op's line.

// Descriptor loads and stores must have been lowered to TMA copies
// (tilegpu-lower-tma) first.
#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @descriptor_load_not_lowered(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
    // expected-error @+1 {{descriptor loads and stores reach the LLVM lowering only as TMA copies: run tilegpu-lower-tma first}}
    %x = tile.descriptor_load %d[%i, %i] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #b>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @descriptor_store_not_lowered(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32, %x: tensor<64x64xf16, #b>) {
    // expected-error @+1 {{descriptor loads and stores reach the LLVM lowering only as TMA copies: run tilegpu-lower-tma first}}
    tile.descriptor_store %d[%i, %i], %x : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #b>
    tile.return
  }
}

// -----

// The TMA is Hopper's: no copies, stores or tensor maps for sm_80.
#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @tma_load_on_sm80(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32, %p: i1) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<256xf32, #sh, mutable>
    // expected-error @+2 {{TMA is not available on target cuda:80}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.async_tma_copy_global_to_local'}}
    tilegpu.async_tma_copy_global_to_local %d[%i] %buf, %bar, %p : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<1xi64, #sh, mutable> -> !tilegpu.memdesc<256xf32, #sh, mutable>
    tile.return
  }
}

// -----

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @tma_store_on_sm80(%d: !tile.tensordesc<tensor<256xf32>>, %i: i32) {
    %buf = tilegpu.local_alloc : () -> !tilegpu.memdesc<256xf32, #sh, mutable>
    // expected-error @+2 {{TMA is not available on target cuda:80}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.async_tma_copy_local_to_global'}}
    tilegpu.async_tma_copy_local_to_global %d[%i] %buf : !tile.tensordesc<tensor<256xf32>>, !tilegpu.memdesc<256xf32, #sh, mutable>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @make_descriptor_on_sm80(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    // expected-error @+2 {{TMA is not available on target cuda:80}}
    // expected-error @+1 {{failed to legalize operation 'tile.make_tensor_descriptor'}}
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f32>, !tile.tensordesc<tensor<256xf32>>
    tile.return
  }
}
