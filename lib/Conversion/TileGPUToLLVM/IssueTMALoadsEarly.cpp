//===- IssueTMALoadsEarly.cpp - Start lone TMA loads early ----------------===//
//
// tilegpu-lower-tma issues a load that no pipeline owns where its tile is
// first used and waits for it right there: the copy's whole latency (about
// a microsecond from DRAM) is on the path.  Inside a loop body (a
// persistent kernel's tile loop), such a load often follows an inner loop
// it does not depend on: attention's last V block, read by the PV product
// after the loop over K/V blocks.  This pass moves the copy's issue, the
// group
//
//   local_alloc (buffer), local_alloc (mbarrier), init_barrier,
//   fence_async_shared, tile.barrier, barrier_expect, async copy
//
// up above such loops, with the pure ops computing its coordinates, and
// leaves the wait (wait_barrier, tile.barrier, inval_barrier, dealloc)
// where it was: the copy then lands while the loop runs.
//
// A lone load that starts the body (a persistent kernel's Q block, whose
// coordinates depend on the tile index alone) is prefetched instead: the
// iteration before copies it into the same buffer once its own reads are
// retired (see prefetchNextIteration).
//
// It runs right before tilegpu-allocate-shared-memory because the move
// lengthens the buffer's life, and must not cost shared memory: a crossed
// loop may allocate nothing, free nothing and need no scratch (so the
// allocator places exactly what it placed before, the buffer earlier), and
// only loop bodies are considered (in the kernel's body and the consumers'
// region, the allocator frees a loop's buffers and the channel slots after
// the loop, which the buffer could no longer take).
//
// Why it is safe:
//  * The crossed loops write no global memory (so the copy reads what it
//    read before) and never see the new buffer or mbarrier (both are made
//    by the group).
//  * The buffer's previous contents are last read in the previous
//    iteration of the enclosing loop: every reader follows the copy in this
//    block and a full wgmma wait follows the last product that reads it, so
//    every thread has retired its reads before the next iteration, and the
//    group's own tile.barrier (before the copy) orders the copy after every
//    thread's retirement, as it did where tilegpu-lower-tma put it.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Passes.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace warpforge {
#define GEN_PASS_DEF_TILEGPUISSUETMALOADSEARLY
#include "warpforge/Conversion/TileGPUToLLVM/Passes.h.inc"
} // namespace warpforge

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// The issue half of a load tilegpu-lower-tma made, ending at `copy`, in
/// order; empty when the ops before the copy are not exactly that group.
SmallVector<Operation *> matchIssueGroup(AsyncTMACopyGlobalToLocalOp copy) {
  if (copy.getMulticast())
    return {};
  Value buffer = copy.getResult(), barrier = copy.getBarrier();
  SmallVector<Operation *> group{copy};
  Operation *op = copy->getPrevNode();
  // Constants tilegpu-lower-tma made on the way (canonicalization hoists
  // them later) belong to the group.
  auto take = [&](auto matches) {
    while (op && op->hasTrait<OpTrait::ConstantLike>()) {
      group.push_back(op);
      op = op->getPrevNode();
    }
    if (!op || !matches(op))
      return false;
    group.push_back(op);
    op = op->getPrevNode();
    return true;
  };
  bool matched =
      take([&](Operation *o) {
        auto expect = dyn_cast<BarrierExpectOp>(o);
        return expect && expect.getBarrier() == barrier;
      }) &&
      take([](Operation *o) { return isa<tile::BarrierOp>(o); }) &&
      take([](Operation *o) { return isa<FenceAsyncSharedOp>(o); }) &&
      take([&](Operation *o) {
        auto init = dyn_cast<InitBarrierOp>(o);
        return init && init.getBarrier() == barrier;
      }) &&
      take([&](Operation *o) { return o == barrier.getDefiningOp(); }) &&
      take([&](Operation *o) { return o == buffer.getDefiningOp(); });
  if (!matched)
    return {};
  auto bufferAlloc = cast<LocalAllocOp>(group.back());
  if (bufferAlloc.getSrc())
    return {};
  std::reverse(group.begin(), group.end());
  return group;
}

/// Whether `op`, or an op nested in it, may write global memory (or has
/// effects this pass cannot see).
bool mayWriteGlobal(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (auto iface = dyn_cast<MemoryEffectOpInterface>(nested)) {
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      for (const MemoryEffects::EffectInstance &effect : effects)
        if (isa<MemoryEffects::Write>(effect.getEffect()) &&
            !isa<tilegpu::SharedMemory>(effect.getResource()))
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isa<scf::YieldOp>(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return result.wasInterrupted();
}

/// Whether shared memory is the same with `loop` run while the moved
/// buffer is live: the loop allocates and frees nothing and needs no
/// scratch.
bool placesNothing(Operation *loop) {
  WalkResult result = loop->walk([](Operation *nested) {
    if (isa<LocalAllocOp, LocalDeallocOp>(nested) || getScratchBytes(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether every read of `buffer` (through views) is in `block` after
/// `from`, and a full wgmma wait in `block` follows the last product that
/// reads it: the reads of one iteration are over before the next begins.
bool readsRetireInBlock(Value buffer, Block *block, Operation *from) {
  Operation *lastProduct = nullptr;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == from)
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top || top == from || top->isBeforeInBlock(from))
        return false;
      if (isa<MemDescTransOp, MemDescIndexOp, MemDescSubsliceOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      if (isa<WarpGroupDotOp>(user)) {
        if (top != user)
          return false; // a product nested deeper: keep it simple
        if (!lastProduct || lastProduct->isBeforeInBlock(top))
          lastProduct = top;
      }
    }
  }
  if (!lastProduct)
    return true;
  for (Operation *op = lastProduct->getNextNode(); op; op = op->getNextNode())
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op);
        wait && wait.getPendings() == 0)
      return true;
  return false;
}

/// The ops of `slice` (all in one block) in program order.
SmallVector<Operation *>
inProgramOrder(const llvm::SetVector<Operation *> &slice) {
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// The pure ops of `block` from `point` on (and before `end`) that compute
/// `values`, in program order; failure when one is not pure, has regions
/// or is a crossed loop.
FailureOr<SmallVector<Operation *>>
operandSlice(ValueRange values, Operation *point, Operation *end) {
  Block *block = point->getBlock();
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != block || def->isBeforeInBlock(point) ||
        slice.contains(def))
      continue;
    if (!def->isBeforeInBlock(end))
      continue; // part of the group itself
    if (def->getNumRegions() || !isMemoryEffectFree(def))
      return failure();
    slice.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  return inProgramOrder(slice);
}

/// Moves the issue of `copy` above the loops before it in its block, when
/// it is a lone load's group and that is safe (see the file comment).
bool issueEarly(AsyncTMACopyGlobalToLocalOp copy) {
  Block *block = copy->getBlock();
  if (!isa<scf::ForOp>(block->getParentOp()))
    return false;
  SmallVector<Operation *> group = matchIssueGroup(copy);
  if (group.empty())
    return false;
  Operation *first = group.front();
  if (!readsRetireInBlock(copy.getResult(), block, copy))
    return false;
  // The operands the group takes from outside itself.
  SmallVector<Value> operands;
  for (Operation *op : group)
    for (Value v : op->getOperands())
      if (!v.getDefiningOp() || !llvm::is_contained(group, v.getDefiningOp()))
        operands.push_back(v);
  // Walk up past pure ops and crossable loops; the earliest loop whose
  // crossing leaves the operands computable is the new issue point.
  Operation *point = nullptr;
  SmallVector<Operation *> slice;
  for (Operation *op = first->getPrevNode(); op; op = op->getPrevNode()) {
    if (isa<scf::ForOp>(op)) {
      if (mayWriteGlobal(op) || !placesNothing(op))
        break;
      FailureOr<SmallVector<Operation *>> s = operandSlice(operands, op, first);
      if (failed(s))
        break;
      point = op;
      slice = std::move(*s);
      continue;
    }
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      break;
  }
  if (!point)
    return false;
  for (Operation *op : slice)
    op->moveBefore(point);
  for (Operation *op : group)
    op->moveBefore(point);
  return true;
}

/// Whether no wgmma product of `block` is still in flight at its end: a
/// full wait at its top level follows every top-level op that is or holds
/// a product.
bool productsRetiredAtEnd(Block &block) {
  bool pending = false;
  for (Operation &op : block) {
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op);
        wait && wait.getPendings() == 0) {
      pending = false;
      continue;
    }
    bool products = false;
    op.walk([&](WarpGroupDotOp) { products = true; });
    pending |= products;
  }
  return !pending;
}

/// The op of `block` after which no thread reads `buffer` any more in this
/// iteration: the last top-level op holding a reader, or, when products
/// read it, the first full wait at or after that op (a loop whose
/// products are retired at its end counts as one).  Null when there is
/// none, or when a reader is not a product, a local_load or a view.
Operation *lastReadRetired(Value buffer, Block *block,
                           llvm::ArrayRef<Operation *> ignore) {
  Operation *last = nullptr;
  bool products = false;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (llvm::is_contained(ignore, user))
        continue;
      Operation *top = block->findAncestorOpInBlock(*user);
      if (!top)
        return nullptr;
      if (isa<MemDescTransOp, MemDescIndexOp, MemDescSubsliceOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      if (!isa<WarpGroupDotOp, LocalLoadOp>(user))
        return nullptr;
      products |= isa<WarpGroupDotOp>(user);
      if (!last || last->isBeforeInBlock(top))
        last = top;
    }
  }
  if (!last || !products)
    return last;
  if (auto loop = dyn_cast<scf::ForOp>(last);
      loop && productsRetiredAtEnd(*loop.getBody()))
    return last;
  for (Operation *op = last; op; op = op->getNextNode())
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op);
        wait && wait.getPendings() == 0)
      return op;
  return nullptr;
}

/// The ops of `block` before `end` that compute `values` (all pure and
/// without regions, and depending on nothing of the block but the loop's
/// induction variable `iv`), in program order; failure otherwise.
FailureOr<SmallVector<Operation *>> ivSlice(ValueRange values, Block *block,
                                            Value iv, Operation *end) {
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist(values.begin(), values.end());
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (v == iv)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == block)
        return failure(); // an iter_arg: unknown for the next iteration
      continue;
    }
    Operation *def = v.getDefiningOp();
    Operation *top = block->findAncestorOpInBlock(*def);
    if (!top)
      continue; // defined outside the loop
    if (top != def || !def->isBeforeInBlock(end) || def->getNumRegions() ||
        !isMemoryEffectFree(def))
      return failure();
    if (slice.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return inProgramOrder(slice);
}

/// A lone load at the top of a loop body, whose block depends only on the
/// induction variable: iteration i + 1's copy is issued in iteration i, as
/// soon as every thread is done with the buffer (lastReadRetired), into
/// the same buffer and on the same mbarrier, which now lives across the
/// loop (initialized before it, invalidated after it); each iteration
/// waits for its phase, ((iv - lb) / step) & 1.  The first copy goes
/// before the loop.  Both are predicated on their iteration existing.
/// A persistent kernel's Q block then lands during the previous tile's
/// last products and epilogue.  Every re-arm of the barrier follows a CTA
/// barrier that every thread reaches after its wait for the phase before,
/// and after its last reads of the buffer.
bool prefetchNextIteration(AsyncTMACopyGlobalToLocalOp copy) {
  auto loop = dyn_cast<scf::ForOp>(copy->getParentOp());
  // The phase (an i32 operand of wait_barrier) is computed from the
  // induction variable: i32 loops only.
  if (!loop || !loop.getInductionVar().getType().isInteger(32))
    return false;
  Block *body = loop.getBody();
  SmallVector<Operation *> group = matchIssueGroup(copy);
  if (group.empty())
    return false;
  Value buffer = copy.getResult(), barrier = copy.getBarrier();
  // Only pure ops before the group: it starts the iteration.
  for (Operation *op = group.front()->getPrevNode(); op; op = op->getPrevNode())
    if (op->getNumRegions() || !isMemoryEffectFree(op))
      return false;
  // The completion tilegpu-lower-tma made: wait for phase 0, a CTA barrier,
  // inval, dealloc.
  Operation *op = copy->getNextNode();
  while (op && op->hasTrait<OpTrait::ConstantLike>())
    op = op->getNextNode();
  auto wait = dyn_cast_or_null<WaitBarrierOp>(op);
  if (!wait || wait.getBarrier() != barrier)
    return false;
  auto ctaBarrier = dyn_cast_or_null<tile::BarrierOp>(wait->getNextNode());
  auto inval = ctaBarrier
                   ? dyn_cast_or_null<InvalBarrierOp>(ctaBarrier->getNextNode())
                   : InvalBarrierOp();
  auto dealloc = inval ? dyn_cast_or_null<LocalDeallocOp>(inval->getNextNode())
                       : LocalDeallocOp();
  if (!inval || inval.getBarrier() != barrier || !dealloc ||
      dealloc.getSrc() != barrier)
    return false;
  for (Operation *user : barrier.getUsers())
    if (!llvm::is_contained(group, user) && user != wait && user != inval &&
        user != dealloc)
      return false;
  auto expect = cast<BarrierExpectOp>(*llvm::find_if(
      group, [](Operation *o) { return isa<BarrierExpectOp>(o); }));
  if (!matchPattern(copy.getPred(), m_One()) ||
      expect.getPred() != copy.getPred())
    return false;
  Operation *freed = lastReadRetired(buffer, body, {copy});
  if (!freed || freed->isBeforeInBlock(wait))
    return false;
  FailureOr<SmallVector<Operation *>> slice =
      ivSlice(copy.getIndices(), body, loop.getInductionVar(), group.front());
  if (failed(slice))
    return false;

  Location loc = copy.getLoc();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep(), iv = loop.getInductionVar();
  // The coordinates of the iteration at `at`, cloned at `b`.
  auto indicesAt = [&](OpBuilder &b, Value at) {
    IRMapping map;
    map.map(iv, at);
    for (Operation *def : *slice)
      b.clone(*def, map);
    return llvm::map_to_vector(copy.getIndices(),
                               [&](Value v) { return map.lookupOrDefault(v); });
  };
  auto issue = [&](OpBuilder &b, Value at) {
    Value exists =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, ub);
    SmallVector<Value> indices = indicesAt(b, at);
    BarrierExpectOp::create(b, loc, barrier, expect.getBytes(), exists);
    AsyncTMACopyGlobalToLocalOp::create(b, loc, copy.getDesc(), indices, buffer,
                                        barrier, exists,
                                        /*multicast=*/nullptr);
  };
  // Before the loop: the buffer, the barrier (init, fence, CTA barrier)
  // and the first iteration's copy.
  for (Operation *g : group)
    if (!isa<BarrierExpectOp, AsyncTMACopyGlobalToLocalOp>(g) &&
        !g->hasTrait<OpTrait::ConstantLike>())
      g->moveBefore(loop);
  OpBuilder b(loop);
  issue(b, lb);
  // In the body: the wait for this iteration's phase.
  b.setInsertionPoint(wait);
  Value count = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, lb), step);
  Value one = arith::ConstantIntOp::create(b, loc, 1, 32);
  wait.getPhaseMutable().assign(arith::AndIOp::create(b, loc, count, one));
  // Once every thread is done with the buffer: the next iteration's copy.
  b.setInsertionPointAfter(freed);
  tile::BarrierOp::create(b, loc);
  issue(b, arith::AddIOp::create(b, loc, iv, step));
  // After the loop: no thread polls the barrier any more.
  b.setInsertionPointAfter(loop);
  tile::BarrierOp::create(b, loc);
  InvalBarrierOp::create(b, loc, barrier);
  LocalDeallocOp::create(b, loc, barrier);
  for (Operation *dead :
       {(Operation *)dealloc, (Operation *)inval, (Operation *)ctaBarrier,
        (Operation *)copy, (Operation *)expect})
    dead->erase();
  return true;
}

struct TileGPUIssueTMALoadsEarly
    : public warpforge::impl::TileGPUIssueTMALoadsEarlyBase<
          TileGPUIssueTMALoadsEarly> {
  void runOnOperation() override {
    SmallVector<AsyncTMACopyGlobalToLocalOp> copies;
    getOperation().walk(
        [&](AsyncTMACopyGlobalToLocalOp copy) { copies.push_back(copy); });
    // Loads start above the loops before them; then a load that starts an
    // iteration is prefetched by the iteration before (in this order: the
    // prefetch puts a copy after the loops the other loads would cross).
    SmallVector<AsyncTMACopyGlobalToLocalOp> stay;
    for (AsyncTMACopyGlobalToLocalOp copy : copies)
      if (!issueEarly(copy))
        stay.push_back(copy);
    for (AsyncTMACopyGlobalToLocalOp copy : stay)
      prefetchNextIteration(copy);
  }
};

} // namespace
