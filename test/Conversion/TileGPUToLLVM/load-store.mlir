// RUN: warpforge-opt %s --split-input-file --convert-tilegpu-to-llvm | FileCheck %s

// Masked loads and stores are predicated PTX; masked-off elements of a load
// take `other`.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @masked
  // CHECK: llvm.inline_asm has_side_effects "mov.b32 $0, $3;\0A\09@$2 ld.global.cg.b32 $0, [ $1 + 0 ];", "=r,l,b,r"
  // CHECK: llvm.inline_asm has_side_effects "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b"
  tile.func public @masked(%p: !tile.ptr<f32>, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #b>
    %ns = tile.splat %n : i32 -> tensor<128xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<128xi32, #b>
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b>
    %pp = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #b>, tensor<128xi32, #b>
    %o = arith.constant dense<1.0> : tensor<128xf32, #b>
    %v = tile.load %pp, %m, %o cacheModifier = cg : tensor<128x!tile.ptr<f32>, #b>
    tile.store %pp, %v, %m : tensor<128x!tile.ptr<f32>, #b>
    tile.return
  }
}

// -----

// Elements 0..127 and 128..255 of one thread are t and t + 128; with n a
// multiple of 256 the mask r < n is constant over aligned runs of 256, so
// both accesses take the first element's predicate.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @mask_shared_by_constancy
  // CHECK: "mov.b32 $0, $3;\0A\09@$2 ld.global.b32 $0, [ $1 + 0 ];", "=r,l,b,r" %{{[^,]*}}, %[[P:[^,]*]],
  // CHECK: "mov.b32 $0, $3;\0A\09@$2 ld.global.b32 $0, [ $1 + 0 ];", "=r,l,b,r" %{{[^,]*}}, %[[P]],
  // CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{[^,]*}}, %{{[^,]*}}, %[[Q:[^ ]*]] :
  // CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{[^,]*}}, %{{[^,]*}}, %[[Q]] :
  tile.func public @mask_shared_by_constancy(%p: !tile.ptr<f32>, %n: i32 {tile.divisibility = 256 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #b>
    %ns = tile.splat %n : i32 -> tensor<256xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #b>
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
    %pp = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
    %o = arith.constant dense<1.0> : tensor<256xf32, #b>
    %v = tile.load %pp, %m, %o : tensor<256x!tile.ptr<f32>, #b>
    tile.store %pp, %v, %m : tensor<256x!tile.ptr<f32>, #b>
    tile.return
  }
}

// -----

// A layout larger than its tensor holds each element in several threads:
// only the first holder stores it.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-LABEL: llvm.func @wrapped
  // CHECK: %[[OWNER:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
  // CHECK: "@$2 st.global.b32 [ $0 + 0 ], $1;", "l,r,b" %{{.*}}, %{{.*}}, %[[OWNER]]
  tile.func public @wrapped(%p: !tile.ptr<i32>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #b>
    %pp = tile.addptr %ps, %r : tensor<32x!tile.ptr<i32>, #b>, tensor<32xi32, #b>
    tile.store %pp, %r : tensor<32x!tile.ptr<i32>, #b>
    tile.return
  }
}

// -----

// Booleans are bytes in memory.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @bools
  // CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
  // CHECK: ld.global.b8 $0
  // CHECK: llvm.icmp "ne"
  tile.func public @bools(%p: !tile.ptr<i1>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i1> -> tensor<32x!tile.ptr<i1>, #b>
    %pp = tile.addptr %ps, %r : tensor<32x!tile.ptr<i1>, #b>, tensor<32xi32, #b>
    %v = tile.load %pp : tensor<32x!tile.ptr<i1>, #b>
    tile.store %pp, %v : tensor<32x!tile.ptr<i1>, #b>
    tile.return
  }
}
