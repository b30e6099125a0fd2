//===- Coalesce.cpp - A layout per memory access, from its contiguity ------===//
//
// convert-tile-to-tilegpu gives every tensor the default blocked layout of
// its shape, whose threads run along the last dimension.  A load or store
// whose addresses are contiguous along another dimension (a column-major
// operand, B of an fp8 matmul stored K-major) then has each thread access
// one element per register, and a warp touches a cache line per lane.
//
// For each tile.load and tile.store whose pointer tensor is most
// contiguous along a dimension other than its layout's fastest one, this
// pass gives the access a blocked layout running along that dimension,
// with up to 16 bytes per thread there (bounded by the contiguity, the
// pointer's alignment and the mask's constancy: the vector the lowering
// will emit), and converts the operands into it and the result back.
// The access is marked `tilegpu.coalesced`: tilegpu-remove-layout-
// conversions moves the conversions away from it where it can, but never
// re-types the access itself (storing a transposed tile element by element
// to spare the exchange through shared memory lost the 16-byte stores
// Triton makes); a matmul operand converted back is stored into shared
// memory straight from the coalesced registers.
//
// A pointer a loop carries (`ptrs += step` each iteration) is carried in
// the new layout: the loop's argument, result and yielded value are
// re-typed, with conversions at the edges, so that no conversion of
// pointers stays inside the loop.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Analysis/AxisInfo.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

#include <algorithm>

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUCOALESCE
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

constexpr int64_t kMaxAccessBytes = 16;

/// The layout an access through `ptr` (optional `mask`) should use, or null
/// when its current layout already runs along the most contiguous
/// dimension (or no dimension is contiguous).
BlockedEncodingAttr chooseLayout(Value ptr, Value mask, unsigned numWarps,
                                 unsigned threadsPerWarp,
                                 const ModuleAxisInfoAnalysis &axisInfo) {
  auto type = cast<RankedTensorType>(ptr.getType());
  auto current = dyn_cast_or_null<BlockedEncodingAttr>(type.getEncoding());
  if (!current || type.getRank() < 2)
    return {};
  SmallVector<unsigned, 4> byContiguity = axisInfo.getOrder(ptr);
  unsigned fastest = byContiguity[0];
  SmallVector<int64_t, 4> contiguity = axisInfo.getPtrContiguity(ptr);
  ArrayRef<unsigned> order = current.getOrder();
  if (contiguity[fastest] <= 1 || fastest == order[0] ||
      contiguity[fastest] <= contiguity[order[0]])
    return {};

  // The new fastest dimension, then the others in their current order.
  SmallVector<unsigned> newOrder{fastest};
  for (unsigned d : order)
    if (d != fastest)
      newOrder.push_back(d);

  int64_t elemBytes = std::max<int64_t>(1, getPointeeByteWidth(type));
  int64_t vector = std::min<int64_t>(
      {kMaxAccessBytes / elemBytes, axisInfo.getPtrAlignment(ptr, fastest)});
  if (mask)
    vector = std::min(vector, axisInfo.getMaskAlignment(mask, fastest));
  int64_t perThread =
      type.getNumElements() / (int64_t(threadsPerWarp) * numWarps);
  unsigned sizePerThread =
      std::clamp<int64_t>(perThread, 1, std::max<int64_t>(1, vector));
  return BlockedEncodingAttr::getDefault(type.getContext(), type.getShape(),
                                         sizePerThread, threadsPerWarp,
                                         numWarps, newOrder);
}

/// Whether an access through `ptr` already runs along its most contiguous
/// dimension, with more than one element to a vector there.
bool alreadyCoalesced(Value ptr, const ModuleAxisInfoAnalysis &axisInfo) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  auto current =
      type ? dyn_cast_or_null<BlockedEncodingAttr>(type.getEncoding()) : nullptr;
  if (!current || type.getRank() < 2)
    return false;
  unsigned fastest = axisInfo.getOrder(ptr)[0];
  return fastest == current.getOrder()[0] &&
         axisInfo.getPtrContiguity(ptr)[fastest] > 1 &&
         current.getSizePerThread()[fastest] > 1;
}

Value convertTo(OpBuilder &b, Value value, Attribute layout) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getEncoding() == layout)
    return value;
  return ConvertLayoutOp::create(b, value.getLoc(), withEncoding(type, layout),
                                 value);
}

/// Re-types the pointer `arg` a loop carries to `layout`: the initial value
/// is converted before the loop, the yielded one before the yield, the
/// result after the loop, and the argument's users get it back in its old
/// layout (a conversion the load's own conversion then folds with).
void carryInLayout(BlockArgument arg, scf::ForOp loop, Attribute layout) {
  auto oldType = cast<RankedTensorType>(arg.getType());
  Type newType = withEncoding(oldType, layout);
  unsigned index = arg.getArgNumber() - loop.getNumInductionVars();
  OpOperand &init = loop.getInitArgsMutable()[index];
  OpResult result = loop->getResult(index);
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());

  OpBuilder b(loop);
  init.set(convertTo(b, init.get(), layout));
  b.setInsertionPoint(yield);
  yield->setOperand(index, convertTo(b, yield.getOperand(index), layout));

  arg.setType(newType);
  b.setInsertionPointToStart(loop.getBody());
  auto back = ConvertLayoutOp::create(b, arg.getLoc(), oldType, arg);
  arg.replaceAllUsesExcept(back, back);

  result.setType(newType);
  b.setInsertionPointAfter(loop);
  auto after = ConvertLayoutOp::create(b, loop.getLoc(), oldType, result);
  result.replaceAllUsesExcept(after, after);
}

/// The loop carrying `ptr` as an argument, for which the access may re-type
/// it: a tensor of pointers the loop itself advances.
scf::ForOp carryingLoop(Value ptr) {
  auto arg = dyn_cast<BlockArgument>(ptr);
  if (!arg)
    return {};
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getArgNumber() < loop.getNumInductionVars())
    return {};
  return loop;
}

struct CoalescePass : public tilegpu::impl::TileGPUCoalesceBase<CoalescePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Only modules with layouts (stamped by convert-tile-to-tilegpu).
    if (!hasCompileOptions(module))
      return;
    unsigned numWarps = getNumWarps(module);
    unsigned threadsPerWarp = getThreadsPerWarp(module);
    // Decide every access on the untouched IR (the analysis describes it).
    ModuleAxisInfoAnalysis axisInfo(module);
    SmallVector<std::pair<Operation *, BlockedEncodingAttr>> plans;
    SmallVector<Operation *> anchors;
    module.walk([&](Operation *op) {
      Value ptr, mask;
      if (auto load = dyn_cast<tile::LoadOp>(op))
        ptr = load.getPtr(), mask = load.getMask();
      else if (auto store = dyn_cast<tile::StoreOp>(op))
        ptr = store.getPtr(), mask = store.getMask();
      else
        return;
      if (!isa<RankedTensorType>(ptr.getType()))
        return;
      if (BlockedEncodingAttr layout =
              chooseLayout(ptr, mask, numWarps, threadsPerWarp, axisInfo))
        plans.push_back({op, layout});
      else if (alreadyCoalesced(ptr, axisInfo))
        anchors.push_back(op);
    });
    // Accesses whose layout already runs along their contiguous dimension
    // are anchors too: a transposing copy's store must not take its
    // coalesced load's layout (Triton's test_permute: both sides 16-byte
    // accesses, the exchange through shared memory between them).
    for (Operation *op : anchors)
      op->setAttr(kCoalescedAttr, OpBuilder(op).getUnitAttr());

    for (auto [op, layout] : plans) {
      // The same pointer chain may serve several accesses: re-type it once.
      Value ptr = op->getOperand(0);
      if (scf::ForOp loop = carryingLoop(ptr))
        if (cast<RankedTensorType>(ptr.getType()).getEncoding() != layout)
          carryInLayout(cast<BlockArgument>(ptr), loop, layout);
      OpBuilder b(op);
      SmallVector<Value> operands;
      for (Value operand : op->getOperands())
        operands.push_back(isa<RankedTensorType>(operand.getType())
                               ? convertTo(b, operand, layout)
                               : operand);
      SmallVector<Type> resultTypes;
      for (Type type : op->getResultTypes())
        resultTypes.push_back(
            withEncoding(cast<RankedTensorType>(type), layout));
      Operation *access = b.clone(*op);
      access->setOperands(operands);
      access->setAttr(kCoalescedAttr, b.getUnitAttr());
      for (auto [result, type] : llvm::zip(access->getResults(), resultTypes))
        result.setType(type);
      for (auto [oldResult, newResult] :
           llvm::zip(op->getResults(), access->getResults()))
        oldResult.replaceAllUsesWith(
            convertTo(b, newResult,
                      cast<RankedTensorType>(oldResult.getType()).getEncoding()));
      op->erase();
    }
  }
};

} // namespace
