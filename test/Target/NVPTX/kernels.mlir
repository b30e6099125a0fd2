// RUN: warpforge-opt --emit=llvm-ir %s | FileCheck %s --implicit-check-not=@twice
// RUN: warpforge-opt --emit=llvm-ir --target-opt-level=0 %s | FileCheck %s --check-prefix=O0
// RUN: warpforge-opt --emit=ptx %s | FileCheck %s --check-prefix=PTX

// Hand-written kernels in the LLVM and NVVM dialects through the NVPTX
// backend (third_party/nvidia/lib/Target): LLVM IR for nvptx64-nvidia-cuda,
// optimized, then PTX for sm_90a.

// CHECK: target datalayout = "e-{{.*}}n16:32:64"
// CHECK: target triple = "nvptx64-nvidia-cuda"

// PTX: .version 9.0
// PTX-NEXT: .target sm_90a
// PTX-NEXT: .address_size 64

// A device function is internalized, inlined into its kernel and dropped
// (the --implicit-check-not); unoptimized, it is only internal.
// O0: define internal float @twice(float
llvm.func @twice(%x: f32) -> f32 {
  %y = llvm.fadd %x, %x : f32
  llvm.return %y : f32
}

// CHECK-LABEL: define ptx_kernel void @scale(
// CHECK-SAME: ptr addrspace(1) {{.*}}%0) {{.*}}#[[SCALE:[0-9]+]]
// CHECK: %[[TID:.*]] = {{.*}}call range(i32 0, 128) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK: %[[X:.*]] = load float, ptr addrspace(1) %[[P:.*]], align 4
// CHECK-NEXT: %[[Y:.*]] = fadd float %[[X]], %[[X]]
// CHECK-NEXT: store float %[[Y]], ptr addrspace(1) %[[P]], align 4
// O0-LABEL: define ptx_kernel void @scale(
// O0: call float @twice(
// PTX-LABEL: .visible .entry scale(
// PTX: .maxntid 128, 1, 1
// PTX: mov.u32 %r{{[0-9]+}}, %tid.x;
// PTX: ld.global.b32 %r[[X:[0-9]+]], [%rd[[P:[0-9]+]]];
// PTX: add.rn.f32 %r[[Y:[0-9]+]], %r[[X]], %r[[X]];
// PTX: st.global.b32 [%rd[[P]]], %r[[Y]];
llvm.func @scale(%p: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %i = llvm.zext %tid : i32 to i64
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x = llvm.load %a : !llvm.ptr<1> -> f32
  %y = llvm.call @twice(%x) : (f32) -> f32
  llvm.store %y, %a : f32, !llvm.ptr<1>
  llvm.return
}

// A warp shuffle and a block barrier; reqntid bounds the thread id.
// CHECK-LABEL: define ptx_kernel void @warp_butterfly(
// CHECK-SAME: #[[WARP:[0-9]+]]
// CHECK: call range(i32 0, 32) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
// CHECK: %[[V:.*]] = load float, ptr addrspace(1)
// CHECK: %[[S:.*]] = {{.*}}call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %[[V]], i32 16, i32 31)
// CHECK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// PTX-LABEL: .visible .entry warp_butterfly(
// PTX: .reqntid 32, 1, 1
// PTX: ld.global.b32 %r[[V:[0-9]+]],
// PTX: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r[[V]], 16, 31, -1;
// PTX: bar.sync 0;
// PTX: st.global.b32
llvm.func @warp_butterfly(%p: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.reqntid = array<i32: 32, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %i = llvm.zext %tid : i32 to i64
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x = llvm.load %a : !llvm.ptr<1> -> f32
  %mask = llvm.mlir.constant(-1 : i32) : i32
  %offset = llvm.mlir.constant(16 : i32) : i32
  %clamp = llvm.mlir.constant(31 : i32) : i32
  %y = nvvm.shfl.sync bfly %mask, %x, %offset, %clamp : f32 -> f32
  %s = llvm.fadd %x, %y : f32
  nvvm.barrier0
  llvm.store %s, %a : f32, !llvm.ptr<1>
  llvm.return
}

// CHECK-DAG: attributes #[[SCALE]] = { {{.*}}"nvvm.maxntid"="128,1,1" }
// CHECK-DAG: attributes #[[WARP]] = { {{.*}}"nvvm.reqntid"="32,1,1" }
// libdevice keeps denormals.
// CHECK-DAG: !{i32 4, !"nvvm-reflect-ftz", i32 0}
