//===- BarrierOpToLLVM.cpp - mbarriers to NVVM ----------------------------===//
//
// An mbarrier is 8 bytes of shared memory (a `1xi64` memdesc, lowered to
// its `!llvm.ptr<3>`).  The tilegpu ops state what the CTA does; here they
// become the typed NVVM ops, with the thread that acts chosen as follows:
//
//  * init, expect and inval are done once per CTA, by thread 0: the
//    barriers the compiler builds count one arrival per phase (the
//    expect's own arrival) plus the transaction bytes of the TMA copies
//    that thread 0 issues on them.  A barrier must be initialized before
//    any other thread touches it: the passes that create barriers put a
//    CTA barrier (`tile.barrier`) after the inits.
//  * arrive is done by every thread that executes it (`count` each), as
//    the op says: the barrier's expected count must match the threads the
//    IR makes arrive.
//  * wait is done by every thread: each spins on `try_wait.parity` (which
//    blocks for a hardware time limit per try) until the phase of the
//    given parity has completed.
//
//
// Named barriers (`named_barrier_arrive`, `named_barrier_wait`) are the
// hardware's `bar.arrive` and `bar.sync` with an id and a thread count, as
// the op states them: every executing thread takes part.  Inline PTX, as
// for the regions' own barriers (emitBarrier).
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

struct InitBarrierOpConversion : public TargetOpConversionPattern<InitBarrierOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(InitBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Transaction counts, parity waits and counted arrivals are sm_90's.
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "mbarrier")))
      return failure();
    Location loc = op.getLoc();
    NVVM::MBarrierInitOp::create(rewriter, loc, adaptor.getBarrier(),
                                 i32Val(rewriter, loc, op.getCount()),
                                 emitIsThreadZero(rewriter, loc));
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierExpectOpConversion
    : public TargetOpConversionPattern<BarrierExpectOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(BarrierExpectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Transaction counts, parity waits and counted arrivals are sm_90's.
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "mbarrier")))
      return failure();
    Location loc = op.getLoc();
    Value pred = LLVM::AndOp::create(rewriter, loc, emitIsThreadZero(rewriter, loc),
                                     adaptor.getPred());
    NVVM::MBarrierArriveExpectTxOp::create(
        rewriter, loc, /*res=*/Type(), adaptor.getBarrier(),
        i32Val(rewriter, loc, op.getBytes()), NVVM::MemScopeKind::CTA,
        /*relaxed=*/false, pred);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ArriveBarrierOpConversion
    : public TargetOpConversionPattern<ArriveBarrierOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(ArriveBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Transaction counts, parity waits and counted arrivals are sm_90's.
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "mbarrier")))
      return failure();
    // mbarrier.arrive with a count has no typed NVVM op: PTX it is.
    PTXBuilder ptx;
    PTXBuilder::Operand bar =
        ptx.addInput(adaptor.getBarrier(), kSharedPointerConstraint);
    std::optional<PTXBuilder::Operand> lane0;
    if (op.getPerWarp()) {
      // Lane 0 arrives for its warp, once every lane is here.
      Location loc = op.getLoc();
      Value lane = LLVM::URemOp::create(
          rewriter, loc, getThreadId(rewriter, loc), i32Val(rewriter, loc, 32));
      Value first = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                         lane, i32Val(rewriter, loc, 0));
      lane0 = ptx.addInput(first, "b");
      ptx.instr("bar.warp.sync", {"-1"});
    }
    if (Value cta = adaptor.getCta()) {
      // The barrier at the same offset in CTA `cta` of the cluster (its
      // waiter is that CTA's producer).
      PTXBuilder::Operand rank = ptx.addInput(cta, "r");
      ptx.line("{");
      ptx.line(".reg .b32 remote;");
      ptx.instr("mapa.shared::cluster.u32", {"remote", bar, rank});
      // The default semantics (release at CTA scope), as CUTLASS's
      // ClusterBarrier::arrive: with `.release.cluster` each arrival
      // waited long enough that multicast kernels ran at 0.45x of the
      // same kernel without clusters (357 against 786 TFLOP/s, fp16
      // 8192^3, H100); without it they run at 0.99x.
      SmallVector<std::string> args{"_", "[remote]"};
      if (op.getCount() != 1)
        args.push_back(std::to_string(op.getCount()));
      ptx.instr("mbarrier.arrive.shared::cluster.b64", args, lane0);
      ptx.line("}");
    } else {
      ptx.instr("mbarrier.arrive.release.cta.shared::cta.b64",
                {"_", PTXBuilder::address(bar), std::to_string(op.getCount())},
                lane0);
    }
    ptx.launch(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// All threads of all the cluster's CTAs: mbarrier initializations made
/// visible at cluster scope, then arrive (release) and wait (acquire).
/// `.aligned`: every thread of each warp executes it together.
struct ClusterBarrierOpConversion
    : public TargetOpConversionPattern<ClusterBarrierOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(ClusterBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsTMA(),
                              "thread-block clusters")))
      return failure();
    Location loc = op.getLoc();
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
    NVVM::ClusterArriveOp::create(rewriter, loc, rewriter.getUnitAttr());
    NVVM::ClusterWaitOp::create(rewriter, loc, rewriter.getUnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCopyMBarrierArriveOpConversion
    : public TargetOpConversionPattern<AsyncCopyMBarrierArriveOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(AsyncCopyMBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Parity waits on a barrier cp.async completes are sm_90's (the
    // arrive itself is sm_80's).
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "mbarrier")))
      return failure();
    // noinc: the barrier's count already includes this arrival.
    NVVM::CpAsyncMBarrierArriveOp::create(rewriter, op.getLoc(),
                                          adaptor.getBarrier(),
                                          /*noinc=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct WaitBarrierOpConversion : public TargetOpConversionPattern<WaitBarrierOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(WaitBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Transaction counts, parity waits and counted arrivals are sm_90's.
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "mbarrier")))
      return failure();
    Location loc = op.getLoc();
    // The suspend-time hint CUTLASS uses (in ns): a try blocks at most this
    // long before the loop around it tries again.
    constexpr int64_t kSuspendTimeHint = 0x989680;
    NVVM::MBarrierTryWaitParityOp::create(
        rewriter, loc, adaptor.getBarrier(), adaptor.getPhase(),
        i32Val(rewriter, loc, kSuspendTimeHint));
    rewriter.eraseOp(op);
    return success();
  }
};

struct InvalBarrierOpConversion : public TargetOpConversionPattern<InvalBarrierOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(InvalBarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Transaction counts, parity waits and counted arrivals are sm_90's.
    if (failed(requireFeature(op, targetInfo.supportsTMA(), "mbarrier")))
      return failure();
    // nvvm.mbarrier.inval takes no predicate: thread 0 alone, in PTX.
    Location loc = op.getLoc();
    PTXBuilder ptx;
    PTXBuilder::Operand bar =
        ptx.addInput(adaptor.getBarrier(), kSharedPointerConstraint);
    PTXBuilder::Operand pred = ptx.addInput(emitIsThreadZero(rewriter, loc), "b");
    ptx.instr("mbarrier.inval.shared::cta.b64", {PTXBuilder::address(bar)},
              pred);
    ptx.launch(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// bar.arrive or bar.sync, with the op's id and thread count.
template <typename Op>
struct NamedBarrierOpConversion : public OpConversionPattern<Op> {
  NamedBarrierOpConversion(TypeConverter &converter, MLIRContext *context,
                           StringRef instruction)
      : OpConversionPattern<Op>(converter, context),
        instruction(instruction) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    PTXBuilder ptx;
    ptx.instr(instruction, {std::to_string(op.getBarrierId()),
                            std::to_string(op.getNumThreads())});
    ptx.launch(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }

  std::string instruction;
};

/// bar.sync or bar.arrive on the barrier of this warpgroup's turn (wait)
/// or the next warpgroup's (pass): the id is computed from the thread's
/// warpgroup in its region, which must have exactly the op's groups.
template <typename Op>
struct WarpGroupTurnOpConversion : public OpConversionPattern<Op> {
  WarpGroupTurnOpConversion(TypeConverter &converter, MLIRContext *context,
                            StringRef instruction, bool next)
      : OpConversionPattern<Op>(converter, context),
        instruction(instruction), next(next) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int32_t groups = op.getNumGroups();
    WarpGroupContext context = getWarpGroupContext(rewriter);
    if (context.numWarps != static_cast<unsigned>(groups) * 4)
      return op.emitOpError("takes turns among ")
             << groups << " warpgroups, but runs on " << context.numWarps
             << " warps";
    Value group = LLVM::UDivOp::create(rewriter, loc, getThreadId(rewriter, loc),
                                       i32Val(rewriter, loc, 128));
    PTXBuilder ptx;
    std::optional<PTXBuilder::Operand> pred;
    std::string idOperand;
    if (std::optional<int32_t> only = op.getOnlyGroup()) {
      // One warpgroup's turn (the prime before a loop, the drain after
      // it): its barrier is known, so the id is an immediate, and the
      // instruction is predicated on being that warpgroup.
      int32_t turn = next ? (*only + 1) % groups : *only;
      idOperand = std::to_string(op.getFirstBarrierId() + turn);
      pred = ptx.addInput(
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, group,
                               i32Val(rewriter, loc, *only)),
          "b");
    } else {
      Value turn = group;
      if (next)
        turn = LLVM::URemOp::create(
            rewriter, loc,
            LLVM::AddOp::create(rewriter, loc, group, i32Val(rewriter, loc, 1)),
            i32Val(rewriter, loc, groups));
      Value id = LLVM::AddOp::create(
          rewriter, loc, turn, i32Val(rewriter, loc, op.getFirstBarrierId()));
      idOperand = ptx.addInput(id, "r");
    }
    ptx.instr(instruction, {idOperand, "256"}, pred);
    ptx.launch(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }

  std::string instruction;
  bool next;
};

} // namespace

Value warpforge::emitIsThreadZero(OpBuilder &b, Location loc) {
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                              getThreadId(b, loc), i32Val(b, loc, 0));
}

void warpforge::populateBarrierOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<InitBarrierOpConversion, BarrierExpectOpConversion,
               ArriveBarrierOpConversion, ClusterBarrierOpConversion,
               WaitBarrierOpConversion,
               AsyncCopyMBarrierArriveOpConversion,
               InvalBarrierOpConversion>(converter, patterns.getContext(),
                                         targetInfo);
  patterns.add<NamedBarrierOpConversion<NamedBarrierArriveOp>>(
      converter, patterns.getContext(), "bar.arrive");
  patterns.add<NamedBarrierOpConversion<NamedBarrierWaitOp>>(
      converter, patterns.getContext(), "bar.sync");
  patterns.add<WarpGroupTurnOpConversion<WarpGroupTurnWaitOp>>(
      converter, patterns.getContext(), "bar.sync", /*next=*/false);
  patterns.add<WarpGroupTurnOpConversion<WarpGroupTurnPassOp>>(
      converter, patterns.getContext(), "bar.arrive", /*next=*/true);
}
