//===- BufferAllocation.cpp - A channel of slots per specialized loop ----===//
//
// tilegpu-ws-buffer-allocation (see TaskPartition.h for the three steps).
// Each loop tilegpu-ws-task-partition marked gets, at the start of its
// kernel, one ring of num-buffers buffers per operand and a channel over
// them:
//
//   %ra = tilegpu.local_alloc : !tilegpu.memdesc<3x128x64xf16, ...>
//   %rb = tilegpu.local_alloc : !tilegpu.memdesc<3x64x256xf16, ...>
//   %ch = tilegpu.create_channel %ra, %rb {tilegpu.ws.channel}
//       : ... -> !tilegpu.channel<3>
//
// Each ring is in the layout its copy writes: the TMA's (NVMMA-swizzled
// boxes, TMA.h) for descriptor loads and pointer blocks, which
// tilegpu-ws-task-partition checked is the layout the product reads;
// the product's own for cp.async copies.  Slot s of every ring belongs to
// the channel's slot s: one acquire, wait and release covers all the
// operands of an iteration.
//
// Each block the producer copies once per tile (attention's Q and last V:
// TileOperand) gets a channel of its own, of one buffer and one slot,
// marked `tilegpu.ws.tile_channel` with the block's index:
//
//   %q = tilegpu.local_alloc : !tilegpu.memdesc<128x128xf16, #nvmma, mutable>
//   %chq = tilegpu.create_channel %q {tilegpu.ws.tile_channel = 0 : i32}
//       : ... -> !tilegpu.channel<1>
//
// A block copied before the loop and used up before it (a peeled first K
// block) shares its slot with one of the same type copied after the loop
// (the last V): `tilegpu.ws.tile_channel = array<i32: k, v>`, two uses a
// tile in that order.
//
// One slot, not a ring: the next tile's block can be copied only after the
// consumers are done with this tile's, which leaves the copy the time
// between that release and the block's first use (Q: the last P V product
// and the epilogue) and costs no shared memory beyond the consumers' own
// load.
//
//===----------------------------------------------------------------------===//

#include "TaskPartition.h"
#include "../TMAUtility.h"

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUWSBUFFERALLOCATION
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

int ws::getNumBuffers(ModuleOp module, int option) {
  if (option > 0)
    return option;
  return getNumBuffersWarpSpec(module) > 0 ? getNumBuffersWarpSpec(module)
                                           : getNumStages(module);
}

LogicalResult ws::runBufferAllocation(ModuleOp module, int numBuffers) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kLoopMark))
      loops.push_back(loop);
  });
  if (loops.empty())
    return success();
  if (numBuffers < 1) {
    loops.front().emitError("warp specialization needs at least one "
                            "buffer per operand, got num-buffers = ")
        << numBuffers;
    return failure();
  }
  ModuleAxisInfoAnalysis axisInfo(module);
  // A kernel's loops in a row (tilegpu-ws-task-partition checked that
  // their operands fill the same rings) share the first one's channel.
  DenseSet<Operation *> withChannel;
  for (scf::ForOp loop : loops) {
    FailureOr<Plan> plan = getMarkedPlan(loop, axisInfo);
    if (failed(plan))
      return failure();
    MLIRContext *ctx = loop.getContext();
    Location loc = loop.getLoc();
    auto func = loop->getParentOfType<FunctionOpInterface>();
    OpBuilder b = OpBuilder::atBlockBegin(&func.getFunctionBody().front());
    // A block copied once per tile: one buffer, one slot, used once per
    // tile (the producer refills it for the next tile once the consumers
    // have released it).
    //
    // A block read only by products ahead of the loop, copied before it
    // (a peeled first K block), and a block of the same type copied after
    // it (the rotated loop's last V) share one slot: the consumers release
    // the first before the loop starts and wait for the second after it
    // ends, so the slot is used twice a tile, in that order (the channel's
    // mark lists both, in the order of their uses).  Each would otherwise
    // need a buffer of its own (32 KiB at D128 beside the 230 KiB the
    // persistent attention already takes).
    SmallVector<TileOperand *> pending;
    for (TileOperand &tile : plan->tileOperands)
      pending.push_back(&tile);
    auto typeOf = [](TileOperand *tile) {
      return getTMABufferType(
          tile->load.descLoad.getDesc().getType().getBlockType(), 1);
    };
    // Every product reading it is ahead of the loop, so the consumers
    // release it before the loop starts (a block also read in or after the
    // loop is released after it, and the producer, waiting for that
    // release to copy the second block, would wait for the consumers
    // waiting for the second block).
    Block *scope = plan->loop->getBlock();
    auto usedUpBeforeLoop = [&](TileOperand *tile) {
      for (Operation *user : tile->load.alloc->getUsers()) {
        Operation *inScope = scope->findAncestorOpInBlock(*user);
        if (!inScope || !inScope->isBeforeInBlock(plan->loop))
          return false;
      }
      return true;
    };
    while (!pending.empty()) {
      TileOperand *first = pending.front();
      pending.erase(pending.begin());
      SmallVector<TileOperand *, 2> uses{first};
      if (first->beforeLoop && usedUpBeforeLoop(first)) {
        auto partner = llvm::find_if(pending, [&](TileOperand *other) {
          return !other->beforeLoop && typeOf(other) == typeOf(first);
        });
        if (partner != pending.end()) {
          uses.push_back(*partner);
          pending.erase(partner);
        }
      }
      Value buffer = LocalAllocOp::create(b, loc, typeOf(first), Value());
      auto channel = CreateChannelOp::create(b, loc, ChannelType::get(ctx, 1),
                                             ValueRange{buffer});
      if (uses.size() == 1) {
        channel->setAttr(kTileChannelMark,
                         first->load.descLoad->getAttr(kTileOperandMark));
      } else {
        SmallVector<int32_t> indices;
        for (TileOperand *use : uses)
          indices.push_back(
              use->load.descLoad->getAttrOfType<IntegerAttr>(kTileOperandMark)
                  .getInt());
        channel->setAttr(kTileChannelMark, b.getDenseI32ArrayAttr(indices));
      }
    }
    if (!withChannel.insert(func).second)
      continue;
    SmallVector<Value> rings;
    for (auto [operand, block] : llvm::zip(plan->operands, plan->blocks)) {
      MemDescType ring;
      if (operand.isTMA()) {
        ring = getTMABufferType(
            operand.descLoad.getDesc().getType().getBlockType(), numBuffers);
      } else if (block) {
        ring = getTMABufferType(block->blockType, numBuffers);
      } else {
        MemDescType want = operand.alloc.getType();
        ring = MemDescType::get(ctx, want.getShape(), want.getElementType(),
                                want.getEncoding(), /*isMutable=*/true,
                                numBuffers);
      }
      rings.push_back(LocalAllocOp::create(b, loc, ring, Value()));
    }
    auto channel = CreateChannelOp::create(
        b, loc, ChannelType::get(ctx, numBuffers), rings);
    channel->setAttr(kChannelMark, b.getUnitAttr());
  }
  return success();
}

namespace {

struct BufferAllocationPass
    : public tilegpu::impl::TileGPUWSBufferAllocationBase<
          BufferAllocationPass> {
  using TileGPUWSBufferAllocationBase::TileGPUWSBufferAllocationBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int buffers = ws::getNumBuffers(module, numBuffers);
    if (failed(ws::runBufferAllocation(module, buffers)))
      signalPassFailure();
  }
};

} // namespace
