// RUN: warpforge-opt --emit=llvm-ir %s -split-input-file -verify-diagnostics

// Errors of the NVPTX backend, each at the op or module it concerns.

// An op without a translation to LLVM IR (the GPU lowering leaves none).
// expected-error @+1 {{cannot be converted to LLVM IR: missing `LLVMTranslationDialectInterface` registration for dialect for op: func.func}}
func.func @not_lowered() {
  return
}

// -----

// Nothing to compile: device functions only.
// expected-error @+1 {{the module has no kernel to compile: mark its entry llvm.func with the nvvm.kernel attribute}}
module {
  llvm.func @device_only(%x: f32) -> f32 {
    llvm.return %x : f32
  }
}

// -----

// expected-error @+1 {{the module targets 'x86_64-unknown-linux-gnu' (llvm.target_triple), but the NVPTX backend compiles for nvptx64-nvidia-cuda}}
module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"} {
  llvm.func @host_kernel() attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// An NVVM instruction outside any function verifies, but the translation
// has nowhere to put it (it used to crash the process).
module {
  // expected-error @+1 {{'nvvm.setmaxregister' outside any function cannot be translated to LLVM IR}}
  nvvm.setmaxregister increase 240
}
