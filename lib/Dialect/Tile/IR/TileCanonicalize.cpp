//===- TileCanonicalize.cpp - Folders and canonicalizations ---------------===//
//
// Only rewrites that are always profitable live here; algebraic combinations
// that change the shape of the computation are in the tile-combine pass.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace warpforge::tile;

namespace {
/// The splat value of a constant tensor or the value of a constant scalar.
Attribute getConstantSplatValue(Attribute attr) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(attr))
    return splat.getSplatValue<Attribute>();
  if (isa_and_nonnull<IntegerAttr, FloatAttr>(attr))
    return attr;
  return {};
}

/// A splat constant of `type` when `attr` is a constant splat, else null.
OpFoldResult reshapeSplatConstant(Attribute attr, RankedTensorType type) {
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(attr))
    return SplatElementsAttr::get(type, splat.getSplatValue<Attribute>());
  return {};
}

/// op(splat(x)) -> splat(x) for shape-only ops: every element is still x.
template <typename OpT>
struct ShapeOpOfSplat : public OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// broadcast(broadcast(x)) -> broadcast(x).
struct BroadcastOfBroadcast : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x); the element order may be reordered if
/// either reshape allowed it.
struct ReshapeOfReshape : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(
        op, op.getType(), inner.getSrc(),
        op.getAllowReorder() || inner.getAllowReorder());
    return success();
  }
};

/// trans(trans(x, inner), outer) -> trans(x, inner o outer).
struct TransOfTrans : public OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<TransOp>();
    if (!inner)
      return failure();
    SmallVector<int32_t> order;
    for (int32_t d : op.getOrder())
      order.push_back(inner.getOrder()[d]);
    rewriter.replaceOpWithNewOp<TransOp>(op, op.getType(), inner.getSrc(),
                                         order);
    return success();
  }
};

/// Whether `mask` is a constant whose every element is `value`.
bool isConstantMask(Value mask, bool value) {
  if (!mask)
    return false;
  return value ? matchPattern(mask, m_One()) : matchPattern(mask, m_Zero());
}

/// load(p, true, other) -> load(p): a mask that is always true is no mask.
struct LoadWithTrueMask : public OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantMask(op.getMask(), true))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getMaskMutable().clear();
      op.getOtherMutable().clear();
    });
    return success();
  }
};

/// store(p, v, true) -> store(p, v); store(p, v, false) is erased.
struct StoreWithConstantMask : public OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (isConstantMask(op.getMask(), false)) {
      rewriter.eraseOp(op);
      return success();
    }
    if (!isConstantMask(op.getMask(), true))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
    return success();
  }
};
} // namespace

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  Attribute value = adaptor.getSrc();
  if (!isa_and_nonnull<IntegerAttr, FloatAttr>(value))
    return {};
  return SplatElementsAttr::get(getType(), value);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ShapeOpOfSplat<BroadcastOp>, BroadcastOfBroadcast>(context);
}

void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<ShapeOpOfSplat<ExpandDimsOp>>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<ShapeOpOfSplat<ReshapeOp>, ReshapeOfReshape>(context);
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  if (llvm::equal(getOrder(), llvm::seq<int32_t>(0, getOrder().size())))
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

void TransOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<ShapeOpOfSplat<TransOp>, TransOfTrans>(context);
}

OpFoldResult AddPtrOp::fold(FoldAdaptor adaptor) {
  Attribute offset = getConstantSplatValue(adaptor.getOffset());
  if (auto zero = dyn_cast_or_null<IntegerAttr>(offset); zero && zero.getValue().isZero())
    return getPtr();
  return {};
}

void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<LoadWithTrueMask>(context);
}

void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<StoreWithConstantMask>(context);
}
