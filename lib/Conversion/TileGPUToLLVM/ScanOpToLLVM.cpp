//===- ScanOpToLLVM.cpp - tile.scan over a distributed tensor -------------===//
//
// An inclusive scan along `axis`.  Along the axis a thread holds `reps`
// runs of consecutive elements (one per repetition of the CTA tile); the
// scan order of the elements is (run, warp, lane, element within the run).
// For each line of elements along the axis:
//
//  1. each thread scans each of its runs;
//  2. the run totals are scanned across the lanes along the axis
//     (Kogge-Stone with shuffles from lower lanes), and each lane prefixes
//     its run with the combination of the lower lanes' runs;
//  3. what comes before a warp's run in the same repetition (lower warps)
//     and in earlier repetitions (all warps) is combined into a carry that
//     prefixes the run: in registers when one warp holds the whole line,
//     else through scratch shared memory holding every warp's run totals.
//
// A `reverse` scan runs the same steps in the mirrored order: lanes, warps,
// runs and elements are visited from the last, and the combiner still
// takes the earlier partial result (in visiting order) on its left.  The
// combiner has no identity, so "no prefix yet" is tracked with flags and
// selects rather than with an identity value.  Lanes and warps holding
// copies (a tensor smaller than the CTA tile) scan as the lane or warp
// they copy.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemory.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

using Tuple = SmallVector<Value>; // one value per operand

RankedTensorType getSourceType(tile::ScanOp op) {
  return cast<RankedTensorType>(op.getSrcs()[0].getType());
}

/// Operand `i`'s run totals live in its array of the scratch, at slot
/// ((run * distinctWarps + warp) * lines + line).
std::optional<OperandScratch> getScanScratch(tile::ScanOp op) {
  RankedTensorType type = getSourceType(op);
  if (!isBlockedLike(type.getEncoding()))
    return std::nullopt;
  AxisDistribution axis = getAxisDistribution(type, op.getAxis());
  if (axis.distinctWarps == 1)
    return std::nullopt;
  int64_t lines = type.getNumElements() / type.getDimSize(op.getAxis());
  return getOperandScratch(op.getSrcs(),
                           int64_t(axis.reps) * axis.distinctWarps * lines);
}

struct ScanOpConversion : public OpConversionPattern<tile::ScanOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = getSourceType(op);
    Attribute layout = type.getEncoding();
    if (!layout || !isBlockedLike(layout))
      return op.emitError("cannot lower a scan of ")
             << type << ": it needs a blocked layout";
    for (Value v : llvm::concat<Value>(op.getSrcs(), op.getResult()))
      if (cast<RankedTensorType>(v.getType()).getEncoding() != layout)
        return op.emitError("scan operands and results must share one "
                            "layout");
    for (Value src : op.getSrcs())
      if (isa<tile::PointerType>(
              cast<RankedTensorType>(src.getType()).getElementType()))
        return op.emitError("scans of pointers are not supported");

    unsigned axisDim = op.getAxis();
    bool reverse = op.getReverse();
    AxisDistribution axis = getAxisDistribution(type, axisDim);
    BlockedEncodingAttr root = getRootBlocked(layout);
    int64_t tileAlong = int64_t(root.getSizePerThread()[axis.rootDim]) *
                        axis.lanes * axis.warps;
    Region &combiner = op.getCombineOp();
    auto combine = [&](ValueRange lhs, ValueRange rhs) -> Tuple {
      return emitCombine(rewriter, combiner, lhs, rhs);
    };
    auto select = [&](Value cond, ArrayRef<Value> a,
                      ArrayRef<Value> b) -> Tuple {
      Tuple out;
      for (auto [x, y] : llvm::zip(a, b))
        out.push_back(LLVM::SelectOp::create(rewriter, loc, cond, x, y));
      return out;
    };

    // Lines: the elements sharing all coordinates but the axis, each at
    // position (run * elemsPerRep + index within the run).
    SmallVector<SmallVector<unsigned>> lines;
    std::map<SmallVector<int64_t>, unsigned> lineIndex;
    auto offsets = getRootElementOffsets(layout, type.getShape());
    for (auto [e, offset] : llvm::enumerate(offsets)) {
      SmallVector<int64_t> key(offset);
      key[axis.rootDim] = 0;
      auto [it, inserted] = lineIndex.try_emplace(key, lines.size());
      if (inserted)
        lines.emplace_back(axis.reps * axis.elemsPerRep, 0);
      int64_t along = offset[axis.rootDim];
      unsigned pos = (along / tileAlong) * axis.elemsPerRep + along % tileAlong;
      lines[it->second][pos] = e;
    }

    SmallVector<Tuple> values = // [element][operand]
        unpackOperandTuples(loc, adaptor.getSrcs(), rewriter);
    // Visiting order of runs and of elements within a run.
    auto visit = [&](unsigned n, unsigned i) { return reverse ? n - 1 - i : i; };
    auto element = [&](unsigned line, unsigned run, unsigned k) {
      return lines[line][run * axis.elemsPerRep + k];
    };

    // Step 1: scan each run in the thread.
    SmallVector<SmallVector<Tuple>> runTotals(lines.size()); // [line][run]
    for (unsigned l = 0; l < lines.size(); ++l) {
      for (unsigned r = 0; r < axis.reps; ++r) {
        for (unsigned i = 1; i < axis.elemsPerRep; ++i) {
          unsigned prev = element(l, r, visit(axis.elemsPerRep, i - 1));
          unsigned cur = element(l, r, visit(axis.elemsPerRep, i));
          values[cur] = combine(values[prev], values[cur]);
        }
        runTotals[l].push_back(
            values[element(l, r, visit(axis.elemsPerRep, axis.elemsPerRep - 1))]);
      }
    }

    Value lane = getLaneAndWarpId(rewriter, loc).first;
    auto [laneAlong, warpAlong] = getLaneAndWarpAlongAxis(rewriter, loc, axis);
    // Position in visiting order among the lanes (warps) holding distinct
    // elements.
    auto visitIndex = [&](Value along, unsigned distinct) -> Value {
      Value v = wrapIndex(rewriter, loc, along, distinct);
      // Reversed: distinct - 1 - v (an xor for a power of two).
      if (reverse)
        v = llvm::isPowerOf2_32(distinct)
                ? LLVM::XOrOp::create(rewriter, loc, v,
                                      i32Val(rewriter, loc, distinct - 1))
                      .getResult()
                : LLVM::SubOp::create(rewriter, loc,
                                      i32Val(rewriter, loc, distinct - 1), v)
                      .getResult();
      return v;
    };

    // Step 2: across the lanes along the axis.
    if (axis.distinctLanes > 1) {
      Value vLane = visitIndex(laneAlong, axis.distinctLanes);
      // The lane `n` visiting steps before this one (n may be negative).
      auto laneBefore = [&](Value n) -> Value {
        Value delta = LLVM::MulOp::create(rewriter, loc, n,
                                          i32Val(rewriter, loc, axis.laneStride));
        Value src = reverse ? LLVM::AddOp::create(rewriter, loc, lane, delta)
                                  .getResult()
                            : LLVM::SubOp::create(rewriter, loc, lane, delta)
                                  .getResult();
        return LLVM::AndOp::create(rewriter, loc, src, i32Val(rewriter, loc, 31));
      };
      auto shuffle = [&](ArrayRef<Value> t, Value srcLane) {
        Tuple out;
        for (Value v : t)
          out.push_back(shuffleIdx(rewriter, loc, v, srcLane));
        return out;
      };
      Value prevLane = laneBefore(i32Val(rewriter, loc, 1));
      Value hasPrefix = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                             vLane, i32Val(rewriter, loc, 0));
      // The last visited lane is (distinctLanes - 1 - vLane) steps after.
      Value lastLane = laneBefore(LLVM::SubOp::create(
          rewriter, loc, vLane, i32Val(rewriter, loc, axis.distinctLanes - 1)));
      for (unsigned l = 0; l < lines.size(); ++l) {
        for (unsigned r = 0; r < axis.reps; ++r) {
          Tuple inclusive = runTotals[l][r];
          for (unsigned step = 1; step < axis.distinctLanes; step *= 2) {
            Tuple other = shuffle(inclusive, laneBefore(i32Val(rewriter, loc, step)));
            Value valid = LLVM::ICmpOp::create(rewriter, loc,
                                               LLVM::ICmpPredicate::uge, vLane,
                                               i32Val(rewriter, loc, step));
            inclusive = select(valid, combine(other, inclusive), inclusive);
          }
          Tuple prefix = shuffle(inclusive, prevLane);
          for (unsigned k = 0; k < axis.elemsPerRep; ++k) {
            Tuple &v = values[element(l, r, k)];
            v = select(hasPrefix, combine(prefix, v), v);
          }
          runTotals[l][r] = shuffle(inclusive, lastLane);
        }
      }
    }

    // Step 3: carries from earlier warps and repetitions.
    auto applyCarry = [&](unsigned l, unsigned r, ArrayRef<Value> carry,
                          Value hasCarry) {
      for (unsigned k = 0; k < axis.elemsPerRep; ++k) {
        Tuple &v = values[element(l, r, k)];
        Tuple combined = combine(carry, v);
        v = hasCarry ? select(hasCarry, combined, v) : combined;
      }
    };
    if (axis.distinctWarps == 1) {
      for (unsigned l = 0; l < lines.size(); ++l) {
        Tuple carry;
        for (unsigned i = 0; i < axis.reps; ++i) {
          unsigned r = visit(axis.reps, i);
          if (!carry.empty())
            applyCarry(l, r, carry, Value());
          carry = carry.empty() ? runTotals[l][r]
                                : combine(carry, runTotals[l][r]);
        }
      }
    } else {
      FailureOr<Value> base =
          getRequiredScratchBase(rewriter, op, "scan across warps");
      if (failed(base))
        return failure();
      std::optional<OperandScratch> scratch = getScanScratch(op);
      unsigned pw = axis.distinctWarps;
      SmallVector<int64_t> lineShape(type.getShape());
      lineShape.erase(lineShape.begin() + axisDim);
      int64_t numLines = type.getNumElements() / type.getDimSize(axisDim);
      auto indices = emitIndices(rewriter, loc, type);
      SmallVector<Value> lineLinear;
      for (unsigned l = 0; l < lines.size(); ++l) {
        SmallVector<Value> coords(indices[lines[l][0]]);
        coords.erase(coords.begin() + axisDim);
        lineLinear.push_back(linearize(rewriter, loc, coords, lineShape));
      }
      auto slotIndex = [&](unsigned l, unsigned r, Value warpSlot) {
        // ((r * pw + warp) * numLines + line)
        Value slot = LLVM::AddOp::create(rewriter, loc, warpSlot,
                                         i32Val(rewriter, loc, r * pw));
        slot = LLVM::MulOp::create(rewriter, loc, slot,
                                   i32Val(rewriter, loc, numLines));
        return LLVM::AddOp::create(rewriter, loc, slot, lineLinear[l])
            .getResult();
      };
      // Copies of a warp store the same totals in its slot, as do all its
      // lanes (they all hold the run totals): no predicate is needed.
      Value warpSlot = wrapIndex(rewriter, loc, warpAlong, pw);
      emitBarrier(rewriter, loc);
      for (unsigned l = 0; l < lines.size(); ++l)
        for (unsigned r = 0; r < axis.reps; ++r)
          storeOperandSlot(rewriter, loc, *base, *scratch, runTotals[l][r],
                           [&] { return slotIndex(l, r, warpSlot); });
      emitBarrier(rewriter, loc);
      Value vWarp = visitIndex(warpAlong, pw);
      for (unsigned l = 0; l < lines.size(); ++l) {
        Tuple running; // everything in the runs visited before
        for (unsigned ri = 0; ri < axis.reps; ++ri) {
          unsigned r = visit(axis.reps, ri);
          SmallVector<Tuple> totals; // in visiting order of the warps
          SmallVector<Type> types =
              llvm::to_vector(ValueRange(runTotals[l][r]).getTypes());
          for (unsigned wi = 0; wi < pw; ++wi)
            totals.push_back(
                loadOperandSlot(rewriter, loc, *base, *scratch, types, [&] {
                  return slotIndex(l, r, i32Val(rewriter, loc, visit(pw, wi)));
                }));
          // carry = running, then the totals of the warps visited before
          // this one.
          Tuple carry = running.empty() ? totals[0] : running;
          Value hasCarry = boolVal(rewriter, loc, !running.empty());
          for (unsigned wi = 0; wi + 1 < pw; ++wi) {
            Value before = LLVM::ICmpOp::create(
                rewriter, loc, LLVM::ICmpPredicate::ugt, vWarp,
                i32Val(rewriter, loc, wi));
            // Past the first warp, `before` implies a carry exists.
            Tuple extended = running.empty() && wi == 0
                                 ? totals[0]
                                 : combine(carry, totals[wi]);
            carry = select(before, extended, carry);
            hasCarry = LLVM::OrOp::create(rewriter, loc, hasCarry, before);
          }
          applyCarry(l, r, carry, hasCarry);
          for (Tuple &t : totals)
            running = running.empty() ? t : combine(running, t);
        }
      }
    }

    rewriter.replaceOp(op,
                       packOperandTuples(loc, getTypeConverter(), values,
                                         op.getResult().getTypes(), rewriter));
    return success();
  }
};

} // namespace

int64_t warpforge::getScanScratchBytes(tile::ScanOp op) {
  std::optional<OperandScratch> scratch = getScanScratch(op);
  return scratch ? scratch->bytes : 0;
}

void warpforge::populateScanOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<ScanOpConversion>(converter, patterns.getContext());
}
