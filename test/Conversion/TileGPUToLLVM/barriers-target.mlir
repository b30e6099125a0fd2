// Regression test (a bug found by review, fixed): see the comments below.
// RUN: not warpforge-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm -o /dev/null

// The mbarrier lowerings (BarrierOpToLLVM.cpp) check no target feature,
// unlike wgmma, fence.proxy.async, cp.async and the TMA copies (see
// target.mlir and tma-invalid.mlir: "another target gets an error, not PTX
// ptxas rejects").  On cuda:80 this module lowers without an error, and
// ptxas then rejects the PTX: "Feature 'mbarrier.arrive.expect_tx'
// requires .target sm_90 or higher", "Feature 'mbarrier.try_wait.parity'
// requires .target sm_90 or higher" (and mbarrier.arrive with a count and
// .release.cta).  Expected: an error at the op, as for the other features.

#sh = #tilegpu.shared<order = [0]>
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:80"} {
  tile.func public @tma_barrier_on_sm80(%pred: i1, %phase: i32) {
    %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.barrier_expect %bar, 16384, %pred : !tilegpu.memdesc<1xi64, #sh, mutable>
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #sh, mutable>
    tile.return
  }
}
