//===- PipelineAnalysis.cpp - Which loads of a loop to pipeline -----------===//
//
// A load is pipelined when moving it ahead by a few iterations changes
// nothing but its timing: its address and mask must be computable for a
// later iteration from the induction variable, loop invariants and the
// pointer chains the loop carries, with side-effect-free ops, and its
// value must go only into shared memory read by the loop's products, so
// that an asynchronous copy into a ring buffer can replace both.
//
//===----------------------------------------------------------------------===//

#include "PipelineAnalysis.h"
#include "../TMAUtility.h"

#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// cp.async copies 4, 8 or 16 bytes per instruction.
constexpr int64_t kMinCopyBytes = 4;
constexpr int64_t kMaxCopyBytes = 16;

/// Whether `value` is +0 (a scalar, a splat constant or a splat of one):
/// what an asynchronous copy writes where the mask is off.
bool isPositiveZero(Value value) {
  if (matchPattern(value, m_Zero()) || matchPattern(value, m_PosZeroFloat()))
    return true;
  if (auto splat = value.getDefiningOp<tile::SplatOp>())
    return isPositiveZero(splat.getSrc());
  return false;
}

/// The dimension a nvmma_shared buffer of rank `rank` stores contiguously.
unsigned sharedContiguousDim(NVMMASharedEncodingAttr layout, unsigned rank) {
  return layout.getTransposed() ? rank - 2 : rank - 1;
}

/// Whether every thread's share of the load can be copied in accesses of
/// at least 4 bytes that are contiguous and aligned both in global memory
/// (axis analysis of the pointers and mask) and in the shared buffer.
bool isWideEnoughForAsyncCopy(tile::LoadOp load, MemDescType buffer,
                              const ModuleAxisInfoAnalysis &axisInfo) {
  auto ptrType = cast<RankedTensorType>(load.getPtr().getType());
  Attribute layout = ptrType.getEncoding();
  auto shared = dyn_cast<NVMMASharedEncodingAttr>(buffer.getEncoding());
  if (!layout || !isBlockedLike(layout) || !shared || ptrType.getRank() < 2)
    return false;
  unsigned dim = getOrder(layout)[0];
  if (dim != sharedContiguousDim(shared, ptrType.getRank()))
    return false;
  int64_t width = axisInfo.getPtrAlignment(load.getPtr(), dim);
  if (Value mask = load.getMask())
    width = std::min(width, axisInfo.getMaskAlignment(mask, dim));
  width = std::min<int64_t>(
      width, getContiguousElemsPerThread(layout, ptrType.getShape()));
  int64_t elementBytes = buffer.getElementType().getIntOrFloatBitWidth() / 8;
  return std::min(width * elementBytes, kMaxCopyBytes) >= kMinCopyBytes;
}

} // namespace

std::optional<PipelinedLoad>
warpforge::tilegpu::matchPipelinableLoad(Value operand, Block *body,
                     const ModuleAxisInfoAnalysis &axisInfo) {
  auto alloc = operand.getDefiningOp<LocalAllocOp>();
  if (!alloc || alloc->getBlock() != body || !alloc.getSrc())
    return std::nullopt;
  // Every reader of the buffer is a product of this loop, or a local_load
  // of it into a product's register operand, so that the products' waits
  // (or the loads themselves) are every read of the buffer.
  for (Operation *user : alloc->getUsers())
    if (!isa<WarpGroupDotOp, LocalLoadOp>(user) || user->getBlock() != body)
      return std::nullopt;
  if (std::optional<TMAOperand> tma = matchTMAOperand(alloc)) {
    // A descriptor made in the loop would be made again ahead of its
    // iteration, rewriting its tensor map while copies through the
    // previous one may still read it: only loop-invariant descriptors.
    if (body->getParentOp()->isAncestor(
            tma->load.getDesc().getParentRegion()->getParentOp()))
      return std::nullopt;
    PipelinedLoad result;
    result.alloc = alloc;
    result.descLoad = tma->load;
    result.transposed = tma->transposed;
    result.chain = tma->chain;
    return result;
  }
  auto load = alloc.getSrc().getDefiningOp<tile::LoadOp>();
  if (!load || load->getBlock() != body || !load->hasOneUse() ||
      load.getIsVolatile())
    return std::nullopt;
  if (Value other = load.getOther(); other && !isPositiveZero(other))
    return std::nullopt;
  auto ptrType = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!ptrType || !isa<tile::PointerType>(ptrType.getElementType()))
    return std::nullopt;
  if (!isWideEnoughForAsyncCopy(load, alloc.getType(), axisInfo))
    return std::nullopt;
  return PipelinedLoad{load, alloc};
}

namespace {

/// Adds to `ops` and `args` the body ops and iter_args (with the chains
/// that yield them) that `roots` depend on inside `loop`; fails when one
/// of those ops has effects or regions.
LogicalResult collectStage0(scf::ForOp loop, ArrayRef<Value> roots,
                            llvm::SmallPtrSetImpl<Operation *> &ops,
                            llvm::SetVector<unsigned> &args) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  SmallVector<Value> worklist(roots.begin(), roots.end());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != body || arg == loop.getInductionVar())
        continue;
      unsigned index = arg.getArgNumber() - loop.getNumInductionVars();
      if (args.insert(index))
        worklist.push_back(yield.getOperand(index));
      continue;
    }
    Operation *def = value.getDefiningOp();
    if (def->getBlock() != body || !ops.insert(def).second)
      continue;
    if (def->getNumRegions() != 0 || !isMemoryEffectFree(def))
      return failure();
    llvm::append_range(worklist, def->getOperands());
  }
  return success();
}

/// Whether the products of `loop` can stay in flight for one iteration:
/// one product reading only pipelined buffers, accumulating into an
/// iter_arg that nothing else reads, whose wait feeds only the yield.
std::optional<unsigned> findInFlightAccumulator(scf::ForOp loop,
                                                ArrayRef<PipelinedLoad> loads) {
  Block *body = loop.getBody();
  auto dots = llvm::to_vector(body->getOps<WarpGroupDotOp>());
  if (dots.size() != 1)
    return std::nullopt;
  WarpGroupDotOp dot = dots.front();
  auto isPipelined = [&](Value operand) {
    return llvm::any_of(loads, [&](PipelinedLoad l) {
      return l.alloc.getResult() == operand;
    });
  };
  if (!isPipelined(dot.getA()) || !isPipelined(dot.getB()))
    return std::nullopt;
  auto acc = dyn_cast<BlockArgument>(dot.getC());
  if (!acc || acc.getOwner() != body || acc == loop.getInductionVar() ||
      !acc.hasOneUse() || !dot->hasOneUse())
    return std::nullopt;
  auto wait = dyn_cast<WarpGroupDotWaitOp>(*dot->getUsers().begin());
  if (!wait || wait.getInputs().size() != 1 || !wait->hasOneUse())
    return std::nullopt;
  unsigned index = acc.getArgNumber() - loop.getNumInductionVars();
  OpOperand &use = *wait->getUses().begin();
  if (use.getOwner() != body->getTerminator() ||
      use.getOperandNumber() != index)
    return std::nullopt;
  return index;
}

} // namespace

std::optional<LoopPipelinePlan>
warpforge::tilegpu::planLoopPipeline(scf::ForOp loop, int numStages,
                                     const ModuleAxisInfoAnalysis &axisInfo) {
  if (numStages < 2)
    return std::nullopt;
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());

  // Every product is waited for in the body, with nothing left in flight
  // after the last wait: the schedule below relies on it (and a loop
  // already pipelined has a last wait with pendings > 0).  Earlier waits
  // may leave later products in flight (tilegpu-overlap-products).
  LoopPipelinePlan plan;
  plan.loop = loop;
  plan.numStages = numStages;
  bool hasDot = false;
  WarpGroupDotWaitOp lastWait;
  for (Operation &op : body->without_terminator()) {
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op)) {
      lastWait = wait;
    } else if (auto dot = dyn_cast<WarpGroupDotOp>(op)) {
      hasDot = true;
      for (Operation *user : dot->getUsers())
        if (!isa<WarpGroupDotWaitOp>(user) || user->getBlock() != body)
          return std::nullopt;
    }
  }
  // The buffers each product reads: wgmma's operands are the buffers;
  // mma.sync's (tile.dot in mma.sync layouts) are loaded from them.
  SmallVector<Value> buffers;
  if (hasDot) {
    if (!lastWait || lastWait.getPendings() != 0)
      return std::nullopt;
    // The last wait must come after every product.
    for (WarpGroupDotOp dot : body->getOps<WarpGroupDotOp>()) {
      if (!dot->isBeforeInBlock(lastWait))
        return std::nullopt;
      buffers.push_back(dot.getA());
      buffers.push_back(dot.getB());
    }
    plan.anchor = lastWait;
  } else {
    for (tile::DotOp dot : body->getOps<tile::DotOp>()) {
      if (!isMmaDotForm(dot.getA().getType(), dot.getB().getType(),
                        cast<RankedTensorType>(dot.getType())))
        continue;
      for (Value operand : {dot.getA(), dot.getB()})
        if (auto read = operand.getDefiningOp<LocalLoadOp>();
            read && read->getBlock() == body)
          buffers.push_back(read.getSrc());
    }
    if (buffers.empty())
      return std::nullopt;
  }

  // Candidate loads, each once, with their stage-0 slices; a load whose
  // slice has effects stays synchronous.
  llvm::SmallPtrSet<Operation *, 16> stage0;
  llvm::SetVector<unsigned> stage0Args;
  {
    for (Value operand : buffers) {
      std::optional<PipelinedLoad> candidate =
          matchPipelinableLoad(operand, body, axisInfo);
      if (!candidate || llvm::any_of(plan.loads, [&](PipelinedLoad l) {
            return l.getLoadOp() == candidate->getLoadOp();
          }))
        continue;
      llvm::SmallPtrSet<Operation *, 16> ops = stage0;
      llvm::SetVector<unsigned> args = stage0Args;
      SmallVector<Value> roots;
      if (candidate->isTMA()) {
        roots.push_back(candidate->descLoad.getDesc());
        llvm::append_range(roots, candidate->descLoad.getIndices());
      } else {
        roots.push_back(candidate->load.getPtr());
        if (Value mask = candidate->load.getMask())
          roots.push_back(mask);
      }
      if (failed(collectStage0(loop, roots, ops, args)))
        continue;
      stage0 = std::move(ops);
      stage0Args = std::move(args);
      plan.loads.push_back(*candidate);
    }
  }
  if (plan.loads.empty())
    return std::nullopt;
  if (!plan.anchor) {
    // mma.sync: the last read of a pipelined buffer, or the last product
    // taking one of those reads when it comes later.  Refilling after the
    // products leaves the operand registers free to be read from shared
    // memory just before each instruction needs them (a refill right
    // after the reads would hold the whole K tile of both operands in
    // registers across it).
    auto isRingRead = [&](Value v) {
      auto read = v.getDefiningOp<LocalLoadOp>();
      return read && llvm::any_of(plan.loads, [&](PipelinedLoad &l) {
               return l.alloc.getResult() == read.getSrc();
             });
    };
    for (Operation &op : body->without_terminator()) {
      if (auto read = dyn_cast<LocalLoadOp>(op); read && isRingRead(read))
        plan.anchor = read;
      if (auto dot = dyn_cast<tile::DotOp>(op);
          dot && (isRingRead(dot.getA()) || isRingRead(dot.getB())))
        plan.anchor = dot;
    }
  }

  // Ops reading a carried chain exist only ahead in the new loop.
  for (Operation &op : body->without_terminator()) {
    if (!stage0.contains(&op))
      continue;
    plan.stage0.push_back(&op);
    bool readsCarried = llvm::any_of(op.getOperands(), [&](Value operand) {
      if (auto arg = dyn_cast<BlockArgument>(operand))
        return arg.getOwner() == body && arg != loop.getInductionVar() &&
               stage0Args.contains(arg.getArgNumber() -
                                   loop.getNumInductionVars());
      return plan.carried.contains(operand.getDefiningOp());
    });
    if (readsCarried)
      plan.carried.insert(&op);
  }

  // Values of the carried chains must not reach anything but stage 0, the
  // pipelined loads and their own yields: elsewhere the new loop would see
  // them a few iterations early.  Stage-0 values from the induction
  // variable and invariants alone are recomputed for those other users.
  auto isStage0Use = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (stage0.contains(user))
      return true;
    if (user == yield)
      return stage0Args.contains(use.getOperandNumber());
    return llvm::any_of(plan.loads, [&](PipelinedLoad l) {
      return l.getLoadOp() == user;
    });
  };
  for (unsigned index : stage0Args) {
    if (!loop.getResult(index).use_empty())
      return std::nullopt;
    for (OpOperand &use : loop.getRegionIterArgs()[index].getUses())
      if (!isStage0Use(use))
        return std::nullopt;
  }
  for (Operation *op : plan.carried)
    for (OpOperand &use : op->getUses())
      if (!isStage0Use(use))
        return std::nullopt;
  // A non-carried stage-0 value yielded into a carried chain's place is
  // fine; one yielded elsewhere is recomputed like any other use.

  plan.stage0Args.assign(stage0Args.begin(), stage0Args.end());
  llvm::sort(plan.stage0Args);
  plan.inFlightAcc = findInFlightAccumulator(loop, plan.loads);
  return plan;
}
