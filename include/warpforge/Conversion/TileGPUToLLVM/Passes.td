//===- Passes.td - Lowering tilegpu to LLVM and NVVM -------*- tablegen -*-===//

#ifndef WARPFORGE_TILEGPU_TO_LLVM_PASSES
#define WARPFORGE_TILEGPU_TO_LLVM_PASSES

include "mlir/Pass/PassBase.td"

def TileGPUIssueTMALoadsEarly
    : Pass<"tilegpu-issue-tma-loads-early", "mlir::ModuleOp"> {
  let summary = "Start lone TMA loads in a loop body early: above the "
                "loops they do not depend on, or in the iteration before";
  let description = [{
    A descriptor load that no pipeline owns is issued by
    `tilegpu-lower-tma` where its tile is first used and waited for right
    there.  In a loop body (a persistent kernel's tile loop), this pass
    moves the issue (the buffer and mbarrier allocations, the barrier's
    init, fence and CTA barrier, `barrier_expect` and the copy), with the
    pure ops that compute its coordinates, above the loops before it in
    the block, and leaves the wait where it was: attention's last V block
    lands while the loop over K/V blocks runs.

    A loop is crossed only when it writes no global memory and allocates,
    frees and needs no shared memory (so the allocator, which runs next,
    places what it placed before), and only when every reader of the
    buffer follows the copy in the block with a full `warp_group_dot_wait`
    after the last product that reads it (the previous iteration's reads
    are retired before the group's own CTA barrier).  Loads in the kernel's
    body or directly in a `warp_specialize` region stay: there the
    allocator reuses a finished loop's bytes (channel slots included),
    which an earlier buffer could no longer take.

    A lone load that starts a loop body, its coordinates a function of the
    induction variable alone (a persistent kernel's Q block), is prefetched
    instead: its buffer and mbarrier move before the loop, which copies the
    first iteration's block; each iteration waits for its phase
    (`((iv - lb) / step) & 1`) and, once its reads of the buffer are
    retired (the loop or full wait after the last product reading it) and
    a CTA barrier has passed, copies the next iteration's block into the
    same buffer; both copies are predicated on their iteration existing,
    and the barrier is invalidated after the loop.

    Example (in a loop body):

    ```mlir
    scf.for %j = ... { ... }   // K/V loop
    %buf = tilegpu.local_alloc ...
    ... tilegpu.async_tma_copy_global_to_local %desc[%row, %c0] %buf, %bar, %true ...
    tilegpu.wait_barrier %bar, %c0_i32 ...
    ```

    becomes the allocations and the copy before the `scf.for`, the wait
    after it.
  }];
}

def TileGPUAllocateSharedMemory
    : Pass<"tilegpu-allocate-shared-memory", "mlir::ModuleOp"> {
  let summary = "Assign shared-memory offsets to allocations and scratch";
  let description = [{
    Gives every `tilegpu.local_alloc` an offset (`tilegpu.offset`) and every
    op whose lowering needs scratch shared memory (reductions and scans
    across warps, layout conversions, reshapes) a scratch offset
    (`tilegpu.scratch`), and records the kernel's total in the module's
    `tilegpu.shared` attribute: the dynamic shared memory the launch
    requests.  Fails, naming the kernel, the bytes and the limit, when the
    total exceeds what one CTA may use on the target.
  }];
  let options = [
    Option<"maxSharedBytes", "max-shared-bytes", "int64_t",
           /*default=*/"232448",
           "Shared memory one CTA may use (227 KB on sm_90)">
  ];
}

def ConvertTileGPUToLLVM : Pass<"convert-tilegpu-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower tile and tilegpu ops to the LLVM and NVVM dialects";
  let description = [{
    Each tensor becomes an LLVM struct of the elements the running thread
    holds under the tensor's layout; each op becomes the per-thread code
    that computes them: arithmetic element by element, vectorized and
    predicated global loads and stores in PTX, warp shuffles and shared
    memory for reductions, scans and layout conversions.  Kernels become
    `llvm.func`s with `nvvm.kernel` and their thread count as
    `nvvm.reqntid`.  Control flow must already be in `cf` form.

    The target is the module's `tilegpu.target` attribute (`cuda:<cc>`,
    set by convert-tile-to-tilegpu; `cuda:90` when absent): ops whose
    instructions the target lacks (wgmma needs sm_90a) are errors.

    An op or layout without a lowering is an error at the op's location.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

#endif // WARPFORGE_TILEGPU_TO_LLVM_PASSES
