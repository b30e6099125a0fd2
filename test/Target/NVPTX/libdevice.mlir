// REQUIRES: libdevice
// RUN: warpforge-opt --emit=llvm-ir %s | FileCheck %s
// RUN: warpforge-opt --emit=ptx %s | FileCheck %s --check-prefix=PTX

// A call to CUDA's libdevice links libdevice.10.bc; the optimizer inlines
// the function and resolves its __nvvm_reflect queries (denormals kept).
// Nothing of libdevice but what the kernel uses is left.

// CHECK-NOT: __nv_expf
// CHECK-NOT: __nvvm_reflect
// CHECK-LABEL: define ptx_kernel void @exp(
// CHECK: %[[X:.*]] = load float, ptr addrspace(1)
// CHECK: call float @llvm.fma.f32(float %[[X]],
// CHECK: call float @llvm.nvvm.ex2.approx.ftz.f32(
// CHECK: store float
// CHECK-NOT: define
// CHECK-NOT: __nv_
// CHECK-NOT: llvm.ident
// CHECK: !{i32 4, !"nvvm-reflect-ftz", i32 0}
// PTX-LABEL: .visible .entry exp(
// PTX-NOT: call
// PTX: ex2.approx.ftz.f32
// PTX-NOT: .func
llvm.func @__nv_expf(f32) -> f32
llvm.func @exp(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> f32
  %y = llvm.call @__nv_expf(%x) : (f32) -> f32
  llvm.store %y, %p : f32, !llvm.ptr<1>
  llvm.return
}
