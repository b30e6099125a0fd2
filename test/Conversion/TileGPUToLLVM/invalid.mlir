// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @reduce_result_layout(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<16x32xf32, #blocked>
    // expected-error @+2 {{reduce results must be in #tilegpu.slice<dim = 1, parent = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>>, the slice of the source layout along the reduced axis}}
    // expected-error @+1 {{failed to legalize operation 'tile.reduce'}}
    %s = tile.reduce %x axis = 1 : tensor<16x32xf32, #blocked> -> tensor<16xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>> {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      tile.reduce.return %a : f32
    }
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @load_nvmma_3d(%f: f16) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<2x64x64xf16, #nvmma, mutable>
    // expected-error @+2 {{element access to a 3-D #tilegpu.nvmma_shared buffer is not supported (only 2-D)}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.local_load'}}
    %x = tilegpu.local_load %m : !tilegpu.memdesc<2x64x64xf16, #nvmma, mutable> -> tensor<2x64x64xf16, #blocked>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @scan_of_pointers(%p: !tile.ptr<f32>) {
    %x = tile.splat %p : !tile.ptr<f32> -> tensor<16x32x!tile.ptr<f32>, #blocked>
    // expected-error @+2 {{scans of pointers are not supported}}
    // expected-error @+1 {{failed to legalize operation 'tile.scan'}}
    %c = tile.scan %x axis = 0 : tensor<16x32x!tile.ptr<f32>, #blocked> -> tensor<16x32x!tile.ptr<f32>, #blocked> {
    ^bb0(%l: !tile.ptr<f32>, %r: !tile.ptr<f32>):
      tile.scan.return %l : !tile.ptr<f32>
    }
    tile.return
  }
}

// -----

// expected-error @below {{module has no tilegpu.num-warps attribute: run convert-tile-to-tilegpu first}}
module {
  tile.func public @k() {
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  tile.func public @dot(%a: tensor<16x16xf16, #tilegpu.dot_op<opIdx = 0, parent = #b, kWidth = 1>>, %b: tensor<16x16xf16, #tilegpu.dot_op<opIdx = 1, parent = #b, kWidth = 1>>, %c: tensor<16x16xf32, #b>) {
    // expected-error @below {{tl.dot reached the LLVM lowering neither as a wgmma product, nor in mma.sync layouts, nor with its operands in the FMA layouts of its accumulator: run tilegpu-accelerate-matmul first}}
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #tilegpu.dot_op<opIdx = 0, parent = #b, kWidth = 1>> * tensor<16x16xf16, #tilegpu.dot_op<opIdx = 1, parent = #b, kWidth = 1>> -> tensor<16x16xf32, #b>
    tile.return
  }
}


// -----

// The wait ties 32-bit elements and pairs of 16-bit ones; bytes it cannot.
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @wait_on_bytes(%x: i8) {
    %t = tile.splat %x : i8 -> tensor<64x64xi8, #w>
    // expected-error @+2 {{cannot wait on a tensor of 'i8' (the wait ties 32-bit and 16-bit elements)}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.warp_group_dot_wait'}}
    %r = tilegpu.warp_group_dot_wait %t {pendings = 0 : i32} : tensor<64x64xi8, #w>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 32>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @async_copy_other_not_zero(%p: !tile.ptr<f32>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<32x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<32x1xi32, #blocked> -> tensor<32x16xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x16xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x16xi32, #blocked> -> tensor<32x16xi32, #blocked>
    %stride = arith.constant dense<16> : tensor<32x16xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<32x16xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<32x16xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x16x!tile.ptr<f32>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<32x16x!tile.ptr<f32>, #blocked>, tensor<32x16xi32, #blocked>
    %mask = arith.constant dense<true> : tensor<32x16xi1, #blocked>
    %one = arith.constant dense<1.0> : tensor<32x16xf32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x16xf32, #nvmma, mutable>
    // expected-error @+2 {{cp.async fills masked-off elements with zeros: `other` must be absent or a zero constant}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.async_copy_global_to_local'}}
    %t = tilegpu.async_copy_global_to_local %ptrs, %m mask %mask : tensor<32x16xi1, #blocked> other %one : tensor<32x16xf32, #blocked> : tensor<32x16x!tile.ptr<f32>, #blocked> -> !tilegpu.memdesc<32x16xf32, #nvmma, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @async_copy_narrower_than_4_bytes(%p: !tile.ptr<f16>) {
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<64x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x64xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %stride = arith.constant dense<64> : tensor<64x64xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<64x64xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<64x64xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    // expected-error @+2 {{cp.async needs 4-byte aligned contiguous elements; this copy moves 2 byte(s) of 'f16' at once (the thread holds 8 consecutive element(s) that stay together in the destination, the pointers are contiguous and aligned for 1)}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.async_copy_global_to_local'}}
    %t = tilegpu.async_copy_global_to_local %ptrs, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    tile.return
  }
}

// -----

// mma.sync needs sm_80.
#mma = #tilegpu.wgmma<warpsPerCTA = [1, 1], instrShape = [16, 8, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.target" = "cuda:75"} {
  tile.func public @mma_sync_sm75(%a: tensor<16x16xf16, #opA>, %b: tensor<16x8xf16, #opB>, %c: tensor<16x8xf32, #mma>) {
    // expected-error @below {{mma.sync is not available on target cuda:75}}
    // expected-error @below {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #opA> * tensor<16x8xf16, #opB> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// Turns need the region to be exactly their warpgroups.
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @warp_group_turns_on_too_few_warps() {
    tilegpu.warp_specialize()
    default() {
      // expected-error @+2 {{takes turns among 2 warpgroups, but runs on 4 warps}}
      // expected-error @+1 {{failed to legalize operation 'tilegpu.warp_group_turn_wait'}}
      tilegpu.warp_group_turn_wait 3, 2
      tilegpu.warp_yield
    }
    partition0() num_warps(4) {
      tilegpu.warp_return
    }
    tile.return
  }
}
