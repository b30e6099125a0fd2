// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// The element type a descriptor made on the device writes into its tensor
// map (`tensormap.replace.tile.elemtype`, TMAOpToLLVM.cpp).  The value is
// PTX's numbering of element types (PTX ISA, "Tensormap new_val
// validity"): .u8 0, .u16 1, .u32 2, .s32 3, .u64 4, .s64 5, .f16 6, .f32 7,
// .f32.ftz 8, .f64 9, .bf16 10, ... , which is not CUtensorMapDataType's
// (the driver's: FLOAT64 8, BFLOAT16 9, FLOAT32_FTZ 10).  Regression: bf16
// maps were written as 9 (.f64, 8-byte elements) and f64 maps as 8
// (.f32.ftz, 4-byte elements).  Integers and fp8 move as bits: 8- and
// 16-bit ones as unsigned, 32- and 64-bit ones as signed.

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_f16_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 6;
  tile.func public @make_f16_descriptor(%base: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<128xf16>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_bf16_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 10;
  tile.func public @make_bf16_descriptor(%base: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<bf16>, !tile.tensordesc<tensor<128xbf16>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_f32_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 7;
  tile.func public @make_f32_descriptor(%base: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f32>, !tile.tensordesc<tensor<128xf32>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_f64_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 9;
  tile.func public @make_f64_descriptor(%base: !tile.ptr<f64> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f64>, !tile.tensordesc<tensor<128xf64>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_f8e4m3fn_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 0;
  tile.func public @make_f8e4m3fn_descriptor(%base: !tile.ptr<f8E4M3FN> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f8E4M3FN>, !tile.tensordesc<tensor<128xf8E4M3FN>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_f8e5m2_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 0;
  tile.func public @make_f8e5m2_descriptor(%base: !tile.ptr<f8E5M2> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<f8E5M2>, !tile.tensordesc<tensor<128xf8E5M2>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_i8_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 0;
  tile.func public @make_i8_descriptor(%base: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<i8>, !tile.tensordesc<tensor<128xi8>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_i16_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 1;
  tile.func public @make_i16_descriptor(%base: !tile.ptr<i16> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<i16>, !tile.tensordesc<tensor<128xi16>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_i32_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 3;
  tile.func public @make_i32_descriptor(%base: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<i32>, !tile.tensordesc<tensor<128xi32>>
    tile.return
  }
}

// -----

module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  // CHECK-LABEL: llvm.func @make_i64_descriptor(
  // CHECK: tensormap.replace.tile.elemtype.global.b1024.b32 [$0 + 0], 5;
  tile.func public @make_i64_descriptor(%base: !tile.ptr<i64> {tile.divisibility = 16 : i32}, %n: i32) {
    %c1 = arith.constant 1 : i64
    %d = tile.make_tensor_descriptor %base, [%n], [%c1] : !tile.ptr<i64>, !tile.tensordesc<tensor<128xi64>>
    tile.return
  }
}
