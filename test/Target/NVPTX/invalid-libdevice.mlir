// REQUIRES: libdevice
// RUN: warpforge-opt --emit=llvm-ir %s -verify-diagnostics

// A call to an `__nv_` function libdevice lacks fails at its declaration.

// expected-error @+1 {{'__nv_expff' is not a function of CUDA's libdevice}}
llvm.func @__nv_expff(f32) -> f32
llvm.func @typo(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> f32
  %y = llvm.call @__nv_expff(%x) : (f32) -> f32
  llvm.store %y, %p : f32, !llvm.ptr<1>
  llvm.return
}
