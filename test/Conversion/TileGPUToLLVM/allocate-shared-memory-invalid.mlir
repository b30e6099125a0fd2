// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --tilegpu-allocate-shared-memory="max-shared-bytes=16384"

// A 64x64 f32 transpose needs 16636 bytes of scratch; no pipelined buffers,
// so fewer stages would not help, and the message says so.
#row = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#col = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
// expected-error @+1 {{kernel 'too_much' needs 16636 bytes of shared memory, but the limit is 16384 bytes; use smaller blocks (no software pipeline is involved: fewer stages would not help)}}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @too_much(%f: f32) {
    %y = tile.splat %f : f32 -> tensor<64x64xf32, #row>
    %z = tilegpu.convert_layout %y : tensor<64x64xf32, #row> -> tensor<64x64xf32, #col>
    tile.return
  }
}

// -----

// Three buffers of 64x64 f16 (the software pipeline's ring): 24576 bytes.
#shared = #tilegpu.shared<order = [1, 0]>
// expected-error @+1 {{kernel 'ring' needs 24576 bytes of shared memory, but the limit is 16384 bytes; use smaller blocks or fewer stages (the software pipeline's buffers take 24576 bytes)}}
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @ring() {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #shared, mutable, buffers = 3>
    tile.return
  }
}
