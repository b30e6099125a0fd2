//===- FmaDotOpToLLVM.cpp - Matrix products on the CUDA cores (FMA) -------===//
//
// A `tile.dot` that reaches the LLVM lowering is one wgmma cannot take
// (fp64, float32 with ieee precision, tiles smaller than its instructions,
// fewer than 4 warps, batched, a target without wgmma):
// tilegpu-accelerate-matmul left it with its accumulator in a blocked
// layout and its operands in that layout's FMA forms
// (getFmaOperandLayout): the same thread and warp arrangement, with the
// whole K dimension in every thread.  Every thread therefore holds, for
// each accumulator element (m, n) it owns, all of row m of A and column n
// of B, at element offsets that match the accumulator's: the thread's
// base coordinates along M (and the batch) are the same in A's layout as
// in the accumulator's, and along K every thread starts at 0.  So
//
//   acc[m, n] = fma(a[m, k], b[k, n], acc[m, n])   for k = 0, 1, ..., K-1
//
// needs no data movement: each element is found by its offsets in the
// thread's element list.  Floats use llvm.fma in the accumulator's type
// (the operands were converted to it before), except that a 16-bit
// accumulator sums in f32 and is rounded once at the end: rounded to 11
// (or 8) bits after every one of K steps, a sum of 64 products would be
// off by a percent, where the tensor cores' f16 accumulation rounds once
// per 16-deep instruction.  8-bit integers are sign-extended and
// multiplied and added in i32.  The order of the sum is K's, as in a
// sequential loop, in every thread alike.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <map>

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

using Offset = SmallVector<int64_t>;

/// Element index by offset, for one operand's layout.
std::map<Offset, unsigned> indexByOffset(Attribute layout,
                                         ArrayRef<int64_t> shape) {
  std::map<Offset, unsigned> index;
  for (auto [i, offset] : llvm::enumerate(getRootElementOffsets(layout, shape)))
    index.emplace(offset, unsigned(i));
  return index;
}

struct FmaDotOpConversion : public OpConversionPattern<tile::DotOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    auto dType = cast<RankedTensorType>(op.getType());
    // rejectUnsupportedOps checked the form: isFmaDotForm, or
    // isMmaDotForm (MmaDotOpToLLVM.cpp's).
    auto acc = dyn_cast<BlockedEncodingAttr>(dType.getEncoding());
    if (!acc)
      return failure();
    int64_t k = aType.getShape().back();
    Location loc = op.getLoc();
    Type elem = getTypeConverter()->convertType(dType.getElementType());
    bool isFloat = isa<FloatType>(elem);
    // The type the sum is kept in (see the file comment).
    Type sumType = elem;
    if (isFloat && elem.getIntOrFloatBitWidth() == 16)
      sumType = rewriter.getF32Type();

    SmallVector<Value> a = unpackLLElements(loc, adaptor.getA(), rewriter);
    SmallVector<Value> b = unpackLLElements(loc, adaptor.getB(), rewriter);
    SmallVector<Value> d = unpackLLElements(loc, adaptor.getC(), rewriter);
    std::map<Offset, unsigned> aIndex =
        indexByOffset(aType.getEncoding(), aType.getShape());
    std::map<Offset, unsigned> bIndex =
        indexByOffset(bType.getEncoding(), bType.getShape());
    SmallVector<Offset> accOffsets =
        getRootElementOffsets(acc, dType.getShape());
    if (accOffsets.size() != d.size())
      return op.emitError("tl.dot on FMA: the accumulator has ")
             << d.size() << " elements per thread, its layout "
             << accOffsets.size();
    unsigned rank = dType.getRank();
    // Integer operands (i8) widened once each, on first use.
    DenseMap<Value, Value> widened;
    auto operand = [&](Value v) -> Value {
      if (v.getType() == sumType)
        return v;
      Value &w = widened[v];
      if (!w)
        w = isFloat ? LLVM::FPExtOp::create(rewriter, loc, sumType, v)
                          .getResult()
                    : LLVM::SExtOp::create(rewriter, loc, sumType, v)
                          .getResult();
      return w;
    };
    for (auto [e, offset] : llvm::enumerate(accOffsets)) {
      Value sum = d[e];
      if (sumType != elem)
        sum = LLVM::FPExtOp::create(rewriter, loc, sumType, sum);
      for (int64_t kk = 0; kk < k; ++kk) {
        Offset aOffset(offset), bOffset(offset);
        aOffset[rank - 1] = kk;
        bOffset[rank - 2] = kk;
        auto ai = aIndex.find(aOffset), bi = bIndex.find(bOffset);
        if (ai == aIndex.end() || bi == bIndex.end())
          return op.emitError("tl.dot on FMA: an operand element a thread "
                              "needs is not in its FMA layout");
        Value x = operand(a[ai->second]), y = operand(b[bi->second]);
        sum = isFloat ? LLVM::FMAOp::create(rewriter, loc, x, y, sum)
                            .getResult()
                      : LLVM::AddOp::create(
                            rewriter, loc,
                            LLVM::MulOp::create(rewriter, loc, x, y), sum)
                            .getResult();
      }
      d[e] = sumType == elem
                 ? sum
                 : LLVM::FPTruncOp::create(rewriter, loc, elem, sum).getResult();
    }
    rewriter.replaceOp(op, packLLElements(loc, getTypeConverter(), d,
                                          rewriter, dType));
    return success();
  }
};

} // namespace

void warpforge::populateFmaDotOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<FmaDotOpConversion>(converter, patterns.getContext());
}
