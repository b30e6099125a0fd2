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

/// select(m, load(p, m), other) -> load(p, m, other): the load already skips
/// the masked-off elements, so it can produce `other` itself.
struct SelectOfMaskedLoad : public OpRewritePattern<arith::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SelectOp select,
                                PatternRewriter &rewriter) const override {
    auto load = select.getTrueValue().getDefiningOp<LoadOp>();
    if (!load || !load->hasOneUse() || !load.getMask() || load.getOther() ||
        load.getMask() != select.getCondition())
      return failure();
    rewriter.replaceOpWithNewOp<LoadOp>(
        select, load.getType(), load.getPtr(), load.getMask(),
        select.getFalseValue(), load.getCache(), load.getEvict(),
        load.getIsVolatile());
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
