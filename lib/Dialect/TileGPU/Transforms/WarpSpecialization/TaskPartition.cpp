//===- TaskPartition.cpp - Which loads the producer copies ---------------===//
//
// tilegpu-ws-task-partition (see TaskPartition.h for the three steps).  A
// product loop
//
//   scf.for %k {
//     %a = tile.descriptor_load %da[%m, %k * BK]      (address math: scalars)
//     %b = tile.load %b_ptrs                          (pointers the loop advances)
//     %sa = tilegpu.local_alloc %a ; %sb = tilegpu.local_alloc %b
//     %acc' = tilegpu.warp_group_dot %sa, %sb, %acc ; wait {pendings = 0}
//   }
//
// is specialized when every product's operand is a load only products
// read, whose address math the producer's warps can redo from the
// kernel's arguments (and the tile loop's index, for a persistent
// kernel): the loads go to the producer, everything else (the products,
// the math, the epilogue) stays with the consumers.  A left operand in
// registers (the RS form: attention's P, the softmax of the first product)
// is the consumers' to keep.  A block loaded once outside the loop and
// read only by products (a tile operand: attention's Q before the K/V
// loop, read by every QK^T, and the rotated loop's last V after it) is the
// producer's too, once a tile (collectTileOperands), marked
// `tilegpu.ws.tile_operand = i`.  Why this split: the
// producer needs nothing the consumers compute, so it runs ahead by up to
// a ring of slots and the consumers find their operands landed; the
// consumers keep everything that holds the tile's registers.
//
// How each operand is copied: a descriptor load with the TMA; a pointer
// load that provably reads one 2-D block of a row-major matrix
// (PointerBlock.h) with the TMA through a tensor map of the compiler's;
// any other pointer load with cp.async, its address math redone on the
// producer's warps (the kernel's blocked layouts scaled to 4 warps) and
// the pointers the loop advances carried by the producer.
//
// What declines (the loop is left as it is, with the reason recorded on
// the module for the frontend's warning at the Python line): no product
// reading loads the producer can copy; addresses that depend on what the
// consumers compute or the tile loop carries; pointers the loop advances
// that the consumers also read or that are used after the loop;
// descriptors made inside a loop (the producer makes kernel-level ones
// itself); loops nested deeper than a tile loop; products without a full
// wait in the loop; a second specialized loop in one kernel, unless it
// follows the first in the kernel's body and copies the same descriptor
// blocks (canFollow: then both share one channel and producer).
//
//===----------------------------------------------------------------------===//

#include "TaskPartition.h"
#include "../TMAUtility.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUWSTASKPARTITION
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace warpforge::tilegpu::ws {

namespace {
/// Why a tl.dot in `scope` is on the FMA pipes, not wgmma (the reason
/// tilegpu-accelerate-matmul left on it), and its location; empty when
/// there is none.
std::pair<std::string, Location> findFmaDot(Operation *scope) {
  std::pair<std::string, Location> found{"", scope->getLoc()};
  scope->walk([&](tile::DotOp dot) {
    if (auto why = dot->getAttrOfType<StringAttr>("tilegpu.fma")) {
      found = {why.str(), dot.getLoc()};
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}
} // namespace

/// The type `type` has in the producer partition: tensors of the kernel's
/// warps' blocked layouts (or slices of them) get the same layout on the
/// producer's warps.  Null when the layout has no such counterpart.
Type getProducerType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return type;
  Attribute layout =
      tensor.getEncoding()
          ? getBlockedLikeForWarps(tensor.getEncoding(), kProducerWarps)
          : Attribute();
  if (!layout)
    return {};
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               layout);
}

/// Adds the ops computing `value` to the plan; fails with the reason when
/// the producer cannot compute it alone.
static LogicalResult collectSlice(Value value, Plan &plan,
                                  DenseSet<Operation *> &seen,
                                  std::string &why) {
  Block *body = plan.loop.getBody();
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    if (arg.getOwner() == body) {
      if (arg == plan.loop.getInductionVar())
        return success();
      // A pointer the loop advances: the producer carries it, from its
      // first value to what each iteration yields.
      unsigned index = arg.getArgNumber() - plan.loop.getNumInductionVars();
      if (!plan.carried.insert(index))
        return success();
      if (!getProducerType(arg.getType())) {
        why = "the loads' addresses depend on a value the loop carries";
        return failure();
      }
      Operation *yield = body->getTerminator();
      if (failed(collectSlice(plan.loop.getInitArgs()[index], plan, seen,
                              why)) ||
          failed(collectSlice(yield->getOperand(index), plan, seen, why)))
        return failure();
      return success();
    }
    if (plan.tileLoop && arg.getOwner() == plan.tileLoop.getBody()) {
      if (arg == plan.tileLoop.getInductionVar())
        return success();
      why = "the loads' addresses depend on a value the tile loop carries";
      return failure();
    }
    if (isa<FunctionOpInterface>(arg.getOwner()->getParentOp())) {
      plan.captures.insert(arg);
      return success();
    }
    why = "the loads' addresses depend on a value of an enclosing region";
    return failure();
  }
  Operation *op = value.getDefiningOp();
  if (!seen.insert(op).second)
    return success();
  if (isa<tile::MakeTensorDescriptorOp>(op)) {
    // A device-side descriptor the producer makes itself, once: its thread
    // 0 writes the tensor map (a global-scratch slot of the producer's
    // own) and issues every copy through it.  Made in a loop, the producer
    // would rewrite the map while copies through it may be in flight.
    if (!isa<FunctionOpInterface>(op->getParentOp())) {
      why = "a tensor descriptor the loads use is made inside a loop; make "
            "it once, before the loops";
      return failure();
    }
    for (Value operand : op->getOperands())
      if (failed(collectSlice(operand, plan, seen, why)))
        return failure();
    return success();
  }
  // Address math the producer's warps can redo: side-effect free, no
  // regions, tensors in blocked layouts (re-laid on the producer's warps),
  // and no layout conversion (it would need scratch shared memory the
  // partitions do not have).
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op) ||
      isa<ConvertLayoutOp>(op) ||
      llvm::any_of(op->getResultTypes(),
                   [](Type t) { return !getProducerType(t); })) {
    why = "the loads' addresses need '" + op->getName().getStringRef().str() +
          "', which the producer warps cannot compute";
    return failure();
  }
  for (Value operand : op->getOperands())
    if (failed(collectSlice(operand, plan, seen, why)))
      return failure();
  return success();
}

/// Whether what the loop carries for the producer is the producer's alone:
/// the carried pointers' values reach only the loads the producer takes
/// and their own next values, and nothing reads them after the loop.
static LogicalResult checkCarried(Plan &plan,
                                  const DenseSet<Operation *> &seen,
                                  std::string &why) {
  scf::ForOp loop = plan.loop;
  Operation *yield = loop.getBody()->getTerminator();
  DenseSet<Operation *> loads;
  for (PipelinedLoad &operand : plan.operands)
    loads.insert(operand.getLoadOp());
  for (unsigned index : plan.carried) {
    if (!loop.getResult(index).use_empty()) {
      why = "a value the loop advances for the loads' addresses is used "
            "after the loop";
      return failure();
    }
    SmallVector<Value> worklist{loop.getRegionIterArgs()[index]};
    DenseSet<Operation *> visited;
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if ((user == yield && use.getOperandNumber() == index) ||
            loads.contains(user))
          continue;
        if (user != yield && seen.contains(user)) {
          if (visited.insert(user).second)
            llvm::append_range(worklist, user->getResults());
          continue;
        }
        why = "a value the loop advances for the loads' addresses is also "
              "used by '" +
              user->getName().getStringRef().str() + "'";
        return failure();
      }
    }
  }
  return success();
}

/// The loops of `loop`'s body (not nested deeper) that run products.
static SmallVector<scf::ForOp> getProductLoops(scf::ForOp loop) {
  SmallVector<scf::ForOp> found;
  for (Operation &op : *loop.getBody())
    if (auto inner = dyn_cast<scf::ForOp>(op))
      if (llvm::any_of(inner.getBody()->getOperations(), [](Operation &o) {
            return isa<WarpGroupDotOp>(o);
          }))
        found.push_back(inner);
  return found;
}

/// Whether a full wait (pendings = 0) follows product `dot` in its block.
static bool retiredInItsBlock(Operation *dot) {
  for (Operation *op = dot->getNextNode(); op; op = op->getNextNode())
    if (auto wait = dyn_cast<WarpGroupDotWaitOp>(op))
      if (wait.getPendings() == 0)
        return true;
  return false;
}

/// Adds to the plan the blocks the producer can copy once per tile (see
/// TileOperand): in the block of the loop of products (the tile loop's
/// body, or the kernel's), a descriptor load whose tile only goes into an
/// allocation that only products read, each product retired in its own
/// block (a full wait after it: the release goes after that wait, or after
/// the product's loop), in that block or in a loop directly in it.  Each
/// such block belongs to one loop of products, the first that reads it
/// (Q of the causal attention's two K/V loops: the first), or else the
/// last before it (the rotated attention's last V), or else the first
/// after it (a first K block whose product was peeled off the loop): the
/// producer of that loop copies it.  A block whose address the producer
/// cannot compute stays the consumers' own load, as in a ping-pong kernel,
/// where one slot would make each group's tile wait for the other group's
/// to release it.
static void collectTileOperands(Plan &plan, DenseSet<Operation *> &seen) {
  Block *scope = plan.loop->getBlock();
  if (getPingPong(plan.loop->getParentOfType<ModuleOp>()))
    return;
  SmallVector<scf::ForOp> productLoops;
  for (Operation &op : *scope)
    if (auto inner = dyn_cast<scf::ForOp>(op))
      if (!inner.getBody()->getOps<WarpGroupDotOp>().empty())
        productLoops.push_back(inner);
  for (Operation &op : *scope) {
    auto alloc = dyn_cast<LocalAllocOp>(op);
    std::optional<TMAOperand> tma =
        alloc ? matchTMAOperand(alloc) : std::nullopt;
    if (!tma || tma->load->getBlock() != scope)
      continue;
    scf::ForOp owner;
    bool readable = true;
    for (Operation *user : alloc->getUsers()) {
      readable &= retiredInItsBlock(user);
      if (user->getBlock() == scope)
        continue;
      auto inner = dyn_cast<scf::ForOp>(user->getParentOp());
      if (!inner || inner->getBlock() != scope) {
        readable = false;
        continue;
      }
      if (!owner || inner->isBeforeInBlock(owner))
        owner = inner;
    }
    if (!readable)
      continue;
    if (!owner)
      for (scf::ForOp inner : productLoops)
        if (inner->isBeforeInBlock(tma->load))
          owner = inner;
    // Read only by products ahead of every loop (the rotated attention's
    // first K block, its QK^T peeled off the loop): the first loop after it.
    if (!owner)
      for (scf::ForOp inner : productLoops)
        if (tma->load->isBeforeInBlock(inner)) {
          owner = inner;
          break;
        }
    if (owner != plan.loop)
      continue;
    // After the loop, only once a tile of a persistent kernel.  Without a
    // tile loop the consumers' own load after the loop takes the bytes of
    // the slots they are done with (tilegpu-allocate-shared-memory), where
    // the producer's copy would need bytes of its own for the whole kernel
    // (the D128 attention with three 128x128 slots would no longer fit);
    // in a persistent kernel the slots are never done with, and the
    // block's buffer is the same either way.
    bool beforeLoop = tma->load->isBeforeInBlock(plan.loop);
    if (!beforeLoop && !plan.tileLoop)
      continue;
    // Its address math on a trial copy: what cannot be computed by the
    // producer leaves the plan as it was.
    DenseSet<Operation *> trialSeen = seen;
    Plan trial;
    trial.loop = plan.loop;
    trial.tileLoop = plan.tileLoop;
    trial.captures = plan.captures;
    std::string why;
    SmallVector<Value> needs{tma->load.getDesc()};
    llvm::append_range(needs, tma->load.getIndices());
    if (llvm::any_of(needs, [&](Value v) {
          return failed(collectSlice(v, trial, trialSeen, why));
        }))
      continue;
    seen = std::move(trialSeen);
    plan.captures = std::move(trial.captures);
    PipelinedLoad load;
    load.alloc = alloc;
    load.descLoad = tma->load;
    load.transposed = tma->transposed;
    load.chain = tma->chain;
    plan.tileOperands.push_back({load, beforeLoop});
  }
}

FailureOr<Plan> analyze(scf::ForOp loop,
                        const ModuleAxisInfoAnalysis &axisInfo,
                        std::string &why) {
  Plan plan;
  plan.loop = loop;
  // A persistent kernel: the loop asked for (or found) is the tile loop,
  // and its one loop of products is what the producer feeds.
  if (auto parent = dyn_cast<scf::ForOp>(loop->getParentOp())) {
    plan.tileLoop = parent;
    plan.loop = loop;
  }
  // A tile loop with products of its own besides its loop of products (the
  // rotated attention's last P V, after its K/V loop) is still the tile
  // loop: the producer feeds the inner loop, whose products are the
  // kernel's bulk, and copies what the tile loop's own products read once a
  // tile (collectTileOperands).
  if (!plan.tileLoop) {
    SmallVector<scf::ForOp> inner = getProductLoops(loop);
    if (inner.size() > 1) {
      why = "the tile loop has more than one loop of tl.dot products";
      return failure();
    }
    if (inner.size() == 1) {
      plan.tileLoop = loop;
      plan.loop = inner.front();
      loop = inner.front();
    }
  }
  Operation *kernelScope = plan.tileLoop ? plan.tileLoop->getParentOp()
                                         : loop->getParentOp();
  if (!isa<FunctionOpInterface>(kernelScope)) {
    why = "the loop is nested deeper than a tile loop in the kernel";
    return failure();
  }
  SmallVector<WarpGroupDotOp> dots;
  for (Operation &op : *loop.getBody())
    if (auto dot = dyn_cast<WarpGroupDotOp>(op))
      dots.push_back(dot);
  if (dots.empty()) {
    why = "the loop has no tl.dot on wgmma";
    if (std::string fma = findFmaDot(loop).first; !fma.empty())
      why += " (its tl.dot runs on the FMA pipes: " + fma + ")";
    return failure();
  }
  DenseSet<Operation *> seenAllocs;
  for (WarpGroupDotOp dot : dots) {
    for (Value operand : {Value(dot.getA()), Value(dot.getB())}) {
      // Not the loop's: a left operand in registers (the RS form,
      // attention's P) and a buffer filled before the loop (attention's Q,
      // a tile operand when the producer can copy it).
      if (!isa<MemDescType>(operand.getType()))
        continue;
      if (Operation *def = operand.getDefiningOp();
          def && !loop->isAncestor(def))
        continue;
      auto alloc = operand.getDefiningOp<LocalAllocOp>();
      if (alloc && !seenAllocs.insert(alloc).second)
        continue;
      std::optional<PipelinedLoad> load =
          isa<MemDescType>(operand.getType())
              ? matchPipelinableLoad(operand, loop.getBody(), axisInfo)
              : std::nullopt;
      if (!load && alloc)
        if (std::optional<TMAOperand> tma = matchTMAOperand(alloc))
          if (loop->isAncestor(tma->load.getDesc().getParentRegion()->getParentOp())) {
            why = "a tensor descriptor the loads use is made inside a loop; "
                  "make it once, before the loops";
            return failure();
          }
      if (!load) {
        why = "a product's operand is not a load in the loop that only "
              "products read and the producer can copy (a descriptor load, "
              "or a pointer load in contiguous, aligned 4-byte pieces with "
              "masked-off elements zero)";
        return failure();
      }
      plan.operands.push_back(*load);
      plan.blocks.push_back(
          load->isTMA() ? std::nullopt
                        : matchPointerBlock(load->load, load->alloc, loop,
                                            axisInfo));
    }
  }
  if (plan.operands.empty()) {
    why = "no product in the loop reads a load the producer can copy";
    return failure();
  }
  // Every product retired in the loop: the slot is released after the last
  // full wait.
  for (WarpGroupDotOp dot : dots) {
    Operation *wait = nullptr;
    for (Operation *user : dot->getUsers())
      if (auto w = dyn_cast<WarpGroupDotWaitOp>(user))
        if (w.getPendings() == 0 && w->getBlock() == loop.getBody())
          wait = w;
    if (!wait) {
      why = "a product is not waited for in the loop";
      return failure();
    }
    if (!plan.lastWait || plan.lastWait->isBeforeInBlock(wait))
      plan.lastWait = wait;
  }
  DenseSet<Operation *> seen;
  for (Value bound :
       {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (failed(collectSlice(bound, plan, seen, why)))
      return failure();
  for (PipelinedLoad &operand : plan.operands) {
    SmallVector<Value> needs;
    if (operand.isTMA()) {
      needs.push_back(operand.descLoad.getDesc());
      llvm::append_range(needs, operand.descLoad.getIndices());
    } else {
      needs.push_back(operand.load.getPtr());
      if (Value mask = operand.load.getMask())
        needs.push_back(mask);
      if (Value other = operand.load.getOther())
        needs.push_back(other);
    }
    for (Value value : needs)
      if (failed(collectSlice(value, plan, seen, why)))
        return failure();
  }
  // What the producer's tensor maps and block coordinates need.
  for (std::optional<PointerBlock> &block : plan.blocks) {
    if (!block)
      continue;
    for (Value value :
         {block->base, block->stride.value, block->row.value, block->col.value})
      if (value && failed(collectSlice(value, plan, seen, why)))
        return failure();
  }
  if (failed(checkCarried(plan, seen, why)))
    return failure();
  plan.producerCarried = plan.carried;
  for (std::optional<PointerBlock> &block : plan.blocks)
    if (block)
      plan.producerCarried.remove(block->iterArg);
  if (plan.tileLoop)
    for (Value bound : {plan.tileLoop.getLowerBound(),
                        plan.tileLoop.getUpperBound(),
                        plan.tileLoop.getStep()})
      if (failed(collectSlice(bound, plan, seen, why)))
        return failure();
  collectTileOperands(plan, seen);
  // Program order: the kernel body, the tile loop's, the product loop's.
  kernelScope->walk([&](Operation *op) {
    if (!seen.contains(op))
      return;
    if (loop->isAncestor(op))
      plan.innerSlice.push_back(op);
    else if (plan.tileLoop && plan.tileLoop->isAncestor(op))
      plan.tileSlice.push_back(op);
    else
      plan.outerSlice.push_back(op);
  });
  return plan;
}

StringRef getCopyKind(const Plan &plan, unsigned i) {
  if (plan.operands[i].isTMA())
    return "tma";
  return plan.blocks[i] ? "tma-block" : "cp.async";
}

FailureOr<Plan> getMarkedPlan(scf::ForOp loop,
                              const ModuleAxisInfoAnalysis &axisInfo) {
  std::string why;
  FailureOr<Plan> plan = analyze(loop, axisInfo, why);
  if (failed(plan)) {
    loop.emitError("tilegpu-ws-task-partition chose this loop, but it can "
                   "no longer be specialized: ")
        << why;
    return failure();
  }
  // The marks name exactly the plan's operands, each copied as marked.
  unsigned marked = 0;
  loop.getBody()->walk([&](Operation *op) {
    marked += op->hasAttr(kOperandMark);
  });
  bool same = marked == plan->operands.size();
  for (auto [i, operand] : llvm::enumerate(plan->operands)) {
    Operation *load = operand.getLoadOp();
    auto index = load->getAttrOfType<IntegerAttr>(kOperandMark);
    auto copy = load->getAttrOfType<StringAttr>(kCopyMark);
    same &= index && index.getInt() == static_cast<int64_t>(i) && copy &&
            copy.getValue() == getCopyKind(*plan, i);
  }
  for (TileOperand &tile : plan->tileOperands)
    same &= tile.load.descLoad->hasAttr(kTileOperandMark);
  if (!same) {
    loop.emitError("the loads tilegpu-ws-task-partition marked for the "
                   "producer are no longer the ones it would choose (was the "
                   "loop changed since?)");
    return failure();
  }
  return plan;
}

void recordDecline(ModuleOp module, Location loc, StringRef reason,
                   StringRef what, StringRef instead) {
  Builder b(module.getContext());
  SmallVector<Attribute> declined;
  if (auto existing =
          module->getAttrOfType<ArrayAttr>(attr::kWarpSpecializeDeclined))
    llvm::append_range(declined, existing);
  SmallVector<NamedAttribute> fields{
      b.getNamedAttr("loc", LocationAttr(loc)),
      b.getNamedAttr("reason", b.getStringAttr(reason))};
  if (!what.empty())
    fields.push_back(b.getNamedAttr("what", b.getStringAttr(what)));
  if (!instead.empty())
    fields.push_back(b.getNamedAttr("instead", b.getStringAttr(instead)));
  declined.push_back(b.getDictionaryAttr(fields));
  module->setAttr(attr::kWarpSpecializeDeclined, b.getArrayAttr(declined));
}

/// Whether the loop of `next` can follow the loop of `first` (the kernel's
/// first specialized loop) on one channel and one producer: both loops in
/// the kernel's body, not persistent, `next` after `first`, and operands
/// that fill the same rings (descriptor loads of the same blocks, in the
/// same order).  The causal attention's two loops over K/V blocks are such
/// a sequence.  Otherwise `why` says why not.
static bool canFollow(Plan &first, Plan &next, std::string &why) {
  auto fail = [&](StringRef reason) {
    why = ("the kernel has another warp-specialized loop, and " + reason)
              .str();
    return false;
  };
  if (first.tileLoop || next.tileLoop)
    return fail("a persistent kernel specializes one loop");
  if (first.loop->getBlock() != next.loop->getBlock() ||
      !first.loop->isBeforeInBlock(next.loop))
    return fail("loops share a producer only in a row in the kernel's body");
  if (first.operands.size() != next.operands.size())
    return fail("its loads differ from this loop's");
  for (auto [a, c] : llvm::zip(first.operands, next.operands))
    if (!a.isTMA() || !c.isTMA() ||
        a.descLoad.getDesc().getType() != c.descLoad.getDesc().getType())
      return fail("loops share a producer only when they copy the same "
                  "descriptor blocks in the same order");
  return true;
}

void runTaskPartition(ModuleOp module) {
  bool everyLoop = getNumConsumerGroups(module) > 0;
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(tile::TileDialect::kWarpSpecialize) ||
        (everyLoop &&
         llvm::any_of(loop.getBody()->getOperations(), [](Operation &op) {
           return isa<WarpGroupDotOp>(op);
         })))
      loops.push_back(loop);
  });
  // A tile loop asked for takes its product loop along: the product loop
  // is not a candidate of its own.
  llvm::SmallPtrSet<Operation *, 8> asked;
  for (scf::ForOp loop : loops)
    asked.insert(loop);
  llvm::erase_if(loops, [&](scf::ForOp loop) {
    for (Operation *p = loop->getParentOp(); p; p = p->getParentOp())
      if (asked.contains(p))
        return true;
    return false;
  });
  // The first loop specialized in each kernel, for the loops after it.
  DenseMap<Operation *, Plan> specializedFuncs;
  // Each kernel's tile operands, numbered in the order they are marked.
  DenseMap<Operation *, int32_t> tileOperands;
  Builder b(module.getContext());
  ModuleAxisInfoAnalysis axisInfo(module);
  for (scf::ForOp loop : loops) {
    std::string why;
    FailureOr<Plan> plan = analyze(loop, axisInfo, why);
    Operation *func = loop->getParentOfType<FunctionOpInterface>();
    if (succeeded(plan) && func) {
      auto it = specializedFuncs.find(func);
      if (it != specializedFuncs.end() &&
          !canFollow(it->second, *plan, why))
        plan = failure();
    }
    loop->removeAttr(tile::TileDialect::kWarpSpecialize);
    if (failed(plan)) {
      recordDecline(module, loop.getLoc(), why);
      continue;
    }
    specializedFuncs.try_emplace(func, *plan);
    plan->loop->setAttr(kLoopMark, b.getUnitAttr());
    for (TileOperand &tile : plan->tileOperands)
      tile.load.descLoad->setAttr(kTileOperandMark,
                                  b.getI32IntegerAttr(tileOperands[func]++));
    for (auto [i, operand] : llvm::enumerate(plan->operands)) {
      Operation *load = operand.getLoadOp();
      load->setAttr(kOperandMark, b.getI32IntegerAttr(i));
      load->setAttr(kCopyMark, b.getStringAttr(getCopyKind(*plan, i)));
    }
  }
  // Warp specialization asked for the whole kernel, and no loop to take
  // it: say so at the kernel.
  if (everyLoop && loops.empty())
    module.walk([&](FunctionOpInterface func) {
      // A tl.dot that did not get wgmma (12 warps on a tile without 192
      // rows, say) is why: said at the dot.
      if (auto [fma, at] = findFmaDot(func); !fma.empty())
        recordDecline(module, at,
                      "the kernel's tl.dot runs on the FMA pipes, not wgmma (" +
                          fma + "), so no loop of products can be specialized");
      else
        recordDecline(module, func->getLoc(),
                      "the kernel has no loop of tl.dot products to specialize");
    });
}

} // namespace warpforge::tilegpu::ws

namespace {

struct TaskPartitionPass
    : public tilegpu::impl::TileGPUWSTaskPartitionBase<TaskPartitionPass> {
  void runOnOperation() override { ws::runTaskPartition(getOperation()); }
};

} // namespace
