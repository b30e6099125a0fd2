//===- TestAxisInfo.cpp - Print the axis analysis as remarks --------------===//

#include "TestPasses.h"

#include "warpforge/Analysis/AxisInfo.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

namespace warpforge::test {
#define GEN_PASS_DEF_TESTPRINTAXISINFO
#include "TestPasses.h.inc"
} // namespace warpforge::test

namespace {

/// Integers (i1 masks included), indices and pointers, or tensors of them.
bool isAnalyzed(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return isa<IntegerType, IndexType, warpforge::tile::PointerType>(elem);
}

/// For a load, store or atomic through a tensor of pointers, what the
/// coalescing pass asks: `access: order = [..], alignment = N,
/// mask alignment = M, vector width = W` (no mask alignment without a mask).
void reportAccess(const warpforge::ModuleAxisInfoAnalysis &analysis,
                  Operation *op) {
  Value ptr, mask;
  if (auto load = dyn_cast<warpforge::tile::LoadOp>(op))
    ptr = load.getPtr(), mask = load.getMask();
  else if (auto store = dyn_cast<warpforge::tile::StoreOp>(op))
    ptr = store.getPtr(), mask = store.getMask();
  else if (auto rmw = dyn_cast<warpforge::tile::AtomicRMWOp>(op))
    ptr = rmw.getPtr(), mask = rmw.getMask();
  else if (auto cas = dyn_cast<warpforge::tile::AtomicCASOp>(op))
    ptr = cas.getPtr();
  if (!ptr || !isa<RankedTensorType>(ptr.getType()))
    return;
  SmallVector<unsigned, 4> order = analysis.getOrder(ptr);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "access: order = [";
  llvm::interleaveComma(order, os);
  os << "], alignment = " << analysis.getPtrAlignment(ptr);
  if (mask)
    os << ", mask alignment = " << analysis.getMaskAlignment(mask, order[0]);
  os << ", vector width = " << analysis.getAccessVectorWidth(ptr, mask);
  emitRemark(op->getLoc()) << text;
}

struct TestPrintAxisInfo
    : public warpforge::test::impl::TestPrintAxisInfoBase<TestPrintAxisInfo> {
  void runOnOperation() override {
    warpforge::ModuleAxisInfoAnalysis analysis(getOperation());
    if (!analysis.succeeded()) {
      getOperation().emitError("the axis analysis did not converge");
      return signalPassFailure();
    }
    auto report = [&](Value value, Location loc, StringRef prefix) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << prefix;
      analysis.getAxisInfo(value).print(os);
      emitRemark(loc) << text;
    };
    getOperation().walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (isAnalyzed(arg.getType()))
              report(arg, arg.getLoc(),
                     ("argument #" + Twine(arg.getArgNumber()) + ": ").str());
      reportAccess(analysis, op);
      unsigned numAnalyzed = llvm::count_if(op->getResultTypes(), isAnalyzed);
      for (OpResult result : op->getResults())
        if (isAnalyzed(result.getType()))
          report(
              result, op->getLoc(),
              numAnalyzed > 1
                  ? ("result #" + Twine(result.getResultNumber()) + ": ").str()
                  : "");
    });
  }
};

} // namespace
