//===- ViewOpToLLVM.cpp - Ops that create or rearrange tensors ------------===//
//
// make_range, splat, broadcast, expand_dims and trans need no data movement
// between threads: each thread computes or picks its own elements.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

LogicalResult requireBlockedLike(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (tensor && isRegularDistributed(tensor.getEncoding()))
    return success();
  return op->emitError("cannot lower a tensor of type ")
         << type << " here: it needs a blocked or wgmma accumulator layout "
         << "(or a slice of one)";
}

struct MakeRangeOpConversion : public OpConversionPattern<tile::MakeRangeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::MakeRangeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireBlockedLike(op, op.getType())))
      return failure();
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<Value> values;
    for (const auto &coords : emitIndices(rewriter, loc, type)) {
      Value v = coords[0];
      if (op.getStart() != 0)
        v = LLVM::AddOp::create(rewriter, loc, v,
                                i32Val(rewriter, loc, op.getStart()));
      values.push_back(v);
    }
    rewriter.replaceOp(op, packLLElements(loc, getTypeConverter(), values,
                                          rewriter, type));
    return success();
  }
};

struct SplatOpConversion : public OpConversionPattern<tile::SplatOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::SplatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    // A splat places no element: any layout the lowering knows will do.
    if (!isLowerableDistributed(type.getEncoding()))
      return requireBlockedLike(op, type);
    SmallVector<Value> values(getTotalElemsPerThread(type), adaptor.getSrc());
    rewriter.replaceOp(op, packLLElements(op.getLoc(), getTypeConverter(),
                                          values, rewriter, type));
    return success();
  }
};

/// The elements of a `to` tensor, each taken from the element of the
/// lowered `from` tensor `src` whose root offsets `project` gives for its
/// own; failure when a thread does not hold the element it needs.
FailureOr<SmallVector<Value>>
gatherElements(Location loc, Value src, RankedTensorType from,
               RankedTensorType to, OpBuilder &b,
               function_ref<SmallVector<int64_t>(ArrayRef<int64_t>)> project) {
  llvm::DenseMap<ArrayRef<int64_t>, unsigned> index;
  auto fromOffsets = getRootElementOffsets(from.getEncoding(), from.getShape());
  for (auto [i, offset] : llvm::enumerate(fromOffsets))
    index.try_emplace(offset, i);
  SmallVector<unsigned> sources;
  for (const auto &offset :
       getRootElementOffsets(to.getEncoding(), to.getShape())) {
    SmallVector<int64_t> projected = project(offset);
    auto it = index.find(projected);
    if (it == index.end())
      return failure();
    sources.push_back(it->second);
  }
  SmallVector<Value> elements = unpackLLElements(loc, src, b);
  SmallVector<Value> gathered;
  for (unsigned i : sources)
    gathered.push_back(elements[i]);
  return gathered;
}

struct BroadcastOpConversion : public OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto type = cast<RankedTensorType>(op.getType());
    if (failed(requireBlockedLike(op, srcType)) ||
        failed(requireBlockedLike(op, type)))
      return failure();
    if (getRootLayout(srcType.getEncoding()) !=
            getRootLayout(type.getEncoding()) ||
        srcType.getEncoding() != type.getEncoding())
      return op.emitError("broadcast source and result must share a layout");
    SmallVector<int64_t> srcShape =
        getRootShape(srcType.getEncoding(), srcType.getShape());
    auto values = gatherElements(
        op.getLoc(), adaptor.getSrc(), srcType, type, rewriter,
        [&](ArrayRef<int64_t> off) {
      SmallVector<int64_t> p(off);
      for (unsigned d = 0; d < p.size(); ++d)
        if (srcShape[d] == 1)
          p[d] = 0;
      return p;
    });
    if (failed(values))
      return op.emitError("broadcast layouts do not line up");
    rewriter.replaceOp(op, packLLElements(op.getLoc(), getTypeConverter(),
                                          *values, rewriter, type));
    return success();
  }
};

/// expand_dims from a slice of the result's layout: the same elements in
/// the same order (the slice's list is the parent's at size 1 along dim).
struct ExpandDimsOpConversion
    : public OpConversionPattern<tile::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto type = cast<RankedTensorType>(op.getType());
    auto slice = dyn_cast_or_null<SliceEncodingAttr>(srcType.getEncoding());
    if (failed(requireBlockedLike(op, type)) || !slice ||
        slice.getParent() != type.getEncoding() ||
        slice.getDim() != unsigned(op.getAxis()))
      return op.emitError("expand_dims source must be in a slice of the "
                          "result's layout along the new axis, got ")
             << srcType << " -> " << type;
    SmallVector<Value> values =
        unpackLLElements(op.getLoc(), adaptor.getSrc(), rewriter);
    rewriter.replaceOp(op, packLLElements(op.getLoc(), getTypeConverter(),
                                          values, rewriter, type));
    return success();
  }
};

/// trans into the source layout with its dims permuted: each thread keeps
/// its elements, renamed.
struct TransOpConversion : public OpConversionPattern<tile::TransOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto type = cast<RankedTensorType>(op.getType());
    if (!isa_and_nonnull<BlockedEncodingAttr>(srcType.getEncoding()) ||
        !isa_and_nonnull<BlockedEncodingAttr>(type.getEncoding()))
      return op.emitError("trans needs blocked source and result layouts");
    ArrayRef<int32_t> order = op.getOrder();
    auto srcLayout = cast<BlockedEncodingAttr>(srcType.getEncoding());
    auto layout = cast<BlockedEncodingAttr>(type.getEncoding());
    if (permuteBlocked(srcLayout, order) != layout)
      return op.emitError("trans result layout must be the source layout "
                          "with permuted dimensions");
    auto values = gatherElements(
        op.getLoc(), adaptor.getSrc(), srcType, type, rewriter,
        [&](ArrayRef<int64_t> off) {
      SmallVector<int64_t> p(off.size());
      for (unsigned i = 0; i < off.size(); ++i)
        p[order[i]] = off[i];
      return p;
    });
    if (failed(values))
      return op.emitError("trans layouts do not line up");
    rewriter.replaceOp(op, packLLElements(op.getLoc(), getTypeConverter(),
                                          *values, rewriter, type));
    return success();
  }
};

} // namespace

void warpforge::populateViewOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<MakeRangeOpConversion, SplatOpConversion, BroadcastOpConversion,
               ExpandDimsOpConversion, TransOpConversion>(
      converter, patterns.getContext());
}
