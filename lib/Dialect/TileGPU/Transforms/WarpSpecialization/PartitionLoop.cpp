//===- PartitionLoop.cpp - Producer and consumer warps for a product loop -===//
//
// Automatic warp specialization, task and code partition (seed 000; seed
// 004 gives the code's shape).  A product loop
//
//   scf.for %k {
//     %a = tile.descriptor_load %da[%m, %k * BK]      (address math: scalars)
//     %b = tile.descriptor_load %db[%n, %k * BK]
//     %sa = tilegpu.local_alloc %a ; %sb = tilegpu.local_alloc (trans %b)
//     %acc' = tilegpu.warp_group_dot %sa, %sb, %acc ; wait {pendings = 0}
//   }
//   epilogue
//
// becomes
//
//   %ra, %rb = rings of N buffers ; %ch = create_channel %ra, %rb
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
// Why this split: the producer needs nothing the consumers compute (its
// loop bounds and addresses come from the kernel's arguments), so it runs
// ahead by up to N slots and the consumers find their operands landed;
// the consumers keep everything that holds the tile's registers.  The
// whole kernel body moves into the default region, so the producer's warps
// never run code laid out for the consumers' warps; what the producer
// needs is cloned into its partition from the kernel's arguments (scalar,
// side-effect-free ops only).
//
// A slot is released after the wait for the products that read it (the
// loop's `warp_group_dot_wait {pendings = 0}` retires them), never before:
// releasing earlier lets the producer overwrite a buffer wgmma still
// reads.  Data partition among consumer warpgroups is the wgmma layout's:
// its warps split the tile's rows.
//
// What declines (the loop stays as it is, with the reason recorded for the
// frontend's warning): no product reading loads the producer can copy;
// addresses that depend on what the consumers compute or the tile loop
// carries; pointers the loop advances that the consumers also read;
// descriptors made inside a loop (the producer makes kernel-level ones
// itself); loops nested deeper than a tile loop; products without a full
// wait in the loop.  Pointer loads (not descriptors) are copied with
// cp.async: the producer redoes their address math on its own warps.
//
//===----------------------------------------------------------------------===//

#include "../Pipeliner/PipelineAnalysis.h"
#include "../TMAUtility.h"
#include "PointerBlock.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"
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
#define GEN_PASS_DEF_TILEGPUWARPSPECIALIZE
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

constexpr int kProducerWarps = 4;

/// What the producer of one loop needs.
struct Plan {
  scf::ForOp loop;
  /// The persistent tile loop around `loop`, when there is one: the
  /// producer runs it too, counting channel uses across tiles.
  scf::ForOp tileLoop;
  /// The products' operands, each a descriptor load (TMA) or a pointer
  /// load (cp.async), in order of first use.
  SmallVector<PipelinedLoad> operands;
  /// For each pointer operand, the 2-D block it provably reads
  /// (PointerBlock.h): the producer copies it with the TMA, through a
  /// tensor map it makes, instead of cp.async.
  SmallVector<std::optional<PointerBlock>> blocks;
  /// Iter_args of the product loop that only the loads' addresses use
  /// (pointers advanced every iteration): the consumers drop them, the
  /// producer carries those its cp.async copies read.
  SetVector<unsigned> carried, producerCarried;
  /// Ops to clone into the producer, each in program order: those of the
  /// kernel body (bounds), of the tile loop's body (tile coordinates) and
  /// of the product loop's (per-iteration addresses).
  SmallVector<Operation *> outerSlice, tileSlice, innerSlice;
  /// Kernel arguments the producer uses.
  SetVector<Value> captures;
  /// The products' waits that retire every read of the slot.
  Operation *lastWait = nullptr;
};

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
LogicalResult collectSlice(Value value, Plan &plan, DenseSet<Operation *> &seen,
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
LogicalResult checkCarried(Plan &plan, const DenseSet<Operation *> &seen,
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
SmallVector<scf::ForOp> getProductLoops(scf::ForOp loop) {
  SmallVector<scf::ForOp> found;
  for (Operation &op : *loop.getBody())
    if (auto inner = dyn_cast<scf::ForOp>(op))
      if (llvm::any_of(inner.getBody()->getOperations(), [](Operation &o) {
            return isa<WarpGroupDotOp>(o);
          }))
        found.push_back(inner);
  return found;
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
  if (!plan.tileLoop && llvm::none_of(loop.getBody()->getOperations(),
                                      [](Operation &o) {
                                        return isa<WarpGroupDotOp>(o);
                                      })) {
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
    return failure();
  }
  DenseSet<Operation *> seenAllocs;
  for (WarpGroupDotOp dot : dots) {
    for (Value operand : {Value(dot.getA()), Value(dot.getB())}) {
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

void specialize(Plan &plan, int numBuffers, int numWarps, bool remarks) {
  scf::ForOp loop = plan.loop;
  Location loc = loop.getLoc();
  auto func = loop->getParentOfType<FunctionOpInterface>();
  Block &entry = func.getFunctionBody().front();
  MLIRContext *ctx = loop.getContext();
  IRRewriter rewriter(ctx);
  OpBuilder b(ctx);

  // The rings and the channel, before everything.
  b.setInsertionPointToStart(&entry);
  SmallVector<Value> rings;
  bool pointerCopies = false;
  for (auto [operand, block] : llvm::zip(plan.operands, plan.blocks)) {
    MemDescType ring;
    if (operand.isTMA()) {
      ring = getTMABufferType(
          operand.descLoad.getDesc().getType().getBlockType(), numBuffers);
    } else if (block) {
      // The TMA's layout, which matchPointerBlock checked is the product's.
      ring = getTMABufferType(block->blockType, numBuffers);
    } else {
      // cp.async writes the layout the product reads.
      MemDescType want = operand.alloc.getType();
      ring = MemDescType::get(ctx, want.getShape(), want.getElementType(),
                              want.getEncoding(), /*isMutable=*/true,
                              numBuffers);
      pointerCopies = true;
    }
    rings.push_back(LocalAllocOp::create(b, loc, ring, Value()));
  }
  Value channel = CreateChannelOp::create(
      b, loc, ChannelType::get(ctx, numBuffers), rings);

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

struct WarpSpecializePass
    : public tilegpu::impl::TileGPUWarpSpecializeBase<WarpSpecializePass> {
  using TileGPUWarpSpecializeBase::TileGPUWarpSpecializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool everyLoop = getNumConsumerGroups(module) > 0;
    int buffers = numBuffers > 0 ? int(numBuffers)
                  : getNumBuffersWarpSpec(module) > 0
                      ? getNumBuffersWarpSpec(module)
                      : getNumStages(module);
    SmallVector<scf::ForOp> loops;
    module.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tile::TileDialect::kWarpSpecialize) ||
          (everyLoop &&
           llvm::any_of(loop.getBody()->getOperations(), [](Operation &op) {
             return isa<WarpGroupDotOp>(op);
           })))
        loops.push_back(loop);
    });
    // A tile loop asked for takes its product loop along: the product
    // loop is not a candidate of its own.
    llvm::SmallPtrSet<Operation *, 8> asked;
    for (scf::ForOp loop : loops)
      asked.insert(loop);
    llvm::erase_if(loops, [&](scf::ForOp loop) {
      for (Operation *p = loop->getParentOp(); p; p = p->getParentOp())
        if (asked.contains(p))
          return true;
      return false;
    });
    SmallVector<Attribute> declined;
    DenseSet<Operation *> specializedFuncs;
    Builder b(module.getContext());
    // Every loop is analyzed before any is rewritten: the axis analysis
    // describes the module as it was.
    ModuleAxisInfoAnalysis axisInfo(module);
    SmallVector<Plan, 1> plans;
    for (scf::ForOp loop : loops) {
      std::string why;
      FailureOr<Plan> plan = analyze(loop, axisInfo, why);
      Operation *func = loop->getParentOfType<FunctionOpInterface>();
      if (succeeded(plan) && func && specializedFuncs.contains(func)) {
        why = "the kernel has another warp-specialized loop; only one is "
              "supported";
        plan = failure();
      }
      if (failed(plan)) {
        loop->removeAttr(tile::TileDialect::kWarpSpecialize);
        declined.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("loc", LocationAttr(loop.getLoc())),
             b.getNamedAttr("reason", b.getStringAttr(why))}));
        continue;
      }
      loop->removeAttr(tile::TileDialect::kWarpSpecialize);
      specializedFuncs.insert(func);
      plans.push_back(std::move(*plan));
    }
    for (Plan &plan : plans)
      specialize(plan, buffers, getNumWarps(module), remarks);
    // Warp specialization asked for the whole kernel, and no loop to take
    // it: say so at the kernel.
    if (everyLoop && loops.empty())
      module.walk([&](FunctionOpInterface func) {
        declined.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("loc", LocationAttr(func->getLoc())),
             b.getNamedAttr("reason",
                            b.getStringAttr("the kernel has no loop of "
                                            "tl.dot products to specialize"))}));
      });
    if (!declined.empty())
      module->setAttr(tilegpu::attr::kWarpSpecializeDeclined, b.getArrayAttr(declined));
  }
};

} // namespace
