//===- WarpSpecializeOpToLLVM.cpp - Warp partitions to a warp-id dispatch --===//
//
// `tilegpu.warp_specialize` is lowered in two steps.
//
// During the conversion the op stays: only its captures and its regions'
// block arguments take their LLVM types, so that while the ops inside are
// converted they still know which warps run them (ThreadUtility's
// getWarpGroupContext): thread ids count from the region's first thread,
// CTA-wide barriers become the region's own named barrier (`bar.sync id,
// threads`), and a layout's threads are the region's.
//
// After it, each op becomes a dispatch on the warp index:
//
//   warp = tid.x / 32
//   warp <  D          -> default region   (setmaxnreg.inc when requested)
//   warp <  D + P0     -> partition 0      (setmaxnreg when requested: .dec
//                                           below the even share, .inc above,
//                                           as a second consumer group asks)
//   ...
//   every region ends by branching to the code after the op, which starts
//   with a CTA barrier: the op completes when all its warps have finished.
//
// The warp index is the same in every lane of a warp, so no warp diverges
// at the dispatch, and setmaxnreg (`.sync.aligned`) is executed by whole
// warpgroups: the verifier requires partitions that request registers to
// be whole warpgroups, and the default warps are the kernel's num-warps.
//
// The kernel is launched with all the warps (nvvm.reqntid, FuncOpToLLVM)
// and, when registers move, compiled with `.maxnreg` of the even share
// (64K / threads, rounded down to 8): setmaxnreg.inc can only take what
// the decreasing warps gave back, so the requests must fit in 64K, which
// the verifier of the requests' sum checks.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// Step one: the captures and the regions' arguments take LLVM types; the
/// op stays.
struct WarpSpecializeOpConversion
    : public OpConversionPattern<WarpSpecializeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpSpecializeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.modifyOpInPlace(
        op, [&] { op->setOperands(adaptor.getOperands()); });
    for (Region &region : op->getRegions())
      if (failed(rewriter.convertRegionTypes(&region, *getTypeConverter())))
        return failure();
    return success();
  }
};

} // namespace

void warpforge::populateWarpSpecializeOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  patterns.add<WarpSpecializeOpConversion>(converter, patterns.getContext());
  target.addDynamicallyLegalOp<WarpSpecializeOp>([&converter](
                                                     WarpSpecializeOp op) {
    if (!converter.isLegal(op->getOperandTypes()))
      return false;
    return llvm::all_of(op->getRegions(), [&](Region &region) {
      return converter.isLegal(region.front().getArgumentTypes());
    });
  });
  target.addLegalOp<WarpYieldOp, WarpReturnOp>();
}

int32_t warpforge::getPartitionWarps(Operation *root) {
  int32_t most = 0;
  root->walk([&](WarpSpecializeOp op) {
    most = std::max(most, op.getTotalPartitionWarps());
  });
  return most;
}

bool warpforge::hasRegisterRequests(Operation *root) {
  bool found = false;
  root->walk([&](WarpSpecializeOp op) {
    found |= op.getRequestedRegisters().has_value();
  });
  return found;
}

void warpforge::lowerWarpSpecializeOps(ModuleOp module) {
  SmallVector<WarpSpecializeOp> ops;
  module.walk([&](WarpSpecializeOp op) { ops.push_back(op); });
  unsigned defaultWarps = getNumWarps(module.getOperation());
  for (WarpSpecializeOp ws : ops) {
    Location loc = ws.getLoc();
    OpBuilder b(ws);
    Block *before = ws->getBlock();
    Block *after = before->splitBlock(std::next(Block::iterator(ws)));
    Region *parent = before->getParent();

    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value warp = LLVM::LShrOp::create(
        b, loc, tid, i32Val(b, loc, llvm::Log2_32(TargetInfo::kWarpSize)));
    SmallVector<Value> captures(ws.getExplicitCaptures());

    // The regions' blocks go before `after`; their exits branch to it.
    SmallVector<std::pair<Block *, unsigned>> entries; // (entry, warp limit)
    std::optional<ArrayRef<int32_t>> requested = ws.getRequestedRegisters();
    unsigned limit = defaultWarps;
    int32_t evenShare = getEvenRegisterShare(
        (defaultWarps + ws.getTotalPartitionWarps()) * TargetInfo::kWarpSize);
    for (auto [i, region] : llvm::enumerate(ws->getRegions())) {
      Block *entry = &region.front();
      for (Block &block : region) {
        Operation *exit = block.getTerminator();
        if (isa<WarpYieldOp, WarpReturnOp>(exit)) {
          OpBuilder eb(exit);
          LLVM::BrOp::create(eb, exit->getLoc(), ValueRange(), after);
          exit->erase();
        }
      }
      if (requested) {
        OpBuilder rb = OpBuilder::atBlockBegin(entry);
        if (i == 0)
          NVVM::SetMaxRegisterOp::create(
              rb, loc, *ws.getDefaultRegisters(),
              NVVM::SetMaxRegisterAction::increase);
        else if ((*requested)[i - 1] != evenShare)
          NVVM::SetMaxRegisterOp::create(
              rb, loc, (*requested)[i - 1],
              (*requested)[i - 1] > evenShare
                  ? NVVM::SetMaxRegisterAction::increase
                  : NVVM::SetMaxRegisterAction::decrease);
      }
      if (i > 0)
        limit += ws.getPartitionNumWarps()[i - 1];
      entries.push_back({entry, limit});
      parent->getBlocks().splice(after->getIterator(), region.getBlocks());
    }

    // The dispatch: one test per region, in warp order.
    Block *test = before;
    for (auto [entry, warpLimit] : entries) {
      Block *next = b.createBlock(after);
      b.setInsertionPointToEnd(test);
      Value here = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, warp,
                                        i32Val(b, loc, warpLimit));
      LLVM::CondBrOp::create(b, loc, here, entry, captures, next,
                             ValueRange());
      test = next;
    }
    // Past the last partition: no warps are launched there.
    b.setInsertionPointToEnd(test);
    LLVM::BrOp::create(b, loc, ValueRange(), after);
    // The op completes when every region has.
    b.setInsertionPointToStart(after);
    NVVM::Barrier0Op::create(b, loc);
    ws.erase();
  }
}
