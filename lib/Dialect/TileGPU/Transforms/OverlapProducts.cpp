//===- OverlapProducts.cpp - Wait for products where they are used --------===//
//
// See the pass description in Passes.td.  What may lie between a product
// and its wait: the product reads its shared-memory operands (and its
// register A operand) until the wait retires it, so nothing may write
// memory in between (a copy or store into a buffer it reads), and nothing
// may synchronize the CTA (a barrier that other warpgroups pass only after
// their own waits would not make this warpgroup's product done).  Turns
// among warpgroups (warp_group_turn_wait and _pass) may lie in between:
// they only order when each warpgroup issues its products.  The ops
// a softmax is made of (arithmetic, shuffles within a warp, conversions
// through scratch that no product reads) are neither.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUOVERLAPPRODUCTS
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// Whether a wait may move past `op`: ops that read only (or compute),
/// products (counted by the caller), and the layout conversions and
/// register loads a softmax is made of.
bool mayPass(Operation *op) {
  // Turns among warpgroups order their products' issue; no product reads
  // or writes anything through them.
  if (isa<WarpGroupDotOp, ConvertLayoutOp, WarpGroupTurnWaitOp,
          WarpGroupTurnPassOp, ScheduleAfterOp>(op))
    return true;
  if (op->getNumRegions() != 0) {
    // A reduction's combiner is arithmetic.
    if (isa<tile::ReduceOp>(op))
      return true;
    // A branch (the causal softmax's mask chosen per block by a uniform
    // condition) when everything in it may be passed and it issues no
    // product of its own (the wait's count would depend on the branch
    // taken).  Stopping there left the rotated loop's PV waited for before
    // the softmax: the persistent causal kernel ran 12% behind the
    // unpersisted one, whose two loops need no branch.
    if (isa<scf::IfOp>(op)) {
      WalkResult walk = op->walk([&](Operation *inner) {
        if (inner == op || inner->hasTrait<OpTrait::IsTerminator>())
          return WalkResult::advance();
        if (isa<WarpGroupDotOp>(inner) || !mayPass(inner))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      return !walk.wasInterrupted();
    }
    return false;
  }
  if (isa<WarpGroupDotWaitOp, tile::BarrierOp>(op))
    return false;
  // A new buffer (an operand made shared): nothing in flight reads it.
  if (isa<LocalAllocOp>(op))
    return true;
  // Reads (loads into registers) and pure ops.
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::all_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

/// Whether `op` (or an op nested in it) uses `value`.
bool uses(Operation *op, Value value) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (llvm::is_contained(inner->getOperands(), value))
      found = true;
  });
  return found;
}

/// Moves `wait` (for the product `dot`) down its block to just before the
/// first use of its result; returns whether it moved.
bool sinkWait(WarpGroupDotWaitOp wait, WarpGroupDotOp dot) {
  Value result = wait.getResult(0);
  unsigned passed = 0;
  Operation *stop = nullptr;
  // A warp-specialized consumer releases its slot right after the wait
  // that retires every product reading it: the release goes along with the
  // wait, as long as the wait still retires every product (it passes no
  // other), so the producer refills the slot no earlier than before.
  auto release = dyn_cast_or_null<ChannelReleaseOp>(wait->getNextNode());
  Operation *from = release ? release->getNextNode() : wait->getNextNode();
  SmallVector<Value> reductions;
  for (Operation *op = from; op; op = op->getNextNode()) {
    if (op->hasTrait<OpTrait::IsTerminator>() || uses(op, result) ||
        !mayPass(op)) {
      stop = op;
      break;
    }
    if (isa<WarpGroupDotOp>(op))
      ++passed;
    if (isa<tile::ReduceOp>(op))
      llvm::append_range(reductions, op->getResults());
  }
  if (!stop || stop == from || (release && passed != 0))
    return false;
  wait->moveBefore(stop);
  wait.setPendings(passed);
  // The reductions the wait moved past (a softmax's row maximum and sum,
  // which read every element it computed) stay ahead of it in ptxas's
  // schedule too: ptxas issues a wait as early as it may, and would run the
  // softmax's exponentials after it, while nothing is left in flight.
  if (!reductions.empty()) {
    OpBuilder b(wait);
    ScheduleAfterOp::create(b, wait.getLoc(), reductions);
  }
  if (release)
    release->moveAfter(wait.getOperation());
  // A register A operand stays live (tied to the wait) until the product
  // is done.
  Value a = dot.getA();
  if (isa<RankedTensorType>(a.getType()) &&
      !llvm::is_contained(wait.getInputs(), a)) {
    OpBuilder b(wait);
    SmallVector<Value> inputs(wait.getInputs());
    inputs.push_back(a);
    auto wider = WarpGroupDotWaitOp::create(b, wait.getLoc(),
                                            ValueRange(inputs).getTypes(),
                                            inputs, wait.getPendings());
    for (auto [old, now] : llvm::zip(wait.getResults(), wider.getResults()))
      old.replaceAllUsesWith(now);
    wait->erase();
  }
  return true;
}

/// Whether the next thing `turn` (a turn wait) is followed by is a product,
/// with only pure ops before it: not a wait for an earlier product that
/// sank past the turn (the in-order loop's), which would keep the turn
/// while the warpgroup waits.
bool productIssuedNext(Operation *turn) {
  for (Operation *op = turn->getNextNode(); op; op = op->getNextNode()) {
    if (isa<WarpGroupDotOp>(op))
      return true;
    if (op->getNumRegions() != 0 || !isPure(op))
      return false;
  }
  return false;
}

/// Once the waits are out of the way, products issued back to back (the
/// rotated loop's QK^T of block n and PV of block n-1, with nothing but
/// pure ops between them) share one turn: a
/// warpgroup that passed the turn after the first product and waits for
/// it again before the second, with only pure ops between, would wait for
/// the other warpgroup to reach its own next product (the end of its
/// softmax) before issuing the second. FlashAttention-3 issues both GEMMs
/// of an iteration between one scheduler-barrier sync and arrive. Every
/// warpgroup runs the same body, so each still alternates waits and passes
/// and the turns stay balanced; only turns taken by every warpgroup (no
/// `only`) are joined.
void joinTurns(Block &body) {
  SmallVector<std::pair<Operation *, Operation *>> pairs;
  for (auto pass : body.getOps<WarpGroupTurnPassOp>()) {
    if (pass.getOnlyGroup())
      continue;
    for (Operation *op = pass->getNextNode(); op; op = op->getNextNode()) {
      if (auto wait = dyn_cast<WarpGroupTurnWaitOp>(op)) {
        if (!wait.getOnlyGroup() &&
            wait.getFirstBarrierId() == pass.getFirstBarrierId() &&
            wait.getNumGroups() == pass.getNumGroups() &&
            productIssuedNext(wait))
          pairs.push_back({pass, wait});
        break;
      }
      if (op->getNumRegions() != 0 || !isPure(op))
        break;
    }
  }
  for (auto [pass, wait] : pairs) {
    pass->erase();
    wait->erase();
  }
}

/// A loop-carried product result (the body yields a wait's result, as
/// FlashAttention-3's rotated loop yields O after PV) used in the next
/// iteration after products of that iteration were issued: the loop
/// rescales O between QK^T of block n and PV of block n-1. The wait at the
/// end of the previous iteration retired the product, but ptxas proves a
/// register written by a wgmma free only from a wait that follows the
/// latest commit; from one before it, it injects a full wait
/// (`warpgroup.wait 0`, info C7517) ahead of the use, which waits for
/// QK^T and issues PV only after it. So the use gets a wait of its own
/// whose `pendings` counts the products issued before it in this
/// iteration: it leaves exactly those in flight, so at run time it finds
/// nothing to wait for (the product it retires was retired already).
void waitForCarriedProducts(Block &body) {
  auto loop = dyn_cast<scf::ForOp>(body.getParentOp());
  if (!loop)
    return;
  Operation *yield = body.getTerminator();
  for (auto [index, yielded] : llvm::enumerate(yield->getOperands())) {
    auto carried = yielded.getDefiningOp<WarpGroupDotWaitOp>();
    if (!carried || carried->getBlock() != &body || carried.getPendings() != 0)
      continue;
    Value arg = loop.getRegionIterArgs()[index];
    unsigned issued = 0;
    Operation *user = nullptr;
    for (Operation &op : body) {
      if (uses(&op, arg)) {
        user = &op;
        break;
      }
      if (isa<WarpGroupDotOp>(op))
        ++issued;
      if (isa<WarpGroupDotWaitOp>(op))
        issued = 0; // a wait of this iteration already guides ptxas
    }
    // A product accumulating into it (the plain loop) needs nothing.
    if (!user || issued == 0 || isa<WarpGroupDotOp, WarpGroupDotWaitOp>(user))
      continue;
    OpBuilder b(user);
    auto wait = WarpGroupDotWaitOp::create(b, user->getLoc(), TypeRange{arg.getType()},
                                           ValueRange{arg}, issued);
    arg.replaceUsesWithIf(wait.getResult(0), [&](OpOperand &use) {
      return use.getOwner() != wait.getOperation();
    });
  }
}

void overlapProducts(Block &body) {
  SmallVector<WarpGroupDotOp> dots(body.getOps<WarpGroupDotOp>());
  if (dots.size() < 2)
    return;
  // Last product first: its wait moves out of the way of the earlier ones'.
  SmallVector<std::pair<WarpGroupDotWaitOp, WarpGroupDotOp>> waits;
  for (WarpGroupDotOp dot : dots) {
    if (!dot->hasOneUse())
      continue;
    auto wait = dyn_cast<WarpGroupDotWaitOp>(*dot->getUsers().begin());
    if (!wait || wait->getBlock() != &body || wait.getPendings() != 0 ||
        wait.getInputs().size() != 1)
      continue;
    // Nothing between the product and its wait may matter to it.
    bool clean = true;
    for (Operation *op = dot->getNextNode(); op != wait; op = op->getNextNode())
      clean &= mayPass(op) || isa<WarpGroupDotWaitOp>(op);
    if (clean)
      waits.push_back({wait, dot});
  }
  for (auto [wait, dot] : llvm::reverse(waits))
    sinkWait(wait, dot);
  // After the turns are joined: the wait it adds between the products is
  // no reason to give the turn up between them.
  joinTurns(body);
  waitForCarriedProducts(body);
}

struct TileGPUOverlapProducts
    : public tilegpu::impl::TileGPUOverlapProductsBase<TileGPUOverlapProducts> {
  void runOnOperation() override {
    getOperation().walk([](scf::ForOp loop) { overlapProducts(*loop.getBody()); });
  }
};

} // namespace
