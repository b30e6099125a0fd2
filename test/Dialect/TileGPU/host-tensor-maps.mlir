// RUN: warpforge-opt %s --split-input-file --tilegpu-host-tensor-maps | FileCheck %s

// A map the compiler made in a producer partition, of a kernel argument's
// base and an i32 row-stride argument (sign-extended): it becomes kernel
// argument 3, captured by the warp_specialize op, and the module records
// where the launcher finds its base (0) and stride (1).

// CHECK-LABEL: module attributes {"tilegpu.host-tensor-maps" = [{base = 0 : i64, block = array<i64: 128, 64>, param = 3 : i64, shape = array<i64: 2147483647, 2147483647>, shape_args = array<i64: -1, -1>, stride_args = array<i64: 1, -1>, strides = array<i64: 0, 1>}]
// CHECK: tile.func public @producer_map(%[[A:.*]]: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %[[LDA:.*]]: i32, %[[N:.*]]: i32, %[[MAP:.*]]: !tile.tensordesc<tensor<128x64xf16>>)
// CHECK: tilegpu.warp_specialize(%[[A]], %[[LDA]], %[[N]], %[[MAP]])
// CHECK-NEXT: default(%{{.*}}: !tile.ptr<f16>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: !tile.tensordesc<tensor<128x64xf16>>)
// CHECK: partition0(%{{.*}}: !tile.ptr<f16>, %{{.*}}: i32, %[[PN:.*]]: i32, %[[PMAP:.*]]: !tile.tensordesc<tensor<128x64xf16>>) num_warps(4)
// CHECK-NOT: tile.make_tensor_descriptor
// CHECK: tile.descriptor_load %[[PMAP]][%[[PN]], %[[PN]]]
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @producer_map(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %lda: i32, %n: i32) {
    tilegpu.warp_specialize(%a, %lda, %n)
    default(%a0: !tile.ptr<f16>, %lda0: i32, %n0: i32) {
      tilegpu.warp_yield
    }
    partition0(%a1: !tile.ptr<f16>, %lda1: i32, %n1: i32) num_warps(4) {
      %max = arith.constant 2147483647 : i32
      %c1 = arith.constant 1 : i64
      %s = arith.extsi %lda1 : i32 to i64
      %m = tile.make_tensor_descriptor %a1, [%max, %max], [%s, %c1] {"tilegpu.synthesized-map"} : !tile.ptr<f16>, !tile.tensordesc<tensor<128x64xf16>>
      %x = tile.descriptor_load %m[%n1, %n1] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
      tilegpu.warp_return
    }
    tile.return
  }
}

// -----

// Outside any warp_specialize, with a constant row stride: the argument
// is the kernel's own, and the stride a constant (stride_args -1).

// CHECK-LABEL: module attributes {"tilegpu.host-tensor-maps" = [{base = 0 : i64, block = array<i64: 64, 64>, param = 2 : i64, shape = array<i64: 2147483647, 2147483647>, shape_args = array<i64: -1, -1>, stride_args = array<i64: -1, -1>, strides = array<i64: 4096, 1>}]
// CHECK: tile.func public @kernel_scope(%{{.*}}: !tile.ptr<f32>, %[[N:.*]]: i32, %[[MAP:.*]]: !tile.tensordesc<tensor<64x64xf32>>)
// CHECK-NOT: tile.make_tensor_descriptor
// CHECK: tile.descriptor_load %[[MAP]][%[[N]], %[[N]]]
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @kernel_scope(%a: !tile.ptr<f32>, %n: i32) {
    %max = arith.constant 2147483647 : i32
    %c1 = arith.constant 1 : i64
    %s = arith.constant 4096 : i64
    %m = tile.make_tensor_descriptor %a, [%max, %max], [%s, %c1] {"tilegpu.synthesized-map"} : !tile.ptr<f32>, !tile.tensordesc<tensor<64x64xf32>>
    %x = tile.descriptor_load %m[%n, %n] : !tile.tensordesc<tensor<64x64xf32>> -> tensor<64x64xf32>
    tile.return
  }
}

// -----

// A base the kernel computes differs between programs: the map stays on
// the device, and nothing is recorded.

// CHECK-LABEL: module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32}
// CHECK: tile.func public @computed_base(%{{.*}}: !tile.ptr<f16>, %{{.*}}: i32)
// CHECK: tile.make_tensor_descriptor
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @computed_base(%a: !tile.ptr<f16>, %n: i32) {
    %pid = tile.get_program_id x : i32
    %b = tile.addptr %a, %pid : !tile.ptr<f16>, i32
    %max = arith.constant 2147483647 : i32
    %c1 = arith.constant 1 : i64
    %s = arith.constant 4096 : i64
    %m = tile.make_tensor_descriptor %b, [%max, %max], [%s, %c1] {"tilegpu.synthesized-map"} : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
    %x = tile.descriptor_load %m[%n, %n] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    tile.return
  }
}

// -----

// A stride the kernel computes: the same.

// CHECK-LABEL: tile.func public @computed_stride
// CHECK: tile.make_tensor_descriptor
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @computed_stride(%a: !tile.ptr<f16>, %n: i32) {
    %pid = tile.get_program_id x : i32
    %s32 = arith.muli %pid, %n : i32
    %s = arith.extsi %s32 : i32 to i64
    %max = arith.constant 2147483647 : i32
    %c1 = arith.constant 1 : i64
    %m = tile.make_tensor_descriptor %a, [%max, %max], [%s, %c1] {"tilegpu.synthesized-map"} : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
    %x = tile.descriptor_load %m[%n, %n] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    tile.return
  }
}

// -----

// A descriptor the source makes (tl.make_tensor_descriptor) keeps Triton's
// semantics, made where the kernel makes it, even of kernel arguments.

// CHECK-LABEL: tile.func public @source_descriptor
// CHECK-SAME: (%{{.*}}: !tile.ptr<f16>, %{{.*}}: i32, %{{.*}}: i64)
// CHECK: tile.make_tensor_descriptor
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @source_descriptor(%a: !tile.ptr<f16>, %n: i32, %s: i64) {
    %c1 = arith.constant 1 : i64
    %m = tile.make_tensor_descriptor %a, [%n, %n], [%s, %c1] : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
    %x = tile.descriptor_load %m[%n, %n] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    tile.return
  }
}
