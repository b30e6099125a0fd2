//===- ConvertLayoutOpToLLVM.cpp - Moving tensors between layouts ---------===//
//
// tilegpu.convert_layout (same shape, another layout) and tile.reshape
// (another shape, elements in row-major order) both give each thread the
// elements another placement assigns it.  When every thread already holds
// them (the layouts place elements alike, e.g. blocked layouts differing
// only along a dimension of size 1), the lowering only picks registers;
// this is decided by evaluating both placements for every thread at
// compile time.  Otherwise the tensor goes through scratch shared memory:
// every thread stores its elements at their row-major index, a barrier, and
// every thread loads the elements of the new placement.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// How an exchange moves elements.
struct ExchangePlan {
  /// For each destination element, the source element of the same thread
  /// holding it; empty when the exchange goes through shared memory.
  SmallVector<unsigned> registerSources;

  // Through shared memory: element `i` (row-major) of the tensor lives at
  // element slot `i + (i / rowLength) * padElems` of the scratch, within
  // its round of `elemsPerRound` elements.
  int64_t rowLength = 1;
  int64_t padElems = 0;
  int64_t elemsPerRound = 1;
  int64_t rounds = 1;
  unsigned elemBytes = 1;

  bool inRegisters() const { return !registerSources.empty(); }
  int64_t paddedIndex(int64_t i) const {
    return i + (i / rowLength) * padElems;
  }
  int64_t scratchBytes() const {
    return (paddedIndex(elemsPerRound - 1) + 1) * elemBytes;
  }
};

unsigned getThreadCount(Attribute layout) {
  return getWarpCount(layout) * 32;
}

/// Row-major linear indices of the elements thread `tid` holds.
SmallVector<int64_t> threadLinearIndices(RankedTensorType type, unsigned tid) {
  SmallVector<int64_t> linear;
  for (const auto &coords :
       getThreadElementCoords(type.getEncoding(), type.getShape(), tid)) {
    int64_t l = 0;
    for (auto [c, size] : llvm::zip(coords, type.getShape()))
      l = l * size + c;
    linear.push_back(l);
  }
  return linear;
}

/// For each destination element, the thread's source element holding the
/// same linear index, if this is the same for every thread.
SmallVector<unsigned> matchInRegisters(RankedTensorType src,
                                       RankedTensorType dst, unsigned threads) {
  SmallVector<unsigned> sources;
  for (unsigned tid = 0; tid < threads; ++tid) {
    SmallVector<int64_t> srcLinear = threadLinearIndices(src, tid);
    SmallVector<int64_t> dstLinear = threadLinearIndices(dst, tid);
    if (tid == 0) {
      llvm::DenseMap<int64_t, unsigned> index;
      for (auto [i, l] : llvm::enumerate(srcLinear))
        index.try_emplace(l, i);
      for (int64_t l : dstLinear) {
        auto it = index.find(l);
        if (it == index.end())
          return {};
        sources.push_back(it->second);
      }
      continue;
    }
    for (auto [j, l] : llvm::enumerate(dstLinear))
      if (srcLinear[sources[j]] != l)
        return {};
  }
  return sources;
}

/// With `allow_reorder`, a reshape may keep each thread's registers as
/// they are, provided this is one permutation of the elements: every
/// destination element gets one source element, each source element one
/// destination element, the same in every thread holding them.
bool registersArePermutation(RankedTensorType src, RankedTensorType dst,
                             unsigned threads) {
  if (getTotalElemsPerThread(src) != getTotalElemsPerThread(dst))
    return false;
  llvm::DenseMap<int64_t, int64_t> forward, backward;
  for (unsigned tid = 0; tid < threads; ++tid) {
    SmallVector<int64_t> srcLinear = threadLinearIndices(src, tid);
    SmallVector<int64_t> dstLinear = threadLinearIndices(dst, tid);
    for (auto [s, d] : llvm::zip(srcLinear, dstLinear)) {
      auto f = forward.try_emplace(d, s);
      auto b = backward.try_emplace(s, d);
      if (f.first->second != s || b.first->second != d)
        return false;
    }
  }
  return int64_t(forward.size()) == dst.getNumElements();
}

ExchangePlan planExchange(RankedTensorType src, RankedTensorType dst,
                          bool allowReorder) {
  ExchangePlan plan;
  unsigned threads = getThreadCount(src.getEncoding());
  if (allowReorder && registersArePermutation(src, dst, threads)) {
    for (unsigned i = 0, e = getTotalElemsPerThread(dst); i < e; ++i)
      plan.registerSources.push_back(i);
    return plan;
  }
  plan.registerSources = matchInRegisters(src, dst, threads);
  if (plan.inRegisters())
    return plan;

  Type element = src.getElementType();
  plan.elemBytes = isa<tile::PointerType>(element)
                       ? 8
                       : getSharedStorageBytes(element);
  int64_t numel = src.getNumElements();
  plan.rowLength = std::min(src.getShape().back(), dst.getShape().back());
  // Padding: a warp whose lanes walk down a column (the transposing side
  // of the exchange) reads or writes addresses a row apart; rows of a
  // multiple of 32 words put them all in one bank.  One extra 32-bit word
  // (or one element, for 64-bit elements) after each row makes the row
  // pitch odd in words, so such a column hits distinct banks, and keeps
  // every element aligned.  Rows of 1 or 2 words conflict at most 2-way
  // and would grow by 50% or more, so they are not padded; nor is a
  // single row.
  if (numel > plan.rowLength && plan.rowLength * plan.elemBytes >= 16)
    plan.padElems = std::max(1u, 4 / plan.elemBytes);
  plan.elemsPerRound = numel;
  while (plan.elemsPerRound > 1 &&
         plan.scratchBytes() > kMaxExchangeScratchBytes)
    plan.elemsPerRound /= 2;
  plan.rounds = numel / plan.elemsPerRound;
  return plan;
}

/// Types and the `allow_reorder` flag of an exchanging op.
struct ExchangeTypes {
  RankedTensorType src, dst;
  bool allowReorder = false;
};

ExchangeTypes getExchangeTypes(Operation *op) {
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
    return {reshape.getSrc().getType(), reshape.getType(),
            reshape.getAllowReorder()};
  auto convert = cast<ConvertLayoutOp>(op);
  return {convert.getSrc().getType(), convert.getType(), false};
}

LogicalResult checkExchangeLayouts(Operation *op, const ExchangeTypes &t) {
  for (RankedTensorType type : {t.src, t.dst})
    if (!type.getEncoding() || !isLowerableDistributed(type.getEncoding()))
      return op->emitError("cannot lower ")
             << op->getName() << " of " << t.src << " to " << t.dst
             << ": only blocked layouts, their slices, wgmma accumulators "
                "and wgmma A operands are supported";
  if (getThreadCount(t.src.getEncoding()) !=
      getThreadCount(t.dst.getEncoding()))
    return op->emitError("layouts of ")
           << t.src << " and " << t.dst << " use different numbers of warps";
  return success();
}

/// Lowers an op moving `src` (adaptor value) into the placement of `dst`.
LogicalResult lowerExchange(Operation *op, Value adaptorSrc,
                            const TypeConverter *converter,
                            ConversionPatternRewriter &rewriter) {
  Location loc = op->getLoc();
  ExchangeTypes types = getExchangeTypes(op);
  if (failed(checkExchangeLayouts(op, types)))
    return failure();
  ExchangePlan plan = planExchange(types.src, types.dst, types.allowReorder);
  SmallVector<Value> srcValues = unpackLLElements(loc, adaptorSrc, rewriter);
  SmallVector<Value> values;
  if (plan.inRegisters()) {
    for (unsigned i : plan.registerSources)
      values.push_back(srcValues[i]);
    rewriter.replaceOp(op, packLLElements(loc, converter, values, rewriter,
                                          types.dst));
    return success();
  }
  if (!op->hasAttr("tilegpu.scratch"))
    return op->emitError("layout exchange has no scratch shared memory; run "
                         "tilegpu-allocate-shared-memory first");

  Type elemType = getLoweredElementType(converter, types.dst);
  Type storage = elemType.isInteger(1) ? rewriter.getI8Type() : elemType;
  Value base = getScratchBase(rewriter, loc, op);
  auto linearIndices = [&](RankedTensorType type) {
    SmallVector<Value> linear;
    for (const auto &coords : emitIndices(rewriter, loc, type))
      linear.push_back(linearize(rewriter, loc, coords, type.getShape()));
    return linear;
  };
  SmallVector<Value> srcLinear = linearIndices(types.src);
  SmallVector<Value> dstLinear = linearIndices(types.dst);
  unsigned roundShift = llvm::Log2_64(plan.elemsPerRound);
  // The slot of a linear index, and in multi-round exchanges whether it
  // belongs to round `round`.
  auto slot = [&](Value linear, int64_t round) -> std::pair<Value, Value> {
    Value index = linear;
    Value inRound;
    if (plan.rounds > 1) {
      index = LLVM::AndOp::create(rewriter, loc, linear,
                                  i32Val(rewriter, loc, plan.elemsPerRound - 1));
      inRound = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::eq,
          LLVM::LShrOp::create(rewriter, loc, linear,
                               i32Val(rewriter, loc, roundShift)),
          i32Val(rewriter, loc, round));
    }
    if (plan.padElems) {
      Value row = LLVM::LShrOp::create(
          rewriter, loc, index,
          i32Val(rewriter, loc, llvm::Log2_64(plan.rowLength)));
      index = LLVM::AddOp::create(
          rewriter, loc, index,
          LLVM::MulOp::create(rewriter, loc, row,
                              i32Val(rewriter, loc, plan.padElems)));
    }
    return {gep(rewriter, loc, storage, base, index), inRound};
  };

  values.assign(dstLinear.size(), Value());
  for (int64_t round = 0; round < plan.rounds; ++round) {
    // Earlier reads of the scratch (this exchange's previous round or
    // another op's) must be done before it is overwritten.
    emitBarrier(rewriter, loc);
    // Elements several threads hold are stored by each of them: the same
    // value to the same address, which leaves that value; plain stores
    // keep the code free of predicates.
    for (auto [value, linear] : llvm::zip(srcValues, srcLinear)) {
      auto [ptr, inRound] = slot(linear, round);
      Value stored = toSharedStorage(rewriter, loc, value);
      if (inRound)
        storeShared(rewriter, loc, ptr, stored, inRound);
      else
        LLVM::StoreOp::create(rewriter, loc, stored, ptr);
    }
    emitBarrier(rewriter, loc);
    for (auto [j, linear] : llvm::enumerate(dstLinear)) {
      auto [ptr, inRound] = slot(linear, round);
      Value loaded = fromSharedStorage(
          rewriter, loc, loadShared(rewriter, loc, ptr, storage, inRound),
          elemType);
      values[j] = inRound && values[j]
                      ? LLVM::SelectOp::create(rewriter, loc, inRound, loaded,
                                               values[j])
                            .getResult()
                      : loaded;
    }
  }
  rewriter.replaceOp(op, packLLElements(loc, converter, values, rewriter,
                                        types.dst));
  return success();
}

struct ConvertLayoutOpConversion
    : public OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerExchange(op, adaptor.getSrc(), getTypeConverter(), rewriter);
  }
};

struct ReshapeOpConversion : public OpConversionPattern<tile::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return lowerExchange(op, adaptor.getSrc(), getTypeConverter(), rewriter);
  }
};

} // namespace

int64_t warpforge::getExchangeScratchBytes(Operation *op) {
  ExchangeTypes types = getExchangeTypes(op);
  for (RankedTensorType type : {types.src, types.dst})
    if (!type.getEncoding() || !isLowerableDistributed(type.getEncoding()))
      return 0;
  if (getThreadCount(types.src.getEncoding()) !=
      getThreadCount(types.dst.getEncoding()))
    return 0;
  ExchangePlan plan = planExchange(types.src, types.dst, types.allowReorder);
  return plan.inRegisters() ? 0 : plan.scratchBytes();
}

void warpforge::populateConvertLayoutOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConvertLayoutOpConversion, ReshapeOpConversion>(
      converter, patterns.getContext());
}
