//===- TileToTileGPU.cpp - Give every tensor a layout ---------------------===//
//
// The patterns of convert-tile-to-tilegpu.  The type converter gives each
// tensor the default layout of its shape; the patterns below only handle
// the ops whose operands or results need another layout (the contract the
// lowering to LLVM relies on, see Passes.td).  Operands arrive through the
// conversion framework in the default layout: a value produced in another
// one (a reduction's slice, a transposition) is converted by a
// tilegpu.convert_layout materialization.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileToTileGPU/Passes.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include <algorithm>

using namespace mlir;
using namespace warpforge;
using tilegpu::BlockedEncodingAttr;
using tilegpu::ConvertLayoutOp;

Attribute warpforge::getDefaultLayout(MLIRContext *context,
                                     ArrayRef<int64_t> shape,
                                     unsigned numWarps,
                                     unsigned threadsPerWarp,
                                     unsigned maxSizePerThread) {
  int64_t elements = 1;
  for (int64_t dim : shape)
    elements *= dim;
  // A thread holds up to maxSizePerThread consecutive elements (one 16-byte
  // access of the kernel's narrowest memory type) when the tensor has that
  // many per thread, fewer otherwise, so that small tensors are spread over
  // the threads rather than replicated.
  int64_t perThread = elements / (int64_t(threadsPerWarp) * numWarps);
  unsigned sizePerThreadLast =
      std::clamp<int64_t>(perThread, 1, std::max(1u, maxSizePerThread));
  SmallVector<unsigned> order;
  for (unsigned d = shape.size(); d-- > 0;)
    order.push_back(d);
  BlockedEncodingAttr blocked = BlockedEncodingAttr::getDefault(
      context, shape, sizePerThreadLast, threadsPerWarp, numWarps, order);
  SmallVector<int64_t> tile = tilegpu::getRootCTATile(blocked);
  bool fits = true;
  for (unsigned d = 0; d < shape.size(); ++d)
    fits &= shape[d] % tile[d] == 0 || tile[d] % shape[d] == 0;
  if (fits)
    return blocked;
  // Lengths that are not powers of two (experimental: an arange of
  // FlashAttention-3's 80 or 176 K/V columns, an 80x80 tile on 8 warps)
  // may leave more threads than a blocked layout can spread over them: a
  // dimension's tile must fill it in whole tiles or divide it, which for
  // 80 means at most 16 (a 1-D tile is at least all the threads). The
  // slice of a layout with one more, slowest dimension does: each length
  // takes the lanes and warps of the largest power of two dividing it
  // (BlockedEncodingAttr::getDefault), and the removed dimension the
  // others, which hold copies (as a row vector of a 2-D tile does).
  SmallVector<int64_t> wider(shape);
  wider.push_back(int64_t(threadsPerWarp) * numWarps);
  order.push_back(shape.size());
  BlockedEncodingAttr parent = BlockedEncodingAttr::getDefault(
      context, wider, sizePerThreadLast, threadsPerWarp, numWarps, order);
  return tilegpu::SliceEncodingAttr::get(context, shape.size(), parent);
}

TileGPUTypeConverter::TileGPUTypeConverter(MLIRContext *context,
                                           unsigned numWarps,
                                           unsigned threadsPerWarp,
                                           unsigned maxSizePerThread)
    : context(context), numWarps(numWarps), threadsPerWarp(threadsPerWarp),
      maxSizePerThread(maxSizePerThread) {
  addConversion([](Type type) { return type; });
  addConversion([this](RankedTensorType type) -> Type {
    if (type.getEncoding())
      return type;
    // No layout for these (the pass reports them before converting).
    if (type.getRank() == 0 || !type.hasStaticShape())
      return nullptr;
    return tilegpu::withEncoding(
        type, getDefaultLayout(this->context, type.getShape(), this->numWarps,
                               this->threadsPerWarp, this->maxSizePerThread));
  });
  // A value in one layout where another is needed.
  addTargetMaterialization([](OpBuilder &builder, Type type, ValueRange inputs,
                              Location loc) -> Value {
    auto resultType = dyn_cast<RankedTensorType>(type);
    if (inputs.size() != 1 || !resultType || !resultType.getEncoding())
      return {};
    auto inputType = dyn_cast<RankedTensorType>(inputs[0].getType());
    if (!inputType || !inputType.getEncoding())
      return {};
    return ConvertLayoutOp::create(builder, loc, resultType, inputs[0]);
  });
}

namespace {

/// `value` in `layout`, converted if it has another one.
Value convertToLayout(OpBuilder &builder, Location loc, Value value,
                      Attribute layout) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getEncoding() == layout)
    return value;
  return ConvertLayoutOp::create(builder, loc,
                                 tilegpu::withEncoding(type, layout), value);
}

Attribute layoutOf(Type type) {
  return cast<RankedTensorType>(type).getEncoding();
}

/// Recreates `op` with `operands` and `resultTypes`, its attributes and its
/// regions (moved).
Operation *recreate(ConversionPatternRewriter &rewriter, Operation *op,
                    ValueRange operands, TypeRange resultTypes) {
  OperationState state(op->getLoc(), op->getName(), operands, resultTypes,
                       op->getAttrs());
  for (unsigned i = 0, e = op->getNumRegions(); i < e; ++i)
    state.addRegion();
  Operation *newOp = rewriter.create(state);
  for (auto [from, to] : llvm::zip(op->getRegions(), newOp->getRegions()))
    rewriter.inlineRegionBefore(from, to, to.end());
  return newOp;
}

/// Ops with a pattern of their own below; the generic one leaves them.
bool hasOwnPattern(Operation *op) {
  return isa<arith::ConstantOp, tile::BroadcastOp, tile::ExpandDimsOp,
             tile::ReduceOp, tile::ScanOp, tile::TransOp, tile::DotOp,
             tile::FuncOp>(op);
}

/// Every other op without regions or successors (element-wise arith, math
/// and tile ops, loads and stores, splat, make_range, reshape, descriptor
/// loads, print, return...): results in the default layout of their
/// shapes, operands as the framework delivers them, in the default layout
/// of theirs.  Element-wise operands share a shape, hence a layout.
struct GenericOpConversion : public ConversionPattern {
  GenericOpConversion(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (hasOwnPattern(op) || op->getNumRegions() != 0 ||
        op->getNumSuccessors() != 0)
      return rewriter.notifyMatchFailure(op, "not handled generically");
    SmallVector<Type> resultTypes;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                resultTypes)))
      return rewriter.notifyMatchFailure(op, "result types not converted");
    rewriter.replaceOp(
        op, recreate(rewriter, op, operands, resultTypes)->getResults());
    return success();
  }
};

/// Dense constants take the layout in their value's type too.
struct ConstantConversion : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!type || !dense)
      return rewriter.notifyMatchFailure(op, "not a dense tensor constant");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   dense.reshape(type));
    return success();
  }
};

/// tile.broadcast: the source in the result's layout.
struct BroadcastConversion : public OpConversionPattern<tile::BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    Value src = convertToLayout(rewriter, op.getLoc(), adaptor.getSrc(),
                                layoutOf(type));
    rewriter.replaceOpWithNewOp<tile::BroadcastOp>(op, type, src);
    return success();
  }
};

/// tile.expand_dims: the source in the slice of the result's layout along
/// the new dimension.
struct ExpandDimsConversion : public OpConversionPattern<tile::ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    auto slice = tilegpu::SliceEncodingAttr::get(
        getContext(), (int32_t)op.getAxis(), layoutOf(type));
    Value src = convertToLayout(rewriter, op.getLoc(), adaptor.getSrc(), slice);
    rewriter.replaceOpWithNewOp<tile::ExpandDimsOp>(op, type, src,
                                                    op.getAxis());
    return success();
  }
};

/// tile.reduce and tile.scan: all sources in one layout (the first one's);
/// a reduction's tensor results are the slice of it along the axis, a
/// scan's results are in it.  The combiner works on scalars and moves
/// unchanged.
template <typename OpT>
struct ReduceOrScanConversion : public OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    ValueRange srcs = adaptor.getSrcs();
    Attribute layout = layoutOf(srcs[0].getType());
    SmallVector<Value> operands;
    for (Value src : srcs)
      operands.push_back(convertToLayout(rewriter, op.getLoc(), src, layout));
    SmallVector<Type> resultTypes;
    for (Type type : op->getResultTypes()) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor) {
        resultTypes.push_back(type);
        continue;
      }
      Attribute resultLayout = layout;
      if constexpr (std::is_same_v<OpT, tile::ReduceOp>)
        resultLayout = tilegpu::SliceEncodingAttr::get(
            this->getContext(), (int32_t)op.getAxis(), layout);
      resultTypes.push_back(tilegpu::withEncoding(tensor, resultLayout));
    }
    rewriter.replaceOp(
        op, recreate(rewriter, op, operands, resultTypes)->getResults());
    return success();
  }
};

/// tile.trans: the source's blocked layout with its dimensions permuted, so
/// that no element moves.
struct TransConversion : public OpConversionPattern<tile::TransOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::TransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value src = adaptor.getSrc();
    auto layout = dyn_cast<BlockedEncodingAttr>(layoutOf(src.getType()));
    if (!layout)
      return rewriter.notifyMatchFailure(op, "source layout is not blocked");
    auto type = tilegpu::withEncoding(
        op.getType(), tilegpu::permuteBlocked(layout, op.getOrder()));
    rewriter.replaceOpWithNewOp<tile::TransOp>(op, type, src, op.getOrder());
    return success();
  }
};

/// tile.dot: a and b as dot operands of the result's layout, the
/// accumulator in it.
struct DotConversion : public OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = getTypeConverter()->convertType(op.getType());
    Attribute layout = layoutOf(type);
    Location loc = op.getLoc();
    auto operandLayout = [&](unsigned opIdx) {
      return tilegpu::DotOperandEncodingAttr::get(getContext(), opIdx, layout,
                                                  /*kWidth=*/1);
    };
    Value a = convertToLayout(rewriter, loc, adaptor.getA(), operandLayout(0));
    Value b = convertToLayout(rewriter, loc, adaptor.getB(), operandLayout(1));
    Value c = convertToLayout(rewriter, loc, adaptor.getC(), layout);
    rewriter.replaceOp(op,
                       recreate(rewriter, op, {a, b, c}, type)->getResults());
    return success();
  }
};

/// tile.func: the signature and the arguments of every block of the body
/// (the upstream FunctionOpInterface pattern converts the entry block
/// only).
struct FuncConversion : public OpConversionPattern<tile::FuncOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FunctionType type = func.getFunctionType();
    TypeConverter::SignatureConversion entry(type.getNumInputs());
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertSignatureArgs(type.getInputs(),
                                                        entry)) ||
        failed(getTypeConverter()->convertTypes(type.getResults(), results)))
      return rewriter.notifyMatchFailure(func, "signature not converted");
    if (!func.isExternal() &&
        failed(rewriter.convertRegionTypes(&func.getBody(), *getTypeConverter(),
                                           &entry)))
      return rewriter.notifyMatchFailure(func, "blocks not converted");
    rewriter.modifyOpInPlace(func, [&] {
      func.setFunctionType(
          rewriter.getFunctionType(entry.getConvertedTypes(), results));
    });
    return success();
  }
};

} // namespace

void warpforge::populateTileToTileGPUPatterns(
    TileGPUTypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  MLIRContext *context = patterns.getContext();
  // An op is converted once every type it touches has a layout.
  target.markUnknownOpDynamicallyLegal(
      [&](Operation *op) { return typeConverter.isLegal(op); });
  target.addDynamicallyLegalOp<tile::FuncOp>([&](tile::FuncOp func) {
    return typeConverter.isSignatureLegal(func.getFunctionType()) &&
           typeConverter.isLegal(&func.getBody());
  });
  target.addLegalOp<ModuleOp>();

  patterns.add<GenericOpConversion>(typeConverter, context);
  patterns.add<ConstantConversion, BroadcastConversion, ExpandDimsConversion,
               ReduceOrScanConversion<tile::ReduceOp>,
               ReduceOrScanConversion<tile::ScanOp>, TransConversion,
               DotConversion, FuncConversion>(typeConverter, context);
  // scf regions, yields and results; cf branch operands.
  scf::populateSCFStructuralTypeConversionsAndLegality(typeConverter, patterns,
                                                       target);
  populateBranchOpInterfaceTypeConversionPattern(patterns, typeConverter);
}
