//===- Passes.td - Lowering tilegpu to LLVM and NVVM -------*- tablegen -*-===//

#ifndef WARPFORGE_TILEGPU_TO_LLVM_PASSES
#define WARPFORGE_TILEGPU_TO_LLVM_PASSES

include "mlir/Pass/PassBase.td"

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
