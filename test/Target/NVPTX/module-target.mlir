// RUN: warpforge-opt --emit=ptx %s | FileCheck %s
// RUN: warpforge-opt --emit=ptx --compute-capability=90 %s | FileCheck %s --check-prefix=FLAG

// The module's tilegpu.target (stamped by convert-tile-to-tilegpu and kept
// through the lowering) is what --emit compiles for; --compute-capability
// overrides it.

// CHECK: .target sm_80
// CHECK: .visible .entry empty()
// FLAG: .target sm_90a
module attributes {tilegpu.target = "cuda:80"} {
  llvm.func @empty() attributes {nvvm.kernel} {
    llvm.return
  }
}
