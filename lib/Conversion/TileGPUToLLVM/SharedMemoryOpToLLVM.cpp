//===- SharedMemoryOpToLLVM.cpp - Explicit shared-memory buffers ----------===//
//
// A shared-memory descriptor lowers to the `!llvm.ptr<3>` of its first
// byte.  Buffers in the plain `#tilegpu.shared<order>` layout are dense,
// `order[0]` fastest: each thread reads or writes the elements its layout
// gives it at `sum(coord[d] * stride[d])`.  A sub-tile (memdesc_subslice)
// keeps the strides of the buffer it is cut from; the loads and stores
// through it find them by walking back to that buffer.
//
// Shared memory written by some threads and read by others needs a
// barrier in between, and a buffer overwritten while others may still read
// it needs one before: local_store and an initializing local_alloc put a
// barrier on both sides of their stores.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// The element strides of a plain shared buffer of `shape`.
SmallVector<int64_t> denseStrides(ArrayRef<int64_t> shape,
                                  SharedEncodingAttr layout) {
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t stride = 1;
  for (unsigned d : layout.getOrder()) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

/// The buffer whose strides address `memdesc`: sub-tiles keep their
/// source's.
Value getAddressedBuffer(Value memdesc) {
  while (auto sub = memdesc.getDefiningOp<MemDescSubsliceOp>())
    memdesc = sub.getSrc();
  return memdesc;
}

SmallVector<int64_t> getStrides(Value memdesc) {
  auto type = cast<MemDescType>(getAddressedBuffer(memdesc).getType());
  return denseStrides(type.getShape(),
                      cast<SharedEncodingAttr>(type.getEncoding()));
}

/// Element accesses need the plain layout and whole-byte elements.
LogicalResult checkElementAccess(Operation *op, MemDescType type) {
  if (!isa<SharedEncodingAttr>(type.getEncoding()))
    return op->emitError("element access to shared memory in layout ")
           << type.getEncoding()
           << " is not supported yet (only #tilegpu.shared is)";
  if (!type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() < 8)
    return op->emitError("shared buffers of ")
           << type.getElementType() << " are not supported (elements must "
           << "be whole bytes)";
  return success();
}

LogicalResult checkDistributed(Operation *op, RankedTensorType type) {
  if (!type.getEncoding() || !isBlockedLike(type.getEncoding()))
    return op->emitError("cannot lower a shared-memory access of ")
           << type << ": it needs a blocked layout";
  return success();
}

/// The address of each element the thread holds of a `tensorType` tensor
/// in the buffer at `base` with `strides`.
SmallVector<Value> elementAddresses(OpBuilder &b, Location loc, Value base,
                                    Type elemType, RankedTensorType tensorType,
                                    ArrayRef<int64_t> strides) {
  SmallVector<Value> ptrs;
  for (const auto &coords : emitIndices(b, loc, tensorType)) {
    Value offset;
    for (auto [c, stride] : llvm::zip(coords, strides)) {
      Value term = stride == 1 ? c
                               : LLVM::MulOp::create(b, loc, c,
                                                     i32Val(b, loc, stride))
                                     .getResult();
      offset = offset ? LLVM::AddOp::create(b, loc, offset, term).getResult()
                      : term;
    }
    ptrs.push_back(gep(b, loc, elemType, base, offset));
  }
  return ptrs;
}

/// Stores the thread's elements of `tensor` (lowered `values`), between
/// barriers.  Threads holding the same element store the same value.
void storeTensor(OpBuilder &b, Location loc, Value base,
                 RankedTensorType tensorType, ArrayRef<int64_t> strides,
                 ArrayRef<Value> values) {
  Type elemType = values.front().getType();
  SmallVector<Value> ptrs =
      elementAddresses(b, loc, base, elemType, tensorType, strides);
  emitBarrier(b, loc);
  for (auto [ptr, v] : llvm::zip(ptrs, values))
    LLVM::StoreOp::create(b, loc, v, ptr);
  emitBarrier(b, loc);
}

struct LocalAllocOpConversion : public OpConversionPattern<LocalAllocOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LocalAllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto offset = op->getAttrOfType<IntegerAttr>("tilegpu.offset");
    if (!offset)
      return op.emitError("shared allocation has no offset; run "
                          "tilegpu-allocate-shared-memory first");
    Value base = getSharedMemoryBase(rewriter, loc, op);
    if (offset.getInt() != 0)
      base = gep(rewriter, loc, rewriter.getI8Type(), base,
                 i32Val(rewriter, loc, offset.getInt()));
    if (op.getSrc()) {
      MemDescType type = op.getType();
      auto tensorType = op.getSrc().getType();
      if (failed(checkElementAccess(op, type)) ||
          failed(checkDistributed(op, tensorType)))
        return failure();
      storeTensor(rewriter, loc, base, tensorType,
                  denseStrides(type.getShape(),
                               cast<SharedEncodingAttr>(type.getEncoding())),
                  unpackLLElements(loc, adaptor.getSrc(), rewriter));
    }
    rewriter.replaceOp(op, base);
    return success();
  }
};

struct LocalDeallocOpConversion : public OpConversionPattern<LocalDeallocOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LocalDeallocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Offsets are fixed for the whole kernel: nothing to free.
    rewriter.eraseOp(op);
    return success();
  }
};

struct LocalLoadOpConversion : public OpConversionPattern<LocalLoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LocalLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tensorType = op.getType();
    if (failed(checkElementAccess(op, op.getSrc().getType())) ||
        failed(checkDistributed(op, tensorType)))
      return failure();
    Type elemType = getLoweredElementType(getTypeConverter(), tensorType);
    SmallVector<Value> values;
    for (Value ptr : elementAddresses(rewriter, loc, adaptor.getSrc(),
                                      elemType, tensorType,
                                      getStrides(op.getSrc())))
      values.push_back(LLVM::LoadOp::create(rewriter, loc, elemType, ptr));
    rewriter.replaceOp(op, packLLElements(loc, getTypeConverter(), values,
                                          rewriter, tensorType));
    return success();
  }
};

struct LocalStoreOpConversion : public OpConversionPattern<LocalStoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LocalStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType tensorType = op.getSrc().getType();
    if (failed(checkElementAccess(op, op.getDst().getType())) ||
        failed(checkDistributed(op, tensorType)))
      return failure();
    storeTensor(rewriter, op.getLoc(), adaptor.getDst(), tensorType,
                getStrides(op.getDst()),
                unpackLLElements(op.getLoc(), adaptor.getSrc(), rewriter));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MemDescIndexOpConversion : public OpConversionPattern<MemDescIndexOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MemDescIndexOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t bytes = op.getType().getBufferBytes();
    Value offset = LLVM::MulOp::create(rewriter, loc, adaptor.getIndex(),
                                       i32Val(rewriter, loc, bytes));
    rewriter.replaceOp(op, gep(rewriter, loc, rewriter.getI8Type(),
                               adaptor.getSrc(), offset));
    return success();
  }
};

/// True when the sub-tile is one contiguous run of its buffer: the dims
/// faster than the first partial one are whole, the slower ones size 1.
bool isContiguous(ArrayRef<int64_t> sub, ArrayRef<int64_t> full,
                  ArrayRef<unsigned> order) {
  bool partial = false;
  for (unsigned d : order) {
    if (partial && sub[d] != 1)
      return false;
    if (sub[d] != full[d])
      partial = true;
  }
  return true;
}

struct MemDescSubsliceOpConversion
    : public OpConversionPattern<MemDescSubsliceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MemDescSubsliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemDescType type = op.getType();
    auto layout = dyn_cast<SharedEncodingAttr>(type.getEncoding());
    if (!layout)
      return op.emitError("sub-tiles of shared memory in layout ")
             << type.getEncoding()
             << " are not supported yet (only #tilegpu.shared is)";
    // The lowered descriptor is a bare pointer: a sub-tile that is not one
    // run of memory is only addressable by the ops that look back for its
    // buffer's strides.
    auto buffer = cast<MemDescType>(getAddressedBuffer(op.getSrc()).getType());
    if (!isContiguous(type.getShape(), buffer.getShape(), layout.getOrder()))
      for (Operation *user : op->getUsers())
        if (!isa<LocalLoadOp, LocalStoreOp, MemDescSubsliceOp>(user))
          return op.emitError("this sub-tile is not contiguous in its buffer, "
                              "so only local_load, local_store and "
                              "memdesc_subslice may use it, not ")
                 << user->getName();
    int64_t offset = 0;
    for (auto [o, stride] : llvm::zip(op.getOffsets(), getStrides(op.getSrc())))
      offset += o * stride;
    Value ptr = adaptor.getSrc();
    if (offset)
      ptr = gep(rewriter, op.getLoc(),
                getLoweredElementType(getTypeConverter(),
                                      RankedTensorType::get(
                                          type.getShape(),
                                          type.getElementType())),
                ptr, i32Val(rewriter, op.getLoc(), offset));
    rewriter.replaceOp(op, ptr);
    return success();
  }
};

} // namespace

void warpforge::populateSharedMemoryOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LocalAllocOpConversion, LocalDeallocOpConversion,
               LocalLoadOpConversion, LocalStoreOpConversion,
               MemDescIndexOpConversion, MemDescSubsliceOpConversion>(
      converter, patterns.getContext());
}
