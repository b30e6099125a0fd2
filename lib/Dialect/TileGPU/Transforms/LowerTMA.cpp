//===- LowerTMA.cpp - Descriptor loads and stores to TMA copies -----------===//
//
// See the pass description in Passes.td.  Two hazards shape the output
// besides the copies themselves:
//
//  * An mbarrier may be initialized, and invalidated, only while no thread
//    uses it: a CTA barrier follows each init (every thread then sees an
//    initialized barrier) and precedes each inval (no thread still polls
//    it).
//  * A TMA copy into a buffer that products read in place, in a loop, must
//    not start while another warpgroup's product of the previous iteration
//    may still read it: the CTA barrier after the init orders the copy
//    after every thread's wait for its products.
//
// Pipelined loads never get here: the software pipeliner gives them rings
// of buffers and barriers of their own.
//
//===----------------------------------------------------------------------===//

#include "TMAUtility.h"

#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <tuple>

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPULOWERTMA
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

MemDescType asMutable(MemDescType type) {
  return MemDescType::get(type.getContext(), type.getShape(),
                          type.getElementType(), type.getEncoding(),
                          /*isMutable=*/true, type.getNumBuffers());
}

/// Issues the copy of `load`'s block into a new buffer and waits for it;
/// returns the buffer.
Value loadBlock(OpBuilder &b, tile::DescriptorLoadOp load) {
  Location loc = load.getLoc();
  auto descType = load.getDesc().getType();
  MemDescType bufferType = getTMABufferType(descType.getBlockType());
  Value buffer = LocalAllocOp::create(b, loc, bufferType, Value());
  Value barrier =
      LocalAllocOp::create(b, loc, getBarrierType(b.getContext()), Value());
  InitBarrierOp::create(b, loc, barrier, 1);
  // The TMA unit completes transactions on the barrier through the async
  // proxy: order the generic-proxy init before it, then publish it.
  FenceAsyncSharedOp::create(b, loc);
  tile::BarrierOp::create(b, loc);
  Value always = arith::ConstantIntOp::create(b, loc, 1, 1);
  BarrierExpectOp::create(b, loc, barrier, getTMABlockBytes(descType), always);
  AsyncTMACopyGlobalToLocalOp::create(b, loc, load.getDesc(),
                                      load.getIndices(), buffer, barrier,
                                      always, /*multicast=*/nullptr);
  WaitBarrierOp::create(b, loc, barrier,
                        arith::ConstantIntOp::create(b, loc, 0, 32));
  tile::BarrierOp::create(b, loc);
  InvalBarrierOp::create(b, loc, barrier);
  LocalDeallocOp::create(b, loc, barrier);
  return buffer;
}

void lowerLoad(tile::DescriptorLoadOp load) {
  // In place: the products read the TMA buffer, when every use of the tile
  // ends (through single-use conversions and a transpose) in a product's
  // allocation.  One use: the copy goes where the allocation was.
  // Several (a loop-invariant operand such as attention's Q, made shared
  // once for the main loop and once for a masked block after it): one
  // buffer, copied where the load was, serves them all, instead of a copy
  // into registers and one more shared copy per allocation.
  bool shared = !load->hasOneUse();
  SmallVector<std::pair<LocalAllocOp, TMAOperand>> allocs;
  for (Operation *user : load->getUsers()) {
    while (user && user->hasOneUse() &&
           isa<ConvertLayoutOp, tile::TransOp>(user))
      user = *user->getUsers().begin();
    auto alloc = dyn_cast_or_null<LocalAllocOp>(user);
    std::optional<TMAOperand> operand =
        alloc ? matchTMAOperand(alloc, /*sharedLoad=*/shared) : std::nullopt;
    if (!operand) {
      allocs.clear();
      break;
    }
    allocs.push_back({alloc, *operand});
  }
  if (!allocs.empty()) {
    OpBuilder b(shared ? load.getOperation() : allocs.front().first);
    Value buffer = loadBlock(b, load);
    for (auto &[alloc, operand] : allocs) {
      Value view = buffer;
      if (operand.transposed) {
        b.setInsertionPoint(alloc);
        view = MemDescTransOp::create(b, alloc.getLoc(),
                                      asMutable(alloc.getType()), buffer);
      }
      alloc.getResult().replaceAllUsesWith(view);
      alloc->erase();
      for (Operation *op : llvm::reverse(operand.chain))
        op->erase();
    }
    load->erase();
    return;
  }
  // Into registers.
  OpBuilder b(load);
  Value buffer = loadBlock(b, load);
  Value tile = LocalLoadOp::create(b, load.getLoc(), load.getType(), buffer);
  LocalDeallocOp::create(b, load.getLoc(), buffer);
  load.getResult().replaceAllUsesWith(tile);
  load->erase();
}

/// The tile to store, in the layout it was computed in (a product's
/// accumulator, say) rather than converted first: the conversion would go
/// through shared memory itself, and a buffer of its own.  Element-wise
/// casts between the conversion and the store (`acc.to(tl.float16)` stored
/// through a bf16 descriptor: f32 -> f16 -> f32 -> bf16) are redone, at
/// `builder`, in the source's layout.
Value getStoreSource(OpBuilder &builder, Value src) {
  SmallVector<Operation *> casts;
  Value value = src;
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp, tile::FpToFpOp>(def) ||
        def->getNumOperands() != 1 || !def->hasOneUse())
      break;
    casts.push_back(def);
    value = def->getOperand(0);
  }
  auto cvt = value.getDefiningOp<ConvertLayoutOp>();
  Attribute layout = cvt ? cvt.getSrc().getType().getEncoding() : Attribute();
  if (!cvt || !layout || !isLowerableDistributed(layout))
    return src;
  // Conversions of conversions: the first source in a lowerable layout.
  Value root = cvt.getSrc();
  while (auto inner = root.getDefiningOp<ConvertLayoutOp>()) {
    Attribute l = inner.getSrc().getType().getEncoding();
    if (!l || !isLowerableDistributed(l))
      break;
    root = inner.getSrc();
  }
  layout = cast<RankedTensorType>(root.getType()).getEncoding();
  for (Operation *op : llvm::reverse(casts)) {
    Operation *clone = builder.clone(*op);
    clone->setOperand(0, root);
    clone->getResult(0).setType(withEncoding(
        cast<RankedTensorType>(op->getResult(0).getType()), layout));
    root = clone->getResult(0);
  }
  return root;
}

/// Erases `store` and then the chain of casts and conversions that only
/// fed it.
void eraseStore(Operation *store, Value original) {
  store->erase();
  Value value = original;
  while (Operation *def = value.getDefiningOp()) {
    if (!def->use_empty() || def->getNumOperands() != 1 ||
        !isa<ConvertLayoutOp, arith::ExtFOp, arith::TruncFOp, tile::FpToFpOp>(
            def))
      break;
    value = def->getOperand(0);
    def->erase();
  }
}

/// local_alloc and local_store fence the async proxy after writing a
/// swizzled buffer; a dense one gets the fence and the barrier here, before
/// a TMA copy reads it.
void fenceDenseBuffer(OpBuilder &b, Location loc, MemDescType buffer) {
  if (isa<NVMMASharedEncodingAttr>(buffer.getEncoding()))
    return;
  FenceAsyncSharedOp::create(b, loc);
  tile::BarrierOp::create(b, loc);
}

/// The loop whose body holds `op` at its top level or inside branches
/// (scf.if, any depth) only: a persistent kernel's epilogue, or one of two
/// epilogues chosen per tile.
scf::ForOp getLoopThroughBranches(Operation *op) {
  Operation *parent = op->getParentOp();
  while (isa_and_nonnull<scf::IfOp>(parent))
    parent = parent->getParentOp();
  return dyn_cast_or_null<scf::ForOp>(parent);
}

/// The loop-wide buffers of lowerStoreInLoop, by (loop, the store's
/// ancestor at the top level of the loop body, buffer type, how many
/// stores of that type precede the store in its block).
using LoopBufferKey = std::tuple<Operation *, Operation *, Type, unsigned>;
using LoopBuffers = llvm::DenseMap<LoopBufferKey, Value>;

/// How many stores of `store`'s block type precede it in its block: taken
/// before any store is lowered.
unsigned countStoresBefore(tile::DescriptorStoreOp store) {
  unsigned before = 0;
  for (Operation &op : *store->getBlock()) {
    if (&op == store.getOperation())
      break;
    if (auto other = dyn_cast<tile::DescriptorStoreOp>(op))
      if (other.getDesc().getType().getBlockType() ==
          store.getDesc().getType().getBlockType())
        ++before;
  }
  return before;
}

/// The key of `store`'s loop-wide buffer in `loop` (`before`: its
/// countStoresBefore).  A store at the top level has one of its own, as
/// before branches were taken in; in an scf.if, the k-th store of a type
/// in one branch shares the buffer of the k-th in the others (the
/// branches exclude each other), while stores one after the other in a
/// branch keep one each, so that the second need not wait for the first
/// to have been read.
LoopBufferKey getLoopBufferKey(scf::ForOp loop, Operation *store, Type type,
                               unsigned before) {
  Operation *top = store;
  while (top->getParentOp() != loop.getOperation())
    top = top->getParentOp();
  return {loop.getOperation(), top, type, before};
}

/// A store at the top level of a loop body, or in branches there, keeps
/// one buffer for the whole loop: iteration i waits for the stores before
/// it to have read the buffer just before writing it again, so each store
/// overlaps everything the next iteration does first (a persistent
/// kernel's next tile).  In a branch too: waited for before the branch
/// ends, the store would hold the warps until the TMA engine had read the
/// whole tile, every iteration (a persistent attention kernel with two
/// epilogues, O or a split tile's part, did so on 2026-11-28).  Stores in
/// exclusive branches share a buffer (getLoopBufferKey): the wait is for
/// all of the thread's stores (`cp.async.bulk.wait_group 0`), whichever
/// branch issued them.  A scalar branch condition is the same for every
/// thread, so the wait and local_store's barrier are reached by all or
/// none.  The buffer cannot share memory with what the loop allocates
/// meanwhile: that is the price.
bool lowerStoreInLoop(tile::DescriptorStoreOp store, MemDescType bufferType,
                      unsigned before, LoopBuffers &buffers) {
  scf::ForOp loop = getLoopThroughBranches(store);
  // A descriptor made in the loop rewrites its tensor map each iteration:
  // the store through the previous one must be over by then.
  if (!loop || loop->isAncestor(store.getDesc().getParentRegion()->getParentOp()))
    return false;
  Location loc = store.getLoc();
  OpBuilder b(loop);
  MemDescType mutableType = MemDescType::get(
      b.getContext(), bufferType.getShape(), bufferType.getElementType(),
      bufferType.getEncoding(), /*isMutable=*/true, 1);
  Value &buffer = buffers[getLoopBufferKey(loop, store, mutableType, before)];
  if (!buffer) {
    buffer = LocalAllocOp::create(b, loc, mutableType, Value());
    b.setInsertionPointAfter(loop);
    AsyncTMAStoreWaitOp::create(b, loc, 0);
    tile::BarrierOp::create(b, loc);
    LocalDeallocOp::create(b, loc, buffer);
  }
  b.setInsertionPoint(store);
  // Only thread 0 has stores in flight; local_store's leading barrier
  // holds every other thread back until its wait is over.
  AsyncTMAStoreWaitOp::create(b, loc, 0);
  LocalStoreOp::create(b, loc, getStoreSource(b, store.getSrc()), buffer);
  fenceDenseBuffer(b, loc, bufferType);
  AsyncTMACopyLocalToGlobalOp::create(b, loc, store.getDesc(),
                                      store.getIndices(), buffer,
                                      /*reduce=*/nullptr);
  eraseStore(store, store.getSrc());
  return true;
}

/// A store or reduction (`op`, with `desc`, `indices` and `src`) as one
/// TMA copy out of a buffer of its own: the tile written into the
/// descriptor's layout (local_alloc fences the async proxy for swizzled
/// buffers; dense ones get the fence and barrier here), the copy, and the
/// wait for it to have read the buffer by the time the block ends.
void lowerOutgoingCopy(Operation *op, Value desc, ValueRange indices,
                       Value src, tile::DescriptorReduceKindAttr reduce) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  MemDescType single = getTMABufferType(
      cast<tile::TensorDescType>(desc.getType()).getBlockType());
  MemDescType bufferType = MemDescType::get(
      b.getContext(), single.getShape(), single.getElementType(),
      single.getEncoding(), /*isMutable=*/false, 1);
  Value buffer =
      LocalAllocOp::create(b, loc, bufferType, getStoreSource(b, src));
  fenceDenseBuffer(b, loc, bufferType);
  AsyncTMACopyLocalToGlobalOp::create(b, loc, desc, indices, buffer, reduce);
  b.setInsertionPoint(op->getBlock()->getTerminator());
  AsyncTMAStoreWaitOp::create(b, loc, 0);
  tile::BarrierOp::create(b, loc);
  LocalDeallocOp::create(b, loc, buffer);
  eraseStore(op, src);
}

void lowerStore(tile::DescriptorStoreOp store, unsigned before,
                LoopBuffers &buffers) {
  MemDescType bufferType =
      getTMABufferType(store.getDesc().getType().getBlockType());
  if (lowerStoreInLoop(store, bufferType, before, buffers))
    return;
  lowerOutgoingCopy(store, store.getDesc(), store.getIndices(),
                    store.getSrc(), /*reduce=*/nullptr);
}

/// A reduction goes out as a store does, combined into global memory by
/// the TMA (no loop-wide buffer: reductions are rarely an epilogue).
void lowerReduce(tile::DescriptorReduceOp reduce) {
  lowerOutgoingCopy(
      reduce, reduce.getDesc(), reduce.getIndices(), reduce.getSrc(),
      tile::DescriptorReduceKindAttr::get(reduce.getContext(),
                                          reduce.getKind()));
}

struct TileGPULowerTMA
    : public tilegpu::impl::TileGPULowerTMABase<TileGPULowerTMA> {
  void runOnOperation() override {
    SmallVector<tile::DescriptorLoadOp> loads;
    SmallVector<tile::DescriptorStoreOp> stores;
    SmallVector<tile::DescriptorReduceOp> reduces;
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<tile::DescriptorLoadOp>(op))
        loads.push_back(load);
      else if (auto store = dyn_cast<tile::DescriptorStoreOp>(op))
        stores.push_back(store);
      else if (auto reduce = dyn_cast<tile::DescriptorReduceOp>(op))
        reduces.push_back(reduce);
    });
    for (tile::DescriptorReduceOp reduce : reduces)
      lowerReduce(reduce);
    for (tile::DescriptorLoadOp load : loads)
      lowerLoad(load);
    SmallVector<unsigned> before;
    for (tile::DescriptorStoreOp store : stores)
      before.push_back(countStoresBefore(store));
    LoopBuffers buffers;
    for (auto [store, n] : llvm::zip_equal(stores, before))
      lowerStore(store, n, buffers);
  }
};

} // namespace
