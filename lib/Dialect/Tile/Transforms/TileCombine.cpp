//===- TileCombine.cpp - Algebraic combinations of tile ops ---------------===//

#include "warpforge/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace warpforge::tile {
#define GEN_PASS_DEF_TILECOMBINE
#include "warpforge/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace warpforge::tile

using namespace mlir;
using namespace warpforge::tile;

namespace {
/// add(dot(a, b, 0), d) -> dot(a, b, d), in either operand order: the tensor
/// cores add the accumulator for free.
template <typename AddOpT>
struct DotAddToAccumulator : public OpRewritePattern<AddOpT> {
  using OpRewritePattern<AddOpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOpT add,
                                PatternRewriter &rewriter) const override {
    for (int i = 0; i < 2; ++i) {
      auto dot = add->getOperand(i).template getDefiningOp<DotOp>();
      if (!dot || !dot->hasOneUse() || !matchPattern(dot.getC(), m_AnyZeroFloat()) &&
                                           !matchPattern(dot.getC(), m_Zero()))
        continue;
      Value other = add->getOperand(1 - i);
      rewriter.replaceOpWithNewOp<DotOp>(
          add, dot.getType(), dot.getA(), dot.getB(), other,
          dot.getInputPrecision(), dot.getMaxNumImpreciseAcc());
      return success();
    }
    return failure();
  }
};

/// addptr(addptr(p, x), y) -> addptr(p, x + y) when x and y have one type.
struct AddPtrOfAddPtr : public OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner || inner.getOffset().getType() != op.getOffset().getType())
      return failure();
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), inner.getOffset(),
                                      op.getOffset());
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(),
                                          sum);
    return success();
  }
};

/// Whether `value` is available right before `op`: an argument of one of
/// its enclosing blocks, or defined earlier in its block or in an enclosing
/// region.  Conservative, without a dominance analysis.
bool isAvailableBefore(Value value, Operation *op) {
  Region *region = value.getParentRegion();
  if (!region->isAncestor(op->getParentRegion()))
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return true; // A block argument of an enclosing block.
  Operation *ancestor = def->getBlock()->findAncestorOpInBlock(*op);
  return ancestor && def->isBeforeInBlock(ancestor);
}

/// select(m, load(p, m), other) -> load(p, m, other): the load already skips
/// the masked-off elements, so it can produce `other` itself.  The new load
/// stays where the old one was (moving it past a store would change what it
/// reads), so `other` must be available there.
struct SelectOfMaskedLoad : public OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    auto load = select.getTrueValue().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse() || !load.getMask() || load.getOther() ||
        load.getMask() != select.getCondition() ||
        !isAvailableBefore(select.getFalseValue(), load))
      return failure();
    rewriter.setInsertionPoint(load);
    auto merged = LoadOp::create(
        rewriter, load.getLoc(), load.getPtr(), load.getMask(),
        select.getFalseValue(), load.getCache(), load.getEvict(),
        load.getIsVolatile());
    rewriter.replaceOp(select, merged.getResult());
    rewriter.eraseOp(load);
    return success();
  }
};

struct TileCombinePass
    : public warpforge::tile::impl::TileCombineBase<TileCombinePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateTileCombinePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void warpforge::tile::populateTileCombinePatterns(RewritePatternSet &patterns) {
  patterns.add<DotAddToAccumulator<arith::AddFOp>,
               DotAddToAccumulator<arith::AddIOp>, AddPtrOfAddPtr,
               SelectOfMaskedLoad>(patterns.getContext());
}
