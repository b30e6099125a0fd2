// RUN: not warpforge-opt --emit=ptx --compute-capability=91 %s 2>&1 | FileCheck %s --check-prefix=CC
// RUN: not warpforge-opt --emit=llvm-ir --target-opt-level=4 %s 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: warpforge-opt --emit=ptx --compute-capability=80 --target-opt-level=0 %s | FileCheck %s --check-prefix=SM80

// The backend's options: an architecture LLVM does not know and an
// optimization level out of range are errors; sm_80 has no `a` variant.

// CC: error: compute capability 91 (sm_91a) is not an architecture LLVM's NVPTX backend knows: expected major * 10 + minor, e.g. 90 for Hopper
// LEVEL: error: optimization level 4 is out of range: expected 0 to 3
// SM80: .target sm_80
// SM80: .visible .entry empty()
llvm.func @empty() attributes {nvvm.kernel} {
  llvm.return
}
