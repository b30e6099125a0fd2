//===- RemoveLayoutConversions.cpp - Fewer tilegpu.convert_layout ---------===//
//
// convert-tile-to-tilegpu gives every tensor the default layout of its
// shape and converts where an op needs another one.  Most of those
// conversions are avoidable: index computations (make_range, splat,
// arithmetic, expand_dims, broadcast) can be computed directly in the
// layout their user wants, and the users of a reduction's result can work
// in the reduction's slice layout.  Each rewrite here removes at least one
// conversion and adds none overall, so the pass terminates.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "WgmmaOperand.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUREMOVELAYOUTCONVERSIONS
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// Bounds on the work one rewrite may plan, so that huge kernels stay fast.
constexpr unsigned kMaxPlanSize = 1024;
constexpr unsigned kMaxPlanDepth = 64;
constexpr unsigned kMaxRounds = 20000;

bool isTensor(Value value) { return isa<RankedTensorType>(value.getType()); }

Attribute layoutOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getEncoding();
}

/// Ops that compute each element from the elements at the same position of
/// their operands: all their tensors share one layout.
bool isElementwise(Operation *op) {
  if (op->hasTrait<OpTrait::Elementwise>())
    return true;
  return isa<tile::AddPtrOp, tile::BitcastOp, tile::FpToFpOp, tile::IntToPtrOp,
             tile::PtrToIntOp, tile::LoadOp, tile::StoreOp, tile::AtomicRMWOp,
             tile::AtomicCASOp, tile::AssertOp, tile::ElementwiseInlineAsmOp>(
      op);
}

/// Whether `op`'s tensors can take `layout`: an inline asm packing several
/// elements per invocation needs a thread's count of them to be a multiple
/// of its pack (its lowering groups a thread's elements in order).
bool packFits(Operation *op, Attribute layout) {
  auto inlineAsm = dyn_cast<tile::ElementwiseInlineAsmOp>(op);
  if (!inlineAsm || inlineAsm.getPackedElement() <= 1 ||
      inlineAsm->getNumResults() == 0)
    return true;
  auto type = dyn_cast<RankedTensorType>(inlineAsm->getResult(0).getType());
  return !type || getTotalElemsPerThread(layout, type.getShape()) %
                          inlineAsm.getPackedElement() ==
                      0;
}

/// The layouts this pass gives values: blocked layouts (every op can be
/// lowered in them) and wgmma accumulators with their slices (only the
/// ops computing in registers: see takesWgmmaLayout).
bool isAssignable(Attribute layout) { return isRegularDistributed(layout); }

/// Whether `op` can compute in a wgmma accumulator layout or a slice of
/// one: what an attention softmax or an epilogue does between products
/// (arithmetic, row reductions, expand_dims, broadcast, splats and
/// ranges).  Memory accesses, scans and transpositions stay in blocked
/// layouts: their lowerings vectorize along a blocked layout's order.  (A
/// load can be lowered in a slice of a wgmma layout, but loading the
/// block-scaled fp8 kernel's scales there, every lane of a row loading the
/// row's scale through its own 64-bit pointer, ran at 505 TFLOP/s on the
/// H100 against 558 with a blocked load and a conversion of the 128
/// floats: 2026-11-26.)
bool takesWgmmaLayout(Operation *op) {
  if (isa<tile::BroadcastOp, tile::ExpandDimsOp, tile::ReduceOp,
          tile::SplatOp, tile::MakeRangeOp, arith::ConstantOp>(op))
    return true;
  // Pure inline PTX is arithmetic too (an exp2 partly on the FMA pipes).
  if (isa<tile::ElementwiseInlineAsmOp>(op))
    return isMemoryEffectFree(op);
  return op->hasTrait<OpTrait::Elementwise>() && isMemoryEffectFree(op) &&
         op->getNumRegions() == 0;
}

/// `value` as a conversion out of a wgmma accumulator layout (or a slice of
/// one) into a blocked one, or null.
ConvertLayoutOp conversionOutOfAccumulator(Value value) {
  auto convert = value.getDefiningOp<ConvertLayoutOp>();
  if (!convert || !isWgmmaRooted(layoutOf(convert.getSrc())) ||
      !isBlockedLike(layoutOf(convert.getResult())))
    return {};
  return convert;
}

SmallVector<int32_t> inverse(ArrayRef<int32_t> permutation) {
  SmallVector<int32_t> result(permutation.size());
  for (auto [i, d] : llvm::enumerate(permutation))
    result[d] = i;
  return result;
}

/// The layout of the tensor results of `op` when its tensor operands are
/// all in `layout`, for the ops forward propagation may re-type; failure
/// for the others.
FailureOr<Attribute> resultLayoutFor(Operation *op, Attribute layout) {
  // Accesses tilegpu-coalesce laid out keep their layout (an anchor).
  if (!isAssignable(layout) || op->hasAttr(kCoalescedAttr))
    return failure();
  if (isWgmmaRooted(layout) && !takesWgmmaLayout(op))
    return failure();
  if (!packFits(op, layout))
    return failure();
  Attribute result;
  if (isElementwise(op) || isa<tile::BroadcastOp, tile::ScanOp>(op)) {
    result = layout;
  } else if (auto expand = dyn_cast<tile::ExpandDimsOp>(op)) {
    auto slice = dyn_cast<SliceEncodingAttr>(layout);
    if (!slice || slice.getDim() != (int32_t)expand.getAxis())
      return failure();
    result = slice.getParent();
  } else if (auto reduce = dyn_cast<tile::ReduceOp>(op)) {
    // A rank-1 reduction returns scalars: nothing downstream changes.
    if (!llvm::any_of(op->getResults(), isTensor))
      return Attribute();
    result = SliceEncodingAttr::get(op->getContext(), (int32_t)reduce.getAxis(),
                                    layout);
  } else if (auto trans = dyn_cast<tile::TransOp>(op)) {
    auto blocked = dyn_cast<BlockedEncodingAttr>(layout);
    if (!blocked)
      return failure();
    result = permuteBlocked(blocked, trans.getOrder());
  } else {
    return failure();
  }
  if (!isAssignable(result))
    return failure();
  return result;
}

/// For ops cheap enough to compute again: the layout their tensor operands
/// need for the result to be in `layout` (null when they have none);
/// failure for the others.
FailureOr<Attribute> operandLayoutForRemat(Operation *op, Attribute layout) {
  if (!isAssignable(layout) || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return failure();
  if (isWgmmaRooted(layout) && !takesWgmmaLayout(op))
    return failure();
  if (!packFits(op, layout))
    return failure();
  if (isa<tile::SplatOp, tile::MakeRangeOp>(op))
    return Attribute();
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (!isa<DenseElementsAttr>(constant.getValue()))
      return failure();
    return Attribute();
  }
  if (isa<tile::BroadcastOp>(op) ||
      (isElementwise(op) && isMemoryEffectFree(op)))
    return layout;
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(op))
    return Attribute(SliceEncodingAttr::get(op->getContext(),
                                            (int32_t)expand.getAxis(), layout));
  if (auto trans = dyn_cast<tile::TransOp>(op)) {
    auto blocked = dyn_cast<BlockedEncodingAttr>(layout);
    if (!blocked)
      return failure();
    return Attribute(permuteBlocked(blocked, inverse(trans.getOrder())));
  }
  return failure();
}

/// Erases those of `ops` that are dead, then the producers of their operands
/// that die with them.  All of `ops` must be alive (not yet erased).
void eraseDead(ArrayRef<Operation *> ops) {
  llvm::SetVector<Operation *> worklist;
  for (Operation *op : ops)
    if (op)
      worklist.insert(op);
  // An op leaves the list only to be erased, and only once nothing uses
  // it, so no erased op comes back.
  while (!worklist.empty()) {
    Operation *candidate = worklist.pop_back_val();
    if (!isOpTriviallyDead(candidate))
      continue;
    for (Value operand : candidate->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.insert(def);
    candidate->erase();
  }
}

/// How to compute values again in other layouts without converting them:
/// (value, layout) pairs, operands before users.
class RematPlan {
public:
  /// `pending` are values forward propagation is about to re-type: they
  /// count with their new layout and are never computed again.
  explicit RematPlan(const DenseMap<Value, Attribute> *pending = nullptr,
                     bool convertNarrower = false)
      : pending(pending), convertNarrower(convertNarrower) {}

  /// Plans `value` in `layout`; on failure the plan is left as it was.
  LogicalResult add(Value value, Attribute layout) {
    size_t mark = order.size();
    startElements = cast<RankedTensorType>(value.getType()).getNumElements();
    if (succeeded(addImpl(value, layout, 0)))
      return success();
    for (size_t i = mark; i < order.size(); ++i) {
      planned.erase(order[i]);
      convertPoints.erase(order[i]);
    }
    order.truncate(mark);
    return failure();
  }

  /// Creates the planned ops, each right after the op it copies.
  void materialize() {
    for (auto [value, layout] : order) {
      Operation *def = value.getDefiningOp();
      if (convertPoints.contains({value, layout})) {
        OpBuilder builder(value.getContext());
        builder.setInsertionPointAfterValue(value);
        built[{value, layout}] = ConvertLayoutOp::create(
            builder, value.getLoc(),
            withEncoding(cast<RankedTensorType>(value.getType()), layout),
            value);
        continue;
      }
      if (auto convert = dyn_cast<ConvertLayoutOp>(def)) {
        built[{value, layout}] = lookup(convert.getSrc(), layout);
        continue;
      }
      OpBuilder builder(def->getContext());
      builder.setInsertionPointAfter(def);
      auto type = withEncoding(cast<RankedTensorType>(value.getType()), layout);
      Operation *copy;
      if (auto constant = dyn_cast<arith::ConstantOp>(def)) {
        auto dense = cast<DenseElementsAttr>(constant.getValue());
        copy = arith::ConstantOp::create(builder, def->getLoc(), type,
                                         dense.reshape(type));
      } else {
        Attribute operandLayout = *operandLayoutForRemat(def, layout);
        copy = builder.clone(*def);
        for (OpOperand &operand : copy->getOpOperands())
          if (isTensor(operand.get()))
            operand.set(lookup(operand.get(), operandLayout));
        copy->getResult(0).setType(type);
      }
      built[{value, layout}] = copy->getResult(0);
    }
  }

  /// `value` in `layout`: itself, or its planned copy once materialized.
  Value lookup(Value value, Attribute layout) const {
    if (currentLayout(value) == layout)
      return value == replaced ? replacement : value;
    return built.lookup({value, layout});
  }

  /// Uses `to` where the plan would use `from` in its pending layout (the
  /// result of the conversion that forward propagation removes).
  void substitute(Value from, Value to) {
    replaced = from;
    replacement = to;
  }

  bool contains(Value value, Attribute layout) const {
    return currentLayout(value) == layout || planned.contains({value, layout});
  }

private:
  Attribute currentLayout(Value value) const {
    if (pending)
      if (auto it = pending->find(value); it != pending->end())
        return it->second;
    return layoutOf(value);
  }

  /// With convertNarrower, a value the plan reaches but cannot compute
  /// again (a loop-carried value, a load) is converted where it is, when
  /// it has fewer elements than the value the plan started from: the
  /// exchange then moves a row vector, not the tile broadcast from it.
  LogicalResult convertHere(Value value, Attribute layout, unsigned depth) {
    if (!convertNarrower || depth == 0 || (pending && pending->count(value)) ||
        cast<RankedTensorType>(value.getType()).getNumElements() >=
            startElements)
      return failure();
    convertPoints.insert({value, layout});
    planned.insert({value, layout});
    order.push_back({value, layout});
    return success();
  }

  LogicalResult addImpl(Value value, Attribute layout, unsigned depth) {
    if (currentLayout(value) == layout || planned.contains({value, layout}))
      return success();
    if (depth > kMaxPlanDepth || order.size() > kMaxPlanSize ||
        (pending && pending->count(value)))
      return failure();
    Operation *def = value.getDefiningOp();
    if (!def)
      return convertHere(value, layout, depth);
    if (auto convert = dyn_cast<ConvertLayoutOp>(def)) {
      if (failed(addImpl(convert.getSrc(), layout, depth + 1)))
        return convertHere(value, layout, depth);
    } else {
      FailureOr<Attribute> operandLayout = operandLayoutForRemat(def, layout);
      if (failed(operandLayout))
        return convertHere(value, layout, depth);
      size_t mark = order.size();
      for (Value operand : def->getOperands())
        if (isTensor(operand) &&
            failed(addImpl(operand, *operandLayout, depth + 1))) {
          for (size_t i = mark; i < order.size(); ++i) {
            planned.erase(order[i]);
            convertPoints.erase(order[i]);
          }
          order.truncate(mark);
          return convertHere(value, layout, depth);
        }
    }
    planned.insert({value, layout});
    order.push_back({value, layout});
    return success();
  }

  const DenseMap<Value, Attribute> *pending;
  bool convertNarrower;
  int64_t startElements = 0;
  DenseSet<std::pair<Value, Attribute>> convertPoints;
  Value replaced, replacement;
  DenseSet<std::pair<Value, Attribute>> planned;
  SmallVector<std::pair<Value, Attribute>> order;
  DenseMap<std::pair<Value, Attribute>, Value> built;
};

/// convert(x) to x's layout is x; convert(convert(x)) converts x.
bool foldConversion(ConvertLayoutOp op) {
  SmallVector<Operation *> maybeDead;
  if (auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>()) {
    op.getSrcMutable().assign(inner.getSrc());
    maybeDead.push_back(inner);
  }
  if (op.getSrc().getType() == op.getType()) {
    op.replaceAllUsesWith(op.getSrc());
    maybeDead.push_back(op);
  }
  eraseDead(maybeDead);
  return !maybeDead.empty();
}

/// Computes the converted value again, directly in the target layout.
bool rematerialize(ConvertLayoutOp op) {
  Attribute target = op.getType().getEncoding();
  RematPlan plan;
  if (failed(plan.add(op.getSrc(), target)))
    return false;
  plan.materialize();
  op.replaceAllUsesWith(plan.lookup(op.getSrc(), target));
  eraseDead({op});
  return true;
}

/// Re-types the ops that use the conversion's result, and the ops that use
/// theirs, to the conversion's source layout, when that removes more
/// conversions than it adds.
bool propagateForward(ConvertLayoutOp op) {
  Value source = op.getSrc(), result = op.getResult();
  Attribute layout = layoutOf(source);
  if (!isAssignable(layout))
    return false;
  // Out of a wgmma accumulator (or a slice of one) into a blocked layout:
  // the ops that can compute in the accumulator's registers always do, so
  // the conversion moves down to the first op that cannot (a store, a
  // local_alloc, a loop's yield), where the data is often narrower (a
  // cast) or a row vector.  No cost model: an exchange through shared
  // memory is never cheaper than the register arithmetic it replaces, and
  // the operands from outside are computed again, or converted where they
  // are narrowest (convertNarrower).
  bool force = static_cast<bool>(conversionOutOfAccumulator(result));
  // The converse would undo the above: ops computing in an accumulator
  // layout stay there.
  if (!isWgmmaRooted(layout) && isWgmmaRooted(layoutOf(result)))
    return false;

  // The values that change layout (the conversion's result becomes its
  // source), the ops re-typed with the layout of their tensor operands, the
  // uses that keep the old layout and the conversions that take the new.
  DenseMap<Value, Attribute> newLayout;
  llvm::MapVector<Operation *, Attribute> sliceOps;
  llvm::MapVector<Value, SmallVector<OpOperand *>> keptUses;
  llvm::SetVector<ConvertLayoutOp> conversions;
  newLayout[result] = layout;
  SmallVector<Value> worklist{result};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    Attribute valueLayout = newLayout[value];
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto convert = dyn_cast<ConvertLayoutOp>(user)) {
        conversions.insert(convert);
        continue;
      }
      // Each printed tensor has a layout of its own.
      if (isa<tile::PrintOp>(user))
        continue;
      if (auto it = sliceOps.find(user); it != sliceOps.end()) {
        if (it->second != valueLayout)
          return false;
        continue;
      }
      FailureOr<Attribute> resultLayout = resultLayoutFor(user, valueLayout);
      if (failed(resultLayout)) {
        keptUses[value].push_back(&use);
        continue;
      }
      if (sliceOps.size() >= kMaxPlanSize)
        return false;
      sliceOps[user] = valueLayout;
      for (Value userResult : user->getResults()) {
        if (!isTensor(userResult))
          continue;
        newLayout[userResult] = *resultLayout;
        worklist.push_back(userResult);
      }
    }
  }

  // Operands from outside must come in the new layout: computed again when
  // cheap, else converted.
  // Forcing is for moving the conversion past ops; with none to move, the
  // cost model decides (a conversion only prints or converts use).
  force &= !sliceOps.empty();
  RematPlan plan(&newLayout, /*convertNarrower=*/force);
  plan.substitute(result, source);
  llvm::SetVector<std::pair<Value, Attribute>> toConvert;
  for (auto [user, userLayout] : sliceOps) {
    for (Value operand : user->getOperands()) {
      if (!isTensor(operand))
        continue;
      if (auto it = newLayout.find(operand); it != newLayout.end()) {
        if (it->second != userLayout)
          return false;
        continue;
      }
      if (layoutOf(operand) == userLayout || plan.contains(operand, userLayout))
        continue;
      if (failed(plan.add(operand, userLayout)))
        toConvert.insert({operand, userLayout});
    }
  }
  for (auto &[value, uses] : keptUses)
    for (OpOperand *use : uses)
      if (sliceOps.contains(use->getOwner()))
        return false;

  int removed = 0, added = toConvert.size();
  // The conversion goes unless users that cannot change keep it.
  if (!keptUses.contains(result))
    ++removed;
  // Conversions of re-typed values to their new layout become no-ops.
  llvm::SmallPtrSet<Operation *, 4> removedConversions;
  for (ConvertLayoutOp convert : conversions)
    if (convert.getType().getEncoding() == newLayout[convert.getSrc()])
      removedConversions.insert(convert);
  // An operand that is itself a conversion used only by re-typed ops is
  // replaced by a conversion of its source: one for one.
  for (auto [value, valueLayout] : toConvert) {
    auto convert = value.getDefiningOp<ConvertLayoutOp>();
    if (convert && llvm::all_of(value.getUsers(), [&](Operation *user) {
          return sliceOps.contains(user);
        }))
      removedConversions.insert(convert);
  }
  removed += removedConversions.size();
  for (auto [value, uses] : keptUses)
    if (value != result)
      ++added;
  if (added >= removed && !force)
    return false;

  // Apply.
  DenseMap<Value, Type> oldTypes;
  for (auto [value, valueLayout] : newLayout) {
    if (value == result)
      continue;
    oldTypes[value] = value.getType();
    value.setType(
        withEncoding(cast<RankedTensorType>(value.getType()), valueLayout));
  }
  plan.materialize();
  DenseMap<std::pair<Value, Attribute>, Value> converted;
  SmallVector<Operation *> maybeDead;
  for (auto [user, userLayout] : sliceOps) {
    for (OpOperand &operand : user->getOpOperands()) {
      Value value = operand.get();
      if (!isTensor(value) || newLayout.contains(value) ||
          layoutOf(value) == userLayout)
        continue;
      Value replacement;
      if (toConvert.contains({value, userLayout})) {
        Value &conversion = converted[{value, userLayout}];
        if (!conversion) {
          // Convert from the first layout rather than chain conversions.
          Value from = value;
          if (auto convert = value.getDefiningOp<ConvertLayoutOp>())
            from = convert.getSrc();
          if (layoutOf(from) == userLayout) {
            conversion = from;
          } else {
            OpBuilder builder(user->getContext());
            builder.setInsertionPointAfterValue(value);
            conversion = ConvertLayoutOp::create(
                builder, value.getLoc(),
                withEncoding(cast<RankedTensorType>(value.getType()),
                             userLayout),
                from);
          }
        }
        replacement = conversion;
      } else {
        replacement = plan.lookup(value, userLayout);
      }
      maybeDead.push_back(value.getDefiningOp());
      operand.set(replacement);
    }
  }
  for (OpOperand &use : llvm::make_early_inc_range(result.getUses())) {
    Operation *user = use.getOwner();
    if (sliceOps.contains(user) || isa<ConvertLayoutOp, tile::PrintOp>(user))
      use.set(source);
  }
  for (auto &[value, uses] : keptUses) {
    if (value == result)
      continue;
    OpBuilder builder(value.getContext());
    builder.setInsertionPointAfterValue(value);
    Value back = ConvertLayoutOp::create(builder, value.getLoc(),
                                         oldTypes[value], value);
    for (OpOperand *use : uses)
      use->set(back);
  }
  for (ConvertLayoutOp convert : conversions) {
    if (convert.getSrc().getType() != convert.getType())
      continue;
    convert.replaceAllUsesWith(convert.getSrc());
    maybeDead.push_back(convert);
  }
  maybeDead.push_back(op);
  eraseDead(maybeDead);
  return true;
}

/// A loop whose body yields a value converted out of a wgmma accumulator
/// layout (or a slice of one, such as a softmax's running row maximum)
/// carries it in that layout instead: the initial value is converted once
/// before the loop, the result once after it, and the conversion inside
/// the body moves to the block argument's uses, where forward propagation
/// takes it on (and folds it against conversions back into the layout).
bool carryInAccumulatorLayout(scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [i, yielded] : llvm::enumerate(yield.getOperands())) {
    ConvertLayoutOp convert = conversionOutOfAccumulator(yielded);
    if (!convert)
      continue;
    Type oldType = yielded.getType();
    Type newType = convert.getSrc().getType();
    BlockArgument arg = loop.getRegionIterArg(i);
    Value result = loop.getResult(i);
    OpBuilder b(loop);
    OpOperand &init = loop.getInitsMutable()[i];
    init.set(ConvertLayoutOp::create(b, loop.getLoc(), newType, init.get()));
    yield->setOperand(i, convert.getSrc());
    arg.setType(newType);
    result.setType(newType);
    b.setInsertionPointToStart(loop.getBody());
    auto inBody = ConvertLayoutOp::create(b, loop.getLoc(), oldType, arg);
    arg.replaceAllUsesExcept(inBody.getResult(), inBody);
    b.setInsertionPointAfter(loop);
    auto after = ConvertLayoutOp::create(b, loop.getLoc(), oldType, result);
    result.replaceAllUsesExcept(after.getResult(), after);
    eraseDead({convert});
    return true;
  }
  return false;
}

/// The same for the results of an scf.if: when every branch yields, for
/// result i, a conversion out of one wgmma-rooted layout into a blocked
/// one, the result takes that layout and is converted once after the if.
bool carryInAccumulatorLayout(scf::IfOp ifOp) {
  if (ifOp.getNumResults() == 0 || ifOp.getElseRegion().empty())
    return false;
  SmallVector<scf::YieldOp> yields{ifOp.thenYield(), ifOp.elseYield()};
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
    Attribute layout;
    bool all = true;
    for (scf::YieldOp yield : yields) {
      ConvertLayoutOp convert = conversionOutOfAccumulator(yield.getOperand(i));
      if (!convert || (layout && layoutOf(convert.getSrc()) != layout)) {
        all = false;
        break;
      }
      layout = layoutOf(convert.getSrc());
    }
    if (!all)
      continue;
    Value result = ifOp.getResult(i);
    Type oldType = result.getType();
    SmallVector<Operation *> converts;
    for (scf::YieldOp yield : yields) {
      auto convert = yield.getOperand(i).getDefiningOp<ConvertLayoutOp>();
      yield->setOperand(i, convert.getSrc());
      converts.push_back(convert);
    }
    result.setType(withEncoding(cast<RankedTensorType>(oldType), layout));
    OpBuilder b(ifOp.getContext());
    b.setInsertionPointAfter(ifOp);
    auto after = ConvertLayoutOp::create(b, ifOp.getLoc(), oldType, result);
    result.replaceAllUsesExcept(after.getResult(), after);
    eraseDead(converts);
    return true;
  }
  return false;
}

/// A product whose A operand is a 16-bit value in a wgmma accumulator
/// layout with the product's warp arrangement (a softmax's P, once forward
/// propagation has kept it in the first product's registers), stored to
/// shared memory only for this product, reads it from registers instead
/// (the RS form of wgmma): no round trip through shared memory.
bool readOperandFromRegisters(WarpGroupDotOp dot) {
  auto alloc = dot.getA().getDefiningOp<LocalAllocOp>();
  if (!alloc || !alloc.getSrc() || !alloc->hasOneUse() ||
      !alloc.getSrc().getDefiningOp<ConvertLayoutOp>())
    return false;
  OpBuilder b(dot);
  Value a = registerOperand(b, alloc.getSrc(), dot.getAccLayout());
  if (!a)
    return false;
  Value converted = alloc.getSrc();
  dot.getAMutable().assign(a);
  alloc->erase();
  eraseDead({converted.getDefiningOp()});
  return true;
}

struct RemoveLayoutConversionsPass
    : public warpforge::tilegpu::impl::TileGPURemoveLayoutConversionsBase<
          RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    // Every successful rewrite removes a conversion or shortens a chain of
    // them; after one, the list of conversions is collected again since
    // the rewrite may have erased some.
    bool changed = true;
    // Every rewrite removes a conversion, moves one down past the ops that
    // compute in an accumulator layout, or moves one out of a loop or an
    // if; the bound is a guard against a cycle between them (every state
    // on the way is correct IR, only slower).
    unsigned rounds = 0;
    while (changed && rounds++ < kMaxRounds) {
      changed = false;
      SmallVector<ConvertLayoutOp> conversions;
      getOperation()->walk(
          [&](ConvertLayoutOp op) { conversions.push_back(op); });
      for (ConvertLayoutOp op : conversions) {
        if (foldConversion(op) || rematerialize(op) || propagateForward(op)) {
          changed = true;
          break;
        }
      }
      if (changed)
        continue;
      getOperation()->walk([&](Operation *op) {
        if (changed)
          return;
        if (auto loop = dyn_cast<scf::ForOp>(op))
          changed = carryInAccumulatorLayout(loop);
        else if (auto ifOp = dyn_cast<scf::IfOp>(op))
          changed = carryInAccumulatorLayout(ifOp);
      });
    }
    getOperation()->walk([&](WarpGroupDotOp dot) {
      readOperandFromRegisters(dot);
    });
  }
};

} // namespace
