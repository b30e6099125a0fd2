//===- TileVerifyKernels.cpp - Rules for modules compiled as kernels ------===//
//
// The op verifiers accept any well-formed function; code generation needs
// more: something to launch, kernels that return nothing, and a call graph
// that inlining can flatten.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace warpforge::tile {
#define GEN_PASS_DEF_TILEVERIFYKERNELS
#include "warpforge/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace warpforge::tile

using namespace mlir;
using namespace warpforge::tile;

namespace {
struct TileVerifyKernelsPass
    : public warpforge::tile::impl::TileVerifyKernelsBase<
          TileVerifyKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    bool ok = true;
    int numKernels = 0;
    for (auto fn : module.getOps<FuncOp>()) {
      if (!fn.isKernel())
        continue;
      ++numKernels;
      if (fn.getNumResults() != 0) {
        fn.emitError() << "kernel @" << fn.getName()
                       << " returns values; kernels write results through "
                          "pointers (make it private to call it as a device "
                          "function)";
        ok = false;
      }
      if (fn.isExternal()) {
        fn.emitError() << "kernel @" << fn.getName() << " has no body";
        ok = false;
      }
    }
    if (numKernels == 0) {
      module.emitError() << "module has no kernel (a public tile.func)";
      ok = false;
    }
    module.walk([&](CallOp call) {
      auto callee = symbols.lookup<FuncOp>(call.getCallee());
      if (!callee)
        return; // Reported by the call's symbol verifier.
      if (callee.isKernel()) {
        call.emitError() << "calls kernel @" << callee.getName()
                         << "; only private device functions can be called";
        ok = false;
      } else if (callee.isExternal()) {
        call.emitError() << "calls @" << callee.getName()
                         << ", which has no body to inline";
        ok = false;
      }
    });
    for (auto fn : module.getOps<FuncOp>())
      if (failed(checkNoRecursion(fn, symbols)))
        ok = false;
    if (!ok)
      signalPassFailure();
  }

  /// Depth-first search of the call graph from `root`; a call back into a
  /// function on the current path is recursion, which inlining cannot
  /// remove.
  LogicalResult checkNoRecursion(FuncOp root, SymbolTable &symbols) {
    llvm::SmallVector<FuncOp> path;
    llvm::DenseSet<Operation *> onPath;
    std::function<LogicalResult(FuncOp)> visit = [&](FuncOp fn) {
      path.push_back(fn);
      onPath.insert(fn);
      WalkResult result = fn.walk([&](CallOp call) {
        auto callee = symbols.lookup<FuncOp>(call.getCallee());
        if (!callee)
          return WalkResult::advance();
        if (onPath.contains(callee)) {
          if (callee == root)
            call.emitError() << "@" << root.getName()
                             << " calls itself (recursion cannot be "
                                "inlined)";
          return callee == root ? WalkResult::interrupt()
                                : WalkResult::advance();
        }
        if (failed(visit(callee)))
          return WalkResult::interrupt();
        return WalkResult::advance();
      });
      onPath.erase(fn);
      path.pop_back();
      return failure(result.wasInterrupted());
    };
    return visit(root);
  }
};
} // namespace
