//===- TileGPUOps.cpp - Operations of the tilegpu dialect -----------------===//

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

#define GET_OP_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

namespace {
/// Checks that `tensor` matches the shape and element type of one buffer of
/// `memdesc`, and that it has a distributed layout.
LogicalResult checkTensorMatchesBuffer(Operation *op, RankedTensorType tensor,
                                       MemDescType memdesc) {
  if (tensor.getShape() != memdesc.getShape() ||
      tensor.getElementType() != memdesc.getElementType())
    return op->emitOpError("tensor ")
           << tensor << " does not match the shape and element type of "
           << memdesc;
  if (!isa_and_nonnull<DistributedLayoutAttr>(tensor.getEncoding()))
    return op->emitOpError("tensor must have a distributed layout, got ")
           << tensor;
  return success();
}

LogicalResult checkSingleBuffer(Operation *op, MemDescType memdesc,
                                StringRef what) {
  if (memdesc.getNumBuffers() != 1)
    return op->emitOpError() << what << " must be a single buffer (select one "
                                        "of the "
                             << memdesc.getNumBuffers()
                             << " with tilegpu.memdesc_index)";
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getResult().getType();
  if (!isa_and_nonnull<DistributedLayoutAttr, DotOperandEncodingAttr>(
          srcType.getEncoding()) ||
      !isa_and_nonnull<DistributedLayoutAttr, DotOperandEncodingAttr>(
          resultType.getEncoding()))
    return emitOpError("converts between distributed layouts; both types "
                       "need one, got ")
           << srcType << " and " << resultType;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  // A constant splat has no layout to move: it is the same splat in the
  // new layout.
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

namespace {
/// convert(convert(x)) is one conversion from x.
struct FoldConvertOfConvert : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(),
                                                 inner.getSrc());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldConvertOfConvert>(context);
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult LocalAllocOp::verify() {
  MemDescType type = getResult().getType();
  if (!getSrc()) {
    if (!type.getIsMutable())
      return emitOpError("an allocation without an initial value must be "
                         "mutable");
    return success();
  }
  if (failed(checkSingleBuffer(*this, type, "an initialized allocation")))
    return failure();
  return checkTensorMatchesBuffer(*this, getSrc().getType(), type);
}

LogicalResult LocalLoadOp::verify() {
  MemDescType type = getSrc().getType();
  if (failed(checkSingleBuffer(*this, type, "the source")))
    return failure();
  return checkTensorMatchesBuffer(*this, getResult().getType(), type);
}

LogicalResult LocalStoreOp::verify() {
  MemDescType type = getDst().getType();
  if (!type.getIsMutable())
    return emitOpError("destination must be mutable");
  if (failed(checkSingleBuffer(*this, type, "the destination")))
    return failure();
  return checkTensorMatchesBuffer(*this, getSrc().getType(), type);
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType();
  if (getResult().getType() != src.getSingleBuffer())
    return emitOpError("result must be one buffer of the source, ")
           << src.getSingleBuffer() << ", got " << getResult().getType();
  return success();
}

LogicalResult MemDescSubsliceOp::verify() {
  MemDescType src = getSrc().getType();
  MemDescType result = getResult().getType();
  if (failed(checkSingleBuffer(*this, src, "the source")))
    return failure();
  ArrayRef<int64_t> offsets = getOffsets();
  if (result.getElementType() != src.getElementType() ||
      result.getEncoding() != src.getEncoding() ||
      result.getIsMutable() != src.getIsMutable() ||
      result.getNumBuffers() != 1)
    return emitOpError("result must keep the source's element type, layout "
                       "and mutability");
  if (offsets.size() != src.getShape().size() ||
      result.getShape().size() != src.getShape().size())
    return emitOpError("needs one offset per dimension and a result of the "
                       "source's rank");
  for (auto [offset, size, full] :
       llvm::zip(offsets, result.getShape(), src.getShape())) {
    if (offset < 0 || offset + size > full)
      return emitOpError("sub-tile [")
             << offset << ", " << offset + size << ") is out of bounds of "
             << full;
    if (offset % size != 0)
      return emitOpError("offset ")
             << offset << " must be a multiple of the sub-tile size " << size;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  MemDescType dst = getDst().getType();
  RankedTensorType ptrs = getPtrs().getType();
  if (!dst.getIsMutable())
    return emitOpError("destination must be mutable");
  if (failed(checkSingleBuffer(*this, dst, "the destination")))
    return failure();
  auto ptrType = dyn_cast<tile::PointerType>(ptrs.getElementType());
  if (!ptrType)
    return emitOpError("source must be a tensor of pointers, got ") << ptrs;
  // Each thread copies the elements the pointers' layout gives it.
  if (!isa_and_nonnull<DistributedLayoutAttr>(ptrs.getEncoding()))
    return emitOpError("pointers must have a distributed layout, got ")
           << ptrs;
  if (ptrs.getShape() != dst.getShape() ||
      ptrType.getPointeeType() != dst.getElementType())
    return emitOpError("pointers ")
           << ptrs << " do not match the destination " << dst;
  unsigned bits = dst.getElementType().getIntOrFloatBitWidth();
  if (bits < 8)
    return emitOpError("cp.async copies whole bytes; ")
           << dst.getElementType() << " elements are narrower";
  if (getMask() && getMask().getType() != tile::getI1SameShape(ptrs))
    return emitOpError("mask must be ")
           << tile::getI1SameShape(ptrs) << ", got " << getMask().getType();
  if (getOther() && getOther().getType() != tile::getPointeeType(ptrs))
    return emitOpError("'other' must be ")
           << tile::getPointeeType(ptrs) << ", got " << getOther().getType();
  if (getOther() && !getMask())
    return emitOpError("'other' needs a mask");
  return success();
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

static LogicalResult verifyBarrier(Operation *op, MemDescType type) {
  if (type.getShape() != ArrayRef<int64_t>{1} ||
      !type.getElementType().isInteger(64) || !type.getIsMutable() ||
      type.getNumBuffers() != 1)
    return op->emitOpError("barrier must be a mutable, single 1xi64 shared "
                           "buffer, got ")
           << type;
  return success();
}

LogicalResult InitBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult BarrierExpectOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult ArriveBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult WaitBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
