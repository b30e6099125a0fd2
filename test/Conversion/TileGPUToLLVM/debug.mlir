// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// A thread with any false element calls __assertfail with the message,
// file, line and function, then goes on.
#blocked = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // CHECK-DAG: llvm.mlir.global internal constant @assertMessage_0("index out of range\00")
  // CHECK-DAG: llvm.mlir.global internal constant @assertFile_0("{{.*}}debug.mlir\00")
  // CHECK-DAG: llvm.mlir.global internal constant @assertFunction_0("device_assert\00")
  // CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
  // CHECK-LABEL: llvm.func @device_assert
  // CHECK: %[[F0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i1
  // CHECK: %[[F1:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i1
  // CHECK: %[[ANY:.*]] = llvm.or %[[F0]], %[[F1]] : i1
  // CHECK: llvm.cond_br %[[ANY]], ^[[FAIL:.*]], ^[[AFTER:.*]]
  // CHECK: ^[[FAIL]]:
  // CHECK: %[[LINE:.*]] = llvm.mlir.constant([[# @LINE + 9]] : i32) : i32
  // CHECK: llvm.call @__assertfail(%{{.*}}, %{{.*}}, %[[LINE]], %{{.*}}, %{{.*}})
  // CHECK-NEXT: llvm.br ^[[AFTER]]
  // CHECK: ^[[AFTER]]:
  // CHECK-NEXT: llvm.return
  tile.func public @device_assert(%i: i32) {
    %x = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32, #blocked>
    %n = tile.splat %i : i32 -> tensor<256xi32, #blocked>
    %ok = arith.cmpi slt, %x, %n : tensor<256xi32, #blocked>
    tile.assert %ok, "index out of range" : tensor<256xi1, #blocked>
    tile.return
  }
}

// -----

// One vprintf per element, with the program id and the element's index;
// floats are passed as doubles.
#blocked = #tilegpu.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-DAG: llvm.mlir.global internal constant @printFormat_0("pid (%u, %u, %u) idx (%u, %u) x: %f\0A\00")
  // CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
  // CHECK-LABEL: llvm.func @device_print_tensor
  // CHECK: %[[BUF:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i32, i32, i32, i32, i32, f64)>
  // CHECK: nvvm.read.ptx.sreg.ctaid.x
  // CHECK: %[[D:.*]] = llvm.fpext %{{.*}} : f32 to f64
  // CHECK: llvm.store %[[D]], %{{.*}} : f64, !llvm.ptr
  // CHECK: llvm.call @vprintf(%{{.*}}, %[[BUF]])
  tile.func public @device_print_tensor(%f: f32) {
    %x = tile.splat %f : f32 -> tensor<4x8xf32, #blocked>
    tile.print " x: " {hex = false, isSigned = array<i32: 0>} : %x : tensor<4x8xf32, #blocked>
    tile.return
  }
}

// -----

// Scalars print on one line; 100% stays a literal percent sign.
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-DAG: llvm.mlir.global internal constant @printFormat_0("pid (%u, %u, %u)  100%% done: %d, %lld\0A\00")
  // CHECK-LABEL: llvm.func @device_print_scalars
  // CHECK: llvm.sext %{{.*}} : i16 to i32
  // CHECK: llvm.call @vprintf
  tile.func public @device_print_scalars(%a: i16, %b: i64) {
    tile.print " 100% done: " {hex = false, isSigned = array<i32: 1, 1>} : %a, %b : i16, i64
    tile.return
  }
}
