// RUN: warpforge-opt %s --split-input-file --convert-tilegpu-to-llvm | FileCheck %s

// Element-wise arith on a tensor is the scalar op per element; math calls
// libdevice.
#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK: llvm.func @__nv_expf(f32) -> f32
  // CHECK-LABEL: llvm.func @math
  // CHECK-COUNT-2: llvm.fadd {{.*}} : f32
  // CHECK-COUNT-2: llvm.call @__nv_expf
  // CHECK-COUNT-2: llvm.select
  tile.func public @math(%x: f32) {
    %s = tile.splat %x : f32 -> tensor<64xf32, #b>
    %a = arith.addf %s, %s : tensor<64xf32, #b>
    %e = math.exp %a : tensor<64xf32, #b>
    %c = arith.cmpf olt, %a, %e : tensor<64xf32, #b>
    %m = arith.select %c, %a, %e : tensor<64xi1, #b>, tensor<64xf32, #b>
    tile.return
  }
}

// -----

// fp8 conversions use the hardware's paired cvt instructions.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @fp8
  // CHECK: cvt.rn.satfinite.e4m3x2.f32
  // CHECK: cvt.rn.f16x2.e5m2x2
  tile.func public @fp8(%x: f32, %y: f8E5M2) {
    %s = tile.splat %x : f32 -> tensor<32xf32, #b>
    %q = tile.fp_to_fp %s, rounding = rtne : tensor<32xf32, #b> -> tensor<32xf8E4M3FN, #b>
    %t = tile.splat %y : f8E5M2 -> tensor<32xf8E5M2, #b>
    %h = tile.fp_to_fp %t : tensor<32xf8E5M2, #b> -> tensor<32xf16, #b>
    tile.return
  }
}

// -----

// f32 -> f16 and f32 -> bf16 truncations of a tensor convert two elements
// per cvt (ptxas keeps the wgmma pipeline only with these readers of an
// accumulator); the element order is checked by the CTA simulation in
// python/test/test_layout_simulation.py.
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @trunc_pairs
  // CHECK-COUNT-2: llvm.inline_asm "cvt.rn.f16x2.f32 $0, $1, $2;", "=r,f,f" {{.*}} : (f32, f32) -> i32
  // CHECK-NOT: cvt.rn.f16x2
  // CHECK-COUNT-2: llvm.inline_asm "cvt.rn.bf16x2.f32 $0, $1, $2;", "=r,f,f" {{.*}} : (f32, f32) -> i32
  // CHECK-NOT: llvm.fptrunc
  // CHECK: llvm.return
  tile.func public @trunc_pairs(%x: f32) {
    %s = tile.splat %x : f32 -> tensor<128xf32, #b>
    %h = arith.truncf %s : tensor<128xf32, #b> to tensor<128xf16, #b>
    %g = arith.truncf %s : tensor<128xf32, #b> to tensor<128xbf16, #b>
    tile.return
  }
}

// -----

// A truncation with another rounding mode, or of an odd number of elements
// per thread, stays one fptrunc per element.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @trunc_single
  // CHECK: llvm.fptrunc {{.*}} : f32 to f16
  // CHECK-NOT: cvt.rn.f16x2
  tile.func public @trunc_single(%x: f32) {
    %s = tile.splat %x : f32 -> tensor<32xf32, #b>
    %h = arith.truncf %s : tensor<32xf32, #b> to tensor<32xf16, #b>
    tile.return
  }
}

// -----

// fp32 division with `afn` (Triton's `/`) is div.full.f32, per element;
// without the flag (tl.math.div_rn) and in fp64 it is LLVM's fdiv, IEEE's
// division (div.rn).
#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @division
  // CHECK-COUNT-2: llvm.inline_asm "div.full.f32 $0, $1, $2;", "=f,f,f" %{{.*}}, %{{.*}} : (f32, f32) -> f32
  // CHECK-NOT: div.full
  // CHECK-COUNT-2: llvm.fdiv %{{.*}}, %{{.*}} : f32
  // CHECK: llvm.fdiv %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<afn>} : f64
  // CHECK-NOT: div.full
  // CHECK: llvm.return
  tile.func public @division(%x: f32, %y: f64) {
    %s = tile.splat %x : f32 -> tensor<64xf32, #b>
    %full = arith.divf %s, %s fastmath<afn> : tensor<64xf32, #b>
    %rn = arith.divf %s, %s : tensor<64xf32, #b>
    %d = arith.divf %y, %y fastmath<afn> : f64
    tile.return
  }
}
