// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Every error of the tilegpu verifiers, one case each: the layout attributes
// (lib/Dialect/TileGPU/IR/TileGPUAttrs.cpp), the memdesc type
// (TileGPUDialect.cpp) and the ops (TileGPUOps.cpp), plus a few of the
// ODS-generated constraint errors.

//===----------------------------------------------------------------------===//
// #tilegpu.blocked
//===----------------------------------------------------------------------===//

// expected-error @+1 {{blocked layout must have rank 1 or more}}
tile.func public @blocked_rank0(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [], threadsPerWarp = [], warpsPerCTA = [], order = []>>) {
  tile.return
}

// -----

// expected-error @+1 {{sizePerThread, threadsPerWarp and warpsPerCTA must have one entry per dimension (2)}}
tile.func public @blocked_ragged(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [32], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{sizePerThread entries must be powers of two, got 3}}
tile.func public @blocked_size_per_thread_not_pow2(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 3], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{threadsPerWarp entries must be powers of two, got 0}}
tile.func public @blocked_threads_per_warp_zero(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [0, 32], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{warpsPerCTA entries must be positive, got 0}}
tile.func public @blocked_warps_zero(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [0, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// Six warps along 64 rows: a 12-row tile, which 64 rows neither fill
// whole nor divide.
// expected-error @+1 {{dimension 0 of the tensor (64) is neither a multiple of the blocked layout's 12-element CTA tile nor a divisor of it}}
tile.func public @blocked_warps_not_dividing(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [6, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{threadsPerWarp must multiply to the warp size (32), got 64}}
tile.func public @blocked_warp_size(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{order has 1 entries but the layout has rank 2}}
tile.func public @blocked_order_length(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1]>>) {
  tile.return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
tile.func public @blocked_order_repeats(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 1]>>) {
  tile.return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
tile.func public @blocked_order_out_of_range(%x: tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [2, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{a rank-2 blocked layout cannot describe a rank-1 tensor}}
tile.func public @blocked_tensor_rank(%x: tensor<128xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// 176 columns under a 64-column CTA tile: neither whole tiles nor a power
// of two that one tile repeats (threads would address past the tensor).
// expected-error @+1 {{dimension 1 of the tensor (176) is neither a multiple of the blocked layout's 64-element CTA tile nor a divisor of it}}
tile.func public @blocked_npot_dim_under_a_wider_tile(%x: tensor<64x176xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

// The same under a slice: the 176 rows of dim 0 against the parent's
// 8-row tile are whole tiles; against a 256-row tile they are not.
// expected-error @+1 {{dimension 0 of the tensor (176) is neither a multiple of the slice layout's 256-element CTA tile nor a divisor of it}}
tile.func public @slice_npot_dim_under_a_wider_tile(%x: tensor<176xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [8, 1], order = [1, 0]>>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// #tilegpu.slice
//===----------------------------------------------------------------------===//

// expected-error @+1 {{slice parent must be a distributed layout, got #tilegpu.shared<order = [1, 0]>}}
tile.func public @slice_of_shared(%x: tensor<64xf32, #tilegpu.slice<dim = 0, parent = #tilegpu.shared<order = [1, 0]>>>) {
  tile.return
}

// -----

// expected-error @+1 {{slice parent must have rank 2 or more, got rank 1}}
tile.func public @slice_of_rank1(%x: tensor<64xf32, #tilegpu.slice<dim = 0, parent = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>>>) {
  tile.return
}

// -----

// expected-error @+1 {{slice dim 2 is out of range for a parent of rank 2}}
tile.func public @slice_dim_out_of_range(%x: tensor<64xf32, #tilegpu.slice<dim = 2, parent = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>) {
  tile.return
}

// -----

// expected-error @+1 {{a rank-1 slice layout cannot describe a rank-2 tensor}}
tile.func public @slice_tensor_rank(%x: tensor<64x64xf32, #tilegpu.slice<dim = 1, parent = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// #tilegpu.wgmma
//===----------------------------------------------------------------------===//

// expected-error @+1 {{wgmma layout is 2-D: warpsPerCTA needs 2 entries}}
tile.func public @wgmma_warps_rank(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4], instrShape = [64, 128, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{instrShape is [M, N, K]: 3 entries}}
tile.func public @wgmma_instr_rank(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128]>>) {
  tile.return
}

// -----

// expected-error @+1 {{warpgroups split along M: warpsPerCTA[0] must be a multiple of 4, got 6}}
tile.func public @wgmma_warps_not_warpgroups(%x: tensor<192x64xf32, #tilegpu.wgmma<warpsPerCTA = [6, 2], instrShape = [64, 32, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{wgmma needs whole warpgroups: warpsPerCTA must multiply to a multiple of 4, got 2}}
tile.func public @wgmma_partial_warpgroup(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [2, 1], instrShape = [64, 128, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{warpgroups split along M: warpsPerCTA[0] must be a multiple of 4, got 2}}
tile.func public @wgmma_warpgroups_along_n(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [2, 2], instrShape = [64, 128, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{wgmma instructions have M = 64 (16: mma.sync), got 32}}
tile.func public @wgmma_m(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [32, 128, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{wgmma N must be a multiple of 8 from 8 to 256, got 264}}
tile.func public @wgmma_n_too_large(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 264, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{wgmma N must be a multiple of 8 from 8 to 256, got 100}}
tile.func public @wgmma_n_not_multiple_of_8(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 100, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{wgmma K is 8 (tf32), 16 (16-bit) or 32 (8-bit), got 64}}
tile.func public @wgmma_k(%x: tensor<64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 64]>>) {
  tile.return
}

// -----

// expected-error @+1 {{a rank-2 wgmma layout cannot describe a rank-3 tensor}}
tile.func public @wgmma_tensor_rank(%x: tensor<2x64x64xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// #tilegpu.dot_op
//===----------------------------------------------------------------------===//

// expected-error @+1 {{opIdx is 0 (A) or 1 (B), got 2}}
tile.func public @dot_op_index(%x: tensor<64x64xf32, #tilegpu.dot_op<opIdx = 2, parent = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>, kWidth = 1>>) {
  tile.return
}

// -----

// expected-error @+1 {{dot operand parent must be a distributed layout, got #tilegpu.shared<order = [1, 0]>}}
tile.func public @dot_op_parent_shared(%x: tensor<64x64xf32, #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.shared<order = [1, 0]>, kWidth = 1>>) {
  tile.return
}

// -----

// expected-error @+1 {{wgmma reads B from shared memory: only operand A (opIdx = 0) may have a register layout}}
tile.func public @dot_op_wgmma_b(%x: tensor<64x64xf32, #tilegpu.dot_op<opIdx = 1, parent = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>, kWidth = 2>>) {
  tile.return
}

// -----

// expected-error @+1 {{mma.sync layout: a warp's N must be a multiple of 8 from 8 to 256, got 12}}
tile.func public @mma_sync_n(%x: tensor<16x64xf32, #tilegpu.wgmma<warpsPerCTA = [1, 2], instrShape = [16, 12, 16]>>) {
  tile.return
}

// -----

// expected-error @+1 {{mma.sync K is 8 (tf32), 16 (16-bit) or 32 (8-bit), got 64}}
tile.func public @mma_sync_k(%x: tensor<16x64xf32, #tilegpu.wgmma<warpsPerCTA = [1, 2], instrShape = [16, 32, 64]>>) {
  tile.return
}

// -----

// expected-error @+1 {{mma.sync operand of 'f16' holds 2 elements per register: kWidth must be 2, got 4}}
tile.func public @mma_sync_kwidth(%x: tensor<16x32xf16, #tilegpu.dot_op<opIdx = 1, parent = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 32, 16]>, kWidth = 4>>) {
  tile.return
}

// -----

// mma.sync layouts: any warp split, B in registers too.
tile.func public @mma_sync_layouts(%a: tensor<16x32xf16, #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.wgmma<warpsPerCTA = [1, 2], instrShape = [16, 8, 16]>, kWidth = 2>>, %b: tensor<32x16xi8, #tilegpu.dot_op<opIdx = 1, parent = #tilegpu.wgmma<warpsPerCTA = [1, 2], instrShape = [16, 8, 32]>, kWidth = 4>>) {
  tile.return
}

// -----

// expected-error @+1 {{kWidth must be a power of two from 1 to 16, got 0}}
tile.func public @dot_op_kwidth_zero(%x: tensor<64x64xf32, #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>, kWidth = 0>>) {
  tile.return
}

// -----

// expected-error @+1 {{kWidth must be a power of two from 1 to 16, got 3}}
tile.func public @dot_op_kwidth_not_pow2(%x: tensor<64x64xf32, #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>, kWidth = 3>>) {
  tile.return
}

// -----

// expected-error @+1 {{kWidth must be a power of two from 1 to 16, got 32}}
tile.func public @dot_op_kwidth_too_large(%x: tensor<64x64xf32, #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>, kWidth = 32>>) {
  tile.return
}

// -----

// expected-error @+1 {{a rank-2 dot_op layout cannot describe a rank-1 tensor}}
tile.func public @dot_op_tensor_rank(%x: tensor<64xf32, #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>, kWidth = 1>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// #tilegpu.shared
//===----------------------------------------------------------------------===//

// expected-error @+1 {{shared layout order must not be empty}}
tile.func public @shared_empty(%x: !tilegpu.memdesc<64xf32, #tilegpu.shared<order = []>>) {
  tile.return
}

// -----

// expected-error @+1 {{order must be a permutation of 0..1}}
tile.func public @shared_not_permutation(%x: !tilegpu.memdesc<64x64xf32, #tilegpu.shared<order = [1, 1]>>) {
  tile.return
}

// -----

// expected-error @+1 {{a rank-2 shared layout cannot describe a rank-1 tensor}}
tile.func public @shared_tensor_rank(%x: tensor<64xf32, #tilegpu.shared<order = [1, 0]>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// #tilegpu.nvmma_shared
//===----------------------------------------------------------------------===//

// expected-error @+1 {{swizzlingByteWidth must be 0, 32, 64 or 128, got 16}}
tile.func public @nvmma_swizzle(%x: !tilegpu.memdesc<64x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 16, transposed = false, elementBitWidth = 16>>) {
  tile.return
}

// -----

// expected-error @+1 {{elementBitWidth must be 8, 16 or 32, got 64}}
tile.func public @nvmma_element_width(%x: !tilegpu.memdesc<64x64xf64, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 64>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// !tilegpu.memdesc
//===----------------------------------------------------------------------===//

// expected-error @+1 {{memdesc must have at least one dimension}}
tile.func public @memdesc_rank0(%x: !tilegpu.memdesc<f32, #tilegpu.shared<order = [0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{memdesc dimensions must be positive, got 0}}
tile.func public @memdesc_zero_dim(%x: !tilegpu.memdesc<64x0xf32, #tilegpu.shared<order = [1, 0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{memdesc elements must be integers or floats, got '!tile.ptr<f32>'}}
tile.func public @memdesc_element(%x: !tilegpu.memdesc<64x!tile.ptr<f32>, #tilegpu.shared<order = [0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{memdesc must have at least one buffer, got 0}}
tile.func public @memdesc_zero_buffers(%x: !tilegpu.memdesc<64xf32, #tilegpu.shared<order = [0]>, buffers = 0>) {
  tile.return
}

// -----

// expected-error @+1 {{memdesc must have at least one buffer, got -2}}
tile.func public @memdesc_negative_buffers(%x: !tilegpu.memdesc<64xf32, #tilegpu.shared<order = [0]>, mutable, buffers = -2>) {
  tile.return
}

// -----

// expected-error @+1 {{shared layout order has 1 dimensions but the memdesc has 2}}
tile.func public @memdesc_shared_rank(%x: !tilegpu.memdesc<64x64xf32, #tilegpu.shared<order = [0]>>) {
  tile.return
}

// -----

// expected-error @+1 {{an nvmma_shared memdesc must be at least 2-D}}
tile.func public @memdesc_nvmma_1d(%x: !tilegpu.memdesc<64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>) {
  tile.return
}

// -----

// expected-error @+1 {{nvmma_shared layout is for 16-bit elements but the memdesc holds 'f32'}}
tile.func public @memdesc_nvmma_width(%x: !tilegpu.memdesc<64x64xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>) {
  tile.return
}

// -----

// expected-error @+1 {{the contiguous dimension holds 64 bytes, not a multiple of the 128-byte swizzle}}
tile.func public @memdesc_nvmma_row(%x: !tilegpu.memdesc<64x32xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>) {
  tile.return
}

// -----

// expected-error @+1 {{the contiguous dimension holds 32 bytes, not a multiple of the 128-byte swizzle}}
tile.func public @memdesc_nvmma_transposed_row(%x: !tilegpu.memdesc<16x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>) {
  tile.return
}

// -----

// expected-error @+1 {{memdesc encoding must be a shared layout (#tilegpu.shared or #tilegpu.nvmma_shared), got #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>}}
tile.func public @memdesc_distributed_encoding(%x: !tilegpu.memdesc<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>) {
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.convert_layout
//===----------------------------------------------------------------------===//

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @convert_from_no_layout(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{'tilegpu.convert_layout' op converts between distributed layouts; both types need one, got 'tensor<64x64xf32>' and 'tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32> -> tensor<64x64xf32, #blocked>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @convert_to_shared(%x: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{'tilegpu.convert_layout' op converts between distributed layouts; both types need one, got 'tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' and 'tensor<64x64xf32, #tilegpu.shared<order = [1, 0]>>'}}
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #blocked> -> tensor<64x64xf32, #shared>
  tile.return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
tile.func public @convert_changes_shape(%x: tensor<64x64xf32, #a>) {
  // expected-error @+1 {{'tilegpu.convert_layout' op requires the same shape for all operands and results}}
  %0 = tilegpu.convert_layout %x : tensor<64x64xf32, #a> -> tensor<32x128xf32, #b>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.local_alloc
//===----------------------------------------------------------------------===//

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @alloc_uninitialized_immutable() {
  // expected-error @+1 {{'tilegpu.local_alloc' op an allocation without an initial value must be mutable}}
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @alloc_initialized_ring(%x: tensor<64x64xf16, #blocked>) {
  // expected-error @+1 {{'tilegpu.local_alloc' op an initialized allocation has 2 buffers: select one with tilegpu.memdesc_index, or give a tensor whose leading dimension of 2 walks them, got 'tensor<64x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %m = tilegpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared, buffers = 2>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @alloc_shape_mismatch(%x: tensor<64x32xf16, #blocked>) {
  // expected-error @+1 {{'tilegpu.local_alloc' op tensor 'tensor<64x32xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' does not match the shape and element type of '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>>'}}
  %m = tilegpu.local_alloc %x : (tensor<64x32xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @alloc_from_tensor_without_layout(%x: tensor<64x64xf16>) {
  // expected-error @+1 {{'tilegpu.local_alloc' op tensor must have a distributed layout, got 'tensor<64x64xf16>'}}
  %m = tilegpu.local_alloc %x : (tensor<64x64xf16>) -> !tilegpu.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.local_load
//===----------------------------------------------------------------------===//

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @load_from_ring(%m: !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 3>) {
  // expected-error @+1 {{'tilegpu.local_load' op the source has 3 buffers: select one with tilegpu.memdesc_index, or give a tensor whose leading dimension of 3 walks them, got 'tensor<64x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %x = tilegpu.local_load %m : !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 3> -> tensor<64x64xf16, #blocked>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @load_element_mismatch(%m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.local_load' op tensor 'tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' does not match the shape and element type of '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>>'}}
  %x = tilegpu.local_load %m : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #blocked>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.local_store
//===----------------------------------------------------------------------===//

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @store_immutable(%x: tensor<64x64xf16, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.local_store' op destination must be mutable}}
  tilegpu.local_store %x, %m : tensor<64x64xf16, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @store_to_ring(%x: tensor<64x64xf16, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>) {
  // expected-error @+1 {{'tilegpu.local_store' op the destination has 2 buffers: select one with tilegpu.memdesc_index, or give a tensor whose leading dimension of 2 walks them, got 'tensor<64x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  tilegpu.local_store %x, %m : tensor<64x64xf16, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @store_shape_mismatch(%x: tensor<32x64xf16, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.local_store' op tensor 'tensor<32x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' does not match the shape and element type of '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>, mutable>'}}
  tilegpu.local_store %x, %m : tensor<32x64xf16, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.memdesc_index
//===----------------------------------------------------------------------===//

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @index_drops_mutability(%m: !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>, %i: i32) {
  // expected-error @+1 {{'tilegpu.memdesc_index' op result must be one buffer of the source, '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>, mutable>', got '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>>'}}
  %b = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2> -> !tilegpu.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.memdesc_subslice
//===----------------------------------------------------------------------===//

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @subslice_of_ring(%m: !tilegpu.memdesc<64x64xf16, #shared, buffers = 2>) {
  // expected-error @+1 {{'tilegpu.memdesc_subslice' op the source must be a single buffer (select one of the 2 with tilegpu.memdesc_index)}}
  %s = tilegpu.memdesc_subslice %m [0, 0] : !tilegpu.memdesc<64x64xf16, #shared, buffers = 2> -> !tilegpu.memdesc<64x32xf16, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @subslice_changes_mutability(%m: !tilegpu.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.memdesc_subslice' op result must keep the source's element type, layout and mutability}}
  %s = tilegpu.memdesc_subslice %m [0, 0] : !tilegpu.memdesc<64x64xf16, #shared, mutable> -> !tilegpu.memdesc<64x32xf16, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @subslice_offsets_rank(%m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.memdesc_subslice' op needs one offset per dimension and a result of the source's rank}}
  %s = tilegpu.memdesc_subslice %m [0] : !tilegpu.memdesc<64x64xf16, #shared> -> !tilegpu.memdesc<64x32xf16, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @subslice_out_of_bounds(%m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.memdesc_subslice' op sub-tile [64, 96) is out of bounds of 64}}
  %s = tilegpu.memdesc_subslice %m [0, 64] : !tilegpu.memdesc<64x64xf16, #shared> -> !tilegpu.memdesc<64x32xf16, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @subslice_negative_offset(%m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.memdesc_subslice' op sub-tile [-32, 0) is out of bounds of 64}}
  %s = tilegpu.memdesc_subslice %m [-32, 0] : !tilegpu.memdesc<64x64xf16, #shared> -> !tilegpu.memdesc<32x64xf16, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @subslice_misaligned(%m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.memdesc_subslice' op offset 16 must be a multiple of the sub-tile size 32}}
  %s = tilegpu.memdesc_subslice %m [0, 16] : !tilegpu.memdesc<64x64xf16, #shared> -> !tilegpu.memdesc<64x32xf16, #shared>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.async_copy_global_to_local
//===----------------------------------------------------------------------===//

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_to_immutable(%p: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op destination must be mutable}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_to_ring(%p: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op the destination must be a single buffer (select one of the 2 with tilegpu.memdesc_index)}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 2>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_from_values(%p: tensor<64x64xi64, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op source must be a tensor of pointers, got 'tensor<64x64xi64, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64xi64, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_pointers_without_layout(%p: tensor<64x64x!tile.ptr<f16>>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op pointers must have a distributed layout, got 'tensor<64x64x!tile.ptr<f16>>'}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f16>> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_pointee_mismatch(%p: tensor<64x64x!tile.ptr<f32>, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op pointers 'tensor<64x64x!tile.ptr<f32>, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' do not match the destination '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>, mutable>'}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<f32>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_shape_mismatch(%p: tensor<32x64x!tile.ptr<f16>, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op pointers 'tensor<32x64x!tile.ptr<f16>, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>' do not match the destination '!tilegpu.memdesc<64x64xf16, #tilegpu.shared<order = [1, 0]>, mutable>'}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<32x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_bits(%p: tensor<64x64x!tile.ptr<i1>, #blocked>, %m: !tilegpu.memdesc<64x64xi1, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op cp.async copies whole bytes; 'i1' elements are narrower}}
  %t = tilegpu.async_copy_global_to_local %p, %m : tensor<64x64x!tile.ptr<i1>, #blocked> -> !tilegpu.memdesc<64x64xi1, #shared, mutable>
  tile.return
}

// -----

#a = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_mask_layout(%p: tensor<64x64x!tile.ptr<f16>, #a>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>, %mask: tensor<64x64xi1, #b>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op mask must be 'tensor<64x64xi1, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>', got 'tensor<64x64xi1, #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]>>'}}
  %t = tilegpu.async_copy_global_to_local %p, %m mask %mask : tensor<64x64xi1, #b> : tensor<64x64x!tile.ptr<f16>, #a> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_other_type(%p: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>, %mask: tensor<64x64xi1, #blocked>, %other: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op 'other' must be 'tensor<64x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>', got 'tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %t = tilegpu.async_copy_global_to_local %p, %m mask %mask : tensor<64x64xi1, #blocked> other %other : tensor<64x64xf32, #blocked> : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @copy_other_without_mask(%p: tensor<64x64x!tile.ptr<f16>, #blocked>, %m: !tilegpu.memdesc<64x64xf16, #shared, mutable>, %other: tensor<64x64xf16, #blocked>) {
  // expected-error @+1 {{'tilegpu.async_copy_global_to_local' op 'other' needs a mask}}
  %t = tilegpu.async_copy_global_to_local %p, %m other %other : tensor<64x64xf16, #blocked> : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #shared, mutable>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.async_wait
//===----------------------------------------------------------------------===//

tile.func public @wait_negative() {
  // expected-error @+1 {{'tilegpu.async_wait' op attribute 'num' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %w = tilegpu.async_wait {num = -1 : i32}
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

#shared = #tilegpu.shared<order = [0]>
tile.func public @init_barrier_i32(%bar: !tilegpu.memdesc<1xi32, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.init_barrier' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi32, #tilegpu.shared<order = [0]>, mutable>'}}
  tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi32, #shared, mutable>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [0]>
tile.func public @init_barrier_zero_count(%bar: !tilegpu.memdesc<1xi64, #shared, mutable>) {
  // expected-error @+1 {{'tilegpu.init_barrier' op attribute 'count' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  tilegpu.init_barrier %bar, 0 : !tilegpu.memdesc<1xi64, #shared, mutable>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [0]>
tile.func public @barrier_expect_immutable(%bar: !tilegpu.memdesc<1xi64, #shared>, %pred: i1) {
  // expected-error @+1 {{'tilegpu.barrier_expect' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>>'}}
  tilegpu.barrier_expect %bar, 1024, %pred : !tilegpu.memdesc<1xi64, #shared>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [0]>
tile.func public @arrive_barrier_ring(%bar: !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 2>) {
  // expected-error @+1 {{'tilegpu.arrive_barrier' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable, buffers = 2>'}}
  tilegpu.arrive_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #shared, mutable, buffers = 2>
  tile.return
}

// -----

#shared = #tilegpu.shared<order = [0]>
tile.func public @wait_barrier_shape(%bar: !tilegpu.memdesc<2xi64, #shared, mutable>, %phase: i32) {
  // expected-error @+1 {{'tilegpu.wait_barrier' op barrier must be a mutable, single 1xi64 shared buffer, got '!tilegpu.memdesc<2xi64, #tilegpu.shared<order = [0]>, mutable>'}}
  tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<2xi64, #shared, mutable>
  tile.return
}

// -----

//===----------------------------------------------------------------------===//
// tilegpu.warp_group_dot and tilegpu.warp_group_dot_wait
//===----------------------------------------------------------------------===//

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @wgmma_acc_layout(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op the accumulator needs a #tilegpu.wgmma layout, got 'tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #blocked>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#mma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
tile.func public @wgmma_acc_mma_sync(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op the accumulator's layout is an mma.sync one (instrShape M = 16); wgmma needs M = 64, got #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_a_buffers(%a: !tilegpu.memdesc<64x64xf16, #nv, mutable, buffers = 2>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op a must be a single buffer}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv, mutable, buffers = 2> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#sh = #tilegpu.shared<order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_a_plain_shared(%a: !tilegpu.memdesc<64x64xf16, #sh>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op a in shared memory needs a #tilegpu.nvmma_shared layout, got #tilegpu.shared<order = [1, 0]>}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #sh> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @wgmma_a_register_layout(%a: tensor<64x64xf16, #blocked>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op a in registers needs the layout #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>, ...>, got 'tensor<64x64xf16, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x64xf16, #blocked> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
#op = #tilegpu.dot_op<opIdx = 0, parent = #w, kWidth = 4>
tile.func public @wgmma_a_register_fp8(%a: tensor<64x128xf8E4M3FN, #op>, %b: !tilegpu.memdesc<128x64xf8E4M3FN, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op a in registers must be 16-bit (f16 or bf16), got 'f8E4M3FN'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x128xf8E4M3FN, #op> * !tilegpu.memdesc<128x64xf8E4M3FN, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_b_buffers(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #nv, mutable, buffers = 2>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op b must be a single buffer}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #nv, mutable, buffers = 2> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#sh = #tilegpu.shared<order = [1, 0]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_b_plain_shared(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<64x64xf16, #sh>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op b needs a #tilegpu.nvmma_shared layout, got #tilegpu.shared<order = [1, 0]>}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<64x64xf16, #sh> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_shapes(%a: !tilegpu.memdesc<64x64xf16, #nv>, %b: !tilegpu.memdesc<128x64xf16, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op shapes do not form a product: a is 2-D [64, 64], b [128, 64], d [64, 64]}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv> * !tilegpu.memdesc<128x64xf16, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_bf16_to_f16(%a: !tilegpu.memdesc<64x64xbf16, #nv>, %b: !tilegpu.memdesc<64x64xbf16, #nv>, %c: tensor<64x64xf16, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op wgmma has no form for 'bf16' x 'bf16' -> 'f16'; it takes f16 x f16 -> f32/f16, bf16 x bf16 -> f32, fp8 x fp8 -> f32/f16, i8 x i8 -> i32 and f32 x f32 -> f32 with inputPrecision = tf32}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xbf16, #nv> * !tilegpu.memdesc<64x64xbf16, #nv> -> tensor<64x64xf16, #w>
  tile.return
}

// -----

#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
tile.func public @wgmma_int8_to_f32(%a: !tilegpu.memdesc<64x64xi8, #nv>, %b: !tilegpu.memdesc<64x64xi8, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op wgmma has no form for 'i8' x 'i8' -> 'f32'}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xi8, #nv> * !tilegpu.memdesc<64x64xi8, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

// Integer products have N = 8, 16, 24 and the multiples of 16 only.
#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
#b = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 40, 32]>
tile.func public @wgmma_int8_n40(%a: !tilegpu.memdesc<64x64xi8, #a>, %b: !tilegpu.memdesc<64x40xi8, #b>, %c: tensor<64x40xi32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op wgmma has no N = 40 for 'i8'; integer products take N = 8, 16, 24 or a multiple of 16}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xi8, #a> * !tilegpu.memdesc<64x40xi8, #b> -> tensor<64x40xi32, #w>
  tile.return
}

// -----

// fp8 operands are K-major only: A transposed is M-major.
#at = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#bt = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
tile.func public @wgmma_fp8_m_major(%a: !tilegpu.memdesc<64x64xf8E4M3FN, #at>, %b: !tilegpu.memdesc<64x64xf8E5M2, #bt>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op a is MN-major, which wgmma allows only for 16-bit types, not 'f8E4M3FN'; store it K-major}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf8E4M3FN, #at> * !tilegpu.memdesc<64x64xf8E5M2, #bt> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

// tf32 operands are K-major only: B untransposed is N-major.
#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 8]>
tile.func public @wgmma_tf32_n_major(%a: !tilegpu.memdesc<64x32xf32, #a>, %b: !tilegpu.memdesc<32x64xf32, #a>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op b is MN-major, which wgmma allows only for 16-bit types, not 'f32'; store it K-major}}
  %d = tilegpu.warp_group_dot %a, %b, %c inputPrecision = tf32 : !tilegpu.memdesc<64x32xf32, #a> * !tilegpu.memdesc<32x64xf32, #a> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#nv0 = #tilegpu.nvmma_shared<swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_unswizzled(%a: !tilegpu.memdesc<64x64xf16, #nv0>, %b: !tilegpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op a's layout is not swizzled; wgmma operands need swizzlingByteWidth = 32, 64 or 128}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv0> * !tilegpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
#b = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
tile.func public @wgmma_instr_k(%a: !tilegpu.memdesc<64x32xf16, #a>, %b: !tilegpu.memdesc<32x64xf16, #b>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op the instruction K for 'f16' is 16, but the layout has 32}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x32xf16, #a> * !tilegpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#at = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#b = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_k_multiple(%a: !tilegpu.memdesc<64x24xf16, #at>, %b: !tilegpu.memdesc<24x64xf16, #b>, %c: tensor<64x64xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op K = 24 is not a multiple of the instruction's K = 16}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x24xf16, #at> * !tilegpu.memdesc<24x64xf16, #b> -> tensor<64x64xf32, #w>
  tile.return
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>
#bt = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = true, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
tile.func public @wgmma_partial_tile(%a: !tilegpu.memdesc<64x16xf16, #a>, %b: !tilegpu.memdesc<16x96xf16, #bt>, %c: tensor<64x96xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op the 64 x 96 result is not a whole number of the layout's 64 x 64 tiles}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x16xf16, #a> * !tilegpu.memdesc<16x96xf16, #bt> -> tensor<64x96xf32, #w>
  tile.return
}

// -----

// N-major B with 16-element (32-byte) swizzle rows: an instruction of N = 24
// would start in the middle of one row and run into the next.
#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 24, 16]>
tile.func public @wgmma_n_major_straddles_rows(%a: !tilegpu.memdesc<64x16xf16, #a>, %b: !tilegpu.memdesc<16x48xf16, #a>, %c: tensor<64x48xf32, #w>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot' op b is N-major with 16-element swizzle rows, which the instruction's N = 24 neither divides nor is a multiple of}}
  %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x16xf16, #a> * !tilegpu.memdesc<16x48xf16, #a> -> tensor<64x48xf32, #w>
  tile.return
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @wgmma_wait_blocked(%x: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{'tilegpu.warp_group_dot_wait' op waits on wgmma results; 'tensor<64x64xf32, #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>' is not in a #tilegpu.wgmma layout}}
  %r = tilegpu.warp_group_dot_wait %x {pendings = 0 : i32} : tensor<64x64xf32, #blocked>
  tile.return
}

// -----

#b3 = #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
tile.func public @alloc_leading_dim_not_the_buffers(%x: tensor<3x16x32xf16, #b3>) {
  // expected-error @+1 {{'tilegpu.local_alloc' op an initialized allocation has 2 buffers: select one with tilegpu.memdesc_index, or give a tensor whose leading dimension of 2 walks them, got 'tensor<3x16x32xf16, #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>>'}}
  %m = tilegpu.local_alloc %x : (tensor<3x16x32xf16, #b3>) -> !tilegpu.memdesc<16x32xf16, #shared, buffers = 2>
  tile.return
}

// -----

tile.func public @schedule_after_wide(%x: f64) {
  // expected-error @+1 {{'tilegpu.schedule_after' op takes integers and floats of 32 bits or fewer (and tensors of them), not 'f64'}}
  tilegpu.schedule_after %x : f64
  tile.return
}

// -----

#sh = #tilegpu.shared<order = [0]>
tile.func public @warp_all_in_shared_layout(%c: tensor<64xi1, #sh>) {
  // expected-error @+1 {{'tilegpu.warp_all' op takes a tensor in registers (a distributed layout), not 'tensor<64xi1, #tilegpu.shared<order = [0]>>'}}
  %all = tilegpu.warp_all %c : tensor<64xi1, #sh>
  tile.return
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
tile.func public @warp_all_stored(%c: tensor<64x1xi1, #w>, %p: !tile.ptr<i1>) {
  // expected-error @+1 {{'tilegpu.warp_all' op is the same within a warp only: its result may only decide a branch, not 'tile.store'}}
  %all = tilegpu.warp_all %c : tensor<64x1xi1, #w>
  tile.store %p, %all : !tile.ptr<i1>
  tile.return
}
