// RUN: warpforge-opt %s --split-input-file --convert-tilegpu-to-llvm | FileCheck %s

// Kernels become nvvm.kernel functions with the CTA's thread count; pointer
// arguments specialized as 16-byte aligned say so to LLVM.
module attributes {"tilegpu.num-warps" = 8 : i32} {
  // CHECK-LABEL: llvm.func @kernel(
  // CHECK-SAME: %{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
  // CHECK-SAME: nvvm.kernel, nvvm.reqntid = array<i32: 256, 1, 1>
  tile.func public @kernel(%a: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16>, %n: i32) {
    // CHECK: nvvm.read.ptx.sreg.ctaid.y
    %pid = tile.get_program_id y : i32
    // CHECK: nvvm.read.ptx.sreg.nctaid.z
    %np = tile.get_num_programs z : i32
    // CHECK: nvvm.barrier0
    tile.barrier
    // CHECK: llvm.return
    tile.return
  }
}

// -----

// The author's register cap (maxnreg=, tilegpu.maxnreg) is the kernel's
// .maxnreg.
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.maxnreg" = 42 : i32} {
  // CHECK-LABEL: llvm.func @capped(
  // CHECK-SAME: nvvm.maxnreg = 42 : i32
  tile.func public @capped() {
    tile.return
  }
}
