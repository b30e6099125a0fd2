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

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @load_nvmma(%f: f16) {
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    // expected-error @+2 {{element access to shared memory in layout #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16> is not supported yet (only #tilegpu.shared is)}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.local_load'}}
    %x = tilegpu.local_load %m : !tilegpu.memdesc<64x64xf16, #nvmma, mutable> -> tensor<64x64xf16, #blocked>
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
    // expected-error @below {{tl.dot is not supported by the GPU backend yet}}
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
