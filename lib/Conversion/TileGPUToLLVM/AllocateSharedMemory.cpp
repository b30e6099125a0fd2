//===- AllocateSharedMemory.cpp - Shared-memory offsets -------------------===//
//
// Explicit allocations (`tilegpu.local_alloc`) live from the op to their
// `tilegpu.local_dealloc` (or the end of the kernel); scratch only during
// the op that uses it (lowerings put a barrier before reusing it).  Walking
// the kernel in program order, each gets the lowest offset (1024-byte
// aligned, as swizzled layouts need) where it fits beside the allocations
// live at that point, so e.g. an epilogue's layout exchange reuses the
// buffers of a software pipeline that ended before it.
//
// The regions of a `tilegpu.warp_specialize` run at the same time, so
// program order says nothing about which of their allocations are live
// together: everything a region places (its buffers and its scratch) stays
// out of the way of the regions after it until the op ends.  Two consumer
// groups that each own an epilogue buffer and exchange layouts through
// scratch (ping-pong) must never share those bytes.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Passes.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

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
    if (failed(tile::verifyNoEmptyTensors(module,
                                          "tilegpu-allocate-shared-memory")))
      return signalPassFailure();
    Builder b(&getContext());
    // Live allocations as (offset, bytes), in program order.
    SmallVector<std::pair<int64_t, int64_t>> live;
    llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> placed;
    int64_t total = 0;
    // Bytes in multi-buffered allocations (the software pipeliner's rings):
    // fewer stages can only help when there are some.
    int64_t ringBytes = 0;
    // The lowest aligned offset where `bytes` fit between live blocks.
    auto firstFit = [&](int64_t bytes) {
      SmallVector<std::pair<int64_t, int64_t>> sorted(live);
      llvm::sort(sorted);
      int64_t offset = 0;
      for (auto [start, size] : sorted) {
        if (offset + bytes <= start)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(start + size,
                                                kSharedAllocationAlignment));
      }
      total = std::max(total, offset + bytes);
      return offset;
    };
    // Every placement in order, and those the running regions of
    // warp_specialize ops keep from the regions after them.
    SmallVector<std::pair<int64_t, int64_t>> log, reserved;
    auto firstFitBeside = [&](int64_t bytes) {
      size_t before = live.size();
      live.append(reserved.begin(), reserved.end());
      int64_t offset = firstFit(bytes);
      live.resize(before);
      log.push_back({offset, bytes});
      return offset;
    };
    auto visit = [&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        int64_t bytes = alloc.getType().getAllocBytes();
        if (alloc.getType().getNumBuffers() > 1)
          ringBytes += bytes;
        int64_t offset = firstFitBeside(bytes);
        alloc->setAttr("tilegpu.offset", b.getI32IntegerAttr(offset));
        live.push_back({offset, bytes});
        placed[op] = {offset, bytes};
        return;
      }
      if (auto dealloc = dyn_cast<LocalDeallocOp>(op)) {
        auto it = placed.find(dealloc.getSrc().getDefiningOp());
        if (it != placed.end())
          llvm::erase(live, it->second);
        return;
      }
      if (int64_t bytes = getScratchBytes(op))
        op->setAttr("tilegpu.scratch",
                    b.getI32IntegerAttr(firstFitBeside(bytes)));
    };
    std::function<void(Operation *)> walk = [&](Operation *op) {
      visit(op);
      bool concurrent = isa<WarpSpecializeOp>(op);
      size_t mark = reserved.size();
      for (Region &region : op->getRegions()) {
        size_t first = log.size();
        for (Block &block : region)
          for (Operation &inner : block)
            walk(&inner);
        if (concurrent)
          reserved.append(log.begin() + first, log.end());
      }
      reserved.resize(mark);
    };
    walk(module);
    module->setAttr(tilegpu::attr::kSharedBytes, b.getI32IntegerAttr(total));
    if (total > maxSharedBytes) {
      // With tilegpu.shared, what a typed error (Python's OutOfResources)
      // is made of.
      module->setAttr(tilegpu::attr::kSharedLimit,
                      b.getI64IntegerAttr(maxSharedBytes));
      module->setAttr(tilegpu::attr::kSharedPipelined,
                      b.getI64IntegerAttr(ringBytes));
      std::string kernels;
      module.walk([&](tile::FuncOp func) {
        if (func.isKernel())
          kernels += (kernels.empty() ? "" : ", ") + func.getName().str();
      });
      module.emitError("kernel '")
          << kernels << "' needs " << total
          << " bytes of shared memory, but the limit is "
          << static_cast<int64_t>(maxSharedBytes) << " bytes; use smaller blocks"
          << (ringBytes ? " or fewer stages (the software pipeline's buffers "
                          "take " +
                              std::to_string(ringBytes) + " bytes)"
                        : " (no software pipeline is involved: fewer stages "
                          "would not help)");
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
