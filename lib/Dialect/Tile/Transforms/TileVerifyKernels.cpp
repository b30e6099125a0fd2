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
  using TileVerifyKernelsBase::TileVerifyKernelsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(verifyNoEmptyTensors(module, "tile-verify-kernels")))
      return signalPassFailure();
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
    if (failed(checkNoRecursion(module, symbols)))
      ok = false;
    if (requireInlined)
      module.walk([&](CallOp call) {
        call.emitError() << "call to @" << call.getCallee()
                         << " was not inlined; device functions with "
                            "several blocks (unstructured control flow) "
                            "cannot be inlined into scf regions: use scf.if "
                            "instead of branches";
        ok = false;
      });
    if (!ok)
      signalPassFailure();
  }

  /// One depth-first search of the call graph, visiting each function once
  /// (linear time); a call to a function on the current path closes a cycle,
  /// which inlining cannot remove.  Each cycle is reported once, at that
  /// call, with its path.
  LogicalResult checkNoRecursion(ModuleOp module, SymbolTable &symbols) {
    enum class Mark { Unvisited, OnPath, Done };
    llvm::DenseMap<Operation *, Mark> marks;
    llvm::SmallVector<FuncOp> path;
    bool ok = true;
    std::function<void(FuncOp)> visit = [&](FuncOp fn) {
      marks[fn] = Mark::OnPath;
      path.push_back(fn);
      fn.walk([&](CallOp call) {
        auto callee = symbols.lookup<FuncOp>(call.getCallee());
        if (!callee)
          return;
        Mark mark = marks.lookup(callee);
        if (mark == Mark::Unvisited) {
          visit(callee);
          return;
        }
        if (mark != Mark::OnPath)
          return;
        ok = false;
        if (callee == fn) {
          call.emitError() << "@" << fn.getName()
                           << " calls itself (recursion cannot be inlined)";
          return;
        }
        std::string cycle;
        llvm::raw_string_ostream os(cycle);
        auto it = llvm::find(path, callee);
        for (; it != path.end(); ++it)
          os << "@" << it->getName() << " -> ";
        os << "@" << callee.getName();
        call.emitError() << "call to @" << callee.getName()
                         << " closes the recursive cycle " << cycle
                         << " (recursion cannot be inlined)";
      });
      path.pop_back();
      marks[fn] = Mark::Done;
    };
    for (auto fn : module.getOps<FuncOp>())
      if (marks.lookup(fn) == Mark::Unvisited)
        visit(fn);
    return success(ok);
  }
};
} // namespace
