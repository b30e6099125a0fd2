//===- LowerChannels.cpp - Channels to full/empty mbarrier rings ----------===//
//
// A channel of N slots is two rings of N mbarriers next to its buffers:
//
//   full[s]   one arrival, the producer's arrive.expect_tx of the slot's
//             bytes; the TMA copies into the slot complete the bytes.
//             Rings the producer fills with cp.async (pointer loads) add
//             one arrival per producer thread, each made by the hardware
//             when that thread's copies have landed
//             (cp.async.mbarrier.arrive.noinc): the slot is full when
//             every thread's copies are, and no thread waits for its own.
//             As in CUTLASS's cp.async warp-specialized mainloop, the
//             completed copies need no proxy fence before wgmma reads them
//             (see the software pipeliner's note on the same question).
//   empty[s]  one arrival per consumer thread, each after its own wait for
//             the products that read the slot.
//
// Use count c names slot s = c % N in lap c / N; a barrier completes one
// phase per lap, so the parity to wait for is (c / N) % 2 and comes from
// the count the loops carry (a constant parity deadlocks on the second
// lap).  The producer waits `empty[s]` for the parity of the lap before
// (phase ^ 1): on the first lap that is the phase preceding a fresh
// barrier's first, which counts as complete, so every slot starts empty
// with no arrival needed.  The consumers wait `full[s]` for the lap's
// parity.
//
// The bytes are announced before the copies are issued, by the thread that
// issues them, so a phase never sees its copies' bytes before their count.
// The barriers are initialized before the tilegpu.warp_specialize op, made
// visible to the async proxy (the TMA) with a proxy fence and to all warps
// with a CTA barrier, and reach the partitions as captures, like the rings.
//
// Multicast (num_ctas = C, a channel_tma_load with `multicast`): the
// producer of each CTA of the cluster copies a slice of the block into the
// slot of every CTA, so a slot may be refilled only when the consumers of
// all C CTAs have released it: each consumer thread arrives on the empty
// barrier of every CTA (C arrivals, remote ones through `mapa`), which
// is initialized to C times the consumer warps: each warp arrives once, by
// its first lane once all its lanes have finished with the slot.  A CTA's full barrier
// still counts the bytes of the whole slot: its own slice and the others'
// land on it alike.  Bytes from another CTA may land before this CTA's
// producer announced them; the phase cannot complete early, since the
// announcing arrival is still missing.  Remote arrivals and copies must
// not reach a barrier before its CTA initialized it, nor a CTA that has
// exited: a cluster barrier follows the initialization (in place of the
// CTA barrier) and another the tilegpu.warp_specialize op, where all the
// CTA's threads meet before the kernel ends.
//
//===----------------------------------------------------------------------===//

#include "../TMAUtility.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPULOWERCHANNELS
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// A channel as the ops of one region see it.
struct LoweredChannel {
  SmallVector<Value> rings;
  Value full, empty;
  int64_t numBuffers;
  /// The bytes the TMA copies of one slot deliver.
  int64_t slotBytes = 0;
};

/// The values that stand for `create`'s channel: its result and, in each
/// region of a tilegpu.warp_specialize capturing it, the block argument.
/// With the number of warps of the region a value lives in (0 for the
/// channel's own block).
SmallVector<std::pair<Value, int64_t>> getChannelViews(CreateChannelOp create) {
  SmallVector<std::pair<Value, int64_t>> views{{create.getResult(), 0}};
  for (OpOperand &use : create->getUses()) {
    auto ws = dyn_cast<WarpSpecializeOp>(use.getOwner());
    if (!ws)
      continue;
    views.push_back({ws.getDefaultRegion().getArgument(use.getOperandNumber()),
                     0});
    for (auto [region, warps] :
         llvm::zip(ws.getPartitionRegions(), ws.getPartitionNumWarps()))
      views.push_back({region.getArgument(use.getOperandNumber()), warps});
  }
  return views;
}

Value createI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

Value barrierAt(OpBuilder &b, Location loc, Value ring, Value slot) {
  auto type = cast<MemDescType>(ring.getType());
  return MemDescIndexOp::create(b, loc, type.getSingleBuffer(), ring, slot);
}

/// The slot of use `count`.
Value slotOf(OpBuilder &b, Location loc, Value count, int64_t numBuffers) {
  return arith::RemUIOp::create(b, loc, count, createI32(b, loc, numBuffers));
}

/// Slot and parity of use `count`.
std::pair<Value, Value> slotAndPhase(OpBuilder &b, Location loc, Value count,
                                     int64_t numBuffers) {
  Value slot = slotOf(b, loc, count, numBuffers);
  Value lap =
      arith::DivUIOp::create(b, loc, count, createI32(b, loc, numBuffers));
  Value phase = arith::AndIOp::create(b, loc, lap, createI32(b, loc, 1));
  return {slot, phase};
}

LogicalResult lowerChannel(CreateChannelOp create, int consumerThreads) {
  Location loc = create.getLoc();
  MLIRContext *ctx = create.getContext();
  OpBuilder b(create);
  LoweredChannel outer;
  outer.numBuffers = create.getType().getNumBuffers();
  llvm::append_range(outer.rings, create.getBuffers());
  // Who fills which ring: the TMA (bytes on the full barrier) or a
  // partition's threads with cp.async (one arrival each).
  llvm::SmallDenseSet<int64_t> tmaRings;
  int64_t copyThreads = 0;
  // The CTAs that multicast into every CTA's slots (1: none).
  int64_t ctas = 1;
  for (auto [view, warps] : getChannelViews(create))
    for (Operation *user : view.getUsers()) {
      if (auto load = dyn_cast<ChannelTMALoadOp>(user)) {
        tmaRings.insert(load.getBuffer());
        if (std::optional<uint32_t> m = load.getMulticast())
          ctas = std::max<int64_t>(ctas, *m);
      }
      if (isa<ChannelAsyncCopyOp>(user)) {
        if (warps == 0)
          return user->emitOpError(
              "copies with cp.async outside a partition of "
              "tilegpu.warp_specialize; the full barrier counts a "
              "partition's threads");
        copyThreads = std::max(copyThreads, warps * 32);
      }
    }
  for (int64_t ring : tmaRings)
    outer.slotBytes +=
        cast<MemDescType>(outer.rings[ring].getType()).getBufferBytes();
  int64_t fullCount = (tmaRings.empty() ? 0 : 1) + copyThreads;
  if (fullCount == 0)
    fullCount = 1;
  MemDescType barriers = getBarrierType(ctx, outer.numBuffers);
  outer.full = LocalAllocOp::create(b, loc, barriers, Value());
  outer.empty = LocalAllocOp::create(b, loc, barriers, Value());
  for (int64_t s = 0; s < outer.numBuffers; ++s) {
    Value index = createI32(b, loc, s);
    InitBarrierOp::create(b, loc, barrierAt(b, loc, outer.full, index),
                          fullCount);
    // Multicast rings count warps (see the release below).
    InitBarrierOp::create(b, loc, barrierAt(b, loc, outer.empty, index),
                          ctas > 1 ? consumerThreads / 32 * ctas
                                   : consumerThreads);
  }
  FenceAsyncSharedOp::create(b, loc);
  if (ctas > 1) {
    ClusterBarrierOp::create(b, loc);
    // And before the kernel ends: after the warp_specialize ops, where
    // all the CTA's threads meet.
    for (OpOperand &use : create->getUses())
      if (auto ws = dyn_cast<WarpSpecializeOp>(use.getOwner())) {
        OpBuilder after(ws->getContext());
        after.setInsertionPointAfter(ws);
        ClusterBarrierOp::create(after, loc);
      }
  } else {
    tile::BarrierOp::create(b, loc);
  }

  // Where the channel goes, as what.
  DenseMap<Value, LoweredChannel> views;
  views[create.getResult()] = outer;
  for (OpOperand &use : llvm::make_early_inc_range(create->getUses())) {
    auto ws = dyn_cast<WarpSpecializeOp>(use.getOwner());
    if (!ws)
      continue;
    unsigned index = use.getOperandNumber();
    // The channel's capture becomes its rings and barriers.
    SmallVector<Value> added(outer.rings);
    added.push_back(outer.full);
    added.push_back(outer.empty);
    unsigned first = ws.getExplicitCaptures().size();
    ws.getExplicitCapturesMutable().append(added);
    for (Region &region : ws->getRegions()) {
      Block &block = region.front();
      LoweredChannel view = outer;
      view.rings.clear();
      for (Value v : added)
        block.addArgument(v.getType(), loc);
      for (unsigned i = 0; i < outer.rings.size(); ++i)
        view.rings.push_back(block.getArgument(first + i));
      view.full = block.getArgument(first + outer.rings.size());
      view.empty = block.getArgument(first + outer.rings.size() + 1);
      views[block.getArgument(index)] = view;
    }
  }

  SmallVector<Operation *> users;
  for (auto &[value, view] : views)
    for (Operation *user : value.getUsers())
      if (!isa<WarpSpecializeOp>(user))
        users.push_back(user);
  // Commits first: their byte counts go before the copies' first op, and
  // each copy's lowering then lands between them and the copy.
  std::stable_partition(users.begin(), users.end(), [](Operation *op) {
    return isa<ChannelCommitOp>(op);
  });
  for (Operation *user : users) {
    Value channel = user->getOperand(0);
    const LoweredChannel &view = views.at(channel);
    OpBuilder ub(user);
    Location uloc = user->getLoc();
    if (auto acquire = dyn_cast<ChannelAcquireOp>(user)) {
      auto [slot, phase] =
          slotAndPhase(ub, uloc, acquire.getCount(), view.numBuffers);
      Value previous =
          arith::XOrIOp::create(ub, uloc, phase, createI32(ub, uloc, 1));
      WaitBarrierOp::create(ub, uloc, barrierAt(ub, uloc, view.empty, slot),
                            previous);
    } else if (auto load = dyn_cast<ChannelTMALoadOp>(user)) {
      Value slot = slotOf(ub, uloc, load.getCount(), view.numBuffers);
      Value buffer = barrierAt(ub, uloc, view.rings[load.getBuffer()], slot);
      Value full = barrierAt(ub, uloc, view.full, slot);
      Value yes = arith::ConstantIntOp::create(ub, uloc, 1, 1);
      AsyncTMACopyGlobalToLocalOp::create(ub, uloc, load.getDesc(),
                                          load.getIndices(), buffer, full,
                                          yes, load.getMulticastAttr());
    } else if (auto copy = dyn_cast<ChannelAsyncCopyOp>(user)) {
      Value slot = slotOf(ub, uloc, copy.getCount(), view.numBuffers);
      Value buffer = barrierAt(ub, uloc, view.rings[copy.getBuffer()], slot);
      AsyncCopyGlobalToLocalOp::create(ub, uloc, copy.getPtrs(), buffer,
                                       copy.getMask(), copy.getOther());
    } else if (auto commit = dyn_cast<ChannelCommitOp>(user)) {
      // The bytes go before the slot's first TMA copy; each thread's
      // cp.async arrival after its last copy.
      Operation *at = nullptr;
      bool copies = false;
      for (Operation *prev = commit->getPrevNode(); prev;
           prev = prev->getPrevNode()) {
        if (auto l = dyn_cast<ChannelTMALoadOp>(prev))
          if (l.getChannel() == channel && l.getCount() == commit.getCount())
            at = l;
        if (auto c = dyn_cast<ChannelAsyncCopyOp>(prev))
          if (c.getChannel() == channel && c.getCount() == commit.getCount())
            copies = true;
      }
      if (at) {
        OpBuilder cb(at);
        Value slot = slotOf(cb, uloc, commit.getCount(), view.numBuffers);
        Value yes = arith::ConstantIntOp::create(cb, uloc, 1, 1);
        BarrierExpectOp::create(cb, uloc,
                                barrierAt(cb, uloc, view.full, slot),
                                view.slotBytes, yes);
      }
      if (copies) {
        Value slot = slotOf(ub, uloc, commit.getCount(), view.numBuffers);
        AsyncCopyMBarrierArriveOp::create(
            ub, uloc, barrierAt(ub, uloc, view.full, slot));
      }
    } else if (auto wait = dyn_cast<ChannelWaitOp>(user)) {
      auto [slot, phase] =
          slotAndPhase(ub, uloc, wait.getCount(), view.numBuffers);
      WaitBarrierOp::create(ub, uloc, barrierAt(ub, uloc, view.full, slot),
                            phase);
      for (auto [result, ring] : llvm::zip(wait.getBuffers(), view.rings))
        result.replaceAllUsesWith(barrierAt(ub, uloc, ring, slot));
    } else if (auto release = dyn_cast<ChannelReleaseOp>(user)) {
      Value slot = slotOf(ub, uloc, release.getCount(), view.numBuffers);
      Value empty = barrierAt(ub, uloc, view.empty, slot);
      if (ctas == 1)
        ArriveBarrierOp::create(ub, uloc, empty, 1, /*cta=*/Value(),
                                /*per_warp=*/false);
      // Every CTA's producer writes this slot: each is told, once per warp
      // (8 remote arrivals a K step rather than 256).
      for (int64_t cta = 0; ctas > 1 && cta < ctas; ++cta)
        ArriveBarrierOp::create(ub, uloc, empty, 1, createI32(ub, uloc, cta),
                                /*per_warp=*/true);
    } else {
      return user->emitOpError("uses a channel in a way tilegpu-lower-"
                               "channels does not know");
    }
  }
  for (Operation *user : users)
    user->erase();

  // Drop the channel's own capture and block arguments.
  for (OpOperand &use : llvm::make_early_inc_range(create->getUses())) {
    auto ws = cast<WarpSpecializeOp>(use.getOwner());
    unsigned index = use.getOperandNumber();
    for (Region &region : ws->getRegions())
      region.front().eraseArgument(index);
    ws.getExplicitCapturesMutable().erase(index);
  }
  create.erase();
  return success();
}

struct LowerChannelsPass
    : public tilegpu::impl::TileGPULowerChannelsBase<LowerChannelsPass> {
  using TileGPULowerChannelsBase::TileGPULowerChannelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int consumerThreads = getNumThreads(module);
    SmallVector<CreateChannelOp> channels;
    module.walk([&](CreateChannelOp op) { channels.push_back(op); });
    for (CreateChannelOp create : channels)
      if (failed(lowerChannel(create, consumerThreads)))
        return signalPassFailure();
  }
};

} // namespace
