// Regression test (a bug found by review, fixed): see the comments below.
// RUN: warpforge-opt %s --tilegpu-lower-tma | FileCheck %s

// When a descriptor load feeds a local_alloc in the TMA layout,
// tilegpu-lower-tma replaces the allocation (an initialized, immutable
// memdesc) with the TMA buffer (a mutable one) through replaceAllUsesWith,
// which changes the type its users see.  A user whose verifier ties its
// result's mutability to its source's (memdesc_subslice here, or
// memdesc_trans) then fails verification after the pass:
//   'tilegpu.memdesc_subslice' op result must keep the source's element
//   type, layout and mutability
// Expected: the in-place rewrite keeps the IR valid (retypes the users,
// or falls back to the register path when a user cannot change).

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: tile.func public @subslice_of_tma_operand(
  // CHECK: tilegpu.async_tma_copy_global_to_local
  // CHECK: tilegpu.memdesc_subslice
  // CHECK: tilegpu.warp_group_dot
  tile.func public @subslice_of_tma_operand(%da: !tile.tensordesc<tensor<128x64xf16>>, %sb: !tilegpu.memdesc<64x128xf16, #nv>, %i: i32) {
    %acc = arith.constant dense<0.0> : tensor<64x128xf32, #w>
    %a = tile.descriptor_load %da[%i, %i] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
    %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
    %lower = tilegpu.memdesc_subslice %sa [64, 0] : !tilegpu.memdesc<128x64xf16, #nv> -> !tilegpu.memdesc<64x64xf16, #nv>
    %d = tilegpu.warp_group_dot %lower, %sb, %acc : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nv> -> tensor<64x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x128xf32, #w>
    tile.return
  }
}
