// RUN: warpforge-opt %s --split-input-file --tilegpu-to-llvm | FileCheck %s

// tile.dot on the CUDA cores: one thread holds the whole 2x2 accumulator
// (and all of A and B in their FMA layouts); each element is a chain of
// K = 2 llvm.fma in K's order.
#acc = #tilegpu.blocked<sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#fa = #tilegpu.blocked<sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#fb = #tilegpu.blocked<sizePerThread = [2, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @fma_f64(
  // CHECK: %[[A0:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f64, f64, f64, f64)>
  // CHECK: %[[A1:.*]] = llvm.extractvalue %{{.*}}[1]
  // CHECK: %[[B0:.*]] = llvm.extractvalue %{{.*}}[0]
  // CHECK: %[[B2:.*]] = llvm.extractvalue %{{.*}}[2]
  // CHECK: %[[C0:.*]] = llvm.extractvalue %{{.*}}[0]
  // CHECK: %[[S:.*]] = llvm.intr.fma(%[[A0]], %[[B0]], %[[C0]]) : (f64, f64, f64) -> f64
  // CHECK-NEXT: %{{.*}} = llvm.intr.fma(%[[A1]], %[[B2]], %[[S]]) : (f64, f64, f64) -> f64
  // CHECK-COUNT-6: llvm.intr.fma
  // CHECK-NOT: llvm.intr.fma
  tile.func public @fma_f64(%a: tensor<2x2xf64, #fa>, %b: tensor<2x2xf64, #fb>, %c: tensor<2x2xf64, #acc>, %p: !tile.ptr<f64>) {
    %d = tile.dot %a, %b, %c : tensor<2x2xf64, #fa> * tensor<2x2xf64, #fb> -> tensor<2x2xf64, #acc>
    %pp = tile.splat %p : !tile.ptr<f64> -> tensor<2x2x!tile.ptr<f64>, #acc>
    tile.store %pp, %d : tensor<2x2x!tile.ptr<f64>, #acc>
    tile.return
  }
}

// -----

// int8 operands are sign-extended and multiplied and added in i32, in K's
// order.
#acc = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#fa = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#fb = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @fma_i8(
  // CHECK: %[[C:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i32)>
  // CHECK-NEXT: %[[A0:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[B0:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[M0:.*]] = llvm.mul %[[A0]], %[[B0]] : i32
  // CHECK-NEXT: %[[S0:.*]] = llvm.add %[[M0]], %[[C]] : i32
  // CHECK-NEXT: %[[A1:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[B1:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[M1:.*]] = llvm.mul %[[A1]], %[[B1]] : i32
  // CHECK-NEXT: %[[S1:.*]] = llvm.add %[[M1]], %[[S0]] : i32
  // CHECK-NEXT: %[[A2:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[B2:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[M2:.*]] = llvm.mul %[[A2]], %[[B2]] : i32
  // CHECK-NEXT: %[[S2:.*]] = llvm.add %[[M2]], %[[S1]] : i32
  // CHECK-NEXT: %[[A3:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[B3:.*]] = llvm.sext %{{.*}} : i8 to i32
  // CHECK-NEXT: %[[M3:.*]] = llvm.mul %[[A3]], %[[B3]] : i32
  // CHECK-NEXT: %[[S3:.*]] = llvm.add %[[M3]], %[[S2]] : i32
  // CHECK-NOT: llvm.sext
  tile.func public @fma_i8(%a: tensor<1x4xi8, #fa>, %b: tensor<4x1xi8, #fb>, %c: tensor<1x1xi32, #acc>, %p: !tile.ptr<i32>) {
    %d = tile.dot %a, %b, %c : tensor<1x4xi8, #fa> * tensor<4x1xi8, #fb> -> tensor<1x1xi32, #acc>
    %pp = tile.splat %p : !tile.ptr<i32> -> tensor<1x1x!tile.ptr<i32>, #acc>
    tile.store %pp, %d : tensor<1x1x!tile.ptr<i32>, #acc>
    tile.return
  }
}

// -----

// A 16-bit accumulator sums in f32, rounded once after the last product:
// the operands and the accumulator are extended, the chain runs in f32.
#acc = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#fa = #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
#fb = #tilegpu.blocked<sizePerThread = [2, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32, "tilegpu.threads-per-warp" = 32 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @fma_f16_sums_in_f32(
  // CHECK: %[[C:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f16)>
  // CHECK-NEXT: %[[CW:.*]] = llvm.fpext %[[C]] : f16 to f32
  // CHECK-NEXT: %[[A0:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // CHECK-NEXT: %[[B0:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // CHECK-NEXT: %[[S0:.*]] = llvm.intr.fma(%[[A0]], %[[B0]], %[[CW]]) : (f32, f32, f32) -> f32
  // CHECK-NEXT: %[[A1:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // CHECK-NEXT: %[[B1:.*]] = llvm.fpext %{{.*}} : f16 to f32
  // CHECK-NEXT: %[[S1:.*]] = llvm.intr.fma(%[[A1]], %[[B1]], %[[S0]]) : (f32, f32, f32) -> f32
  // CHECK-NEXT: llvm.fptrunc %[[S1]] : f32 to f16
  // CHECK-NOT: llvm.intr.fma
  tile.func public @fma_f16_sums_in_f32(%a: tensor<1x2xf16, #fa>, %b: tensor<2x1xf16, #fb>, %c: tensor<1x1xf16, #acc>, %p: !tile.ptr<f16>) {
    %d = tile.dot %a, %b, %c : tensor<1x2xf16, #fa> * tensor<2x1xf16, #fb> -> tensor<1x1xf16, #acc>
    %pp = tile.splat %p : !tile.ptr<f16> -> tensor<1x1x!tile.ptr<f16>, #acc>
    tile.store %pp, %d : tensor<1x1x!tile.ptr<f16>, #acc>
    tile.return
  }
}
