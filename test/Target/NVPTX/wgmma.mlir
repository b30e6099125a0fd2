// REQUIRES: ptxas
// RUN: warpforge-opt %s --tilegpu-to-llvm --emit=ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// warp_group_dot kernels all the way to PTX, and NVIDIA's assembler
// accepts the wgmma instructions, descriptors and tied accumulators.

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#f8 = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
#f8t = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
#w8 = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 64, 32]>
#wrs = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 64, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #wrs, kWidth = 2>
module attributes {"tilegpu.num-warps" = 8 : i32} {
  // CHECK: .target sm_90a
  // CHECK-LABEL: .visible .entry ss_f16(
  // CHECK: .reqntid 256, 1, 1
  // CHECK: wgmma.fence.sync.aligned;
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
  // CHECK: wgmma.commit_group.sync.aligned;
  // CHECK: wgmma.wait_group.sync.aligned 0;
  tile.func public @ss_f16(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #a, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #a, mutable>
    %c = tile.splat %f : f32 -> tensor<128x128xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf16, #a, mutable> * !tilegpu.memdesc<64x128xf16, #a, mutable> -> tensor<128x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
    tile.return
  }

  // CHECK-LABEL: .visible .entry fp8_f16_acc(
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e5m2
  // CHECK: wgmma.wait_group.sync.aligned 1;
  tile.func public @fp8_f16_acc(%f: f16) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf8E4M3FN, #f8, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf8E5M2, #f8t, mutable>
    %c = tile.splat %f : f16 -> tensor<128x64xf16, #w8>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf8E4M3FN, #f8, mutable> * !tilegpu.memdesc<64x64xf8E5M2, #f8t, mutable> -> tensor<128x64xf16, #w8>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 1 : i32} : tensor<128x64xf16, #w8>
    tile.return
  }

  // CHECK-LABEL: .visible .entry rs_f16(
  // CHECK-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
  tile.func public @rs_f16(%f: f32, %h: f16) {
    %a = tile.splat %h : f16 -> tensor<128x32xf16, #opA>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #a, mutable>
    %c = tile.splat %f : f32 -> tensor<128x64xf32, #wrs>
    %d = tilegpu.warp_group_dot %a, %b, %c : tensor<128x32xf16, #opA> * !tilegpu.memdesc<32x64xf16, #a, mutable> -> tensor<128x64xf32, #wrs>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x64xf32, #wrs>
    tile.return
  }
}
