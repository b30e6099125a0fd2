//===- SoftwarePipeliner.cpp - Software pipelining of dot operand loads ---===//
//
// A K loop of a matmul loads two operand tiles, stores them into shared
// memory and multiplies them; done in that order, the tensor cores wait for
// every load.  With S = num_stages buffers per operand and D = S - 1, the
// loads of iteration i + D are issued as asynchronous copies (cp.async)
// while iteration i multiplies:
//
//   prologue:  copies for iterations 0 .. D-1 into buffers 0 .. D-1, one
//              commit group per iteration (predicated on the iteration
//              existing, so groups are counted the same way at any trip
//              count).
//   iteration i:  async_wait D-1 (iteration i's group has landed; those of
//              i+1 .. i+D-1 may still fly), barrier;
//              product i on buffer i % S; wait for products down to one
//              in flight (warp_group_dot_wait pendings = 1, when the
//              product is the loop's only one and reads only pipelined
//              buffers; otherwise the waits stay at 0);
//              barrier; copies for iteration i+D into buffer (i+D) % S;
//              commit.
//   after:     wait for the last product (pendings = 0), async_wait 0 (the
//              copies for iterations past the end, predicated off, still
//              write their zero fill), barrier, deallocate.
//
// So a copy has D - 1 whole iterations and the rest of the one that issues
// it to land, and the tensor cores work on product i while product i-1
// drains.
//
// Why two barriers: the first, after each thread's async_wait, makes every
// thread's copies for iteration i visible to all, the tensor cores
// included.  No proxy fence is needed there: what cp.async writes is
// visible to wgmma once the copy is complete and the threads synchronize,
// which is what the cp.async mainloops of CUTLASS (completion on an
// mbarrier) and Triton (wait_group and a barrier) rely on; the fence stays
// for data the threads store themselves (local_alloc, local_store), and
// would cost a MEMBAR per iteration here.  The second guards the buffer
// about to be overwritten: buffer (i+D) % S is buffer (i-1) % S, which
// product i-1 read, and a warpgroup's wait with pendings = 1 only says
// that *its* product i-1 is done; with several warpgroups another may
// still be reading it.
//
// Descriptor loads go through the TMA instead (seed 001's pattern): thread
// 0 issues `cp.async.bulk.tensor` into ring buffer s in the descriptor's
// swizzled layout, which the products read in place, after arming full
// barrier s with the bytes of every copy of that iteration
// (`barrier_expect`, one arrival).  Iteration i waits for barrier i % S
// with parity (i / S) % 2, carried as a phase bit that flips each time the
// read index wraps: a barrier completes one phase per use, and a waiter
// one lap behind never exists because the refill of a buffer waits for the
// products of the iteration that read it.  The refill point is the same
// as for cp.async (after the last wait and the CTA barrier); the copies
// past the end are predicated off, so no TMA copy is in flight after the
// loop, and the barriers are invalidated there behind a CTA barrier.
//
// Values the copies need (addresses, masks, pointer increments: "stage 0")
// are cloned: once per prologue iteration, and once in the loop for
// iteration i+D, whose carried pointer chains the new loop carries D
// iterations ahead of the original.  PipelineAnalysis.cpp decides which
// loads qualify.
//
//===----------------------------------------------------------------------===//

#include "PipelineAnalysis.h"
#include "../TMAUtility.h"

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

#include <vector>

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUSOFTWAREPIPELINE
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

constexpr llvm::StringLiteral kNumStagesAttr = tile::TileDialect::kNumStages;

Value createI32(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 32);
}

/// `lb + iterations * step` in the induction variable's type.
Value inductionValueAt(OpBuilder &builder, Location loc, Value base,
                       Value step, int64_t iterations) {
  if (iterations == 0)
    return base;
  Type type = base.getType();
  Value count = arith::ConstantOp::create(
      builder, loc, type, builder.getIntegerAttr(type, iterations));
  Value offset = arith::MulIOp::create(builder, loc, count, step);
  return arith::AddIOp::create(builder, loc, base, offset);
}

/// Whether induction value `iv` belongs to an iteration of `loop`.
Value isInLoop(OpBuilder &builder, Location loc, scf::ForOp loop, Value iv) {
  auto predicate = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                         : arith::CmpIPredicate::slt;
  return arith::CmpIOp::create(builder, loc, predicate, iv,
                               loop.getUpperBound());
}

/// `(index + 1) % numStages` for an index in [0, numStages).
Value advanceRingIndex(OpBuilder &builder, Location loc, Value index,
                       int numStages) {
  Value next =
      arith::AddIOp::create(builder, loc, index, createI32(builder, loc, 1));
  Value wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                      next, createI32(builder, loc, numStages));
  return arith::SelectOp::create(builder, loc, wraps,
                                 createI32(builder, loc, 0), next);
}

/// Clones `ops` with `mapping`, returning the clones.
SmallVector<Operation *> cloneAll(OpBuilder &builder, ArrayRef<Operation *> ops,
                                  IRMapping &mapping) {
  SmallVector<Operation *> clones;
  for (Operation *op : ops)
    clones.push_back(builder.clone(*op, mapping));
  return clones;
}

/// Erases the clones nothing uses (stage-0 values only some iterations
/// need), last first so that chains go too.
void eraseUnused(ArrayRef<Operation *> clones) {
  for (Operation *op : llvm::reverse(clones))
    if (op->use_empty() && isMemoryEffectFree(op))
      op->erase();
}

/// Moves the clones whose results only the loop's yield uses (the next
/// iteration's pointers) to just before it, after the copies.  A value
/// computed after the last use of the loop-carried value it replaces can
/// take its registers; computed before, ptxas keeps both and copies one
/// into the other every iteration (two moves per 64-bit pointer).
void sinkIntoYield(ArrayRef<Operation *> clones, scf::YieldOp yield) {
  llvm::SmallPtrSet<Operation *, 16> moved;
  Operation *insertBefore = yield;
  for (Operation *op : llvm::reverse(clones)) {
    if (op->use_empty() || !isMemoryEffectFree(op) ||
        !llvm::all_of(op->getUsers(), [&](Operation *user) {
          return user == yield.getOperation() || moved.contains(user);
        }))
      continue;
    op->moveBefore(insertBefore);
    insertBefore = op;
    moved.insert(op);
  }
}

bool hasAsyncCopies(const LoopPipelinePlan &plan) {
  return llvm::any_of(plan.loads,
                      [](const PipelinedLoad &l) { return !l.isTMA(); });
}
bool hasTMACopies(const LoopPipelinePlan &plan) {
  return llvm::any_of(plan.loads,
                      [](const PipelinedLoad &l) { return l.isTMA(); });
}

/// Issues the copies of one iteration's pipelined loads (addresses and
/// masks from `mapping`) into buffer `index` of each ring, predicated on
/// the iteration existing: cp.async copies as one commit group, TMA copies
/// on full barrier `index` of `barriers`, armed with their bytes first.
void issueCopies(OpBuilder &builder, Location loc,
                 LoopPipelinePlan &plan, ArrayRef<Value> rings,
                 Value barriers, Value index, Value exists,
                 IRMapping &mapping) {
  if (barriers) {
    auto barrierRing = cast<MemDescType>(barriers.getType());
    Value barrier = MemDescIndexOp::create(
        builder, loc, barrierRing.getSingleBuffer(), barriers, index);
    int64_t bytes = 0;
    for (PipelinedLoad &pipelined : plan.loads)
      if (pipelined.isTMA())
        bytes += getTMABlockBytes(pipelined.descLoad.getDesc().getType());
    BarrierExpectOp::create(builder, loc, barrier, bytes, exists);
    for (auto [pipelined, ring] : llvm::zip(plan.loads, rings)) {
      if (!pipelined.isTMA())
        continue;
      tile::DescriptorLoadOp load = pipelined.descLoad;
      SmallVector<Value> indices;
      for (Value v : load.getIndices())
        indices.push_back(mapping.lookupOrDefault(v));
      auto ringType = cast<MemDescType>(ring.getType());
      Value buffer = MemDescIndexOp::create(
          builder, load.getLoc(), ringType.getSingleBuffer(), ring, index);
      AsyncTMACopyGlobalToLocalOp::create(
          builder, load.getLoc(), mapping.lookupOrDefault(load.getDesc()),
          indices, buffer, barrier, exists, /*multicast=*/nullptr);
    }
  }
  if (!hasAsyncCopies(plan))
    return;
  SmallVector<Value> tokens;
  for (auto [pipelined, ring] : llvm::zip(plan.loads, rings)) {
    if (pipelined.isTMA())
      continue;
    tile::LoadOp load = pipelined.load;
    Value ptrs = mapping.lookupOrDefault(load.getPtr());
    Value mask = tile::SplatOp::create(
        builder, load.getLoc(), tile::getI1SameShape(ptrs.getType()), exists);
    if (Value original = load.getMask())
      mask = arith::AndIOp::create(builder, load.getLoc(),
                                   mapping.lookupOrDefault(original), mask);
    auto ringType = cast<MemDescType>(ring.getType());
    Value buffer = MemDescIndexOp::create(
        builder, load.getLoc(), ringType.getSingleBuffer(), ring, index);
    tokens.push_back(AsyncCopyGlobalToLocalOp::create(
        builder, load.getLoc(), ptrs, buffer, mask, /*other=*/Value()));
  }
  AsyncCommitGroupOp::create(builder, loc, tokens);
}

/// async_wait `num`, then make the landed copies visible to every thread
/// and to the tensor cores.
void waitAndPublish(OpBuilder &builder, Location loc, int num) {
  AsyncWaitOp::create(builder, loc, ValueRange(), num);
  tile::BarrierOp::create(builder, loc);
}

/// A persistent kernel's K loop: TMA copies only, no carried chains, directly
/// in the body of an outer scf.for (the tile loop) whose body computes what
/// the copies and the loop bounds need with pure ops from the outer
/// induction variable and values from above.  Then the rings and barriers
/// live across the tile loop, the ring position and phase carry from tile
/// to tile, and the copies of tile t+1's first D iterations are issued as
/// soon as tile t's products are done, before its epilogue: the pipeline
/// does not drain and refill between tiles.
struct OuterRotation {
  scf::ForOp outer;
  /// The ops of the outer body the prologue needs, in body order.
  SmallVector<Operation *> slice;
};

std::optional<OuterRotation> matchOuterRotation(LoopPipelinePlan &plan) {
  scf::ForOp loop = plan.loop;
  if (!hasTMACopies(plan) || hasAsyncCopies(plan) || !plan.stage0Args.empty())
    return std::nullopt;
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  // One K loop per tile: another loop in the tile loop's body would find
  // the ring position moved under it.
  if (!outer || llvm::range_size(outer.getBody()->getOps<scf::ForOp>()) != 1)
    return std::nullopt;
  Block *outerBody = outer.getBody();
  SmallVector<Value> worklist{loop.getLowerBound(), loop.getUpperBound(),
                              loop.getStep()};
  for (Operation *op : plan.stage0)
    llvm::append_range(worklist, op->getOperands());
  for (PipelinedLoad &l : plan.loads) {
    worklist.push_back(l.descLoad.getDesc());
    llvm::append_range(worklist, l.descLoad.getIndices());
  }
  llvm::SmallPtrSet<Operation *, 16> slice;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() == outerBody && arg != outer.getInductionVar())
        return std::nullopt; // an outer iter_arg: not known a tile ahead
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != outerBody || !slice.insert(def).second)
      continue;
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def) ||
        !def->isBeforeInBlock(loop))
      return std::nullopt;
    llvm::append_range(worklist, def->getOperands());
  }
  OuterRotation rotation;
  rotation.outer = outer;
  for (Operation &op : outerBody->without_terminator())
    if (slice.contains(&op))
      rotation.slice.push_back(&op);
  return rotation;
}

/// `(base + offset) % numStages` for base in [0, numStages) and a small
/// non-negative offset.
Value ringIndexAt(OpBuilder &builder, Location loc, Value base, int offset,
                  int numStages) {
  if (offset == 0)
    return base;
  Value sum = arith::AddIOp::create(builder, loc, base,
                                    createI32(builder, loc, offset));
  Value wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::sge,
                                      sum, createI32(builder, loc, numStages));
  Value wrapped = arith::SubIOp::create(builder, loc, sum,
                                        createI32(builder, loc, numStages));
  return arith::SelectOp::create(builder, loc, wraps, wrapped, sum);
}

/// The copies of the first D iterations of the K loop of the tile whose
/// outer induction value is `outerIv`, into ring positions base, base+1,
/// ..., predicated on the tile existing.
void issueTilePrologue(OpBuilder &builder, Location loc,
                       LoopPipelinePlan &plan, OuterRotation &rotation,
                       ArrayRef<Value> rings, Value barriers, Value outerIv,
                       Value tileExists, Value base) {
  scf::ForOp loop = plan.loop;
  IRMapping outerMapping;
  outerMapping.map(rotation.outer.getInductionVar(), outerIv);
  cloneAll(builder, rotation.slice, outerMapping);
  Value lb = outerMapping.lookupOrDefault(loop.getLowerBound());
  Value ub = outerMapping.lookupOrDefault(loop.getUpperBound());
  Value step = outerMapping.lookupOrDefault(loop.getStep());
  auto predicate = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                         : arith::CmpIPredicate::slt;
  for (int iteration = 0; iteration < plan.numStages - 1; ++iteration) {
    IRMapping mapping = outerMapping;
    Value ivAt = inductionValueAt(builder, loc, lb, step, iteration);
    mapping.map(loop.getInductionVar(), ivAt);
    cloneAll(builder, plan.stage0, mapping);
    Value exists = arith::AndIOp::create(
        builder, loc, tileExists,
        arith::CmpIOp::create(builder, loc, predicate, ivAt, ub));
    issueCopies(builder, loc, plan, rings, barriers,
                ringIndexAt(builder, loc, base, iteration, plan.numStages),
                exists, mapping);
  }
}

void pipelineLoop(LoopPipelinePlan &plan) {
  scf::ForOp loop = plan.loop;
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  const int numStages = plan.numStages;
  const int distance = numStages - 1;
  std::optional<OuterRotation> rotation = matchOuterRotation(plan);
  // Rotated: rings and barriers before the tile loop, which carries the
  // ring position and phase (two more iter_args, placeholders until the K
  // loop exists).
  Value outerRead, outerPhase;
  if (rotation) {
    IRRewriter rewriter(loop.getContext());
    rewriter.setInsertionPoint(rotation->outer);
    Value zero = createI32(rewriter, loc, 0);
    auto extended = rotation->outer.replaceWithAdditionalYields(
        rewriter, ValueRange{zero, zero},
        /*replaceInitOperandUsesInLoop=*/false,
        [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>(args.begin(), args.end());
        });
    if (failed(extended)) {
      rotation.reset();
    } else {
      rotation->outer = cast<scf::ForOp>(extended->getOperation());
      ValueRange args = rotation->outer.getRegionIterArgs();
      outerRead = args[args.size() - 2];
      outerPhase = args.back();
    }
  }
  OpBuilder builder(loop);
  if (rotation)
    builder.setInsertionPoint(rotation->outer);

  // One ring of buffers per pipelined load (for a TMA load, in the
  // descriptor's layout), and one full barrier per stage for the TMA
  // copies, initialized before any thread may touch them.
  SmallVector<Value> rings;
  for (PipelinedLoad &pipelined : plan.loads) {
    MemDescType ringType;
    if (pipelined.isTMA()) {
      ringType = getTMABufferType(
          pipelined.descLoad.getDesc().getType().getBlockType(), numStages);
    } else {
      MemDescType single = pipelined.alloc.getType();
      ringType = MemDescType::get(
          loop.getContext(), single.getShape(), single.getElementType(),
          single.getEncoding(), /*isMutable=*/true, numStages);
    }
    rings.push_back(LocalAllocOp::create(builder, pipelined.alloc.getLoc(),
                                         ringType, /*src=*/Value()));
  }
  Value barriers;
  if (hasTMACopies(plan)) {
    barriers = LocalAllocOp::create(
        builder, loc, getBarrierType(loop.getContext(), numStages), Value());
    auto barrierRing = cast<MemDescType>(barriers.getType());
    for (int stage = 0; stage < numStages; ++stage)
      InitBarrierOp::create(
          builder, loc,
          MemDescIndexOp::create(builder, loc, barrierRing.getSingleBuffer(),
                                 barriers, createI32(builder, loc, stage)),
          1);
    // Inits are generic-proxy writes; the TMA unit completes transactions
    // on the barriers through the async proxy.
    FenceAsyncSharedOp::create(builder, loc);
    tile::BarrierOp::create(builder, loc);
  }

  // Prologue: iterations 0 .. D-1, each advancing the carried chains
  // (rotated: those of the first tile, before the tile loop).
  Value iv = loop.getInductionVar();
  SmallVector<Value> chains;
  for (unsigned index : plan.stage0Args)
    chains.push_back(loop.getInitArgs()[index]);
  SmallVector<Operation *> prologueClones;
  if (rotation) {
    scf::ForOp outer = rotation->outer;
    auto predicate = outer.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                            : arith::CmpIPredicate::slt;
    Value first = arith::CmpIOp::create(builder, loc, predicate,
                                        outer.getLowerBound(),
                                        outer.getUpperBound());
    issueTilePrologue(builder, loc, plan, *rotation, rings, barriers,
                      outer.getLowerBound(), first,
                      createI32(builder, loc, 0));
    builder.setInsertionPoint(loop);
  }
  for (int iteration = 0; iteration < (rotation ? 0 : distance);
       ++iteration) {
    IRMapping mapping;
    Value ivAt = inductionValueAt(builder, loc, loop.getLowerBound(),
                                  loop.getStep(), iteration);
    mapping.map(iv, ivAt);
    for (auto [index, value] : llvm::zip(plan.stage0Args, chains))
      mapping.map(loop.getRegionIterArgs()[index], value);
    llvm::append_range(prologueClones,
                       cloneAll(builder, plan.stage0, mapping));
    issueCopies(builder, loc, plan, rings, barriers,
                createI32(builder, loc, iteration),
                isInLoop(builder, loc, loop, ivAt), mapping);
    for (auto [position, index] : llvm::enumerate(plan.stage0Args))
      chains[position] = mapping.lookupOrDefault(yield.getOperand(index));
  }

  // The new loop carries the other iter_args, the chains D iterations
  // ahead, and the ring indices to read and to write.
  SmallVector<unsigned> keptArgs;
  SmallVector<Value> inits;
  for (unsigned index = 0, e = loop.getNumRegionIterArgs(); index < e; ++index)
    if (!llvm::is_contained(plan.stage0Args, index)) {
      keptArgs.push_back(index);
      inits.push_back(loop.getInitArgs()[index]);
    }
  llvm::append_range(inits, chains);
  if (rotation) {
    inits.push_back(outerRead);
    inits.push_back(
        ringIndexAt(builder, loc, outerRead, distance, numStages));
  } else {
    inits.push_back(createI32(builder, loc, 0));
    inits.push_back(createI32(builder, loc, distance % numStages));
  }
  // With TMA copies: the parity of the phase iteration i waits for on
  // barrier i % S.
  if (barriers)
    inits.push_back(rotation ? outerPhase : createI32(builder, loc, 0));
  auto newLoop = scf::ForOp::create(
      builder, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
      inits, /*bodyBuilder=*/nullptr, loop.getUnsignedCmp());
  for (NamedAttribute attr : loop->getDiscardableAttrs())
    if (attr.getName() != kNumStagesAttr)
      newLoop->setAttr(attr.getName(), attr.getValue());
  Block *newBody = newLoop.getBody();
  ValueRange newArgs = newLoop.getRegionIterArgs();
  ValueRange aheadArgs = newArgs.slice(keptArgs.size(), chains.size());
  const size_t indexArgs = barriers ? 3 : 2;
  Value readIndex = newArgs[newArgs.size() - indexArgs];
  Value writeIndex = newArgs[newArgs.size() - indexArgs + 1];
  Value phase = barriers ? newArgs.back() : Value();

  // Iteration i: the original body, with each pipelined load and its
  // allocation replaced by the ring buffer holding iteration i's copy.
  builder.setInsertionPointToStart(newBody);
  if (hasAsyncCopies(plan))
    waitAndPublish(builder, loc, distance - 1);
  if (barriers) {
    auto barrierRing = cast<MemDescType>(barriers.getType());
    WaitBarrierOp::create(
        builder, loc,
        MemDescIndexOp::create(builder, loc, barrierRing.getSingleBuffer(),
                               barriers, readIndex),
        phase);
  }
  IRMapping current;
  current.map(iv, newLoop.getInductionVar());
  for (auto [index, arg] : llvm::zip(keptArgs, newArgs))
    current.map(loop.getRegionIterArgs()[index], arg);
  for (auto [pipelined, ring] : llvm::zip(plan.loads, rings)) {
    auto ringType = cast<MemDescType>(ring.getType());
    Location allocLoc = pipelined.alloc.getLoc();
    Value buffer = MemDescIndexOp::create(
        builder, allocLoc, ringType.getSingleBuffer(), ring, readIndex);
    if (pipelined.transposed) {
      MemDescType want = pipelined.alloc.getType();
      buffer = MemDescTransOp::create(
          builder, allocLoc,
          MemDescType::get(want.getContext(), want.getShape(),
                           want.getElementType(), want.getEncoding(),
                           /*isMutable=*/true, 1),
          buffer);
    }
    current.map(pipelined.alloc.getResult(), buffer);
  }
  IRMapping ahead;
  SmallVector<Operation *> stage0Clones;
  for (Operation &op : body->without_terminator()) {
    if (plan.carried.contains(&op) ||
        llvm::any_of(plan.loads,
                     [&](PipelinedLoad &l) { return l.replaces(&op); }))
      continue;
    Operation *clone = builder.clone(op, current);
    if (llvm::is_contained(plan.stage0, &op))
      stage0Clones.push_back(clone);
    if (&op != plan.anchor)
      continue;
    if (plan.inFlightAcc)
      cast<WarpGroupDotWaitOp>(clone).setPendings(1);

    // Every product that read the buffer about to be overwritten is done.
    tile::BarrierOp::create(builder, loc);
    Value ivAhead = inductionValueAt(builder, loc, newLoop.getInductionVar(),
                                     loop.getStep(), distance);
    ahead.map(iv, ivAhead);
    for (auto [index, arg] : llvm::zip(plan.stage0Args, aheadArgs))
      ahead.map(loop.getRegionIterArgs()[index], arg);
    llvm::append_range(stage0Clones, cloneAll(builder, plan.stage0, ahead));
    issueCopies(builder, loc, plan, rings, barriers, writeIndex,
                isInLoop(builder, loc, loop, ivAhead), ahead);
  }
  SmallVector<Value> yields;
  for (unsigned index : keptArgs)
    yields.push_back(current.lookupOrDefault(yield.getOperand(index)));
  for (unsigned index : plan.stage0Args)
    yields.push_back(ahead.lookupOrDefault(yield.getOperand(index)));
  Value nextRead = advanceRingIndex(builder, loc, readIndex, numStages);
  yields.push_back(nextRead);
  yields.push_back(advanceRingIndex(builder, loc, writeIndex, numStages));
  // The phase flips when the read index wraps around the ring.
  if (barriers) {
    Value wrapped =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                              nextRead, createI32(builder, loc, 0));
    yields.push_back(arith::SelectOp::create(
        builder, loc, wrapped,
        arith::XOrIOp::create(builder, loc, phase,
                              createI32(builder, loc, 1)),
        phase));
  }
  auto newYield = scf::YieldOp::create(builder, yield.getLoc(), yields);
  sinkIntoYield(stage0Clones, newYield);
  eraseUnused(stage0Clones);
  eraseUnused(prologueClones);

  // After the loop: the last product and the copies past the end.
  builder.setInsertionPointAfter(newLoop);
  SmallVector<Value> results(
      newLoop.getResults().take_front(keptArgs.size()));
  // The last product's wait.  In a tile loop it comes after the next
  // tile's first copies: those refill the buffers of products K-S ..
  // K-2, which every warpgroup's last wait (pendings = 1) retired before
  // the CTA barrier, never that of the product still in flight (K-1), so
  // the copies overlap it.  Without a tile loop the ring is freed next
  // and its memory may be reused, so the wait goes before the barrier.
  auto waitLastProduct = [&] {
    if (!plan.inFlightAcc)
      return;
    auto position = llvm::find(keptArgs, *plan.inFlightAcc) - keptArgs.begin();
    Value acc = results[position];
    Value done =
        WarpGroupDotWaitOp::create(builder, loc, TypeRange{acc.getType()},
                                   ValueRange{acc}, 0)
            .getResult(0);
    results[position] = done;
  };
  if (!rotation)
    waitLastProduct();
  if (hasAsyncCopies(plan))
    AsyncWaitOp::create(builder, loc, ValueRange(), 0);
  tile::BarrierOp::create(builder, loc);
  if (rotation) {
    // Every product but the last of this tile is done in every warpgroup
    // (the barrier above): the next tile's first copies go into the ring
    // now, before this tile's epilogue; the tile loop carries the ring
    // position and phase.
    scf::ForOp outer = rotation->outer;
    Value nextIv = arith::AddIOp::create(builder, loc,
                                         outer.getInductionVar(),
                                         outer.getStep());
    auto predicate = outer.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                            : arith::CmpIPredicate::slt;
    Value nextExists = arith::CmpIOp::create(builder, loc, predicate, nextIv,
                                             outer.getUpperBound());
    ValueRange finals = newLoop.getResults().take_back(3);
    issueTilePrologue(builder, loc, plan, *rotation, rings, barriers, nextIv,
                      nextExists, finals[0]);
    waitLastProduct();
    auto outerYield = cast<scf::YieldOp>(outer.getBody()->getTerminator());
    unsigned n = outerYield.getNumOperands();
    outerYield->setOperand(n - 2, finals[0]);
    outerYield->setOperand(n - 1, finals[2]);
    // After the tile loop, nothing is in flight (the last tile's
    // look-ahead is predicated off): free the ring there.
    builder.setInsertionPointAfter(outer);
    tile::BarrierOp::create(builder, loc);
  }
  for (Value ring : rings)
    LocalDeallocOp::create(builder, loc, ring);
  if (barriers) {
    auto barrierRing = cast<MemDescType>(barriers.getType());
    for (int stage = 0; stage < numStages; ++stage)
      InvalBarrierOp::create(
          builder, loc,
          MemDescIndexOp::create(builder, loc, barrierRing.getSingleBuffer(),
                                 barriers, createI32(builder, loc, stage)));
    LocalDeallocOp::create(builder, loc, barriers);
  }

  for (auto [index, result] : llvm::zip(keptArgs, results))
    loop.getResult(index).replaceAllUsesWith(result);
  loop.erase();
}

struct SoftwarePipelinerPass
    : public tilegpu::impl::TileGPUSoftwarePipelineBase<SoftwarePipelinerPass> {
  using TileGPUSoftwarePipelineBase::TileGPUSoftwarePipelineBase;

  void runOnOperation() override {
    // Decide every loop on the untouched IR (the axis analysis describes
    // it), inner loops first, then transform.
    ModuleAxisInfoAnalysis axisInfo(getOperation());
    const int numStages = getNumStages(getOperation());
    std::vector<LoopPipelinePlan> plans;
    WalkResult walk = getOperation().walk([&](scf::ForOp loop) {
      int stages = numStages;
      if (Attribute attr = loop->getAttr(kNumStagesAttr)) {
        auto value = dyn_cast<IntegerAttr>(attr);
        if (!value || !value.getType().isInteger()) {
          loop.emitError() << kNumStagesAttr
                           << " must be an integer, got " << attr;
          return WalkResult::interrupt();
        }
        stages = value.getInt();
      }
      if (std::optional<LoopPipelinePlan> plan =
              planLoopPipeline(loop, stages, axisInfo))
        plans.push_back(std::move(*plan));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // A K loop rotated into its tile loop replaces the tile loop (which
    // then carries the ring position): a plan of the tile loop's own (loads
    // for a product after the K loop, as the rotated attention's last PV)
    // would be left on the erased loop. The rotation keeps the ring full
    // across tiles, the larger gain: the tile loop's own loads stay
    // unpipelined, as loads after a loop are.
    llvm::SmallPtrSet<Operation *, 8> rotatedInto;
    for (LoopPipelinePlan &plan : plans)
      if (std::optional<OuterRotation> rotation = matchOuterRotation(plan))
        rotatedInto.insert(rotation->outer);
    for (LoopPipelinePlan &plan : plans)
      if (!rotatedInto.contains(plan.loop))
        pipelineLoop(plan);
  }
};

} // namespace
