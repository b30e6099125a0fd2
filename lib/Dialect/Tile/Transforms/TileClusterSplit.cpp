//===- TileClusterSplit.cpp - num_ctas: a program's tiles over a cluster --===//
//
// Triton's `num_ctas` runs each program on a cluster of C CTAs and divides
// the program's tensors among them through CTA layouts, which every op's
// lowering must then understand.  This pass gets the same result before
// layouts exist: it rewrites the program into the program of one CTA, whose
// tensors are the CTA's slice of the originals, so that everything after it
// (layouts, wgmma, pipelining, warp specialization) compiles an ordinary,
// smaller kernel.
//
// What is split is the rows of the products, as CUTLASS's 2x1 clusters and
// Triton's default CTA split for a dot do: the accumulator and the left
// operand of every `tile.dot` along their first dimension; the right
// operand is the same in every CTA (the candidate for TMA multicast).
//
// Which dimension of each tensor holds those rows is a dataflow fact.  It
// is found by propagating constraints between the values an op relates
// (element-wise operands and results, a broadcast's source and result, the
// iter_args of a loop, ...) forwards and backwards until nothing changes;
// a value ends up split along one dimension, or replicated (the same in
// every CTA).  Contradictions (a value both), and ops whose meaning changes
// when their input is a slice (a reduction along the rows, a reshape, a
// non-splat constant), decline the split with a warning at that op; an
// atomic whose operands stay replicated declines too, since every CTA would
// repeat it.  Plain stores of replicated values are repeated with the same
// values, which is harmless.  Nothing is changed until the whole kernel has
// been accepted.
//
// The invariant of the rewrite: the split value v' of CTA r holds elements
// [r * S / C, (r + 1) * S / C) of the original v along its split dimension
// of size S.  Element-wise ops, broadcasts, transposes, expand_dims, loads
// and stores, reductions along other dimensions and loops keep it by
// construction once their types are divided; `make_range` gets the CTA's
// offset added; descriptor accesses move their index along the dimension;
// a dot's rows are its left operand's and its accumulator's rows.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"

namespace warpforge::tile {
#define GEN_PASS_DEF_TILECLUSTERSPLIT
#include "warpforge/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace warpforge::tile

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tile;

namespace {

/// The block or tensor type of a value the pass tracks (a ranked tensor, or
/// a tensor descriptor's block), else null.
RankedTensorType trackedType(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t;
  if (auto d = dyn_cast<TensorDescType>(v.getType()))
    return d.getBlockType();
  return {};
}

constexpr int kReplicated = -1;

/// The split dimension of every tracked value of one kernel.
class SplitAnalysis {
public:
  SplitAnalysis(FuncOp kernel, int numCtas)
      : kernel(kernel), numCtas(numCtas) {}

  /// Finds each tracked value's state; false (with `why` at `where`) when
  /// the kernel cannot be split.
  bool run() {
    // The seeds: every 2-D product's rows.
    bool seeded = false;
    kernel.walk([&](DotOp dot) {
      if (dot.getD().getType().getRank() != 2)
        return;
      seeded = true;
      set(dot.getD(), 0, dot);
    });
    // A kernel's arguments are the program's: whole in every CTA, but
    // for descriptors, whose block the launcher can encode per CTA.
    for (BlockArgument arg : kernel.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        set(arg, kReplicated, kernel);
    if (failed_)
      return false;
    if (!seeded) {
      where = kernel;
      why = "the kernel has no 2-D tl.dot whose rows could be divided "
            "among the cluster's CTAs";
      return false;
    }
    // To a fixed point: each sweep can only move values from unknown to
    // known, so it ends.
    do {
      changed = false;
      kernel.walk([&](Operation *op) {
        if (!failed_)
          transfer(op);
      });
      if (failed_)
        return false;
    } while (changed);
    // What nothing constrained is the same in every CTA.
    kernel.walk([&](Operation *op) {
      for (Value v : op->getResults())
        if (trackedType(v) && !state.count(v))
          state[v] = kReplicated;
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Value v : block.getArguments())
            if (trackedType(v) && !state.count(v))
              state[v] = kReplicated;
    });
    return checkSideEffects() && checkSizes();
  }

  int get(Value v) const {
    auto it = state.find(v);
    return it == state.end() ? kReplicated : it->second;
  }

  Operation *where = nullptr;
  std::string why;

private:
  /// Records that `v` is split along `dim` (or replicated), or a conflict.
  void set(Value v, int dim, Operation *at) {
    if (failed_ || !trackedType(v))
      return;
    auto [it, inserted] = state.try_emplace(v, dim);
    if (inserted) {
      changed = true;
      return;
    }
    if (it->second != dim)
      fail(at, it->second == kReplicated || dim == kReplicated
                   ? "a value would be divided among the CTAs here and be "
                     "whole in each CTA elsewhere"
                   : "a value would be divided along two different "
                     "dimensions");
  }

  std::optional<int> known(Value v) const {
    auto it = state.find(v);
    if (it == state.end())
      return std::nullopt;
    return it->second;
  }

  /// All of `values` share one state.
  void tie(ArrayRef<Value> values, Operation *at) {
    std::optional<int> s;
    for (Value v : values)
      if (trackedType(v) && (s = known(v)))
        break;
    if (!s)
      return;
    for (Value v : values)
      set(v, *s, at);
  }

  void fail(Operation *at, StringRef reason) {
    if (failed_)
      return;
    failed_ = true;
    where = at;
    why = reason.str();
  }

  /// The constraints `op` puts on its tracked operands and results.
  void transfer(Operation *op) {
    if (isa<MakeRangeOp, SplatOp, MakeTensorDescriptorOp, GetProgramIdOp,
            GetNumProgramsOp, FuncOp, ReturnOp, scf::YieldOp, scf::ConditionOp,
            ReduceReturnOp, ScanReturnOp>(op))
      return;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (dense && !dense.isSplat())
        set(constant.getResult(), kReplicated, op);
      return;
    }
    if (auto dot = dyn_cast<DotOp>(op)) {
      tie({dot.getC(), dot.getD()}, op);
      if (dot.getD().getType().getRank() != 2) {
        tie({dot.getA(), dot.getB(), dot.getC()}, op);
        if (auto s = known(dot.getD()); s && *s != kReplicated)
          fail(op, "a batched (3-D) tl.dot cannot be divided among CTAs");
        set(dot.getD(), kReplicated, op);
        return;
      }
      set(dot.getB(), kReplicated, op);
      if (auto s = known(dot.getD())) {
        if (*s == 1)
          fail(op, "the columns of a tl.dot cannot be divided among CTAs");
        set(dot.getA(), *s, op);
      }
      if (auto s = known(dot.getA())) {
        if (*s == 1)
          fail(op, "the reduction dimension of a tl.dot cannot be divided "
                   "among CTAs");
        set(dot.getD(), *s, op);
      }
      return;
    }
    if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
      auto src = broadcast.getSrc().getType();
      auto res = broadcast.getResult().getType();
      if (auto s = known(broadcast.getResult())) {
        if (*s == kReplicated || src.getDimSize(*s) == res.getDimSize(*s))
          set(broadcast.getSrc(), *s, op);
        else
          set(broadcast.getSrc(), kReplicated, op);
      }
      if (auto s = known(broadcast.getSrc()); s && *s != kReplicated)
        set(broadcast.getResult(), *s, op);
      return;
    }
    if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
      int axis = expand.getAxis();
      if (auto s = known(expand.getSrc()))
        set(expand.getResult(),
            *s == kReplicated ? kReplicated : (*s < axis ? *s : *s + 1), op);
      if (auto s = known(expand.getResult())) {
        if (*s == axis)
          fail(op, "a dimension of size 1 cannot be divided among CTAs");
        else
          set(expand.getSrc(),
              *s == kReplicated ? kReplicated : (*s < axis ? *s : *s - 1), op);
      }
      return;
    }
    if (auto trans = dyn_cast<TransOp>(op)) {
      ArrayRef<int32_t> order = trans.getOrder();
      if (auto s = known(trans.getSrc())) {
        int to = kReplicated;
        for (int i = 0, e = order.size(); i < e && *s != kReplicated; ++i)
          if (order[i] == *s)
            to = i;
        set(trans.getResult(), to, op);
      }
      if (auto s = known(trans.getResult()))
        set(trans.getSrc(), *s == kReplicated ? kReplicated : order[*s], op);
      return;
    }
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      SmallVector<Value> srcs(reduce.getSrcs());
      tie(srcs, op);
      SmallVector<Value> results(reduce.getResult());
      tie(results, op);
      int axis = reduce.getAxis();
      if (auto s = known(srcs.front())) {
        if (*s == axis)
          fail(op, "a reduction along the rows of a product would need the "
                   "partial results of every CTA of the cluster");
        else
          for (Value r : results)
            set(r, *s == kReplicated ? kReplicated : (*s < axis ? *s : *s - 1),
                op);
      }
      for (Value r : results)
        if (auto s = known(r))
          for (Value v : srcs)
            set(v, *s == kReplicated ? kReplicated : (*s < axis ? *s : *s + 1),
                op);
      return;
    }
    if (auto scan = dyn_cast<ScanOp>(op)) {
      SmallVector<Value> all(scan.getSrcs());
      llvm::append_range(all, scan.getResult());
      tie(all, op);
      if (auto s = known(all.front()); s && *s == static_cast<int>(scan.getAxis()))
        fail(op, "a scan along the rows of a product would need the partial "
                 "results of every CTA of the cluster");
      return;
    }
    if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
      if (load.getResult().getType().getShape() !=
          load.getDesc().getType().getBlockType().getShape()) {
        set(load.getResult(), kReplicated, op);
        set(load.getDesc(), kReplicated, op);
        return;
      }
      tie({load.getDesc(), load.getResult()}, op);
      return;
    }
    if (isa<DescriptorStoreOp, DescriptorReduceOp>(op)) {
      Value desc = op->getOperand(0);
      Value src = op->getOperands().back();
      if (cast<RankedTensorType>(src.getType()).getShape() !=
          cast<TensorDescType>(desc.getType()).getBlockType().getShape()) {
        set(src, kReplicated, op);
        set(desc, kReplicated, op);
        return;
      }
      tie({desc, src}, op);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [init, arg, yielded, result] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs(),
                     loop.getYieldedValues(), loop.getResults()))
        tie({init, arg, yielded, result}, op);
      return;
    }
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      for (auto [i, result] : llvm::enumerate(branch.getResults())) {
        SmallVector<Value> values{result};
        if (branch.elseBlock()) {
          values.push_back(branch.thenYield().getOperand(i));
          values.push_back(branch.elseYield().getOperand(i));
        }
        tie(values, op);
      }
      return;
    }
    if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      for (auto [init, arg, yielded] :
           llvm::zip(loop.getInits(), loop.getBeforeArguments(),
                     loop.getYieldedValues()))
        tie({init, arg, yielded}, op);
      for (auto [passed, arg, result] :
           llvm::zip(loop.getConditionOp().getArgs(), loop.getAfterArguments(),
                     loop.getResults()))
        tie({passed, arg, result}, op);
      return;
    }
    if (isa<ReshapeOp>(op)) {
      SmallVector<Value> all(op->getOperands());
      llvm::append_range(all, op->getResults());
      for (Value v : all)
        if (auto s = known(v); s && *s != kReplicated)
          return fail(op, "a reshape of a tensor divided among CTAs is not "
                          "supported");
      for (Value v : all)
        set(v, kReplicated, op);
      return;
    }
    // Element-wise: every tracked operand and result has the result's shape
    // and holds the same rows.
    bool elementwise =
        isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<AddPtrOp, IntToPtrOp, PtrToIntOp, BitcastOp, LoadOp, StoreOp,
            AtomicRMWOp, AtomicCASOp, FpToFpOp, ElementwiseInlineAsmOp,
            AssertOp, PrintOp>(op);
    SmallVector<Value> all(op->getOperands());
    llvm::append_range(all, op->getResults());
    if (elementwise) {
      // tl.print of several tensors of different shapes: each its own.
      if (isa<PrintOp>(op))
        return;
      tie(all, op);
      return;
    }
    // Anything else must see whole tensors.
    for (Value v : all) {
      if (!trackedType(v))
        continue;
      if (auto s = known(v); s && *s != kReplicated)
        return fail(op, ("'" + op->getName().getStringRef() +
                         "' cannot take a tensor divided among CTAs")
                            .str());
      set(v, kReplicated, op);
    }
  }

  /// Atomics (and inline asm with side effects) every CTA would repeat.
  bool checkSideEffects() {
    WalkResult result = kernel.walk([&](Operation *op) -> WalkResult {
      auto asmOp = dyn_cast<ElementwiseInlineAsmOp>(op);
      if (!isa<AtomicRMWOp, AtomicCASOp>(op) && !(asmOp && !asmOp.getPure()))
        return WalkResult::advance();
      for (Value v : op->getResults())
        if (trackedType(v) && get(v) != kReplicated)
          return WalkResult::advance();
      fail(op, asmOp ? "every CTA of the cluster would repeat this inline "
                       "asm's side effects, which no tile of the kernel's "
                       "products divides"
                     : "every CTA of the cluster would repeat this atomic, "
                       "which no tile of the kernel's products divides");
      return WalkResult::interrupt();
    });
    return !result.wasInterrupted();
  }

  /// Every split dimension divides evenly.
  bool checkSizes() {
    for (auto &[v, dim] : state) {
      if (dim == kReplicated)
        continue;
      int64_t size = trackedType(v).getDimSize(dim);
      if (size % numCtas == 0)
        continue;
      Operation *at = v.getDefiningOp();
      fail(at ? at : kernel.getOperation(),
           ("a dimension of " + std::to_string(size) +
            " cannot be divided among " + std::to_string(numCtas) + " CTAs")
               .c_str());
      return false;
    }
    return true;
  }

  FuncOp kernel;
  int numCtas;
  llvm::DenseMap<Value, int> state;
  bool changed = false;
  bool failed_ = false;
};

RankedTensorType divided(RankedTensorType type, int dim, int numCtas) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= numCtas;
  return type.clone(shape);
}

Type dividedType(Type type, int dim, int numCtas) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return divided(tensor, dim, numCtas);
  auto desc = cast<TensorDescType>(type);
  return TensorDescType::get(type.getContext(),
                             divided(desc.getBlockType(), dim, numCtas));
}

struct TileClusterSplitPass
    : public tile::impl::TileClusterSplitBase<TileClusterSplitPass> {
  using TileClusterSplitBase::TileClusterSplitBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numCtas == 1)
      return;
    if (numCtas != 2 && numCtas != 4) {
      module.emitError() << "tile-cluster-split: num-ctas must be 1, 2 or 4, "
                            "got "
                         << static_cast<int>(numCtas);
      return signalPassFailure();
    }
    SmallVector<FuncOp> kernels;
    for (auto func : module.getOps<FuncOp>())
      if (func.isPublic() && !func.isExternal())
        kernels.push_back(func);
    // Analyse every kernel first, each on a copy whose pure tensor ops
    // have one use each: the module's CTAs per program are one fact for
    // all kernels, and a kernel that cannot be split stays as it was.
    SmallVector<FuncOp> copies;
    SmallVector<std::unique_ptr<SplitAnalysis>> analyses;
    auto dropCopies = [&] {
      for (FuncOp copy : copies)
        copy.erase();
    };
    for (FuncOp kernel : kernels) {
      FuncOp copy = kernel.clone();
      copies.push_back(copy);
      untie(copy);
      analyses.push_back(std::make_unique<SplitAnalysis>(copy, numCtas));
      if (!analyses.back()->run()) {
        SplitAnalysis &a = *analyses.back();
        emitWarning(a.where->getLoc())
            << "num_ctas=" << static_cast<int>(numCtas)
            << " declined: " << a.why
            << "; each program runs on one CTA instead";
        dropCopies();
        return;
      }
    }
    if (kernels.empty())
      return;
    Builder b(module.getContext());
    SmallVector<Attribute> blocks;
    for (auto [kernel, copy, analysis] : llvm::zip(kernels, copies, analyses)) {
      rewrite(copy, *analysis, blocks);
      // The split copy's body and signature become the kernel's.
      kernel.getBody().takeBody(copy.getBody());
      kernel.setType(copy.getFunctionType());
      // What untie copied and stayed alike is one value again.
      IRRewriter rewriter(kernel.getContext());
      DominanceInfo dominance(kernel);
      eliminateCommonSubExpressions(rewriter, dominance, kernel);
    }
    dropCopies();
    module->setAttr(TileDialect::kNumCtas, b.getI32IntegerAttr(numCtas));
    if (!blocks.empty())
      module->setAttr(TileDialect::kDescriptorBlocks, b.getArrayAttr(blocks));
  }

  /// Gives every pure, region-free op with a tensor result one use, by
  /// copying it for each further use (users before producers, so that a
  /// copy's operands are untied in turn).  A value some ops need whole and
  /// others need divided (a zero constant shared by two loads, a column
  /// range feeding both operands' addresses) is then two values, each
  /// free to take its own form.  CSE merges what stays alike.
  static void untie(FuncOp kernel) {
    SmallVector<Operation *> ops;
    kernel.walk([&](Operation *op) {
      if (op->getNumResults() == 1 && op->getNumRegions() == 0 &&
          isa<RankedTensorType>(op->getResult(0).getType()) &&
          isMemoryEffectFree(op))
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops)) {
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back(&use);
      if (uses.size() < 2)
        continue;
      OpBuilder b(op);
      for (OpOperand *use : llvm::drop_begin(uses))
        use->set(b.clone(*op)->getResult(0));
    }
  }

  void rewrite(FuncOp kernel, const SplitAnalysis &analysis,
               SmallVectorImpl<Attribute> &blocks) {
    OpBuilder b(kernel.getContext());
    b.setInsertionPointToStart(&kernel.getBody().front());
    Location loc = kernel.getLoc();
    Value rank = ClusterCtaRankOp::create(b, loc, b.getI32Type());
    // The offset of this CTA's slice along a dimension of `size`.
    auto offsetOf = [&](OpBuilder &at, Location l, int64_t size) -> Value {
      Value slice = arith::ConstantIntOp::create(at, l, size / numCtas, 32);
      return arith::MulIOp::create(at, l, rank, slice);
    };

    // Kernel arguments (host descriptors) first.
    SmallVector<Type> inputs(kernel.getFunctionType().getInputs());
    for (BlockArgument arg : kernel.getArguments()) {
      int dim = analysis.get(arg);
      if (dim == kReplicated || !isa<TensorDescType>(arg.getType()))
        continue;
      Type type = dividedType(arg.getType(), dim, numCtas);
      arg.setType(type);
      inputs[arg.getArgNumber()] = type;
      SmallVector<int64_t> block(
          cast<TensorDescType>(type).getBlockType().getShape());
      blocks.push_back(b.getDictionaryAttr({
          b.getNamedAttr("arg", b.getI64IntegerAttr(arg.getArgNumber())),
          b.getNamedAttr("block", b.getDenseI64ArrayAttr(block)),
      }));
    }
    kernel.setType(FunctionType::get(kernel.getContext(), inputs,
                                     kernel.getFunctionType().getResults()));

    SmallVector<Operation *> ops;
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op != kernel.getOperation())
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            if (int dim = analysis.get(arg);
                dim != kReplicated && trackedType(arg))
              arg.setType(dividedType(arg.getType(), dim, numCtas));
      if (auto load = dyn_cast<DescriptorLoadOp>(op);
          load && analysis.get(load.getResult()) == kReplicated)
        load->setAttr(TileDialect::kClusterReplicated, b.getUnitAttr());
      // Descriptor accesses move their index along the split dimension.
      if (isa<DescriptorLoadOp, DescriptorStoreOp, DescriptorReduceOp>(op)) {
        Value desc = isa<DescriptorLoadOp>(op)
                         ? cast<DescriptorLoadOp>(op).getDesc()
                     : isa<DescriptorStoreOp>(op)
                         ? cast<DescriptorStoreOp>(op).getDesc()
                         : cast<DescriptorReduceOp>(op).getDesc();
        int dim = analysis.get(desc);
        if (dim != kReplicated) {
          MutableOperandRange indices =
              isa<DescriptorLoadOp>(op)
                  ? cast<DescriptorLoadOp>(op).getIndicesMutable()
              : isa<DescriptorStoreOp>(op)
                  ? cast<DescriptorStoreOp>(op).getIndicesMutable()
                  : cast<DescriptorReduceOp>(op).getIndicesMutable();
          OpBuilder at(op);
          // The descriptor's type is divided already (a kernel argument,
          // or defined before this access, which the pre-order walk
          // visited first): its block is the slice.
          int64_t size =
              cast<TensorDescType>(desc.getType()).getBlockType().getDimSize(
                  dim);
          Value shift = arith::MulIOp::create(
              at, op->getLoc(), rank,
              arith::ConstantIntOp::create(at, op->getLoc(), size, 32));
          Value index = indices[dim].get();
          indices[dim].set(
              arith::AddIOp::create(at, op->getLoc(), index, shift));
        }
      }
      if (auto range = dyn_cast<MakeRangeOp>(op)) {
        if (analysis.get(range.getResult()) == kReplicated)
          continue;
        OpBuilder at(op);
        Location l = op->getLoc();
        int64_t size = range.getResult().getType().getDimSize(0);
        int64_t slice = size / numCtas;
        auto type = divided(range.getResult().getType(), 0, numCtas);
        Value local = MakeRangeOp::create(
            at, l, type, range.getStart(),
            static_cast<int32_t>(range.getStart() + slice));
        Value offset = SplatOp::create(at, l, type, offsetOf(at, l, size));
        Value shifted = arith::AddIOp::create(at, l, local, offset);
        range.getResult().replaceAllUsesWith(shifted);
        op->erase();
        continue;
      }
      if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        int dim = constant.getResult().getType().isIntOrIndexOrFloat()
                      ? kReplicated
                      : analysis.get(constant.getResult());
        if (dim == kReplicated)
          continue;
        auto dense = cast<DenseElementsAttr>(constant.getValue());
        auto type = divided(cast<RankedTensorType>(constant.getType()), dim,
                            numCtas);
        constant.setValueAttr(dense.resizeSplat(type));
        constant.getResult().setType(type);
        continue;
      }
      for (Value result : op->getResults())
        if (int dim = analysis.get(result);
            dim != kReplicated && trackedType(result))
          result.setType(dividedType(result.getType(), dim, numCtas));
    }
  }
};

} // namespace
