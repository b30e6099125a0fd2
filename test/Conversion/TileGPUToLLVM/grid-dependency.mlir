// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --convert-tilegpu-to-llvm | FileCheck %s

// Programmatic dependent launch: tile.grid_dependency becomes NVVM's
// griddepcontrol (sm_90 and later), in program order with the accesses
// around it.

// CHECK-LABEL: llvm.func @pdl(
// CHECK: nvvm.griddepcontrol wait
// CHECK-NEXT: ld.global.b32
// CHECK: nvvm.griddepcontrol launch_dependents
// CHECK: st.global.b32
module attributes {"tilegpu.num-warps" = 1 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @pdl(%p: !tile.ptr<f32>) {
    tile.grid_dependency "wait"
    %x = tile.load %p : !tile.ptr<f32>
    tile.grid_dependency "launch_dependents"
    tile.store %p, %x : !tile.ptr<f32>
    tile.return
  }
}

// -----

// Before sm_90 there is no griddepcontrol: an error at the op.
module attributes {"tilegpu.num-warps" = 1 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @pdl_sm80() {
    // expected-error @+2 {{programmatic dependent launch (gdc_wait) needs sm_90 or later; the target is sm_80}}
    // expected-error @+1 {{failed to legalize operation 'tile.grid_dependency'}}
    tile.grid_dependency "wait"
    tile.return
  }
}
