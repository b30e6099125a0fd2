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
      unsigned numAnalyzed = llvm::count_if(op->getResultTypes(), isAnalyzed);
      for (OpResult result : op->getResults())
        if (isAnalyzed(result.getType()))
          report(result, op->getLoc(),
                 numAnalyzed > 1
                     ? ("result #" + Twine(result.getResultNumber()) + ": ").str()
                     : "");
    });
  }
};

} // namespace
