// REQUIRES: libdevice
// RUN: warpforge-opt --emit=llvm-ir %s | FileCheck %s --check-prefix=KEEP-IR
// RUN: warpforge-opt --emit=llvm-ir --target-reflect-ftz %s | FileCheck %s --check-prefix=FTZ-IR
// RUN: warpforge-opt --emit=ptx %s | FileCheck %s --check-prefix=KEEP
// RUN: warpforge-opt --emit=ptx --target-reflect-ftz %s | FileCheck %s --check-prefix=FTZ

// --target-reflect-ftz (the JIT's enable_reflect_ftz): libdevice is told
// to flush denormals (nvvm-reflect-ftz = 1), so its exp2f is the ftz
// instruction; by default denormals are kept, as CUDA does.

// KEEP-IR: !{i32 4, !"nvvm-reflect-ftz", i32 0}
// FTZ-IR: !{i32 4, !"nvvm-reflect-ftz", i32 1}
// KEEP-LABEL: .visible .entry exp2(
// KEEP: ex2.approx.f32
// KEEP-NOT: ex2.approx.ftz
// FTZ-LABEL: .visible .entry exp2(
// FTZ: ex2.approx.ftz.f32
llvm.func @__nv_exp2f(f32) -> f32
llvm.func @exp2(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> f32
  %y = llvm.call @__nv_exp2f(%x) : (f32) -> f32
  llvm.store %y, %p : f32, !llvm.ptr<1>
  llvm.return
}
