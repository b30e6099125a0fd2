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
//       %acc' = warp_group_dot %a, (memdesc_trans %b), %acc ; wait 1
//       scf.if %c != %c0 { channel_release %ch, %c - 1 }
//     }
//     wait 0 ; scf.if (the loop ran) { channel_release %ch, last - 1 }
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
// Blocks loaded once a tile (tile operands, TaskPartition.h: attention's Q
// and last V) go through one-slot channels of their own: the producer
// acquires, copies and commits each where the tile's code has it (before
// or after its loop's blocks), the consumers wait for it where it was
// loaded and release it once no product reads it, and both count one use
// a tile: the tile's index, (tile - lower) / step, 0 without a tile loop.
// The producer copies tile t+1's Q as soon as the consumers' K/V loop of
// tile t is over, so the copy lands under the tile's last products and
// epilogue, with no CTA barrier among the consumers (their loads needed
// one before refilling a buffer other warpgroups may still read).
//
// A slot is released after the wait for the products that read it, never
// before: releasing earlier lets the producer overwrite a buffer wgmma
// still reads.  Where the loop's one product is only carried, its wait
// keeps that product in flight (pendings = 1) and retires the previous
// iteration's, whose slot is then released (deferRelease); otherwise the
// wait retires everything (pendings = 0) and the slot just read goes back.
// Data partition among consumer warpgroups is the wgmma layout's: its
// warps split the tile's rows.  A loop of several products (attention)
// has its warpgroups take turns issuing each one (takeTurnsAtProducts).
//
// Ping-pong (the module's tilegpu.ping-pong; CUTLASS's
// KernelTmaWarpSpecializedPingpong): the kernel's layouts are one consumer
// group's, and a second group, a partition of as many warps, runs a copy
// of the default region.  Each group takes every other tile of the
// persistent loop (group g: tiles start + g * step, step 2 * step) and its
// channel count starts at g times the product loop's trip count and skips
// the other group's tile after each of its own, so both read the slots
// the producer fills in tile order.  The groups take turns at the tensor
// cores on two named barriers: group g waits on its own before its product
// loop and arrives on the other's after it, so one group's epilogue runs
// under the other's products.  Group 1 arrives on group 0's barrier once
// before its tile loop: without that first arrival group 0's first wait
// never completes.  Ping-pong declines, leaving one cooperative group of
// num-warps warps and a warning, when the kernel has no persistent tile
// loop directly around the product loop, the tile loop carries values, the
// product loop's trip count can change from tile to tile, or code outside
// the tile loop writes memory (both groups would run it).
//
//===----------------------------------------------------------------------===//

#include "TaskPartition.h"
#include "../TMAUtility.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUWSCODEPARTITION
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;
using namespace warpforge::tilegpu::ws;

namespace {

/// Per-thread registers for the producer warpgroup and each of
/// `consumerGroups` consumer warpgroups, out of the `pool` registers the
/// CTA starts with (every thread's even share, FuncOpToLLVM's .maxnreg,
/// times the threads): setmaxnreg.inc only takes registers that
/// setmaxnreg.dec gave back, so requests beyond the pool wait forever.
/// The pool is not always the SM's 64K: 640 threads (four consumer
/// warpgroups and the producer) start with 96 registers each, 61440 in
/// all, and a split of the 64K (120 and 32) hung on the H100. Consumers
/// are capped at 248 (the most a kernel's .maxnreg can start from in steps
/// of 8).
std::pair<int32_t, int32_t> registerSplit(int consumerGroups, int64_t pool) {
  int32_t producer = consumerGroups <= 2 ? 40 : 32;
  int64_t consumer = (pool - 128 * producer) / (128 * consumerGroups) / 8 * 8;
  return {producer, int32_t(std::min<int64_t>(consumer, 248))};
}

Value createI32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

/// `value` (an index or integer of a loop's bounds) as the i32 the
/// channels count in.
Value castToI32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType(), i32 = b.getI32Type();
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, i32, value);
  if (type.getIntOrFloatBitWidth() > 32)
    return arith::TruncIOp::create(b, loc, i32, value);
  if (type.getIntOrFloatBitWidth() < 32)
    return arith::ExtSIOp::create(b, loc, i32, value);
  return value;
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
/// Registers for the producer and the consumer groups of `ws`, whose
/// default region runs `numWarps` warps (one group's, or all the groups'
/// of a cooperative kernel): set when the even share (what every thread
/// starts with, FuncOpToLLVM's .maxnreg) is short of what the consumers
/// get, since setmaxnreg.inc below the current count is not allowed.  A
/// cp.async producer keeps the even share: it holds its copies' 64-bit
/// addresses and masks in registers (a 128x64 tile over 128 threads is
/// eight vector addresses a thread, carried across iterations), which a
/// TMA producer's 40 registers cannot take.
void assignRegisters(WarpSpecializeOp ws, int numWarps, bool pointerCopies) {
  ArrayRef<int32_t> partitionWarps = ws.getPartitionNumWarps();
  int consumerWarps = numWarps;
  for (int32_t warps : partitionWarps.drop_front())
    consumerWarps += warps;
  int totalWarps = numWarps + ws.getTotalPartitionWarps();
  int evenShare = std::min(248, 65536 / (totalWarps * 32) / 8 * 8);
  if (numWarps % 4 != 0 || pointerCopies)
    return;
  auto [producerRegs, consumerRegs] =
      registerSplit(consumerWarps / 4, int64_t(totalWarps) * 32 * evenShare);
  if (consumerRegs <= evenShare)
    return;
  SmallVector<int32_t> requested{producerRegs};
  requested.resize(partitionWarps.size(), consumerRegs);
  Builder b(ws.getContext());
  ws.setRequestedRegistersAttr(b.getDenseI32ArrayAttr(requested));
  ws.setDefaultRegistersAttr(b.getI32IntegerAttr(consumerRegs));
}

/// Whether `op` (or an op nested in it) may write memory.
bool writesMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (auto iface = dyn_cast<MemoryEffectOpInterface>(nested)) {
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (const MemoryEffects::EffectInstance &effect : effects)
        if (!isa<MemoryEffects::Read>(effect.getEffect()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        nested->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

/// The loop of `block` (directly in it) with partition mark `mark`.
scf::ForOp findPartitionLoop(Block &block, StringRef mark) {
  for (Operation &op : block)
    if (auto loop = dyn_cast<scf::ForOp>(op))
      if (auto attr = loop->getAttrOfType<StringAttr>("tilegpu.partition"))
        if (attr.getValue() == mark)
          return loop;
  return nullptr;
}

/// What iter_arg `i` of `loop` adds to itself each iteration when that is
/// the same in every iteration (`tile_id_c += NUM_SMS`), else null.
Value getAdvance(scf::ForOp loop, unsigned i) {
  Value arg = loop.getRegionIterArgs()[i];
  Value next = loop.getBody()->getTerminator()->getOperand(i);
  auto add = next.getDefiningOp<arith::AddIOp>();
  if (!add)
    return nullptr;
  Value step = add.getLhs() == arg   ? add.getRhs()
               : add.getRhs() == arg ? add.getLhs()
                                     : Value();
  return step && loop.isDefinedOutsideOfLoop(step) ? step : nullptr;
}

/// Why the consumers of `ws` cannot split into ping-pong groups, or "".
std::string pingPongObstacle(WarpSpecializeOp ws) {
  Block &block = ws.getDefaultRegion().front();
  scf::ForOp tiles = findPartitionLoop(block, "consumer-tiles");
  if (!tiles)
    return "the kernel has no persistent tile loop (the groups take every "
           "other tile)";
  scf::ForOp products = findPartitionLoop(*tiles.getBody(), "consumer");
  if (!products)
    return "the loop of products is not directly in the tile loop";
  // The count is the last iter_arg; the others must advance by the same
  // step every tile, so that a group skipping a tile can add it twice.
  for (unsigned i = 0; i + 1 < tiles.getNumRegionIterArgs(); ++i)
    if (!getAdvance(tiles, i))
      return "the tile loop carries a value that does not advance "
             "by a fixed step from one tile to the next, and each group runs "
             "only every other tile";
  for (Value bound : {products.getLowerBound(), products.getUpperBound(),
                      products.getStep()})
    if (!tiles.isDefinedOutsideOfLoop(bound))
      return "the loop of products runs a different number of "
             "times from tile to tile";
  for (Operation &op : block)
    if (&op != tiles.getOperation() && writesMemory(&op))
      return "code outside the tile loop writes memory, which "
             "both groups would run";
  return "";
}

/// Makes the consumers of group `group` in `region` (a copy of the default
/// region) take every other tile and their turn at the tensor cores (see
/// the file's comment).
void takeTurns(Region &region, int group, int32_t firstBarrier,
               int32_t threads) {
  Block &block = region.front();
  scf::ForOp tiles = findPartitionLoop(block, "consumer-tiles");
  scf::ForOp products = findPartitionLoop(*tiles.getBody(), "consumer");
  Location loc = tiles.getLoc();
  OpBuilder b(tiles);
  Value step = tiles.getStep();
  if (group == 1)
    tiles.getLowerBoundMutable().assign(
        arith::AddIOp::create(b, loc, tiles.getLowerBound(), step));
  tiles.getStepMutable().assign(arith::MulIOp::create(
      b, loc, step,
      arith::ConstantIntOp::create(b, loc, step.getType(), 2)));
  // The product loop's trip count, the same in every tile:
  // max((upper - lower + step - 1) / step, 0), scf.for's step being
  // positive.  Not arith.ceildivsi, which the lowering to LLVM does not
  // take (a run-time bound with a step other than 1 failed to legalize).
  Value lower = products.getLowerBound(), upper = products.getUpperBound(),
        kStep = products.getStep();
  Type type = lower.getType();
  Value zero = arith::ConstantIntOp::create(b, loc, type, 0);
  Value one = arith::ConstantIntOp::create(b, loc, type, 1);
  Value span = arith::AddIOp::create(
      b, loc, arith::SubIOp::create(b, loc, upper, lower),
      arith::SubIOp::create(b, loc, kStep, one));
  Value trips = arith::MaxSIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, span, kStep), zero);
  trips = castToI32(b, loc, trips);
  // Values the tile loop advances by a step every tile: group 1 starts one
  // step on, and each group adds the other's step too.
  unsigned count = tiles.getNumRegionIterArgs() - 1;
  Operation *yield = tiles.getBody()->getTerminator();
  OpBuilder yb(yield);
  for (unsigned i = 0; i < count; ++i) {
    Value advance = getAdvance(tiles, i);
    if (group == 1)
      tiles.getInitArgsMutable()[i].assign(arith::AddIOp::create(
          b, loc, tiles.getInitArgs()[i], advance));
    yield->setOperand(i, arith::AddIOp::create(yb, loc, yield->getOperand(i),
                                               advance));
  }
  tiles.getInitArgsMutable()[count].assign(
      group == 0 ? createI32(b, loc, 0) : trips);
  // After each of its tiles, the count skips the other group's.
  yield->setOperand(count, arith::AddIOp::create(
                               yb, loc, yield->getOperand(count), trips));
  tiles->setAttr("tilegpu.consumer-group", b.getI32IntegerAttr(group));
  // Turns: wait for this group's, then hand the other group its.
  OpBuilder tb(products);
  NamedBarrierWaitOp::create(tb, loc, firstBarrier + group, threads);
  tb.setInsertionPointAfter(products);
  NamedBarrierArriveOp::create(tb, loc, firstBarrier + 1 - group, threads);
  if (group == 1)
    NamedBarrierArriveOp::create(b, loc, firstBarrier, threads);
}

/// Keeps one group of products in flight across the consumer loop's
/// iterations (the non-specialized pipeline's `pendings = 1`): each
/// iteration's wait lets its own products run on and retires the previous
/// iteration's, so the slot released is the previous one (count - 1), from
/// the second iteration on; after the loop a full wait retires the last
/// products and releases their slot if the loop ran.  Without this every
/// iteration drains the tensor cores before issuing the next products,
/// which one cooperative pair of warpgroups hides (one issues while the
/// other drains) but a ping-pong group, alone at the tensor cores in its
/// turn, does not.  Only for a loop whose one wait retires one product
/// whose accumulator is carried and read by nothing else in the loop
/// (anything reading it there would read an unfinished product).  Returns
/// false, changing nothing, otherwise.
static bool deferRelease(OpBuilder &b, Location loc, scf::ForOp loop,
                         Operation *lastWait, Value channel) {
  auto wait = dyn_cast<WarpGroupDotWaitOp>(lastWait);
  Block *body = loop.getBody();
  if (!wait || wait.getPendings() != 0 || wait.getInputs().size() != 1)
    return false;
  if (llvm::range_size(body->getOps<WarpGroupDotWaitOp>()) != 1)
    return false;
  auto dot = wait.getInputs()[0].getDefiningOp<WarpGroupDotOp>();
  if (!dot || !dot->hasOneUse() || dot->getBlock() != body)
    return false;
  Operation *yield = body->getTerminator();
  Value result = wait.getOutputs()[0];
  if (!result.hasOneUse() || result.getUses().begin()->getOwner() != yield)
    return false;
  unsigned index = result.getUses().begin()->getOperandNumber();
  auto carried = dyn_cast<BlockArgument>(dot.getC());
  if (!carried || carried.getOwner() != body ||
      carried != loop.getRegionIterArgs()[index] || !carried.hasOneUse())
    return false;

  Value count = loop.getRegionIterArgs().back();
  Value first = loop.getInitArgs().back();
  wait.setPendings(1);
  b.setInsertionPointAfter(wait);
  auto releasePrevious = [&](Value ran, Value next) {
    auto ifOp = scf::IfOp::create(b, loc, ran, /*withElseRegion=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    ChannelReleaseOp::create(
        tb, loc, channel,
        arith::SubIOp::create(tb, loc, next, createI32(tb, loc, 1)));
  };
  releasePrevious(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        count, first),
                  count);
  b.setInsertionPointAfter(loop);
  Value product = loop.getResult(index);
  auto drain = WarpGroupDotWaitOp::create(b, loc, TypeRange{product.getType()},
                                          ValueRange{product}, 0);
  product.replaceAllUsesExcept(drain.getOutputs()[0], drain);
  Value last = loop.getResults().back();
  releasePrevious(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                        last, first),
                  last);
  return true;
}

/// `ws` with a second consumer group: a partition of `numWarps` warps
/// running a copy of the default region, each group taking turns.
WarpSpecializeOp makePingPong(WarpSpecializeOp ws, int numWarps) {
  OpBuilder b(ws);
  Location loc = ws.getLoc();
  SmallVector<int32_t> warps(ws.getPartitionNumWarps());
  warps.push_back(numWarps);
  auto pingPong = WarpSpecializeOp::create(
      b, loc, ws.getExplicitCaptures(), b.getDenseI32ArrayAttr(warps),
      /*requestedRegisters=*/nullptr, /*defaultRegisters=*/nullptr,
      /*partitionRegionsCount=*/warps.size());
  pingPong.getDefaultRegion().takeBody(ws.getDefaultRegion());
  for (auto [from, to] :
       llvm::zip(ws.getPartitionRegions(), pingPong.getPartitionRegions()))
    to.takeBody(from);
  ws.erase();
  Region &second = pingPong.getPartitionRegions().back();
  IRMapping map;
  pingPong.getDefaultRegion().cloneInto(&second, map);
  for (Block &block : second)
    if (auto yield = dyn_cast<WarpYieldOp>(block.getTerminator())) {
      OpBuilder yb(yield);
      WarpReturnOp::create(yb, yield.getLoc());
      yield.erase();
    }
  int32_t threads = 2 * numWarps * 32;
  int32_t first = pingPong.getFirstFreeBarrierId();
  takeTurns(pingPong.getDefaultRegion(), 0, first, threads);
  takeTurns(second, 1, first, threads);
  return pingPong;
}

/// Ping-pong within one cooperative consumer group (FlashAttention-3's
/// inter-warpgroup overlap): the warpgroups of `consumers` take turns at
/// issuing each of the loop's products, so that one warpgroup's products
/// run on the tensor cores while the other computes on their results (the
/// softmax between attention's two products).  Without turns the
/// warpgroups stay in step, each waiting on the same slot: they reach the
/// tensor cores together, then all compute while the tensor cores idle.
///
/// Each product is issued between `warp_group_turn_wait` and
/// `warp_group_turn_pass`; the last warpgroup gives warpgroup 0 the first
/// turn before the loop, and warpgroup 0 takes the turn left over after
/// it back, so the barriers are as they were (a later loop may take turns
/// on them again).  Only for a loop of more than one product: a loop of
/// one product has nothing to overlap it with, and would only serialize
/// its warpgroups.  Returns whether the turns were placed.
bool takeTurnsAtProducts(WarpSpecializeOp ws, scf::ForOp consumers,
                         int numWarps) {
  SmallVector<WarpGroupDotOp> dots(
      consumers.getBody()->getOps<WarpGroupDotOp>());
  int32_t groups = numWarps / 4;
  int32_t first = ws.getFirstFreeBarrierId();
  if (dots.size() < 2 || numWarps % 4 != 0 || groups < 2 ||
      first + groups - 1 > 15)
    return false;
  Location loc = consumers.getLoc();
  OpBuilder b(consumers);
  WarpGroupTurnPassOp::create(b, loc, first, groups,
                              b.getI32IntegerAttr(groups - 1));
  b.setInsertionPointAfter(consumers);
  WarpGroupTurnWaitOp::create(b, loc, first, groups, b.getI32IntegerAttr(0));
  for (WarpGroupDotOp dot : dots) {
    b.setInsertionPoint(dot);
    WarpGroupTurnWaitOp::create(b, dot.getLoc(), first, groups, IntegerAttr());
    b.setInsertionPointAfter(dot);
    WarpGroupTurnPassOp::create(b, dot.getLoc(), first, groups, IntegerAttr());
  }
  return true;
}

/// In a persistent kernel the turns go on from one tile's loop of products
/// to the next tile's: the prime moves before the tile loop and the drain
/// after it.  Left in the tile loop, the drain after tile t's loop and the
/// prime before tile t+1's are the pair joinTurnsOfLoopsInARow removes,
/// with the tile's epilogue between them: the last warpgroup, done first,
/// could pass the prime's turn on warpgroup 0's barrier before warpgroup 0
/// has taken the last one there (two arrivals, one phase: the hang that
/// function describes).  Moved out, warpgroup 0 takes tile t+1's first
/// turn from the last warpgroup's last pass of tile t, as from one
/// iteration to the next; a tile whose loop runs no iteration passes
/// nothing, and a program without tiles meets the prime with the drain.
void hoistTurnsOutOfTileLoop(scf::ForOp products, scf::ForOp tiles) {
  auto prime = dyn_cast_or_null<WarpGroupTurnPassOp>(products->getPrevNode());
  auto drain = dyn_cast_or_null<WarpGroupTurnWaitOp>(products->getNextNode());
  if (!prime || !drain || !prime.getOnlyGroup() || !drain.getOnlyGroup())
    return;
  prime->moveBefore(tiles);
  drain->moveAfter(tiles);
}

/// Loops in a row that take turns hand the turn on from one to the next
/// instead of giving it back and taking it anew.  The first loop's drain
/// (warpgroup 0 waiting for the turn the last warpgroup passed at the end)
/// followed by the next loop's prime (the last warpgroup passing the turn
/// to warpgroup 0) would let the last warpgroup arrive twice on warpgroup
/// 0's barrier before warpgroup 0 waits there: a named barrier counts
/// arrivals, not arrivers, so the two arrivals complete one phase without
/// warpgroup 0, whose drain then waits for an arrival that only comes
/// after warpgroup 0's own next pass: a deadlock.  Without the pair the
/// turn simply goes on to the next loop's first product, as it would to
/// the loop's own next iteration.  Only a pair in one block with no turn
/// between them (the second loop runs whenever the first did).
void joinTurnsOfLoopsInARow(WarpSpecializeOp ws) {
  SmallVector<std::pair<Operation *, Operation *>> pairs;
  ws.getDefaultRegion().walk([&](WarpGroupTurnWaitOp drain) {
    auto only = drain.getOnlyGroup();
    if (!only || *only != 0)
      return;
    for (Operation *op = drain->getNextNode(); op; op = op->getNextNode()) {
      if (auto prime = dyn_cast<WarpGroupTurnPassOp>(op)) {
        auto primeOnly = prime.getOnlyGroup();
        if (primeOnly && *primeOnly == prime.getNumGroups() - 1 &&
            prime.getFirstBarrierId() == drain.getFirstBarrierId() &&
            prime.getNumGroups() == drain.getNumGroups())
          pairs.push_back({drain, prime});
        return;
      }
      bool turnInside = false;
      op->walk([&](Operation *inner) {
        turnInside |= isa<WarpGroupTurnWaitOp, WarpGroupTurnPassOp>(inner);
      });
      if (turnInside)
        return;
    }
  });
  for (auto [drain, prime] : pairs) {
    drain->erase();
    prime->erase();
  }
}

/// The CTAs that multicast the block of `load` (num_ctas, from
/// tile-cluster-split), or 0.  The block must be the same in every CTA of
/// the cluster (`tile.cluster_replicated`) and come through a host
/// descriptor that only such loads of this loop read: the launcher encodes
/// its tensor map for a CTA's slice of the rows, which no other access
/// could use.  Each slice whole swizzle atoms (8 rows).
int64_t multicastCtas(tile::DescriptorLoadOp load, scf::ForOp loop) {
  auto module = load->getParentOfType<ModuleOp>();
  int64_t ctas = getNumCtas(module);
  if (ctas < 2 || !load->hasAttr(tile::TileDialect::kClusterReplicated))
    return 0;
  auto arg = dyn_cast<BlockArgument>(load.getDesc());
  if (!arg || !isa<tile::FuncOp>(arg.getOwner()->getParentOp()))
    return 0;
  for (Operation *user : arg.getUsers())
    if (!isa<tile::DescriptorLoadOp>(user) ||
        !user->hasAttr(tile::TileDialect::kClusterReplicated) ||
        !loop->isAncestor(user))
      return 0;
  ArrayRef<int64_t> shape = load.getDesc().getType().getBlockType().getShape();
  if (shape.size() != 2 || shape[0] % (8 * ctas) != 0)
    return 0;
  return ctas;
}

/// Records that the launcher encodes kernel argument `arg`'s tensor map
/// for `block` (the module's tile.descriptor-blocks).
void recordDescriptorBlock(ModuleOp module, unsigned arg,
                           ArrayRef<int64_t> block) {
  Builder b(module.getContext());
  SmallVector<Attribute> blocks;
  if (auto old = module->getAttrOfType<ArrayAttr>(
          tile::TileDialect::kDescriptorBlocks))
    llvm::append_range(blocks, old.getValue());
  for (Attribute entry : blocks)
    if (cast<DictionaryAttr>(entry).getAs<IntegerAttr>("arg").getInt() == arg)
      return;
  blocks.push_back(b.getDictionaryAttr({
      b.getNamedAttr("arg", b.getI64IntegerAttr(arg)),
      b.getNamedAttr("block", b.getDenseI64ArrayAttr(block)),
  }));
  module->setAttr(tile::TileDialect::kDescriptorBlocks, b.getArrayAttr(blocks));
}

/// The use of a tile operand's channel in the tile of `iv` in a tile loop
/// from `lower` by `step`: the tile's index among the loop's tiles, as an
/// i32.
Value tileCount(OpBuilder &b, Location loc, Value iv, Value lower, Value step) {
  return castToI32(b, loc,
                   arith::DivSIOp::create(
                       b, loc, arith::SubIOp::create(b, loc, iv, lower), step));
}

/// A tile operand's use of its channel: the `index`-th of `of` a tile.
struct TileUse {
  int64_t index = 0;
  int64_t of = 1;
};

/// The count of `use` in the tile whose count is `tile`: of * tile + index.
Value useCount(OpBuilder &b, Location loc, Value tile, TileUse use) {
  if (use.of == 1)
    return tile;
  Value scaled =
      arith::MulIOp::create(b, loc, tile, createI32(b, loc, use.of));
  if (use.index == 0)
    return scaled;
  return arith::AddIOp::create(b, loc, scaled, createI32(b, loc, use.index));
}

/// The consumers' side of tile operand `tile`, whose channel the consumers
/// call `channel`: the wait where the block was loaded, the products
/// reading the slot in place, and the release once none reads it any
/// more: after the loop of the last product reading it (or the full wait
/// that drains that loop, deferRelease's), or after the full wait that
/// follows the last such product of the block.  `slotType` is the
/// channel's buffer.
LogicalResult consumeTileOperand(TileOperand &tile, Value channel,
                                 Type slotType, TileUse use) {
  tile::DescriptorLoadOp load = tile.load.descLoad;
  Block *scope = load->getBlock();
  Location loc = load.getLoc();
  MLIRContext *ctx = load.getContext();
  OpBuilder b(load);
  auto tiles = dyn_cast<scf::ForOp>(scope->getParentOp());
  Value count = useCount(
      b, loc,
      tiles ? tileCount(b, loc, tiles.getInductionVar(), tiles.getLowerBound(),
                        tiles.getStep())
            : createI32(b, loc, 0),
      use);
  auto wait =
      ChannelWaitOp::create(b, loc, TypeRange{slotType}, channel, count);
  Value buffer = wait.getBuffers()[0];
  if (tile.load.transposed) {
    b.setInsertionPoint(tile.load.alloc);
    MemDescType want = tile.load.alloc.getType();
    buffer = MemDescTransOp::create(
        b, tile.load.alloc.getLoc(),
        MemDescType::get(ctx, want.getShape(), want.getElementType(),
                         want.getEncoding(), /*isMutable=*/true, 1),
        buffer);
  }
  tile.load.alloc.getResult().replaceAllUsesWith(buffer);
  tile.load.alloc.erase();
  for (Operation *op : llvm::reverse(tile.load.chain))
    if (op->use_empty())
      op->erase();
  if (load->use_empty())
    load->erase();
  Operation *last = nullptr;
  for (Operation *reader : buffer.getUsers()) {
    Operation *inScope = scope->findAncestorOpInBlock(*reader);
    if (inScope && (!last || last->isBeforeInBlock(inScope)))
      last = inScope;
  }
  if (!last)
    return wait.emitOpError("no product reads the block copied once a tile");
  Operation *at = nullptr;
  if (isa<scf::ForOp>(last)) {
    at = last;
    for (Operation *op = last->getNextNode();
         op &&
         isa<WarpGroupTurnWaitOp, WarpGroupTurnPassOp, WarpGroupDotWaitOp>(op);
         op = op->getNextNode())
      if (auto drain = dyn_cast<WarpGroupDotWaitOp>(op);
          drain && drain.getPendings() == 0) {
        at = drain;
        break;
      }
  } else {
    for (Operation *op = last->getNextNode(); op && !at; op = op->getNextNode())
      if (auto retire = dyn_cast<WarpGroupDotWaitOp>(op);
          retire && retire.getPendings() == 0)
        at = retire;
  }
  if (!at)
    return last->emitOpError("reads the block copied once a tile, and no "
                             "full wait retires it");
  b.setInsertionPointAfter(at);
  ChannelReleaseOp::create(b, loc, channel, count);
  return success();
}

LogicalResult specialize(MutableArrayRef<Plan> plans, CreateChannelOp channelOp,
                         const DenseMap<int64_t, CreateChannelOp> &tileChannels,
                         int numWarps, bool remarks, bool pingPong) {
  // Loops after the first (a kernel's sequence of specialized loops, as
  // the causal attention's two) share the channel, the producer partition
  // and its count: each loop's producer and consumers count on from where
  // the loop before stopped.
  Plan &plan = plans.front();
  scf::ForOp loop = plan.loop;
  Location loc = loop.getLoc();
  {
    auto module = loop->getParentOfType<ModuleOp>();
    auto count = module->getAttrOfType<IntegerAttr>(attr::kWarpSpecialized);
    module->setAttr(attr::kWarpSpecialized,
                    IntegerAttr::get(IntegerType::get(module.getContext(), 32),
                                     count ? count.getInt() + 1 : 1));
  }
  // Which operands the cluster's CTAs multicast, decided before the
  // loads are moved.
  DenseMap<Operation *, int64_t> multicast;
  for (Plan &each : plans)
    for (auto &operand : each.operands)
    if (operand.isTMA())
      if (int64_t ctas = multicastCtas(operand.descLoad, each.loop)) {
        multicast[operand.descLoad] = ctas;
        SmallVector<int64_t> slice(
            operand.descLoad.getDesc().getType().getBlockType().getShape());
        slice[0] /= ctas;
        recordDescriptorBlock(
            loop->getParentOfType<ModuleOp>(),
            cast<BlockArgument>(operand.descLoad.getDesc()).getArgNumber(),
            slice);
      }
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
  for (Plan &each : plans)
    for (unsigned i = 0; i < each.operands.size(); ++i)
      pointerCopies |= getCopyKind(each, i) == "cp.async";
  b.setInsertionPointAfter(channelOp);

  // The warp_specialize op takes the rest of the kernel body.
  auto ws = WarpSpecializeOp::create(
      b, loc, ValueRange(), b.getDenseI32ArrayAttr({kProducerWarps}),
      /*requestedRegisters=*/nullptr, /*defaultRegisters=*/nullptr,
      /*partitionRegionsCount=*/1);
  // The plan, for a reader of the pass (remarks): each operand's copy,
  // what the producer carries and the slots; the groups and registers
  // follow once they are known.
  std::string planText;
  {
    llvm::raw_string_ostream os(planText);
    for (auto [i, operand, block] :
         llvm::enumerate(plan.operands, plan.blocks))
      os << " operand " << i << " "
         << (operand.isTMA() ? "tma" : block ? "tma-block" : "cp.async")
         << ";";
    os << " producer carries [";
    llvm::interleaveComma(plan.producerCarried, os);
    os << "]; " << numBuffers << " slots;";
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
  // Each tile operand's channel, by the operand, and its use of it: the
  // k-th of n a tile (a slot shared by two blocks, see
  // tilegpu-ws-buffer-allocation), whose count is n * tile + k.
  DenseMap<Operation *, Value> tileChannelOf;
  DenseMap<Operation *, TileUse> tileUseOf;
  for (Plan &each : plans)
    for (TileOperand &tile : each.tileOperands) {
      auto index =
          tile.load.descLoad->getAttrOfType<IntegerAttr>(kTileOperandMark);
      CreateChannelOp tileChannel = tileChannels.lookup(index.getInt());
      TileUse use;
      if (auto shared = tileChannel->getAttrOfType<DenseI32ArrayAttr>(
              kTileChannelMark)) {
        use.of = shared.size();
        use.index = llvm::find(shared.asArrayRef(), index.getInt()) -
                    shared.asArrayRef().begin();
      }
      tileUseOf[tile.load.descLoad] = use;
      tileChannelOf[tile.load.descLoad] = tileChannel;
      captureSet.insert(tileChannel);
    }
  for (auto &[load, channelValue] : tileChannelOf)
    channelValue.getDefiningOp()->removeAttr(kTileChannelMark);
  for (Plan &each : plans)
    captureSet.insert(each.captures.begin(), each.captures.end());
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
  // What the consumers now call the channel (and each tile operand's).
  Value consumerChannel = defaultBlock->getArgument(0);
  auto consumerView = [&](Value outside) {
    return defaultBlock->getArgument(llvm::find(captures, outside) -
                                     captures.begin());
  };

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
  {
    // Every plan's kernel-level address math, once, in program order.
    DenseSet<Operation *> wanted;
    for (Plan &each : plans)
      wanted.insert(each.outerSlice.begin(), each.outerSlice.end());
    SmallVector<Operation *> outer;
    ws.getDefaultRegion().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (wanted.contains(op))
        outer.push_back(op);
    });
    for (Operation *op : outer)
      cloneForProducer(b, op, map);
  }
  Value zero = createI32(b, loc, 0), one = createI32(b, loc, 1);
  Value pch = map.lookup(channel);
  Value producerStart = zero;
  Operation *producerLoop = nullptr;
  for (Plan &plan : plans) {
  scf::ForOp loop = plan.loop;
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
              int64_t ctas = multicast.lookup(load);
              ChannelTMALoadOp::create(
                  lb, load.getLoc(), pch, count, map.lookup(load.getDesc()),
                  indices, lb.getI32IntegerAttr(i),
                  ctas ? lb.getI32IntegerAttr(ctas) : IntegerAttr());
            } else if (std::optional<PointerBlock> &block = plan.blocks[i]) {
              ChannelTMALoadOp::create(
                  lb, operand.load.getLoc(), pch, count, blockMaps[i],
                  ValueRange{coordinate(block->row, block->rowStep),
                             coordinate(block->col, block->colStep)},
                  lb.getI32IntegerAttr(i), /*multicast=*/IntegerAttr());
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
  // The blocks copied once a tile, before or after the loop's blocks:
  // one use of each one's channel a tile.
  auto copyTileOperands = [&](OpBuilder &tb, Value count, bool before) {
    for (TileOperand &tile : plan.tileOperands) {
      if (tile.beforeLoop != before)
        continue;
      tile::DescriptorLoadOp load = tile.load.descLoad;
      Value tileChannel = map.lookup(tileChannelOf.lookup(load));
      SmallVector<Value> indices;
      for (Value index : load.getIndices())
        indices.push_back(map.lookup(index));
      Value use =
          useCount(tb, load.getLoc(), count, tileUseOf.lookup(load));
      ChannelAcquireOp::create(tb, load.getLoc(), tileChannel, use);
      ChannelTMALoadOp::create(tb, load.getLoc(), tileChannel, use,
                               map.lookup(load.getDesc()), indices,
                               tb.getI32IntegerAttr(0),
                               /*multicast=*/IntegerAttr());
      ChannelCommitOp::create(tb, load.getLoc(), tileChannel, use);
    }
  };
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
          Value tileUse =
              plan.tileOperands.empty()
                  ? Value()
                  : tileCount(tb, loc, iv, map.lookup(tileLoop.getLowerBound()),
                              map.lookup(tileLoop.getStep()));
          copyTileOperands(tb, tileUse, /*before=*/true);
          scf::ForOp inner = buildProducerLoop(tb, args[0]);
          copyTileOperands(tb, tileUse, /*before=*/false);
          scf::YieldOp::create(tb, loc, inner.getResults().take_front(1));
        });
    producerTiles->setAttr("tilegpu.partition",
                           b.getStringAttr("producer-tiles"));
    producerLoop = producerTiles;
  } else {
    Value once = plan.tileOperands.empty() ? Value() : createI32(b, loc, 0);
    copyTileOperands(b, once, /*before=*/true);
    producerLoop = buildProducerLoop(b, producerStart);
    b.setInsertionPointAfter(producerLoop);
    copyTileOperands(b, once, /*before=*/false);
  }
  producerStart = producerLoop->getResult(0);
  // (The builder stands after the producer's loop and the copies after it.)
  }
  WarpReturnOp::create(b, loc);
  // Address math cloned for pointers the maps replaced.
  eraseDeadOps(producerRegion);

  // The consumers: the loop counts its uses of the channel, waits for each
  // slot, reads its buffers in place and releases it after the products'
  // wait.
  b.setInsertionPoint(plan.tileLoop ? plan.tileLoop.getOperation()
                                     : loop.getOperation());
  Value consumerStart = createI32(b, loc, 0);
  bool turns = false;
  // Where the carried pointers' first values are computed.
  Block *scope = defaultBlock;
  for (Plan &plan : plans) {
  scf::ForOp loop = plan.loop;
  Value consumerZero = consumerStart;
  auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
      rewriter, ValueRange{consumerZero}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &yb, Location yloc, ArrayRef<BlockArgument> newArgs) {
        return SmallVector<Value>{
            arith::AddIOp::create(yb, yloc, newArgs[0], createI32(yb, yloc, 1))
                .getResult()};
      }));
  newLoop->setAttr("tilegpu.partition", b.getStringAttr("consumer"));
  newLoop->removeAttr(kLoopMark);
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
    // The consumers' own loads in the tile loop (the rotated attention's
    // last V, after its K/V loop) are not software-pipelined across tiles:
    // a ring of them beside the producer's slots would not fit (the 128x128
    // D128 attention: 265 KB with it, 231936 bytes of the 232448 without),
    // and the producer already keeps the slots ahead across tiles.
    newTiles->setAttr(tile::TileDialect::kNumStages, b.getI32IntegerAttr(1));
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
  if (!deferRelease(b, loc, newLoop, plan.lastWait, consumerChannel)) {
    b.setInsertionPointAfter(plan.lastWait);
    ChannelReleaseOp::create(b, loc, consumerChannel, count);
  }
  // The pointers the producer now advances: each yields itself, so that
  // their chains die below and the iter_args can go.
  Operation *consumerYield = body->getTerminator();
  for (unsigned index : plan.carried)
    consumerYield->setOperand(index, newLoop.getRegionIterArgs()[index]);
  // The consumers no longer compute the loads' addresses.
  eraseDeadOps(*body);
  newLoop = eraseIterArgs(rewriter, newLoop, plan.carried);
  consumerStart = newLoop.getResults().back();
  if (ws.getPartitionRegions().size() == 1 &&
      takeTurnsAtProducts(ws, newLoop, numWarps)) {
    turns = true;
    if (auto tiles = dyn_cast<scf::ForOp>(newLoop->getParentOp()))
      hoistTurnsOutOfTileLoop(newLoop, tiles);
  }
  b.setInsertionPointAfter(newLoop);
  }
  if (turns)
    joinTurnsOfLoopsInARow(ws);
  // The blocks copied once a tile, now that the loops reading them are in
  // their final form (the release goes after their drain).
  for (Plan &plan : plans)
    for (TileOperand &tile : plan.tileOperands) {
      Value outside = tileChannelOf.lookup(tile.load.descLoad);
      Type slot = cast<MemDescType>(outside.getDefiningOp<CreateChannelOp>()
                                        .getBuffers()[0]
                                        .getType())
                      .getSingleBuffer();
      if (failed(consumeTileOperand(tile, consumerView(outside), slot,
                                    tileUseOf.lookup(tile.load.descLoad))))
        return failure();
    }
  // Descriptors only the producer uses: it made its own.
  for (Plan &plan : plans)
    for (Operation *op : plan.outerSlice)
      if (isa<tile::MakeTensorDescriptorOp>(op) && op->use_empty())
        op->erase();
  // ... and what computed their first values.
  eraseDeadOps(*scope);

  if (pingPong) {
    std::string why = pingPongObstacle(ws);
    if (why.empty())
      ws = makePingPong(ws, numWarps);
    else
      recordDecline(func->getParentOfType<ModuleOp>(), loc, why, "ping-pong",
                    "one consumer group of num_warps warps instead");
  }
  assignRegisters(ws, numWarps, pointerCopies);
  if (remarks) {
    for (Plan &each : plans)
      for (TileOperand &tile : each.tileOperands)
        llvm::raw_string_ostream(planText)
            << " a block once a tile, "
            << (tile.beforeLoop ? "before" : "after") << " the loop;";
    InFlightDiagnostic remark = emitRemark(loc, "warp-specialized:");
    remark << planText;
    if (ws.getPartitionRegions().size() > 1)
      remark << " ping-pong;";
    if (plans.size() > 1)
      remark << " " << plans.size() << " loops in a row;";
    if (turns)
      remark << " warpgroups take turns at the products;";
    remark << " registers ";
    if (auto requested = ws.getRequestedRegistersAttr())
      remark << requested[0] << "/" << ws.getDefaultRegistersAttr().getInt();
    else
      remark << "unmoved";
  }
  return success();
}

} // namespace

LogicalResult ws::runCodePartition(ModuleOp module, bool remarks) {
  // Every loop is analyzed before any is rewritten: the axis analysis
  // describes the module as it was.  A kernel's marked loops (more than
  // one: a sequence, see tilegpu-ws-task-partition) share its channel.
  ModuleAxisInfoAnalysis axisInfo(module);
  SmallVector<std::pair<SmallVector<Plan, 1>, CreateChannelOp>, 1> work;
  // Each kernel's one-slot channels of the blocks copied once a tile.
  DenseMap<Operation *, DenseMap<int64_t, CreateChannelOp>> tileChannels;
  DenseMap<Operation *, unsigned> workOf;
  WalkResult walk = module.walk([&](scf::ForOp loop) {
    if (!loop->hasAttr(kLoopMark))
      return WalkResult::advance();
    FailureOr<Plan> plan = getMarkedPlan(loop, axisInfo);
    if (failed(plan))
      return WalkResult::interrupt();
    Operation *func = loop->getParentOfType<FunctionOpInterface>();
    CreateChannelOp channel;
    func->walk([&](CreateChannelOp op) {
      if (op->hasAttr(kChannelMark))
        channel = op;
    });
    if (!channel) {
      loop.emitError("no channel for this loop's producer: run "
                     "tilegpu-ws-buffer-allocation first");
      return WalkResult::interrupt();
    }
    DenseMap<int64_t, CreateChannelOp> &ofFunc = tileChannels[func];
    if (ofFunc.empty())
      func->walk([&](CreateChannelOp op) {
        if (auto index = op->getAttrOfType<IntegerAttr>(kTileChannelMark))
          ofFunc[index.getInt()] = op;
        if (auto shared =
                op->getAttrOfType<DenseI32ArrayAttr>(kTileChannelMark))
          for (int32_t index : shared.asArrayRef())
            ofFunc[index] = op;
      });
    for (TileOperand &tile : plan->tileOperands) {
      auto index =
          tile.load.descLoad->getAttrOfType<IntegerAttr>(kTileOperandMark);
      CreateChannelOp tileChannel = ofFunc.lookup(index.getInt());
      if (!tileChannel || tileChannel.getNumOperands() != 1) {
        tile.load.descLoad.emitError(
            "no one-slot channel for this block the producer copies once a "
            "tile: run tilegpu-ws-buffer-allocation first");
        return WalkResult::interrupt();
      }
    }
    if (channel.getNumOperands() != plan->operands.size()) {
      loop.emitError("the channel has ")
          << channel.getNumOperands() << " rings for "
          << plan->operands.size() << " operands";
      return WalkResult::interrupt();
    }
    auto [it, inserted] = workOf.try_emplace(func, work.size());
    if (inserted)
      work.push_back({{}, channel});
    work[it->second].first.push_back(std::move(*plan));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[plans, channel] : work) {
    Operation *func =
        plans.front().loop->getParentOfType<FunctionOpInterface>();
    if (failed(specialize(plans, channel, tileChannels[func],
                          getNumWarps(module), remarks, getPingPong(module))))
      return failure();
  }
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
