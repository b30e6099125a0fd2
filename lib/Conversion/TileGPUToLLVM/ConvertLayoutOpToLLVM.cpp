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
// Each side moves vectors of up to 16 bytes where every thread's registers
// hold aligned runs of the row-major order (a wgmma accumulator holds
// pairs of columns, a store's blocked layout runs of 8 f16).  Rows are
// padded so that a warp walking down a column does not hit one bank; the
// padding (4, 8 or 16 bytes, a vector's alignment) is the one with the
// fewest shared-memory wavefronts for the exchange's accesses, counted at
// compile time over warp 0's lanes.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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
  // its round of `elemsPerRound` elements.  Each side moves `srcVec` and
  // `dstVec` consecutive elements per access.
  int64_t rowLength = 1;
  int64_t padElems = 0;
  int64_t elemsPerRound = 1;
  int64_t rounds = 1;
  unsigned elemBytes = 1;
  unsigned srcVec = 1;
  unsigned dstVec = 1;

  bool inRegisters() const { return !registerSources.empty(); }
  int64_t paddedIndex(int64_t i) const {
    return i + (i / rowLength) * padElems;
  }
  int64_t scratchBytes() const {
    return (paddedIndex(elemsPerRound - 1) + 1) * elemBytes;
  }
};

unsigned getThreadCount(Attribute layout) {
  return getWarpCount(layout) * TargetInfo::kWarpSize;
}

/// Every thread's linear indices, by thread.
using ThreadIndices = SmallVector<SmallVector<int64_t>>;

/// The row-major linear indices of the elements each of threads 0 ..
/// `threads` - 1 holds (the layout's element offsets computed once for all
/// of them: this runs for every exchange, in shared-memory allocation and
/// in the lowering).
ThreadIndices allLinearIndices(RankedTensorType type, unsigned threads) {
  ThreadIndices all;
  all.reserve(threads);
  for (const auto &thread :
       getCTAElementCoords(type.getEncoding(), type.getShape(), threads)) {
    SmallVector<int64_t> linear;
    linear.reserve(thread.size());
    for (const auto &coords : thread) {
      int64_t l = 0;
      for (auto [c, size] : llvm::zip(coords, type.getShape()))
        l = l * size + c;
      linear.push_back(l);
    }
    all.push_back(std::move(linear));
  }
  return all;
}

/// For each destination element, the thread's source element holding the
/// same linear index, if this is the same for every thread.
SmallVector<unsigned> matchInRegisters(const ThreadIndices &src,
                                       const ThreadIndices &dst) {
  SmallVector<unsigned> sources;
  for (auto [tid, srcLinear, dstLinear] : llvm::enumerate(src, dst)) {
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
bool registersArePermutation(const ThreadIndices &src, const ThreadIndices &dst,
                             int64_t numel) {
  llvm::DenseMap<int64_t, int64_t> forward, backward;
  for (auto [srcLinear, dstLinear] : llvm::zip(src, dst)) {
    if (srcLinear.size() != dstLinear.size())
      return false;
    for (auto [s, d] : llvm::zip(srcLinear, dstLinear)) {
      auto f = forward.try_emplace(d, s);
      auto b = backward.try_emplace(s, d);
      if (f.first->second != s || b.first->second != d)
        return false;
    }
  }
  return int64_t(forward.size()) == numel;
}

/// The largest `v <= maxVec` (a power of two dividing `rowLength`) such
/// that every thread's registers come in groups of `v` holding linear
/// indices `l, l+1, ..., l+v-1` with `l` a multiple of `v`.
unsigned getContiguousVector(const ThreadIndices &all, unsigned maxVec,
                             int64_t rowLength) {
  for (unsigned v = maxVec; v > 1; v /= 2) {
    if (rowLength % v != 0)
      continue;
    bool ok = llvm::all_of(all, [&](const SmallVector<int64_t> &linear) {
      if (linear.size() % v != 0)
        return false;
      for (size_t g = 0; g < linear.size(); g += v) {
        if (linear[g] % v != 0)
          return false;
        for (unsigned k = 1; k < v; ++k)
          if (linear[g + k] != linear[g] + k)
            return false;
      }
      return true;
    });
    if (ok)
      return v;
  }
  return 1;
}

/// Shared-memory wavefronts of warp 0's accesses to the slots of `all`
/// (plan's padding), `vec` elements per access.  Lanes are served in
/// phases of 128 bytes (32 lanes of 4 bytes, 16 of 8, 8 of 16); within a
/// phase, a bank holding k distinct words costs k wavefronts.
int64_t countWavefronts(const ExchangePlan &plan, const ThreadIndices &all,
                        unsigned vec) {
  unsigned accessBytes = vec * plan.elemBytes;
  unsigned lanesPerPhase = accessBytes <= 4 ? 32 : 128 / accessBytes;
  unsigned words = std::max(1u, accessBytes / 4);
  int64_t total = 0;
  size_t perThread = all.front().size();
  for (size_t g = 0; g < perThread; g += vec)
    for (unsigned phase = 0; phase < 32; phase += lanesPerPhase) {
      llvm::DenseMap<int64_t, llvm::SmallDenseSet<int64_t, 4>> banks;
      for (unsigned lane = phase; lane < phase + lanesPerPhase; ++lane) {
        int64_t byte = plan.paddedIndex(all[lane][g]) * plan.elemBytes;
        for (unsigned w = 0; w < words; ++w) {
          int64_t word = byte / 4 + w;
          banks[word % 32].insert(word);
        }
      }
      size_t worst = 1;
      for (auto &entry : banks)
        worst = std::max<size_t>(worst, entry.second.size());
      total += worst;
    }
  return total;
}

ExchangePlan planExchange(RankedTensorType src, RankedTensorType dst,
                          bool allowReorder) {
  ExchangePlan plan;
  unsigned threads = getThreadCount(src.getEncoding());
  ThreadIndices srcAll = allLinearIndices(src, threads);
  ThreadIndices dstAll = allLinearIndices(dst, threads);
  if (allowReorder &&
      registersArePermutation(srcAll, dstAll, dst.getNumElements())) {
    for (unsigned i = 0, e = getTotalElemsPerThread(dst); i < e; ++i)
      plan.registerSources.push_back(i);
    return plan;
  }
  plan.registerSources = matchInRegisters(srcAll, dstAll);
  if (plan.inRegisters())
    return plan;

  Type element = src.getElementType();
  bool isPointer = isa<tile::PointerType>(element);
  plan.elemBytes = isPointer ? 8 : getSharedStorageBytes(element);
  int64_t numel = src.getNumElements();
  plan.rowLength = std::min(src.getShape().back(), dst.getShape().back());
  // Pointers stay scalar (an LLVM vector of pointers buys nothing here).
  unsigned maxVec = isPointer ? 1 : std::max(1u, 16 / plan.elemBytes);
  unsigned srcVec = getContiguousVector(srcAll, maxVec, plan.rowLength);
  unsigned dstVec = getContiguousVector(dstAll, maxVec, plan.rowLength);

  // Padding: a warp whose lanes walk down a column (the transposing side
  // of the exchange) reads or writes addresses a row apart; rows of a
  // multiple of 32 words put them all in one bank.  Padding each row by
  // 4, 8 or 16 bytes spreads them; a vector access needs its own width
  // of padding to stay aligned, so the candidates trade vector width
  // against conflicts, and the fewest wavefronts wins (the smaller padding
  // on a tie).  Rows of 1 or 2 words conflict at most 2-way and would grow
  // by 50% or more, so they are not padded; nor is a single row.
  bool pad = numel > plan.rowLength && plan.rowLength * plan.elemBytes >= 16;
  auto fitVec = [&](unsigned vec, int64_t padBytes) {
    while (vec > 1 && padBytes % (vec * plan.elemBytes) != 0)
      vec /= 2;
    return vec;
  };
  plan.srcVec = srcVec;
  plan.dstVec = dstVec;
  if (pad) {
    int64_t bestCost = std::numeric_limits<int64_t>::max();
    ExchangePlan best = plan;
    for (int64_t padBytes : {4, 8, 16}) {
      if (padBytes < plan.elemBytes)
        continue;
      ExchangePlan candidate = plan;
      candidate.padElems = padBytes / plan.elemBytes;
      candidate.srcVec = fitVec(srcVec, padBytes);
      candidate.dstVec = fitVec(dstVec, padBytes);
      int64_t cost = countWavefronts(candidate, srcAll, candidate.srcVec) +
                     countWavefronts(candidate, dstAll, candidate.dstVec);
      if (cost < bestCost) {
        bestCost = cost;
        best = candidate;
      }
    }
    plan = best;
  }
  plan.elemsPerRound = numel;
  while (plan.elemsPerRound > 1 &&
         plan.scratchBytes() > kMaxExchangeScratchBytes)
    plan.elemsPerRound /= 2;
  plan.rounds = numel / plan.elemsPerRound;
  // Rounds predicate every element on its round: scalar accesses.
  if (plan.rounds > 1)
    plan.srcVec = plan.dstVec = 1;
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
  // The linear index of each access's first element (null for the others,
  // which the access covers).
  auto linearIndices = [&](RankedTensorType type, unsigned vec) {
    SmallVector<Value> linear;
    for (const auto &coords : emitIndices(rewriter, loc, type))
      linear.push_back(linear.size() % vec == 0
                           ? linearize(rewriter, loc, coords, type.getShape())
                           : Value());
    return linear;
  };
  SmallVector<Value> srcLinear = linearIndices(types.src, plan.srcVec);
  SmallVector<Value> dstLinear = linearIndices(types.dst, plan.dstVec);
  // Divisions by the round's and the row's lengths: shifts and masks for
  // powers of two, else (experimental block dimensions: rows of 80 or 176)
  // divisions by constants, which LLVM turns into multiplications.
  auto divide = [&](Value v, int64_t d) -> Value {
    if (llvm::isPowerOf2_64(d))
      return LLVM::LShrOp::create(rewriter, loc, v,
                                  i32Val(rewriter, loc, llvm::Log2_64(d)));
    return LLVM::UDivOp::create(rewriter, loc, v, i32Val(rewriter, loc, d));
  };
  auto remainder = [&](Value v, int64_t d) -> Value {
    if (llvm::isPowerOf2_64(d))
      return LLVM::AndOp::create(rewriter, loc, v, i32Val(rewriter, loc, d - 1));
    return LLVM::URemOp::create(rewriter, loc, v, i32Val(rewriter, loc, d));
  };
  // The slot of a linear index, and in multi-round exchanges whether it
  // belongs to round `round`.
  auto slot = [&](Value linear, int64_t round) -> std::pair<Value, Value> {
    Value index = linear;
    Value inRound;
    if (plan.rounds > 1) {
      index = remainder(linear, plan.elemsPerRound);
      inRound = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                     divide(linear, plan.elemsPerRound),
                                     i32Val(rewriter, loc, round));
    }
    if (plan.padElems) {
      Value row = divide(index, plan.rowLength);
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
    for (size_t i = 0; i < srcValues.size(); i += plan.srcVec) {
      auto [ptr, inRound] = slot(srcLinear[i], round);
      if (inRound) {
        storeShared(rewriter, loc, ptr,
                    toSharedStorage(rewriter, loc, srcValues[i]), inRound);
        continue;
      }
      SmallVector<Value> run;
      for (unsigned k = 0; k < plan.srcVec; ++k)
        run.push_back(toSharedStorage(rewriter, loc, srcValues[i + k]));
      storeVector(rewriter, loc, ptr, run);
    }
    emitBarrier(rewriter, loc);
    for (size_t j = 0; j < dstLinear.size(); j += plan.dstVec) {
      auto [ptr, inRound] = slot(dstLinear[j], round);
      if (inRound) {
        Value loaded = fromSharedStorage(
            rewriter, loc, loadShared(rewriter, loc, ptr, storage, inRound),
            elemType);
        values[j] = values[j] ? LLVM::SelectOp::create(rewriter, loc, inRound,
                                                       loaded, values[j])
                                    .getResult()
                              : loaded;
        continue;
      }
      SmallVector<Value> run =
          loadVector(rewriter, loc, ptr, storage, plan.dstVec);
      for (unsigned k = 0; k < plan.dstVec; ++k)
        values[j + k] = fromSharedStorage(rewriter, loc, run[k], elemType);
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
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<ConvertLayoutOpConversion, ReshapeOpConversion>(
      converter, patterns.getContext());
}
