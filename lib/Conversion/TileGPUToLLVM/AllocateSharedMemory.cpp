//===- AllocateSharedMemory.cpp - Shared-memory offsets -------------------===//
//
// Explicit allocations (`tilegpu.local_alloc`) live from the op to their
// `tilegpu.local_dealloc` (or the end of the kernel), except the immutable
// buffers (and the TMA destinations it fills and waits for) a loop or an if
// in the kernel's body, or in a warp_specialize's default region, makes and
// alone reads, which go after it (see releaseAfter); scratch only during
// the op that uses it
// (lowerings put a barrier before reusing it; a buffer filled without an
// initializing store gets one before its first use when its bytes were
// used before, see barrierBeforeFirstWrite).  Walking
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
// scratch (ping-pong) must never share those bytes.  One exception: the
// channel slots (rings allocated before the op) are free in the default
// region after its last consumer loop has retired its products (see
// slotsFreedInDefaultRegion), so that the consumers' epilogue and the
// masked last block's buffers take their bytes.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Passes.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// Whether every reader of the buffer `value` (through views of it) is a
/// wgmma product or a local_load inside `region`; TMA copies into `value`
/// itself count as users too when `copiesIn` is set (their completion is
/// checked by the caller).
bool onlyReadInside(Value value, Operation *region, bool copiesIn = false) {
  for (Operation *user : value.getUsers()) {
    if (!region->isAncestor(user))
      return false;
    if (copiesIn && isa<AsyncTMACopyGlobalToLocalOp>(user))
      continue;
    if (isa<MemDescTransOp, MemDescIndexOp, MemDescSubsliceOp>(user)) {
      if (!onlyReadInside(user->getResult(0), region))
        return false;
      continue;
    }
    if (!isa<WarpGroupDotOp, LocalLoadOp>(user))
      return false;
  }
  return true;
}

/// Whether a wgmma product reads the buffer `value` (through views).
bool readByWgmma(Value value) {
  for (Operation *user : value.getUsers()) {
    if (isa<WarpGroupDotOp>(user))
      return true;
    if (isa<MemDescTransOp, MemDescIndexOp, MemDescSubsliceOp>(user) &&
        readByWgmma(user->getResult(0)))
      return true;
  }
  return false;
}

/// The alignment `alloc` is placed at: 1024 bytes (what 128-byte
/// swizzled layouts need) except for dense i64 buffers without an initial
/// value, 128 bytes: mbarriers (which need 8) are such buffers, and so is
/// a dense TMA destination of i64 elements, which needs 128 (their types
/// are the same). An mbarrier at 1024 took a kilobyte of its own, and a
/// persistent attention kernel at D128 is within 512 bytes of the limit.
int64_t getAllocationAlignment(LocalAllocOp alloc) {
  MemDescType type = alloc.getType();
  if (!alloc.getSrc() && type.getElementType().isInteger(64) &&
      isa<SharedEncodingAttr>(type.getEncoding()))
    return 128;
  return kSharedAllocationAlignment;
}

/// Whether `alloc` is a TMA destination that `region` alone fills and
/// reads: a mutable buffer without an initial value whose users are all
/// inside `region`, TMA copies into it each waited for there (on its
/// barrier) and otherwise readers as in onlyReadInside. The masked last
/// block's K and V buffers in attention are such: once the if that loads
/// and reads them ends, the copies have landed and only products (retired
/// as for immutable buffers) read them.
bool tmaFilledAndReadInside(LocalAllocOp alloc, Operation *region) {
  if (alloc.getSrc() || !alloc.getType().getIsMutable())
    return false;
  bool copies = false;
  for (Operation *user : alloc.getResult().getUsers()) {
    if (!region->isAncestor(user))
      return false;
    auto copy = dyn_cast<AsyncTMACopyGlobalToLocalOp>(user);
    if (!copy)
      continue;
    if (copy.getResult() != alloc.getResult() ||
        llvm::none_of(copy.getBarrier().getUsers(), [&](Operation *waiter) {
          return isa<WaitBarrierOp>(waiter) && region->isAncestor(waiter) &&
                 copy->getBlock() == waiter->getBlock() &&
                 copy->isBeforeInBlock(waiter);
        }))
      return false;
    copies = true;
  }
  // The readers, through views, as for immutable buffers; the copies are
  // the only other users.
  return copies && onlyReadInside(alloc.getResult(), region, /*copiesIn=*/true);
}

/// A buffer placed in bytes that earlier buffers or scratch used, and
/// filled without an initializing store (a cp.async or TMA ring, a TMA
/// destination, a barrier): every thread's last reads of those bytes must
/// be done before any thread writes the buffer, so a CTA barrier (the
/// region's, inside a warp_specialize) goes before the buffer's first use
/// unless one already stands between the allocation and it.  Without it, a
/// layout exchange's reads of its scratch race the copies a software
/// pipeline's prologue issues into the same bytes (tutorial 06's D128
/// backward under racecheck).
void barrierBeforeFirstWrite(LocalAllocOp alloc) {
  Value buffer = alloc.getResult();
  for (Operation *op = alloc->getNextNode(); op; op = op->getNextNode()) {
    if (isa<tile::BarrierOp>(op))
      return;
    bool uses = false;
    op->walk([&](Operation *inner) {
      uses |= llvm::is_contained(inner->getOperands(), buffer);
    });
    if (uses) {
      OpBuilder b(op);
      tile::BarrierOp::create(b, alloc.getLoc());
      return;
    }
  }
}

/// Whether wgmma products may still be in flight when `region` (a loop or
/// an if) ends: when the last wait of a body leaves some pending (earlier
/// waits may: tilegpu-overlap-products has a full wait last), when a
/// product comes after it, when a nested region's wait leaves some
/// pending, or when products have no wait at all.
bool productsInFlightAfter(Operation *region) {
  bool inFlight = false, products = false, waits = false;
  region->walk([&](Operation *inner) {
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(inner)) {
      waits = true;
      if (wait->getParentOp() != region)
        inFlight |= wait.getPendings() > 0;
    }
    products |= isa<WarpGroupDotOp>(inner);
  });
  for (Region &body : region->getRegions())
    for (Block &block : body) {
      bool productSinceWait = false;
      WarpGroupDotWaitOp last;
      for (Operation &op : block) {
        if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op)) {
          last = wait;
          productSinceWait = false;
        }
        productSinceWait |= isa<WarpGroupDotOp>(op);
      }
      inFlight |= productSinceWait || (last && last.getPendings() > 0);
    }
  return inFlight || (products && !waits);
}

/// The channel slots of a warp_specialize op that its default region
/// (the consumers) is done with after its last consumer loop, and the op
/// of that region after which their bytes are free (the loop itself, or
/// the first full wait after it when products may still read a slot then);
/// null when there is none.  Slots are the op's captured buffers (rings
/// allocated before it, mbarriers excluded) that the default region uses,
/// through views of them, only in or before its consumer loops, each a
/// loop directly in the region (not in a persistent tile loop): the rings
/// of the loops' blocks, and the one-slot buffer of a block the producer
/// copies once before them (attention's Q).  Once the last consumer loop has
/// waited for its last slot, every copy the producer made has landed (the
/// producer copies exactly the blocks the consumers wait for), and once
/// its products are retired nothing reads the slots: the epilogue's
/// buffers and scratch, and the masked last block's own buffers, may take
/// their bytes.  The producer region keeps them (they are restored before
/// it is placed).
std::pair<SmallVector<Operation *>, Operation *>
slotsFreedInDefaultRegion(WarpSpecializeOp ws) {
  Region &region = ws.getDefaultRegion();
  if (!region.hasOneBlock())
    return {};
  Block &block = region.front();
  Operation *lastLoop = nullptr;
  for (Operation &op : block)
    if (auto mark = op.getAttrOfType<StringAttr>("tilegpu.partition");
        mark && mark.getValue() == "consumer" && isa<scf::ForOp>(op))
      lastLoop = &op;
  if (!lastLoop)
    return {};
  SmallVector<Operation *> slots;
  for (auto [index, captured] : llvm::enumerate(ws.getExplicitCaptures())) {
    auto alloc = captured.getDefiningOp<LocalAllocOp>();
    if (!alloc || alloc.getSrc() ||
        alloc.getType().getElementType().isInteger(64))
      continue;
    BlockArgument arg = block.getArgument(index);
    // Every use, through views of the buffer, in or before the last
    // consumer loop: the ring's slots in the loops, and a one-slot
    // channel's buffer (a block copied once, Q) whose view is taken before
    // the loops that read it.
    bool onlyUpToLastLoop = !arg.use_empty();
    SmallVector<Value> worklist{arg};
    while (onlyUpToLastLoop && !worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        Operation *top = block.findAncestorOpInBlock(*user);
        if (!top || lastLoop->isBeforeInBlock(top)) {
          onlyUpToLastLoop = false;
          break;
        }
        if (isa<MemDescIndexOp, MemDescTransOp>(user))
          llvm::append_range(worklist, user->getResults());
      }
    }
    if (onlyUpToLastLoop)
      slots.push_back(alloc);
  }
  if (slots.empty())
    return {};
  if (!productsInFlightAfter(lastLoop))
    return {slots, lastLoop};
  for (Operation *next = lastLoop->getNextNode(); next;
       next = next->getNextNode())
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(next);
        wait && wait.getPendings() == 0)
      return {slots, next};
  return {};
}

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
    // The lowest offset aligned to `align` where `bytes` fit between live
    // blocks.
    auto firstFit = [&](int64_t bytes, int64_t align) {
      SmallVector<std::pair<int64_t, int64_t>> sorted(live);
      llvm::sort(sorted);
      int64_t offset = 0;
      for (auto [start, size] : sorted) {
        if (offset + bytes <= start)
          break;
        offset = std::max<int64_t>(offset, llvm::alignTo(start + size, align));
      }
      total = std::max(total, offset + bytes);
      return offset;
    };
    // Every placement in order, and those the running regions of
    // warp_specialize ops keep from the regions after them.
    SmallVector<std::pair<int64_t, int64_t>> log, reserved;
    auto firstFitBeside = [&](int64_t bytes,
                              int64_t align = kSharedAllocationAlignment) {
      size_t before = live.size();
      live.append(reserved.begin(), reserved.end());
      int64_t offset = firstFit(bytes, align);
      live.resize(before);
      log.push_back({offset, bytes});
      return offset;
    };
    // Buffers to free at a later full wait (see releaseAfter).
    llvm::DenseMap<Operation *, SmallVector<Operation *>> freeAtWait;
    llvm::DenseSet<Operation *> released;
    // After a loop or an if in the kernel's body (or in a warp_specialize's
    // default region): the immutable buffers made inside it that only it
    // reads, and the TMA destinations it fills, waits for and alone reads
    // (tmaFilledAndReadInside), leave the live set, so the code after it
    // reuses their bytes (tutorial 06's backward runs four loops, each with
    // its own operand buffers; attention's masked last block loads K and V
    // into buffers of its own). Readers must be wgmma
    // products, local_load or views of them: TMA stores read their buffer
    // asynchronously until a wait this analysis does not track, so a
    // buffer with any other reader stays. wgmma reads asynchronously too,
    // until a wait retires it: if the loop may end with products in flight
    // (a wait in it with pendings > 0), the buffers go at the next full
    // wait after it in the same block, or never. Whatever is placed in the
    // freed bytes next is written after a barrier (an initializing
    // local_alloc, scratch), which every warpgroup reaches after its own
    // full wait.
    auto releaseAfter = [&](Operation *region) {
      // Only loops and ifs directly in the kernel's body, or in the
      // default region (the consumers) of a warp_specialize directly in
      // it: the code after them runs once, so nothing placed in the freed
      // bytes can still be read when a loop around them would run them
      // again. (Whatever the default region frees stays reserved against
      // the regions placed after it.)
      Operation *parent = region->getParentOp();
      auto ws = dyn_cast_or_null<WarpSpecializeOp>(parent);
      bool once = isa_and_nonnull<tile::FuncOp>(parent) ||
                  (ws && region->getParentRegion() == &ws.getDefaultRegion() &&
                   isa_and_nonnull<tile::FuncOp>(ws->getParentOp()));
      if (!once)
        return;
      SmallVector<Operation *> freeable;
      for (auto &[allocOp, range] : placed) {
        auto alloc = cast<LocalAllocOp>(allocOp);
        if (released.contains(allocOp) || !region->isProperAncestor(allocOp))
          continue;
        bool immutable = alloc.getSrc() && !alloc.getType().getIsMutable() &&
                         onlyReadInside(alloc.getResult(), region);
        if (!immutable && !tmaFilledAndReadInside(alloc, region))
          continue;
        freeable.push_back(allocOp);
      }
      if (freeable.empty())
        return;
      bool inFlight = productsInFlightAfter(region);
      bool readByProducts = false;
      for (Operation *allocOp : freeable)
        readByProducts |= readByWgmma(allocOp->getResult(0));
      for (Operation *allocOp : freeable)
        released.insert(allocOp);
      if (!inFlight || !readByProducts) {
        for (Operation *allocOp : freeable)
          llvm::erase(live, placed[allocOp]);
        return;
      }
      for (Operation *next = region->getNextNode(); next;
           next = next->getNextNode())
        if (auto wait = dyn_cast<WarpGroupDotWaitOp>(next);
            wait && wait.getPendings() == 0) {
          llvm::append_range(freeAtWait[next], freeable);
          return;
        }
    };
    auto visit = [&](Operation *op) {
      if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
        int64_t bytes = alloc.getType().getAllocBytes();
        if (alloc.getType().getNumBuffers() > 1)
          ringBytes += bytes;
        // Whether the bytes were used before (by a buffer now freed or by
        // scratch), before firstFitBeside logs this placement.
        size_t before = log.size();
        int64_t offset = firstFitBeside(bytes, getAllocationAlignment(alloc));
        bool reused = llvm::any_of(
            ArrayRef(log).take_front(before), [&](auto range) {
              return range.first < offset + bytes &&
                     offset < range.first + range.second;
            });
        if (reused && !alloc.getSrc())
          barrierBeforeFirstWrite(alloc);
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
      // The buffers of a finished loop whose products were still in flight
      // at its end go once this full wait has retired them.
      if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op)) {
        auto it = freeAtWait.find(op);
        if (it != freeAtWait.end()) {
          for (Operation *alloc : it->second)
            llvm::erase(live, placed[alloc]);
          freeAtWait.erase(it);
        }
      }
      if (int64_t bytes = getScratchBytes(op))
        op->setAttr("tilegpu.scratch",
                    b.getI32IntegerAttr(firstFitBeside(bytes)));
    };
    std::function<void(Operation *)> walk = [&](Operation *op) {
      visit(op);
      auto ws = dyn_cast<WarpSpecializeOp>(op);
      bool concurrent = static_cast<bool>(ws);
      // The channel slots the consumers are done with (see
      // slotsFreedInDefaultRegion): out of the live set from there to the
      // end of the default region, back in before the other regions.
      SmallVector<std::pair<int64_t, int64_t>> slots;
      Operation *slotsFreedAfter = nullptr;
      if (ws) {
        auto [allocs, after] = slotsFreedInDefaultRegion(ws);
        for (Operation *alloc : allocs)
          if (placed.count(alloc))
            slots.push_back(placed[alloc]);
        if (!slots.empty())
          slotsFreedAfter = after;
      }
      size_t mark = reserved.size();
      for (Region &region : op->getRegions()) {
        size_t first = log.size();
        bool freed = false;
        for (Block &block : region)
          for (Operation &inner : block) {
            walk(&inner);
            if (&inner == slotsFreedAfter) {
              for (auto range : slots)
                llvm::erase(live, range);
              freed = true;
            }
          }
        if (freed)
          live.append(slots.begin(), slots.end());
        if (concurrent)
          reserved.append(log.begin() + first, log.end());
      }
      reserved.resize(mark);
      if (isa<scf::ForOp, scf::WhileOp, scf::IfOp>(op))
        releaseAfter(op);
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
