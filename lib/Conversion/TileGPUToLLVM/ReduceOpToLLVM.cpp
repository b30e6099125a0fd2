//===- ReduceOpToLLVM.cpp - tile.reduce over a distributed tensor ---------===//
//
// A reduction along `axis` runs in three steps, each over the elements that
// share all coordinates but the axis:
//
//  1. within a thread, its elements along the axis are combined;
//  2. within a warp, butterfly shuffles combine the lanes along the axis
//     (the lane-id bits that vary along it), leaving every lane with the
//     warp's result;
//  3. across the warps along the axis, each warp writes its partial result
//     to scratch shared memory, and after a barrier every thread combines
//     the partials of all warps.
//
// When the tensor is smaller than the CTA tile along the axis, several
// lanes or warps hold the same elements; steps 2 and 3 then only span the
// lanes and warps holding distinct ones (a sum must not count an element
// twice).  Every thread holding an output element ends with the same value:
// shuffle partners combine in lane order and step 3 combines the partials
// in warp order, so even a combiner that is commutative only up to NaNs
// gives all threads the same bits.
//
// Two shortcuts for a combiner that is one op known to give the same bits
// in any order (integer add, mul, and, or, xor, min and max; float min and
// max, whose NaN rule -- maxnum's or maximum's -- does not depend on the
// order either): step 1 combines the thread's elements as a balanced tree
// instead of a chain, and step 2 combines a lane's value and its partner's
// without putting the lower lane first.  Both only shorten the critical
// path: the row maximum of attention's softmax, 32 elements a thread on
// 64x128 wgmma blocks, was a chain of 32 dependent FMNMX plus two selects
// per shuffle, all of it ahead of every exponential.  Float sums and
// products keep the chain and the lane order: their bits depend on the
// order (Triton's order, so the results match its own).
//
// `tilegpu.warp_all` is the warp's own AND of a condition: each thread's
// elements and-ed, then one `vote.sync.all` (no shuffles, no scratch).
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

RankedTensorType getSourceType(tile::ReduceOp op) {
  return cast<RankedTensorType>(op.getSrcs()[0].getType());
}

int64_t getOutputElements(RankedTensorType type, unsigned axis) {
  return type.getNumElements() / type.getDimSize(axis);
}

/// Where each operand's partials live in the op's scratch: slot (output
/// element * distinctWarps + warp) of its array.  Null when the reduction
/// needs no scratch (a single warp, or copies of one warp's data, along the
/// axis).
std::optional<OperandScratch> getReduceScratch(tile::ReduceOp op) {
  RankedTensorType type = getSourceType(op);
  if (!isRegularDistributed(type.getEncoding()))
    return std::nullopt;
  AxisDistribution axis = getAxisDistribution(type, op.getAxis());
  if (axis.distinctWarps == 1)
    return std::nullopt;
  return getOperandScratch(
      op.getSrcs(), getOutputElements(type, op.getAxis()) * axis.distinctWarps);
}

/// The offset of a root element with the axis coordinate dropped: the key
/// of the output element it contributes to.
SmallVector<int64_t> withoutAxis(ArrayRef<int64_t> offset, unsigned rootDim) {
  SmallVector<int64_t> key(offset);
  key[rootDim] = 0;
  return key;
}

/// Whether the combiner is one op on (lhs, rhs) whose result has the same
/// bits in any order and grouping of its operands.
bool isOrderFreeCombiner(Region &combiner) {
  Block &block = combiner.front();
  if (block.getNumArguments() != 2 || !llvm::hasSingleElement(
                                          block.without_terminator()))
    return false;
  Operation &op = block.front();
  if (op.getNumOperands() != 2 || op.getNumResults() != 1 ||
      block.getTerminator()->getNumOperands() != 1 ||
      block.getTerminator()->getOperand(0) != op.getResult(0))
    return false;
  Value a = op.getOperand(0), b = op.getOperand(1);
  Value x = block.getArgument(0), y = block.getArgument(1);
  if (!((a == x && b == y) || (a == y && b == x)))
    return false;
  return isa<arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
             arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
             arith::MinUIOp, arith::MaxNumFOp, arith::MinNumFOp,
             arith::MaximumFOp, arith::MinimumFOp>(op);
}

struct ReduceOpConversion : public OpConversionPattern<tile::ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType srcType = getSourceType(op);
    Attribute layout = srcType.getEncoding();
    unsigned axisDim = op.getAxis();
    if (!layout || !isRegularDistributed(layout))
      return op.emitError("cannot lower a reduction of ")
             << srcType << ": it needs a blocked or wgmma accumulator layout "
             << "(or a slice of one)";
    for (Value src : op.getSrcs())
      if (cast<RankedTensorType>(src.getType()).getEncoding() != layout)
        return op.emitError("reduce operands must share one layout");
    bool scalarResult = srcType.getRank() == 1;
    Attribute resultLayout;
    if (!scalarResult) {
      resultLayout = SliceEncodingAttr::get(getContext(), axisDim, layout);
      for (Type t : op.getResultTypes())
        if (cast<RankedTensorType>(t).getEncoding() != resultLayout)
          return op.emitError("reduce results must be in ")
                 << resultLayout << ", the slice of the source layout along "
                 << "the reduced axis; got " << t;
    }
    for (Value src : op.getSrcs())
      if (isa<tile::PointerType>(
              cast<RankedTensorType>(src.getType()).getElementType()))
        return op.emitError("reductions of pointers are not supported");

    AxisDistribution axis = getAxisDistribution(srcType, axisDim);
    Region &combiner = op.getCombineOp();
    bool orderFree = isOrderFreeCombiner(combiner);
    auto combine = [&](ValueRange lhs, ValueRange rhs) {
      return emitCombine(rewriter, combiner, lhs, rhs);
    };

    // Output elements: the source's elements with a size-1 axis, keyed by
    // their root offset.
    SmallVector<int64_t> outShape(srcType.getShape());
    outShape[axisDim] = 1;
    llvm::DenseMap<ArrayRef<int64_t>, unsigned> outputIndex;
    auto outOffsets = getRootElementOffsets(layout, outShape);
    for (auto [i, offset] : llvm::enumerate(outOffsets))
      outputIndex.try_emplace(offset, i);

    // Step 1: combine within the thread.
    SmallVector<SmallVector<Value>> elements = // [element][operand]
        unpackOperandTuples(loc, adaptor.getSrcs(), rewriter);
    SmallVector<SmallVector<Value>> acc(outOffsets.size()); // [out][operand]
    auto srcOffsets = getRootElementOffsets(layout, srcType.getShape());
    SmallVector<SmallVector<unsigned>> members(outOffsets.size());
    for (auto [e, offset] : llvm::enumerate(srcOffsets)) {
      auto it = outputIndex.find(withoutAxis(offset, axis.rootDim));
      if (it == outputIndex.end())
        return op.emitError("reduce layout has an element outside the "
                            "output (internal error)");
      members[it->second].push_back(e);
    }
    for (auto [out, ids] : llvm::enumerate(members)) {
      SmallVector<SmallVector<Value>> level;
      for (unsigned e : ids)
        level.push_back(elements[e]);
      if (!orderFree) {
        for (SmallVector<Value> &v : level)
          acc[out] = acc[out].empty() ? v : combine(acc[out], v);
        continue;
      }
      // A balanced tree: log2(n) dependent combines instead of n - 1.
      while (level.size() > 1) {
        SmallVector<SmallVector<Value>> next;
        for (size_t i = 0; i + 1 < level.size(); i += 2)
          next.push_back(combine(level[i], level[i + 1]));
        if (level.size() % 2)
          next.push_back(level.back());
        level = std::move(next);
      }
      if (!level.empty())
        acc[out] = level.front();
    }

    // Step 2: butterfly shuffles over the lanes holding distinct elements.
    // The lower lane of each pair is the left operand on both sides (unless
    // the order does not matter).
    Value lane = getLaneAndWarpId(rewriter, loc).first;
    for (unsigned step = 1; step < axis.distinctLanes; step *= 2) {
      unsigned mask = step * axis.laneStride;
      if (orderFree) {
        for (SmallVector<Value> &value : acc) {
          SmallVector<Value> others;
          for (Value v : value)
            others.push_back(shuffleXor(rewriter, loc, v, mask));
          value = combine(value, others);
        }
        continue;
      }
      Value upper = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::ne,
          LLVM::AndOp::create(rewriter, loc, lane, i32Val(rewriter, loc, mask)),
          i32Val(rewriter, loc, 0));
      for (SmallVector<Value> &value : acc) {
        SmallVector<Value> lhs, rhs;
        for (Value v : value) {
          Value other = shuffleXor(rewriter, loc, v, mask);
          lhs.push_back(LLVM::SelectOp::create(rewriter, loc, upper, other, v));
          rhs.push_back(LLVM::SelectOp::create(rewriter, loc, upper, v, other));
        }
        value = combine(lhs, rhs);
      }
    }

    // Step 3: across warps, through scratch shared memory.
    if (axis.distinctWarps > 1) {
      std::optional<OperandScratch> scratch = getReduceScratch(op);
      FailureOr<Value> base =
          getRequiredScratchBase(rewriter, op, "reduction across warps");
      if (failed(base))
        return failure();
      Value warpAlong = getLaneAndWarpAlongAxis(rewriter, loc, axis).second;
      // Warps holding copies write the same values to their original's
      // slot; so do the lanes along the axis, which all hold the warp's
      // result: identical values, so no predicate is needed.
      Value warpSlot = wrapIndex(rewriter, loc, warpAlong, axis.distinctWarps);
      SmallVector<Value> outLinear;
      if (scalarResult) {
        outLinear.push_back(i32Val(rewriter, loc, 0));
      } else {
        auto outType = cast<RankedTensorType>(op.getResultTypes()[0]);
        for (const auto &coords : emitIndices(rewriter, loc, outType))
          outLinear.push_back(linearize(rewriter, loc, coords,
                                        outType.getShape()));
      }
      auto slotIndex = [&](Value out, Value warpIndex) -> Value {
        return LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, out,
                                i32Val(rewriter, loc, axis.distinctWarps)),
            warpIndex);
      };
      // Earlier reads of the scratch (a previous op's) must be done.
      emitBarrier(rewriter, loc);
      for (auto [r, value] : llvm::enumerate(acc))
        storeOperandSlot(rewriter, loc, *base, *scratch, value,
                         [&] { return slotIndex(outLinear[r], warpSlot); });
      emitBarrier(rewriter, loc);
      for (auto [r, value] : llvm::enumerate(acc)) {
        SmallVector<Value> total;
        SmallVector<Type> types = llvm::to_vector(ValueRange(value).getTypes());
        for (unsigned w = 0; w < axis.distinctWarps; ++w) {
          SmallVector<Value> partial =
              loadOperandSlot(rewriter, loc, *base, *scratch, types, [&] {
                return slotIndex(outLinear[r], i32Val(rewriter, loc, w));
              });
          total = total.empty() ? partial : combine(total, partial);
        }
        value = total;
      }
    }

    rewriter.replaceOp(op, packOperandTuples(loc, getTypeConverter(), acc,
                                             op.getResultTypes(), rewriter));
    return success();
  }
};

/// `tilegpu.warp_all`: the thread's elements and-ed, then `vote.sync.all`
/// over the full warp (every lane executes it: the op is not under a
/// lane-dependent condition, warp-uniform ones aside).
struct WarpAllOpConversion : public OpConversionPattern<tilegpu::WarpAllOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tilegpu::WarpAllOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> elems =
        unpackLLElements(loc, adaptor.getCondition(), rewriter);
    Value all;
    for (Value e : elems)
      all = all ? LLVM::AndOp::create(rewriter, loc, all, e).getResult() : e;
    if (!all)
      all = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                     rewriter.getBoolAttr(true));
    Value mask = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI32Type(),
                                          rewriter.getI32IntegerAttr(-1));
    Value vote = NVVM::VoteSyncOp::create(rewriter, loc, rewriter.getI1Type(),
                                          mask, all, NVVM::VoteSyncKind::all);
    rewriter.replaceOp(op, vote);
    return success();
  }
};

} // namespace

int64_t warpforge::getReduceScratchBytes(tile::ReduceOp op) {
  std::optional<OperandScratch> scratch = getReduceScratch(op);
  return scratch ? scratch->bytes : 0;
}

void warpforge::populateReduceOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<ReduceOpConversion, WarpAllOpConversion>(converter,
                                                      patterns.getContext());
}
