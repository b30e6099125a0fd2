// RUN: warpforge-opt %s --split-input-file --tilegpu-accelerate-matmul | FileCheck %s

// One warpgroup, 128x128x64 f16: A (K fastest in registers) is stored
// K-major and B (N fastest) MN-major, both with the 128-byte swizzle; the
// product is m64n128k16 repeated twice along M, waited for, and converted
// back to the dot's layout.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[NV:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
  // CHECK-LABEL: tile.func public @ss_form
  // CHECK: %[[A:.*]] = tilegpu.local_alloc %arg0 : (tensor<128x64xf16, #{{.*}}>) -> !tilegpu.memdesc<128x64xf16, #[[NV]]>
  // CHECK: %[[B:.*]] = tilegpu.local_alloc %arg1 : (tensor<64x128xf16, #{{.*}}>) -> !tilegpu.memdesc<64x128xf16, #[[NV]]>
  // CHECK: %[[C:.*]] = tilegpu.convert_layout %arg2 : {{.*}} -> tensor<128x128xf32, #[[WG]]>
  // CHECK: %[[D:.*]] = tilegpu.warp_group_dot %[[A]], %[[B]], %[[C]]
  // CHECK: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]] {pendings = 0 : i32}
  // CHECK: tilegpu.convert_layout %[[W]] : tensor<128x128xf32, #[[WG]]> -> tensor<128x128xf32, #{{.*}}>
  tile.func public @ss_form(%a: tensor<128x64xf16, #bl>, %b: tensor<64x128xf16, #bl>, %c: tensor<128x128xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #bl> -> tensor<128x64xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<64x128xf16, #bl> -> tensor<64x128xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<128x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<128x128xf32, #bl>
    tile.return
  }
}

// -----

// Eight warps on 128 rows: two warpgroups along M, each m64n256.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 8 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
  // CHECK-LABEL: tile.func public @warpgroups_along_m
  // CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<128x256xf32, #[[WG]]>
  tile.func public @warpgroups_along_m(%a: tensor<128x64xf16, #bl>, %b: tensor<64x256xf16, #bl>, %c: tensor<128x256xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #bl> -> tensor<128x64xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<64x256xf16, #bl> -> tensor<64x256xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<128x64xf16, #opA> * tensor<64x256xf16, #opB> -> tensor<128x256xf32, #bl>
    tile.return
  }
}

// -----

// Eight warps on 64 rows: the second warpgroup takes the other half of N.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 8 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 2], instrShape = [64, 64, 16]>
  // CHECK-LABEL: tile.func public @warpgroups_along_n
  // CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<64x128xf32, #[[WG]]>
  tile.func public @warpgroups_along_n(%a: tensor<64x32xf16, #bl>, %b: tensor<32x128xf16, #bl>, %c: tensor<64x128xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x128xf16, #bl> -> tensor<32x128xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x128xf16, #opB> -> tensor<64x128xf32, #bl>
    tile.return
  }
}

// -----

// B held with K fastest (loaded from a K-major matrix) is stored K-major:
// transposed, its first dimension contiguous; 32 K elements of f16 fill a
// 64-byte swizzle row.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blT = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[NVT:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>
  // CHECK-LABEL: tile.func public @k_major_b
  // CHECK: tilegpu.local_alloc %arg1 : (tensor<32x64xf16, #{{.*}}>) -> !tilegpu.memdesc<32x64xf16, #[[NVT]]>
  tile.func public @k_major_b(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #blT>, %c: tensor<64x64xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #blT> -> tensor<32x64xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

// fp8 operands: k32 instructions, and B K-major whatever its registers.
#bl = #tilegpu.blocked<sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[NVK:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>
  // CHECK-DAG: #[[NVT:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8>
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 32]>
  // CHECK-LABEL: tile.func public @fp8_k_major
  // CHECK: !tilegpu.memdesc<128x128xf8E4M3FN, #[[NVK]]>
  // CHECK: !tilegpu.memdesc<128x128xf8E5M2, #[[NVT]]>
  // CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<128x128xf32, #[[WG]]>
  tile.func public @fp8_k_major(%a: tensor<128x128xf8E4M3FN, #bl>, %b: tensor<128x128xf8E5M2, #bl>, %c: tensor<128x128xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<128x128xf8E4M3FN, #bl> -> tensor<128x128xf8E4M3FN, #opA>
    %cb = tilegpu.convert_layout %b : tensor<128x128xf8E5M2, #bl> -> tensor<128x128xf8E5M2, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<128x128xf8E4M3FN, #opA> * tensor<128x128xf8E5M2, #opB> -> tensor<128x128xf32, #bl>
    tile.return
  }
}

// -----

// int8: k32 instructions into an i32 accumulator, both operands K-major
// (B, N fastest in registers, is stored transposed).  A warp's 80 columns
// take m64n80k32 (integer N is 8, 16, 24 or a multiple of 16).  The
// blocked layout's 16-column tile holds the 80 columns in whole tiles (the
// verifier's rule for a dimension that is not a power of two).
#bl = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[NVK:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 8>
  // CHECK-DAG: #[[NVB:.*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 8>
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 80, 32]>
  // CHECK-LABEL: tile.func public @int8
  // CHECK: !tilegpu.memdesc<64x128xi8, #[[NVK]]>
  // CHECK: !tilegpu.memdesc<128x80xi8, #[[NVB]]>
  // CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<64x80xi32, #[[WG]]>
  tile.func public @int8(%a: tensor<64x128xi8, #bl>, %b: tensor<128x80xi8, #bl>, %c: tensor<64x80xi32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<64x128xi8, #bl> -> tensor<64x128xi8, #opA>
    %cb = tilegpu.convert_layout %b : tensor<128x80xi8, #bl> -> tensor<128x80xi8, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x128xi8, #opA> * tensor<128x80xi8, #opB> -> tensor<64x80xi32, #bl>
    tile.return
  }
}

// -----

// f32 operands with tf32 precision: k8 instructions.
#bl = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-DAG: #[[WG:.*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 8]>
  // CHECK-LABEL: tile.func public @tf32
  // CHECK: tilegpu.warp_group_dot {{.*}} inputPrecision = tf32 {{.*}} -> tensor<64x64xf32, #[[WG]]>
  tile.func public @tf32(%a: tensor<64x32xf32, #bl>, %b: tensor<32x64xf32, #bl>, %c: tensor<64x64xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf32, #bl> -> tensor<64x32xf32, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf32, #bl> -> tensor<32x64xf32, #opB>
    %d = tile.dot %ca, %cb, %c inputPrecision = tf32 : tensor<64x32xf32, #opA> * tensor<32x64xf32, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

// A loop's accumulator stays in the wgmma layout: the loop carries it,
// the init is converted before the loop and the result after it.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @loop_carried_accumulator
  // CHECK: %[[INIT:.*]] = tilegpu.convert_layout %arg2 : {{.*}} -> tensor<64x64xf32, #[[WG:[a-z0-9_]+]]>
  // CHECK: %[[LOOP:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (tensor<64x64xf32, #[[WG]]>)
  // CHECK-NOT: tilegpu.convert_layout
  // CHECK: %[[D:.*]] = tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %[[ACC]]
  // CHECK: %[[W:.*]] = tilegpu.warp_group_dot_wait %[[D]]
  // CHECK-NEXT: scf.yield %[[W]]
  // CHECK: tilegpu.convert_layout %[[LOOP]] : tensor<64x64xf32, #[[WG]]>
  tile.func public @loop_carried_accumulator(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #bl>, %c: tensor<64x64xf32, #bl>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #bl>) : i32 {
      %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
      %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
      %d = tile.dot %ca, %cb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
      scf.yield %d : tensor<64x64xf32, #bl>
    }
    tile.return
  }
}

// -----

// A cast of the result happens in the wgmma layout, before the conversion.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @cast_before_conversion
  // CHECK: %[[W:.*]] = tilegpu.warp_group_dot_wait
  // CHECK: %[[T:.*]] = arith.truncf %[[W]] : tensor<64x64xf32, #[[WG:[a-z0-9_]+]]> to tensor<64x64xf16, #[[WG]]>
  // CHECK: tilegpu.convert_layout %[[T]] : tensor<64x64xf16, #[[WG]]>
  tile.func public @cast_before_conversion(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #bl>, %c: tensor<64x64xf32, #bl>) -> tensor<64x64xf16, #bl> {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    %t = arith.truncf %d : tensor<64x64xf32, #bl> to tensor<64x64xf16, #bl>
    tile.return %t : tensor<64x64xf16, #bl>
  }
}

// -----

// An epilogue of splat arithmetic and a cast (a per-tensor scale, a bias
// by a scalar, then bf16) runs in the wgmma layout, each splat made again
// there: the one conversion moves the bf16 tile at the end, not the f32
// accumulator first.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @scaled_epilogue
  // CHECK: %[[W:.*]] = tilegpu.warp_group_dot_wait
  // CHECK-NOT: tilegpu.convert_layout %[[W]]
  // CHECK: %[[S:.*]] = tile.splat %arg3 : f32 -> tensor<64x64xf32, #[[WG:[a-z0-9_]+]]>
  // CHECK: %[[M:.*]] = arith.mulf %[[W]], %[[S]] : tensor<64x64xf32, #[[WG]]>
  // CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<64x64xf32, #[[WG]]>
  // CHECK: %[[B:.*]] = arith.addf %[[M]], %[[ONE]] : tensor<64x64xf32, #[[WG]]>
  // CHECK: %[[T:.*]] = arith.truncf %[[B]] : tensor<64x64xf32, #[[WG]]> to tensor<64x64xbf16, #[[WG]]>
  // CHECK: tilegpu.convert_layout %[[T]] : tensor<64x64xbf16, #[[WG]]> -> tensor<64x64xbf16, #blocked>
  tile.func public @scaled_epilogue(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #bl>, %c: tensor<64x64xf32, #bl>, %scale: f32) -> tensor<64x64xbf16, #bl> {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    %s = tile.splat %scale : f32 -> tensor<64x64xf32, #bl>
    %m = arith.mulf %d, %s : tensor<64x64xf32, #bl>
    %one = arith.constant dense<1.0> : tensor<64x64xf32, #bl>
    %p = arith.addf %m, %one : tensor<64x64xf32, #bl>
    %t = arith.truncf %p : tensor<64x64xf32, #bl> to tensor<64x64xbf16, #bl>
    tile.return %t : tensor<64x64xbf16, #bl>
  }
}

// -----

// An operand that is not a splat (a loaded bias tile) stops the sinking:
// the conversion stays before the add.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @tile_bias
  // CHECK: %[[W:.*]] = tilegpu.warp_group_dot_wait
  // CHECK: %[[C:.*]] = tilegpu.convert_layout %[[W]] : tensor<64x64xf32, #{{[a-z0-9_]+}}> -> tensor<64x64xf32, #blocked>
  // CHECK: arith.addf %[[C]], %arg3 : tensor<64x64xf32, #blocked>
  tile.func public @tile_bias(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #bl>, %c: tensor<64x64xf32, #bl>, %bias: tensor<64x64xf32, #bl>) -> tensor<64x64xf32, #bl> {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    %p = arith.addf %d, %bias : tensor<64x64xf32, #bl>
    tile.return %p : tensor<64x64xf32, #bl>
  }
}

// -----

// A dot fed by a cast of another dot takes A from registers (the RS form).
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @rs_form
  // CHECK: %[[T:.*]] = arith.truncf %{{.*}} : tensor<64x64xf32, #[[WG:[a-z0-9_]+]]> to tensor<64x64xf16, #[[WG]]>
  // CHECK: %[[OP:.*]] = tilegpu.convert_layout %[[T]] : tensor<64x64xf16, #[[WG]]> -> tensor<64x64xf16, #[[OPA:dot_op[0-9]*]]>
  // CHECK: tilegpu.warp_group_dot %[[OP]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #[[OPA]]>
  tile.func public @rs_form(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #bl>, %v: tensor<64x64xf16, #bl>, %c: tensor<64x64xf32, #bl>) -> tensor<64x64xf32, #bl> {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
    %s = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    %p = arith.truncf %s : tensor<64x64xf32, #bl> to tensor<64x64xf16, #bl>
    %cp = tilegpu.convert_layout %p : tensor<64x64xf16, #bl> -> tensor<64x64xf16, #opA>
    %cv = tilegpu.convert_layout %v : tensor<64x64xf16, #bl> -> tensor<64x64xf16, #opB>
    %o = tile.dot %cp, %cv, %c : tensor<64x64xf16, #opA> * tensor<64x64xf16, #opB> -> tensor<64x64xf32, #bl>
    tile.return %o : tensor<64x64xf32, #bl>
  }
}

// -----

// Other targets keep tile.dot.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:80"} {
  // CHECK-LABEL: tile.func public @other_target
  // CHECK: tile.dot
  tile.func public @other_target(%a: tensor<64x32xf16, #bl>, %b: tensor<32x64xf16, #bl>, %c: tensor<64x64xf32, #bl>) {
    %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
    %d = tile.dot %ca, %cb, %c : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
    tile.return
  }
}

// -----

// An operand the loops do not change goes to shared memory once, after it
// is computed, and both loops' products read that one buffer (tutorial
// 06's backward: K and V per loop overflowed shared memory); an operand
// the loop computes stays in the loop.
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.target" = "cuda:90"} {
  // CHECK-LABEL: tile.func public @loop_invariant_operand
  // CHECK: %[[B:.*]] = arith.addf %arg1, %arg1
  // CHECK-NEXT: %[[SB:.*]] = tilegpu.local_alloc %[[B]] : (tensor<32x64xf16, #{{.*}}>) -> !tilegpu.memdesc<32x64xf16
  // CHECK: scf.for
  // CHECK: %[[SA:.*]] = tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.warp_group_dot %[[SA]], %[[SB]]
  // CHECK: scf.for
  // CHECK-NOT: tilegpu.local_alloc %[[B]]
  // CHECK: tilegpu.warp_group_dot %{{.*}}, %[[SB]]
  tile.func public @loop_invariant_operand(%a: tensor<64x32xf16, #bl>, %b0: tensor<32x64xf16, #bl>, %c: tensor<64x64xf32, #bl>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %b = arith.addf %b0, %b0 : tensor<32x64xf16, #bl>
    %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #bl>) : i32 {
      %a2 = arith.addf %a, %a : tensor<64x32xf16, #bl>
      %ca = tilegpu.convert_layout %a2 : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
      %d = tile.dot %ca, %cb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
      scf.yield %d : tensor<64x64xf32, #bl>
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x64xf32, #bl>) : i32 {
      %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
      %d = tile.dot %ca, %cb, %acc : tensor<64x32xf16, #opA> * tensor<32x64xf16, #opB> -> tensor<64x64xf32, #bl>
      scf.yield %d : tensor<64x64xf32, #bl>
    }
    tile.return
  }
}
