//===- SharedMemoryOpToLLVM.cpp - Explicit shared-memory buffers ----------===//
//
// A shared-memory descriptor lowers to the `!llvm.ptr<3>` of its first
// byte.  Buffers in the plain `#tilegpu.shared<order>` layout are dense,
// `order[0]` fastest: each thread reads or writes the elements its layout
// gives it at `sum(coord[d] * stride[d])`.  A sub-tile (memdesc_subslice)
// keeps the strides of the buffer it is cut from; the loads and stores
// through it find them by walking back to that buffer.  Buffers in the
// `#tilegpu.nvmma_shared` layout (wgmma operands) are swizzled: see
// emitNVMMAOffset in Utility.h.
//
// A thread accesses the elements it holds consecutively along the buffer's
// contiguous dim in vectors of up to 16 bytes (getSharedVectorElems);
// 16-bit accumulator fragments are stored with stmatrix (emitStMatrixStores).
//
// Shared memory written by some threads and read by others needs a
// barrier in between, and a buffer overwritten while others may still read
// it needs one before: local_store and an initializing local_alloc put a
// barrier on both sides of their stores.  Into an nvmma buffer they also
// fence the async proxy (fence.proxy.async.shared::cta) before the second
// barrier: wgmma reads through it.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

LogicalResult checkDistributed(Operation *op, RankedTensorType type) {
  if (!type.getEncoding() || !isLowerableDistributed(type.getEncoding()))
    return op->emitError("cannot lower a shared-memory access of ")
           << type << ": it needs a blocked, wgmma or wgmma-operand layout";
  return success();
}

/// Whether the module `value` is in targets sm_90 or later (which the
/// module's tilegpu.target says; sm_90 when it has none): the async proxy
/// (wgmma, TMA) and stmatrix are sm_90's.
bool targetIsHopper(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op)
    op = value.getParentRegion()->getParentOp();
  auto module = op->getParentOfType<ModuleOp>();
  if (!module)
    return true;
  std::optional<int> cc = parseCudaTarget(getTarget(module));
  return !cc || *cc >= 90;
}

/// Stores the thread's elements of `tensorType` (lowered `values`) into
/// `memdesc` (lowered `base`) between barriers.  Threads holding the same
/// element store the same value.  wgmma and TMA read nvmma buffers through
/// the async proxy, which sees generic stores only after a proxy fence.
void storeTensor(OpBuilder &b, Location loc, Value memdesc, Value base,
                 RankedTensorType tensorType, ArrayRef<Value> values) {
  // Accumulator fragments go out a warp's four 8x8 matrices at a time
  // (stmatrix, sm_90); anything else in the widest vectors the layouts
  // allow.  Addresses first: they need not wait for the barrier.
  bool hopper = targetIsHopper(memdesc);
  std::optional<SmallVector<Value>> rows;
  if (hopper)
    rows = emitStMatrixAddresses(b, loc, memdesc, base, tensorType);
  if (rows) {
    emitBarrier(b, loc);
    emitStMatrixStores(b, loc, *rows, values);
  } else {
    unsigned vec = getSharedVectorElems(memdesc, tensorType);
    SmallVector<Value> ptrs =
        emitSharedVectorAddresses(b, loc, memdesc, base, tensorType, vec);
    emitBarrier(b, loc);
    for (auto [k, ptr] : llvm::enumerate(ptrs))
      storeVector(b, loc, ptr, values.slice(k * vec, vec));
  }
  // Only sm_90 has an async proxy (wgmma, TMA); below it the buffer is
  // read by ordinary loads (mma.sync operands), which the barrier orders.
  if (isa<NVMMASharedEncodingAttr>(
          cast<MemDescType>(memdesc.getType()).getEncoding()) &&
      hopper)
    emitAsyncProxyFence(b, loc);
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
      auto tensorType = op.getSrc().getType();
      if (failed(checkSharedElementAccess(op, op.getResult())) ||
          failed(checkDistributed(op, tensorType)))
        return failure();
      storeTensor(rewriter, loc, op.getResult(), base, tensorType,
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
    if (failed(checkSharedElementAccess(op, op.getSrc())) ||
        failed(checkDistributed(op, tensorType)))
      return failure();
    // mma.sync products read their register operands from the buffer
    // themselves, one K step at a time (MmaDotOpToLLVM.cpp).
    // (Only as operands A and B: an accumulator read from shared memory, a
    // batched product's, is loaded here.)
    if (!op->use_empty() && llvm::all_of(op->getUses(), [](OpOperand &use) {
          auto dot = dyn_cast<tile::DotOp>(use.getOwner());
          return dot && use.getOperandNumber() < 2 &&
                 isMmaDotForm(dot.getA().getType(), dot.getB().getType(),
                              cast<RankedTensorType>(dot.getType()));
        })) {
      rewriter.replaceOpWithNewOp<LLVM::PoisonOp>(
          op, getTypeConverter()->convertType(tensorType));
      return success();
    }
    Type elemType = getLoweredElementType(getTypeConverter(), tensorType);
    unsigned vec = getSharedVectorElems(op.getSrc(), tensorType);
    SmallVector<Value> values;
    for (Value ptr : emitSharedVectorAddresses(
             rewriter, loc, op.getSrc(), adaptor.getSrc(), tensorType, vec))
      llvm::append_range(values,
                         loadVector(rewriter, loc, ptr, elemType, vec));
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
    if (failed(checkSharedElementAccess(op, op.getDst())) ||
        failed(checkDistributed(op, tensorType)))
      return failure();
    storeTensor(rewriter, op.getLoc(), op.getDst(), adaptor.getDst(),
                tensorType,
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

/// A transposed view is the same bytes: its type says how to read them.
struct MemDescTransOpConversion : public OpConversionPattern<MemDescTransOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(MemDescTransOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getSrc());
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
        if (!isa<LocalLoadOp, LocalStoreOp, MemDescSubsliceOp,
                 AsyncCopyGlobalToLocalOp>(user))
          return op.emitError("this sub-tile is not contiguous in its buffer, "
                              "so only local_load, local_store, "
                              "async_copy_global_to_local and "
                              "memdesc_subslice may use it, not ")
                 << user->getName();
    int64_t offset = 0;
    SmallVector<int64_t> strides = getDenseStrides(
        buffer.getShape(), cast<SharedEncodingAttr>(buffer.getEncoding()));
    for (auto [o, stride] : llvm::zip(op.getOffsets(), strides))
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
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<LocalAllocOpConversion, LocalDeallocOpConversion,
               LocalLoadOpConversion, LocalStoreOpConversion,
               MemDescIndexOpConversion, MemDescSubsliceOpConversion,
               MemDescTransOpConversion>(
      converter, patterns.getContext());
}
