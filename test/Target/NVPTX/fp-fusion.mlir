// RUN: warpforge-opt --emit=ptx %s | FileCheck %s --check-prefix=STRICT
// RUN: warpforge-opt --emit=ptx --target-fp-fusion %s | FileCheck %s --check-prefix=FUSED

// --target-fp-fusion (the JIT's enable_fp_fusion): a multiply and an add
// become one fma; without it they stay mul.rn and add.rn, which ptxas
// never contracts.

// STRICT-LABEL: .visible .entry mul_add(
// STRICT: mul.rn.f32
// STRICT: add.rn.f32
// STRICT-NOT: fma
// FUSED-LABEL: .visible .entry mul_add(
// FUSED: fma.rn.f32
// FUSED-NOT: mul.rn
llvm.func @mul_add(%a: f32, %b: f32, %c: f32, %p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %m = llvm.fmul %a, %b : f32
  %s = llvm.fadd %m, %c : f32
  llvm.store %s, %p : f32, !llvm.ptr<1>
  llvm.return
}
