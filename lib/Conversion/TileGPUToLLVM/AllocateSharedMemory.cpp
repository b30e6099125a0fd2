//===- AllocateSharedMemory.cpp - Shared-memory offsets -------------------===//
//
// Explicit allocations (`tilegpu.local_alloc`) live until the end of the
// kernel and are laid out one after the other.  Scratch is only live during
// the op that uses it, and lowerings put a barrier before reusing it, so
// every op's scratch starts at one offset after the allocations and the
// region is as large as the largest need.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Passes.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace warpforge {
#define GEN_PASS_DEF_TILEGPUALLOCATESHAREDMEMORY
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h.inc"
} // namespace warpforge

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

struct TileGPUAllocateSharedMemory
    : public warpforge::impl::TileGPUAllocateSharedMemoryBase<
          TileGPUAllocateSharedMemory> {
  using TileGPUAllocateSharedMemoryBase::TileGPUAllocateSharedMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    int64_t next = 0;
    module.walk([&](LocalAllocOp alloc) {
      next = llvm::alignTo(next, kSharedAllocationAlignment);
      alloc->setAttr("tilegpu.offset", b.getI32IntegerAttr(next));
      next += alloc.getType().getAllocBytes();
    });
    int64_t scratchOffset = llvm::alignTo(next, kSharedAllocationAlignment);
    int64_t scratch = 0;
    module.walk([&](Operation *op) {
      int64_t bytes = getScratchBytes(op);
      if (bytes == 0)
        return;
      op->setAttr("tilegpu.scratch", b.getI32IntegerAttr(scratchOffset));
      scratch = std::max(scratch, bytes);
    });
    int64_t total = scratch ? scratchOffset + scratch : next;
    module->setAttr(TileGPUDialect::kSharedBytes, b.getI32IntegerAttr(total));
    if (total > maxSharedBytes) {
      std::string kernels;
      module.walk([&](tile::FuncOp func) {
        if (func.isKernel())
          kernels += (kernels.empty() ? "" : ", ") + func.getName().str();
      });
      module.emitError("kernel '")
          << kernels << "' needs " << total
          << " bytes of shared memory, but the limit is "
          << static_cast<int64_t>(maxSharedBytes)
          << " bytes; use smaller blocks or fewer stages";
      return signalPassFailure();
    }
  }
};

} // namespace

namespace warpforge {

int64_t getScratchBytes(Operation *op) {
  if (auto reduce = dyn_cast<tile::ReduceOp>(op))
    return getReduceScratchBytes(reduce);
  if (auto scan = dyn_cast<tile::ScanOp>(op))
    return getScanScratchBytes(scan);
  if (isa<ConvertLayoutOp, tile::ReshapeOp>(op))
    return getExchangeScratchBytes(op);
  // A scalar atomic whose result is used hands it from thread 0 to the
  // others.
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) &&
      !isa<RankedTensorType>(op->getResult(0).getType()) &&
      !op->getResult(0).use_empty())
    return 8;
  return 0;
}

} // namespace warpforge
