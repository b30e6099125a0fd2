//===- CodePartition.cpp - Producer and consumer warps for a product loop -===//
//
// tilegpu-ws-code-partition (see TaskPartition.h for the three steps).  A
// loop tilegpu-ws-task-partition marked, with the channel
// tilegpu-ws-buffer-allocation made for it,
//
//   %ch = create_channel %ra, %rb
//   scf.for %k {
//     %a = tile.descriptor_load %da[%m, %k * BK] {tilegpu.ws.operand = 0}
//     %b = tile.descriptor_load %db[%n, %k * BK] {tilegpu.ws.operand = 1}
//     %sa = tilegpu.local_alloc %a ; %sb = tilegpu.local_alloc (trans %b)
//     %acc' = tilegpu.warp_group_dot %sa, %sb, %acc ; wait {pendings = 0}
//   } {tilegpu.ws.loop}
//   epilogue
//
// becomes
//
//   tilegpu.warp_specialize(%ch, captured arguments...)
//   default {                       the kernel's warps: consumers
//     scf.for %k iter_args(%c = 0) {
//       %a, %b = channel_wait %ch, %c
//       %acc' = warp_group_dot %a, (memdesc_trans %b), %acc ; wait 0
//       channel_release %ch, %c
//     }
//     epilogue
//   }
//   partition0(...) num_warps(4) {  one more warpgroup: the producer
//     scf.for %k iter_args(%c = 0) {
//       (the loads' address math, cloned)
//       channel_acquire %ch, %c
//       channel_tma_load %ch[%c] %da[...] -> 0 ; ... -> 1
//       channel_commit %ch, %c
//     }
//   }
//
// The whole kernel body moves into the default region, so the producer's
// warps never run code laid out for the consumers' warps; what the
// producer needs is cloned into its partition from the kernel's arguments
// (scalar, side-effect-free ops, tensors re-laid on its 4 warps).  Both
// loops count their uses of the channel, from which
// tilegpu-lower-channels derives slot and phase; in a persistent kernel
// the count runs on across tiles, so the producer runs ahead into the next
// tile while the consumers finish this one's epilogue.
//
// A slot is released after the wait for the products that read it (the
// loop's `warp_group_dot_wait {pendings = 0}` retires them), never before:
// releasing earlier lets the producer overwrite a buffer wgmma still
// reads.  Data partition among consumer warpgroups is the wgmma layout's:
// its warps split the tile's rows.
//
//===----------------------------------------------------------------------===//

#include "TaskPartition.h"
#include "../TMAUtility.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUWSCODEPARTITION
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;
using namespace warpforge::tilegpu::ws;

namespace {

/// Per-thread registers for the producer and each consumer warpgroup:
/// their sum over the CTA's warpgroups stays within the 512 registers per
/// thread-slot of a warpgroup that the SM's 64K allow (setmaxnreg.inc
/// over-subscribed deadlocks), consumers capped at 248 (the most a kernel's
/// .maxnreg can start from in steps of 8).
std::pair<int32_t, int32_t> registerSplit(int consumerGroups) {
  int32_t producer = consumerGroups <= 2 ? 40 : 32;
  int32_t consumer = (512 - producer) / consumerGroups / 8 * 8;
  return {producer, std::min<int32_t>(consumer, 248)};
}

Value createI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

/// Erases the ops of `block` nothing uses, from its end (users go before
/// what they use, so chains go in one sweep).
void eraseDeadOps(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

/// The same in every block of `region`, innermost first.
void eraseDeadOps(Region &region) {
  SmallVector<Block *> blocks;
  region.walk<WalkOrder::PostOrder>([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks)
    eraseDeadOps(*block);
}

/// Clones address math into the producer partition, its tensors re-laid
/// on the producer's warps (getProducerType; collectSlice checked that
/// every one has a counterpart).
Operation *cloneForProducer(OpBuilder &b, Operation *op, IRMapping &map) {
  Operation *clone = b.clone(*op, map);
  for (Value result : clone->getResults())
    result.setType(getProducerType(result.getType()));
  if (auto constant = dyn_cast<arith::ConstantOp>(clone))
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
      constant.setValueAttr(
          dense.reshape(cast<ShapedType>(constant.getType())));
  return clone;
}

/// `loop` without the iter_args at `drop` (each yielding itself, its
/// result unused).
scf::ForOp eraseIterArgs(RewriterBase &rewriter, scf::ForOp loop,
                         const SetVector<unsigned> &drop) {
  if (drop.empty())
    return loop;
  SmallVector<Value> inits;
  for (auto [i, init] : llvm::enumerate(loop.getInitArgs()))
    if (!drop.contains(i))
      inits.push_back(init);
  rewriter.setInsertionPoint(loop);
  auto newLoop =
      scf::ForOp::create(rewriter, loop.getLoc(), loop.getLowerBound(),
                         loop.getUpperBound(), loop.getStep(), inits);
  newLoop->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  Block *newBody = newLoop.getBody();
  if (!newBody->empty())
    rewriter.eraseOp(&newBody->back());
  SmallVector<Value> argValues{newLoop.getInductionVar()};
  unsigned k = 0;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
    argValues.push_back(drop.contains(i) ? loop.getInitArgs()[i]
                                         : newLoop.getRegionIterArgs()[k++]);
  rewriter.mergeBlocks(loop.getBody(), newBody, argValues);
  auto yield = cast<scf::YieldOp>(newBody->getTerminator());
  SmallVector<Value> yields;
  for (auto [i, value] : llvm::enumerate(yield.getOperands()))
    if (!drop.contains(i))
      yields.push_back(value);
  rewriter.setInsertionPoint(yield);
  rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yields);
  k = 0;
  for (auto [i, result] : llvm::enumerate(loop.getResults()))
    if (!drop.contains(i))
      rewriter.replaceAllUsesWith(result, newLoop.getResult(k++));
  rewriter.eraseOp(loop);
  return newLoop;
}
void specialize(Plan &plan, CreateChannelOp channelOp, int numWarps,
                bool remarks) {
  scf::ForOp loop = plan.loop;
  Location loc = loop.getLoc();
  auto func = loop->getParentOfType<FunctionOpInterface>();
  Block &entry = func.getFunctionBody().front();
  MLIRContext *ctx = loop.getContext();
  IRRewriter rewriter(ctx);
  OpBuilder b(ctx);

  // The channel and its rings, from tilegpu-ws-buffer-allocation.
  channelOp->removeAttr(kChannelMark);
  Value channel = channelOp.getResult();
  SmallVector<Value> rings(channelOp->getOperands());
  int64_t numBuffers = cast<ChannelType>(channel.getType()).getNumBuffers();
  bool pointerCopies = false;
  for (unsigned i = 0; i < plan.operands.size(); ++i)
    pointerCopies |= getCopyKind(plan, i) == "cp.async";
  b.setInsertionPointAfter(channelOp);

  // The warp_specialize op takes the rest of the kernel body.
  auto ws = WarpSpecializeOp::create(
      b, loc, ValueRange(), b.getDenseI32ArrayAttr({kProducerWarps}),
      /*requestedRegisters=*/nullptr, /*defaultRegisters=*/nullptr,
      /*partitionRegionsCount=*/1);
  // Registers move only when the even share (what every thread starts
  // with, FuncOpToLLVM's .maxnreg) is short of what the consumers get:
  // setmaxnreg.inc below the current count is not allowed.
  int evenShare = std::min(248, 65536 / ((numWarps + kProducerWarps) * 32) / 8 * 8);
  // A cp.async producer keeps the even share: it holds its copies' 64-bit
  // addresses and masks in registers (a 128x64 tile over 128 threads is
  // eight vector addresses a thread, carried across iterations), which a
  // TMA producer's 40 registers cannot take.
  if (numWarps % 4 == 0 && !pointerCopies) {
    auto [producerRegs, consumerRegs] = registerSplit(numWarps / 4);
    if (consumerRegs > evenShare) {
      ws.setRequestedRegistersAttr(b.getDenseI32ArrayAttr({producerRegs}));
      ws.setDefaultRegistersAttr(b.getI32IntegerAttr(consumerRegs));
    }
  }
  if (remarks) {
    // The plan, for a reader of the pass: each operand's copy, what the
    // producer carries, the slots and the registers.
    InFlightDiagnostic remark = loop.emitRemark("warp-specialized:");
    for (auto [i, operand, block] :
         llvm::enumerate(plan.operands, plan.blocks))
      remark << " operand " << i << " "
             << (operand.isTMA() ? "tma" : block ? "tma-block" : "cp.async")
             << ";";
    remark << " producer carries [";
    llvm::interleaveComma(plan.producerCarried, remark);
    remark << "]; " << numBuffers << " slots; registers ";
    if (auto requested = ws.getRequestedRegistersAttr())
      remark << requested[0] << "/" << ws.getDefaultRegistersAttr().getInt();
    else
      remark << "unmoved";
  }
  Block *defaultBlock = b.createBlock(&ws.getDefaultRegion());
  Operation *terminator = entry.getTerminator();
  defaultBlock->getOperations().splice(
      defaultBlock->end(), entry.getOperations(),
      std::next(Block::iterator(ws)), Block::iterator(terminator));
  b.setInsertionPointToEnd(defaultBlock);
  WarpYieldOp::create(b, loc);

  // Every region is isolated: the captures are the channel, what the
  // producer needs and whatever the default region uses from outside.
  SetVector<Value> captureSet;
  captureSet.insert(channel);
  captureSet.insert(plan.captures.begin(), plan.captures.end());
  ws.getDefaultRegion().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!ws->isAncestor(operand.getParentRegion()->getParentOp()))
        captureSet.insert(operand);
  });
  SmallVector<Value> captures(captureSet.begin(), captureSet.end());
  ws->setOperands(captures);
  for (Value capture : captures) {
    BlockArgument arg = defaultBlock->addArgument(capture.getType(), loc);
    capture.replaceUsesWithIf(arg, [&](OpOperand &use) {
      return ws.getDefaultRegion().isAncestor(
          use.getOwner()->getParentRegion());
    });
  }
  // What the consumers now call the channel.
  Value consumerChannel = defaultBlock->getArgument(0);

  // The producer: the captured arguments, the slices cloned, one copy of
  // each operand per iteration.
  Region &producerRegion = ws.getPartitionRegions()[0];
  Block *producer = b.createBlock(&producerRegion);
  IRMapping map;
  // The slices now live in the default region, on its arguments.
  for (auto [capture, inDefault] :
       llvm::zip(captures, defaultBlock->getArguments())) {
    BlockArgument arg = producer->addArgument(capture.getType(), loc);
    map.map(capture, arg);
    map.map(inDefault, arg);
  }
  for (Operation *op : plan.outerSlice)
    cloneForProducer(b, op, map);
  Value zero = createI32(b, loc, 0), one = createI32(b, loc, 1);
  // The tensor maps of the pointer loads that are blocks: the matrix's
  // base and row stride, dimensions as large as the TMA takes (the loads
  // are unmasked: no bound to enforce).
  SmallVector<Value> blockMaps(plan.operands.size());
  for (auto [i, block] : llvm::enumerate(plan.blocks)) {
    if (!block)
      continue;
    Type i64 = b.getI64Type();
    Value stride =
        block->stride.isConstant()
            ? arith::ConstantIntOp::create(b, loc, block->stride.constant, 64)
                  .getResult()
            : map.lookup(block->stride.value);
    if (stride.getType() != i64)
      stride = arith::ExtSIOp::create(b, loc, i64, stride);
    Value largest = createI32(b, loc, std::numeric_limits<int32_t>::max());
    auto make = tile::MakeTensorDescriptorOp::create(
        b, loc, tile::TensorDescType::get(ctx, block->blockType),
        map.lookup(block->base), ValueRange{largest, largest},
        ValueRange{stride, arith::ConstantIntOp::create(b, loc, 1, 64)});
    // The runtime provides its global scratch when the user set no
    // allocator: the kernel's source made no descriptor.
    make->setAttr(tilegpu::attr::kSynthesizedMap, b.getUnitAttr());
    blockMaps[i] = make;
  }
  // Body ops that advance the pointers the maps replace: not the
  // producer's.
  DenseSet<Operation *> notProducers;
  {
    SmallVector<Value> worklist;
    for (std::optional<PointerBlock> &block : plan.blocks)
      if (block)
        worklist.push_back(loop.getRegionIterArgs()[block->iterArg]);
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers())
        if (notProducers.insert(user).second)
          llvm::append_range(worklist, user->getResults());
    }
  }
  Value pch = map.lookup(channel);
  // The product loop of the producer, counting from `start`.
  // The product loop of the producer, counting from `start` and carrying
  // the pointers it advances.
  Operation *loopYield = loop.getBody()->getTerminator();
  auto lookupOrNull = [&](Value v) { return v ? map.lookup(v) : Value(); };
  auto buildProducerLoop = [&](OpBuilder &pb, Value start) {
    SmallVector<Value> inits{start};
    for (unsigned index : plan.producerCarried)
      inits.push_back(map.lookup(loop.getInitArgs()[index]));
    auto producerLoop = scf::ForOp::create(
        pb, loc, map.lookup(loop.getLowerBound()),
        map.lookup(loop.getUpperBound()), map.lookup(loop.getStep()), inits,
        [&](OpBuilder &lb, Location, Value iv, ValueRange args) {
          map.map(loop.getInductionVar(), iv);
          for (auto [k, index] : llvm::enumerate(plan.producerCarried))
            map.map(loop.getRegionIterArgs()[index], args[1 + k]);
          Value count = args[0];
          for (Operation *op : plan.innerSlice)
            if (!notProducers.contains(op))
              cloneForProducer(lb, op, map);
          // Iteration t of the loop reads block t of each map: its
          // coordinates from the first block's and the steps.
          Value t = arith::DivSIOp::create(
              lb, loc,
              arith::SubIOp::create(lb, loc, iv,
                                    map.lookup(loop.getLowerBound())),
              map.lookup(loop.getStep()));
          auto coordinate = [&](const ScalarTerm &first, int64_t step) {
            Value start = first.isConstant()
                              ? createI32(lb, loc, first.constant)
                              : map.lookup(first.value);
            if (step == 0)
              return start;
            return arith::AddIOp::create(
                       lb, loc, start,
                       arith::MulIOp::create(lb, loc, t,
                                             createI32(lb, loc, step)))
                .getResult();
          };
          ChannelAcquireOp::create(lb, loc, pch, count);
          for (auto [i, operand] : llvm::enumerate(plan.operands)) {
            if (operand.isTMA()) {
              tile::DescriptorLoadOp load = operand.descLoad;
              SmallVector<Value> indices;
              for (Value index : load.getIndices())
                indices.push_back(map.lookup(index));
              ChannelTMALoadOp::create(lb, load.getLoc(), pch, count,
                                       map.lookup(load.getDesc()), indices,
                                       lb.getI32IntegerAttr(i));
            } else if (std::optional<PointerBlock> &block = plan.blocks[i]) {
              ChannelTMALoadOp::create(
                  lb, operand.load.getLoc(), pch, count, blockMaps[i],
                  ValueRange{coordinate(block->row, block->rowStep),
                             coordinate(block->col, block->colStep)},
                  lb.getI32IntegerAttr(i));
            } else {
              tile::LoadOp load = operand.load;
              ChannelAsyncCopyOp::create(
                  lb, load.getLoc(), pch, count, map.lookup(load.getPtr()),
                  lookupOrNull(load.getMask()), lookupOrNull(load.getOther()),
                  lb.getI32IntegerAttr(i));
            }
          }
          ChannelCommitOp::create(lb, loc, pch, count);
          SmallVector<Value> yields{
              arith::AddIOp::create(lb, loc, count, one).getResult()};
          for (unsigned index : plan.producerCarried)
            yields.push_back(map.lookup(loopYield->getOperand(index)));
          scf::YieldOp::create(lb, loc, yields);
        });
    producerLoop->setAttr("tilegpu.partition", pb.getStringAttr("producer"));
    return producerLoop;
  };
  Operation *producerLoop;
  if (scf::ForOp tileLoop = plan.tileLoop) {
    // Persistent: the producer walks the tiles too, with one count across
    // them, so it runs ahead into the next tile while the consumers finish
    // this one's epilogue (what flattening the loops does without warp
    // specialization).
    auto producerTiles = scf::ForOp::create(
        b, loc, map.lookup(tileLoop.getLowerBound()),
        map.lookup(tileLoop.getUpperBound()), map.lookup(tileLoop.getStep()),
        ValueRange{zero},
        [&](OpBuilder &tb, Location, Value iv, ValueRange args) {
          map.map(tileLoop.getInductionVar(), iv);
          for (Operation *op : plan.tileSlice)
            cloneForProducer(tb, op, map);
          scf::ForOp inner = buildProducerLoop(tb, args[0]);
          scf::YieldOp::create(tb, loc, inner.getResults().take_front(1));
        });
    producerTiles->setAttr("tilegpu.partition",
                           b.getStringAttr("producer-tiles"));
    producerLoop = producerTiles;
  } else {
    producerLoop = buildProducerLoop(b, zero);
  }
  b.setInsertionPointAfter(producerLoop);
  WarpReturnOp::create(b, loc);
  // Address math cloned for pointers the maps replaced.
  eraseDeadOps(producerRegion);

  // The consumers: the loop counts its uses of the channel, waits for each
  // slot, reads its buffers in place and releases it after the products'
  // wait.
  b.setInsertionPoint(plan.tileLoop ? plan.tileLoop.getOperation()
                                     : loop.getOperation());
  Value consumerZero = createI32(b, loc, 0);
  auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      rewriter, ValueRange{consumerZero}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &yb, Location yloc, ArrayRef<BlockArgument> newArgs) {
        return SmallVector<Value>{
            arith::AddIOp::create(yb, yloc, newArgs[0], createI32(yb, yloc, 1))
                .getResult()};
      }));
  newLoop->setAttr("tilegpu.partition", b.getStringAttr("consumer"));
  newLoop->removeAttr(kLoopMark);
  // Where the carried pointers' first values are computed.
  Block *scope = defaultBlock;
  if (scf::ForOp tileLoop = plan.tileLoop) {
    // The tile loop carries the count from one tile's product loop to the
    // next's.
    auto newTiles = cast<scf::ForOp>(*tileLoop.replaceWithAdditionalYields(
        rewriter, ValueRange{consumerZero},
        /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{newLoop.getResults().back()};
        }));
    newLoop.getInitArgsMutable()[newLoop.getInitArgs().size() - 1].set(
        newTiles.getRegionIterArgs().back());
    scope = newTiles.getBody();
    newTiles->setAttr("tilegpu.partition",
                      b.getStringAttr("consumer-tiles"));
  }
  Value count = newLoop.getRegionIterArgs().back();
  Block *body = newLoop.getBody();
  // The wait goes where the first operand was loaded.
  Operation *first = plan.operands.front().getLoadOp();
  for (PipelinedLoad &operand : plan.operands)
    if (operand.getLoadOp()->isBeforeInBlock(first))
      first = operand.getLoadOp();
  b.setInsertionPoint(first);
  SmallVector<Type> slotTypes;
  for (Value ring : rings)
    slotTypes.push_back(cast<MemDescType>(ring.getType()).getSingleBuffer());
  auto wait = ChannelWaitOp::create(b, loc, slotTypes, consumerChannel, count);
  for (auto [operand, slot] : llvm::zip(plan.operands, wait.getBuffers())) {
    Value buffer = slot;
    if (operand.transposed) {
      b.setInsertionPoint(operand.alloc);
      MemDescType want = operand.alloc.getType();
      buffer = MemDescTransOp::create(
          b, operand.alloc.getLoc(),
          MemDescType::get(ctx, want.getShape(), want.getElementType(),
                           want.getEncoding(), /*isMutable=*/true, 1),
          buffer);
    }
    operand.alloc.getResult().replaceAllUsesWith(buffer);
    operand.alloc.erase();
    for (Operation *op : llvm::reverse(operand.chain))
      if (op->use_empty())
        op->erase();
    if (operand.getLoadOp()->use_empty())
      operand.getLoadOp()->erase();
  }
  b.setInsertionPointAfter(plan.lastWait);
  ChannelReleaseOp::create(b, loc, consumerChannel, count);
  // The pointers the producer now advances: each yields itself, so that
  // their chains die below and the iter_args can go.
  Operation *consumerYield = body->getTerminator();
  for (unsigned index : plan.carried)
    consumerYield->setOperand(index, newLoop.getRegionIterArgs()[index]);
  // The consumers no longer compute the loads' addresses.
  eraseDeadOps(*body);
  eraseIterArgs(rewriter, newLoop, plan.carried);
  // Descriptors only the producer uses: it made its own.
  for (Operation *op : plan.outerSlice)
    if (isa<tile::MakeTensorDescriptorOp>(op) && op->use_empty())
      op->erase();
  // ... and what computed their first values.
  eraseDeadOps(*scope);
}

} // namespace

LogicalResult ws::runCodePartition(ModuleOp module, bool remarks) {
  // Every loop is analyzed before any is rewritten: the axis analysis
  // describes the module as it was.
  ModuleAxisInfoAnalysis axisInfo(module);
  SmallVector<std::pair<Plan, CreateChannelOp>, 1> work;
  WalkResult walk = module.walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kLoopMark))
      return WalkResult::advance();
    FailureOr<Plan> plan = getMarkedPlan(loop, axisInfo);
    if (failed(plan))
      return WalkResult::interrupt();
    CreateChannelOp channel;
    loop->getParentOfType<FunctionOpInterface>().walk(
        [&](CreateChannelOp op) {
          if (op->hasAttr(kChannelMark))
            channel = op;
        });
    if (!channel) {
      loop.emitError("no channel for this loop's producer: run "
                     "tilegpu-ws-buffer-allocation first");
      return WalkResult::interrupt();
    }
    if (channel.getNumOperands() != plan->operands.size()) {
      loop.emitError("the channel has ")
          << channel.getNumOperands() << " rings for "
          << plan->operands.size() << " operands";
      return WalkResult::interrupt();
    }
    work.emplace_back(std::move(*plan), channel);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[plan, channel] : work)
    specialize(plan, channel, getNumWarps(module), remarks);
  return success();
}

namespace {

struct CodePartitionPass
    : public tilegpu::impl::TileGPUWSCodePartitionBase<CodePartitionPass> {
  using TileGPUWSCodePartitionBase::TileGPUWSCodePartitionBase;

  void runOnOperation() override {
    if (failed(ws::runCodePartition(getOperation(), remarks)))
      signalPassFailure();
  }
};

} // namespace
