//===- AsyncCopyOpToLLVM.cpp - cp.async copies and the async proxy --------===//
//
// tilegpu.async_copy_global_to_local: each thread copies the elements its
// pointer layout gives it with `cp.async`, one instruction per vector of 4,
// 8 or 16 bytes: as many elements as the thread holds consecutively, the
// axis analysis proves contiguous and aligned in global memory, and the
// destination keeps together (getSharedVectorElems; swizzling moves whole
// 16-byte chunks).  A masked-off vector copies 0 source bytes, and cp.async
// fills the rest of the destination with zeros: `other` must be zero.
// Threads that hold replicated copies of an element leave it to its first
// holder.
//
// Groups (`cp.async.commit_group`) and waits (`cp.async.wait_group N`) are
// per thread; a wait does not make other threads' copies visible, the
// barrier the caller puts after it does.  Async tokens only order the ops
// in the IR: they lower to an i32 zero.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/MaskUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// True for a splat constant whose bits are all zero (-0.0 is not: the
/// hardware fills with zero bytes).
bool isZeroBitsSplat(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return false;
  Attribute e = attr.getSplatValue<Attribute>();
  if (auto i = dyn_cast<IntegerAttr>(e))
    return i.getValue().isZero();
  if (auto f = dyn_cast<FloatAttr>(e))
    return f.getValue().bitcastToAPInt().isZero();
  return false;
}

/// `[@owner] cp.async.{cg|ca}.shared.global [dst], [src], bytes[, srcSize];`
/// (cg, which bypasses L1, exists for 16-byte copies only).
void emitCpAsync(OpBuilder &b, Location loc, Value dst, Value src,
                 unsigned bytes, Value srcSize, Value owner) {
  PTXBuilder ptx;
  PTXBuilder::Operand dstAddr = ptx.addInput(dst, kSharedPointerConstraint);
  PTXBuilder::Operand srcAddr = ptx.addInput(src, "l");
  std::optional<PTXBuilder::Operand> p;
  if (owner)
    p = ptx.addInput(owner, "b");
  SmallVector<std::string> args{PTXBuilder::address(dstAddr),
                                PTXBuilder::address(srcAddr),
                                std::to_string(bytes)};
  if (srcSize)
    args.push_back(ptx.addInput(srcSize, "r"));
  ptx.instr(bytes == 16 ? "cp.async.cg.shared.global"
                        : "cp.async.ca.shared.global",
            args, p);
  ptx.launch(b, loc);
}

unsigned powerOfTwoFloor(unsigned n) { return n ? 1u << llvm::Log2_32(n) : 1; }

struct AsyncCopyOpConversion
    : public TargetOpConversionPattern<AsyncCopyGlobalToLocalOp> {
  AsyncCopyOpConversion(const TypeConverter &converter, MLIRContext *context,
                        const TargetInfo &targetInfo, AccessQueries queries)
      : TargetOpConversionPattern(converter, context, targetInfo),
        queries(queries) {}

  LogicalResult
  matchAndRewrite(AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType ptrType = op.getPtrs().getType();
    if (failed(requireFeature(op, targetInfo.supportsCpAsync(), "cp.async")))
      return failure();
    if (failed(checkSharedElementAccess(op, op.getDst())))
      return failure();
    if (!isLowerableDistributed(ptrType.getEncoding()))
      return op.emitError("cannot lower a copy through ")
             << ptrType << ": it needs a blocked or wgmma layout";
    if (op.getOther() && !isZeroBitsSplat(op.getOther()))
      return op.emitError("cp.async fills masked-off elements with zeros: "
                          "`other` must be absent or a zero constant");

    Type elemType = op.getDst().getType().getElementType();
    unsigned elemBytes = elemType.getIntOrFloatBitWidth() / 8;
    unsigned threadVec = getSharedVectorElems(op.getDst(), ptrType);
    unsigned globalVec = powerOfTwoFloor(
        queries.vectorSize(op.getPtrs(), op.getMask()));
    unsigned vec = std::min(threadVec, globalVec);
    unsigned bytes = vec * elemBytes;
    if (bytes < 4)
      return op.emitError("cp.async needs 4-byte aligned contiguous "
                          "elements; this copy moves ")
             << bytes << " byte(s) of " << elemType
             << " at once (the thread holds " << threadVec
             << " consecutive element(s) that stay together in the "
                "destination, the pointers are contiguous and aligned for "
             << globalVec << ")";

    SmallVector<Value> srcs =
        unpackLLElements(loc, adaptor.getPtrs(), rewriter);
    SmallVector<Value> masks;
    if (adaptor.getMask())
      masks = unpackMaskElements(rewriter, loc, adaptor.getMask(), ptrType,
                                 queries.maskConstancy(op.getMask()));
    SmallVector<Value> dsts = emitSharedVectorAddresses(
        rewriter, loc, op.getDst(), adaptor.getDst(), ptrType, vec);
    // Replicas would copy the same bytes again: leave it to the owner.
    Value owner = isBlockedLike(ptrType.getEncoding())
                      ? emitOwnerPredicate(rewriter, loc, ptrType)
                      : Value();
    Value fullSize, noSize;
    if (!masks.empty()) {
      fullSize = i32Val(rewriter, loc, bytes);
      noSize = i32Val(rewriter, loc, 0);
    }
    for (auto [k, dst] : llvm::enumerate(dsts)) {
      // The analysis made the mask constant across the vector.
      Value srcSize = masks.empty()
                          ? Value()
                          : LLVM::SelectOp::create(rewriter, loc,
                                                   masks[k * vec], fullSize,
                                                   noSize)
                                .getResult();
      emitCpAsync(rewriter, loc, dst, srcs[k * vec], bytes, srcSize, owner);
    }
    rewriter.replaceOp(op, i32Val(rewriter, loc, 0));
    return success();
  }

  AccessQueries queries;
};

struct AsyncCommitGroupOpConversion
    : public TargetOpConversionPattern<AsyncCommitGroupOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsCpAsync(), "cp.async")))
      return failure();
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.replaceOp(op, i32Val(rewriter, op.getLoc(), 0));
    return success();
  }
};

struct AsyncWaitOpConversion : public TargetOpConversionPattern<AsyncWaitOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsCpAsync(), "cp.async")))
      return failure();
    NVVM::CpAsyncWaitGroupOp::create(rewriter, op.getLoc(),
                                     op.getNumAttr());
    rewriter.replaceOp(op, i32Val(rewriter, op.getLoc(), 0));
    return success();
  }
};

struct FenceAsyncSharedOpConversion
    : public TargetOpConversionPattern<FenceAsyncSharedOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsAsyncProxy(),
                              "fence.proxy.async")))
      return failure();
    emitAsyncProxyFence(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void warpforge::populateAsyncCopyOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo, AccessQueries queries) {
  patterns.add<AsyncCopyOpConversion>(converter, patterns.getContext(),
                                      targetInfo, queries);
  patterns.add<AsyncCommitGroupOpConversion, AsyncWaitOpConversion,
               FenceAsyncSharedOpConversion>(converter, patterns.getContext(),
                                             targetInfo);
}
