// RUN: warpforge-opt %s --split-input-file --verify-diagnostics --convert-tilegpu-to-llvm

// The target is the module's tilegpu.target attribute, `cuda:<cc>`; any
// other spelling is an error at the module, before anything is lowered.

// expected-error @below {{module attribute tilegpu.target = "sm_90" is not a target: expected "cuda:<compute capability>", e.g. "cuda:90"}}
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "sm_90"} {
  tile.func public @k() {
    tile.return
  }
}

// -----

// expected-error @below {{module attribute tilegpu.target = "cuda:" is not a target}}
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:"} {
  tile.func public @k() {
    tile.return
  }
}

// -----

// expected-error @below {{module attribute tilegpu.target = 90 : i32 is not a target}}
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = 90 : i32} {
  tile.func public @k() {
    tile.return
  }
}

// -----

// wgmma is sm_90a's: another target gets an error, not PTX ptxas rejects.
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @wait(%x: tensor<64x128xf32, #w>) {
    // expected-error @+2 {{wgmma is not available on target cuda:80}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.warp_group_dot_wait'}}
    %r = tilegpu.warp_group_dot_wait %x {pendings = 0 : i32} : tensor<64x128xf32, #w>
    tile.return
  }
}

// -----

// The async proxy exists from sm_90.
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @fence() {
    // expected-error @+2 {{fence.proxy.async is not available on target cuda:80}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.fence_async_shared'}}
    tilegpu.fence_async_shared
    tile.return
  }
}

// -----

// cp.async exists from sm_80.
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:75"} {
  tile.func public @commit() {
    // expected-error @+2 {{cp.async is not available on target cuda:75}}
    // expected-error @+1 {{failed to legalize operation 'tilegpu.async_commit_group'}}
    %g = tilegpu.async_commit_group
    tile.return
  }
}
