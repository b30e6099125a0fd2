//===- AxisInfo.cpp - The axis analysis: lattice, solver, queries ---------===//
//
// The AxisInfo lattice value, the data-flow analysis driving the transfer
// functions (AxisInfoTransfer.cpp) over control flow, and the module-level
// query wrapper used by the coalescing pass.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Analysis/AxisInfo.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace warpforge;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t warpforge::highestPowerOf2Divisor(int64_t value) {
  if (value == 0)
    return AxisInfo::kMaxDivisor;
  // In unsigned arithmetic so that INT64_MIN does not overflow.
  uint64_t bits = static_cast<uint64_t>(value);
  uint64_t lowest = bits & (~bits + 1);
  return lowest >= static_cast<uint64_t>(AxisInfo::kMaxDivisor)
             ? AxisInfo::kMaxDivisor
             : static_cast<int64_t>(lowest);
}

int64_t warpforge::getPointeeByteWidth(Type type) {
  auto ptrType = dyn_cast<tile::PointerType>(getElementTypeOrSelf(type));
  if (!ptrType)
    return 0;
  Type pointee = ptrType.getPointeeType();
  if (isa<tile::PointerType>(pointee))
    return 8;
  return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
}

SmallVector<int64_t, 4> warpforge::getAxisShape(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || tensorType.getRank() == 0)
    return {1};
  return SmallVector<int64_t, 4>(tensorType.getShape());
}

//===----------------------------------------------------------------------===//
// AxisInfo
//===----------------------------------------------------------------------===//

AxisInfo::AxisInfo(DimVector contiguity, DimVector divisibility,
                   DimVector constancy, std::optional<int64_t> constantValue)
    : contiguity(std::move(contiguity)), divisibility(std::move(divisibility)),
      constancy(std::move(constancy)), constantValue(constantValue) {
  assert(this->contiguity.size() == this->divisibility.size() &&
         this->contiguity.size() == this->constancy.size() &&
         "one entry per dimension in each vector");
}

AxisInfo AxisInfo::getPessimisticState(Type type) {
  unsigned rank = getAxisShape(type).size();
  // A pointer is at least aligned to what it points to.
  int64_t divisor = 1;
  if (int64_t bytes = getPointeeByteWidth(type))
    divisor = highestPowerOf2Divisor(bytes);
  return AxisInfo(DimVector(rank, 1), DimVector(rank, divisor),
                  DimVector(rank, 1));
}

AxisInfo AxisInfo::getEntryState(Value value) {
  AxisInfo info = getPessimisticState(value.getType());
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || !arg.getOwner()->isEntryBlock())
    return info;
  // A region of tilegpu.warp_specialize is isolated from above: its
  // arguments are the op's captures, in order, and know what they know
  // (the kernel arguments' hints in the partitions' address math).
  if (auto ws = dyn_cast<tilegpu::WarpSpecializeOp>(
          arg.getOwner()->getParentOp())) {
    if (arg.getArgNumber() < ws->getNumOperands())
      if (auto outer = dyn_cast<BlockArgument>(
              ws->getOperand(arg.getArgNumber())))
        if (outer.getType() == arg.getType())
          return getEntryState(outer);
    return info;
  }
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func)
    return info;
  auto hint = func.getArgAttrOfType<IntegerAttr>(
      arg.getArgNumber(), tile::TileDialect::kDivisibility);
  if (!hint || !hint.getValue().isStrictlyPositive())
    return info;
  int64_t divisor = highestPowerOf2Divisor(
      hint.getValue().getLimitedValue(static_cast<uint64_t>(kMaxDivisor)));
  for (int64_t &d : info.divisibility)
    d = std::max(d, divisor);
  return info;
}

int64_t AxisInfo::getDivisibilityAt(unsigned dim, int64_t runLength,
                                    int64_t step) const {
  // Positions that are multiples of runLength start runs of this value when
  // runLength is a multiple of the contiguity; otherwise they may fall inside
  // a run, at v + k * runLength * step.
  if (runLength % contiguity[dim] == 0)
    return divisibility[dim];
  return std::min(divisibility[dim], runLength * step);
}

int64_t AxisInfo::getElementDivisibility() const {
  int64_t result = 1;
  for (unsigned d = 0; d < getRank(); ++d) {
    // Consecutive values: one of any two is odd.
    if (contiguity[d] > 1)
      return 1;
    // Runs of one: every element is a multiple of this dimension's divisor.
    result = std::max(result, divisibility[d]);
  }
  return result;
}

SmallVector<unsigned, 4> AxisInfo::getOrder() const {
  SmallVector<unsigned, 4> order(getRank());
  std::iota(order.rbegin(), order.rend(), 0);
  std::stable_sort(order.begin(), order.end(), [&](unsigned a, unsigned b) {
    return contiguity[a] > contiguity[b];
  });
  return order;
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.isInitialized())
    return rhs;
  if (!rhs.isInitialized())
    return lhs;
  unsigned rank = lhs.getRank();
  if (rhs.getRank() != rank)
    return AxisInfo(DimVector(rank, 1), DimVector(rank, 1), DimVector(rank, 1));
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t run = std::min(lhs.contiguity[d], rhs.contiguity[d]);
    contiguity.push_back(run);
    divisibility.push_back(
        std::min(lhs.getDivisibilityAt(d, run), rhs.getDivisibilityAt(d, run)));
    constancy.push_back(std::min(lhs.constancy[d], rhs.constancy[d]));
  }
  std::optional<int64_t> constant;
  if (lhs.constantValue == rhs.constantValue)
    constant = lhs.constantValue;
  return AxisInfo(std::move(contiguity), std::move(divisibility),
                  std::move(constancy), constant);
}

void AxisInfo::print(raw_ostream &os) const {
  if (!isInitialized()) {
    os << "<uninitialized>";
    return;
  }
  auto printList = [&](StringRef name, ArrayRef<int64_t> values) {
    os << name << " = [";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  printList("contiguity", contiguity);
  os << ", ";
  printList("divisibility", divisibility);
  os << ", ";
  printList("constancy", constancy);
  os << ", constant_value = ";
  if (constantValue)
    os << *constantValue;
  else
    os << "<none>";
}

//===----------------------------------------------------------------------===//
// AxisInfoAnalysis
//===----------------------------------------------------------------------===//

void AxisInfoAnalysis::setToEntryState(AxisInfoLattice *lattice) {
  propagateIfChanged(
      lattice, lattice->join(AxisInfo::getEntryState(lattice->getAnchor())));
}

LogicalResult
AxisInfoAnalysis::visitOperation(Operation *op,
                                 ArrayRef<const AxisInfoLattice *> operands,
                                 ArrayRef<AxisInfoLattice *> results) {
  SmallVector<AxisInfo, 4> operandInfos;
  for (const AxisInfoLattice *operand : operands) {
    // Wait until every operand is reached: the op is visited again when an
    // operand's lattice changes.
    if (!operand->getValue().isInitialized())
      return success();
    operandInfos.push_back(operand->getValue());
  }
  SmallVector<AxisInfo, 1> resultInfos = computeAxisInfo(op, operandInfos);
  for (auto [lattice, info] : llvm::zip_equal(results, resultInfos)) {
    AxisInfo hinted = applyHints(op, lattice->getAnchor().getType(), info);
    propagateIfChanged(lattice, lattice->join(hinted));
  }
  return success();
}

void AxisInfoAnalysis::visitNonControlFlowArguments(
    Operation *op, const RegionSuccessor &successor,
    ArrayRef<AxisInfoLattice *> argLattices, unsigned firstIndex) {
  auto loop = dyn_cast<LoopLikeOpInterface>(op);
  std::optional<SmallVector<Value>> ivs;
  std::optional<SmallVector<OpFoldResult>> lowerBounds, steps;
  if (loop) {
    ivs = loop.getLoopInductionVars();
    lowerBounds = loop.getLoopLowerBounds();
    steps = loop.getLoopSteps();
  }
  if (!ivs || !lowerBounds || !steps || ivs->size() != lowerBounds->size() ||
      ivs->size() != steps->size() || !successor.getSuccessor())
    return SparseForwardDataFlowAnalysis::visitNonControlFlowArguments(
        op, successor, argLattices, firstIndex);

  // The divisor of every element of a loop bound: known from its lattice or
  // its constant; std::nullopt until its lattice is reached.
  auto boundDivisor = [&](OpFoldResult bound,
                          Block *body) -> std::optional<int64_t> {
    if (auto attr = dyn_cast<Attribute>(bound)) {
      if (auto intAttr = dyn_cast<IntegerAttr>(attr))
        return highestPowerOf2Divisor(intAttr.getValue().getSExtValue());
      return 1;
    }
    const AxisInfoLattice *lattice =
        getLatticeElementFor(getProgramPointBefore(body), cast<Value>(bound));
    if (!lattice->getValue().isInitialized())
      return std::nullopt;
    return lattice->getValue().getElementDivisibility();
  };

  llvm::SmallPtrSet<AxisInfoLattice *, 4> handled;
  for (auto [iv, lowerBound, step] : llvm::zip(*ivs, *lowerBounds, *steps)) {
    AxisInfoLattice *lattice = getLatticeElement(iv);
    if (!llvm::is_contained(argLattices, lattice))
      continue;
    handled.insert(lattice);
    Block *body = cast<BlockArgument>(iv).getOwner();
    std::optional<int64_t> lbDivisor = boundDivisor(lowerBound, body);
    std::optional<int64_t> stepDivisor = boundDivisor(step, body);
    if (!lbDivisor || !stepDivisor)
      continue;
    // lb + k * step for k = 0, 1, ...: a multiple of both divisors' gcd.
    int64_t divisor = std::min(*lbDivisor, *stepDivisor);
    AxisInfo info({1}, {divisor}, {1});
    propagateIfChanged(lattice, lattice->join(info));
  }
  // Everything else not forwarded by control flow: nothing known.
  unsigned numInputs = successor.getSuccessorInputs().size();
  for (auto [index, lattice] : llvm::enumerate(argLattices)) {
    bool forwarded = index >= firstIndex && index < firstIndex + numInputs;
    if (!forwarded && !handled.contains(lattice))
      setToEntryState(lattice);
  }
}

//===----------------------------------------------------------------------===//
// ModuleAxisInfoAnalysis
//===----------------------------------------------------------------------===//

ModuleAxisInfoAnalysis::ModuleAxisInfoAnalysis(Operation *root) {
  // DeadCodeAnalysis decides which blocks and region successors are live;
  // SparseConstantPropagation lets it resolve constant branch conditions.
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<AxisInfoAnalysis>();
  solved = mlir::succeeded(solver.initializeAndRun(root));
}

AxisInfo ModuleAxisInfoAnalysis::getAxisInfo(Value value) const {
  if (solved)
    if (const auto *lattice = solver.lookupState<AxisInfoLattice>(value))
      if (lattice->getValue().isInitialized())
        return lattice->getValue();
  return AxisInfo::getPessimisticState(value.getType());
}

SmallVector<unsigned, 4> ModuleAxisInfoAnalysis::getOrder(Value value) const {
  return getAxisInfo(value).getOrder();
}

SmallVector<int64_t, 4>
ModuleAxisInfoAnalysis::getPtrContiguity(Value ptr) const {
  return SmallVector<int64_t, 4>(getAxisInfo(ptr).getContiguity());
}

int64_t ModuleAxisInfoAnalysis::getPtrAlignment(Value ptr, unsigned dim) const {
  AxisInfo info = getAxisInfo(ptr);
  if (dim >= info.getRank())
    return 1;
  int64_t elementBytes =
      std::max<int64_t>(1, getPointeeByteWidth(ptr.getType()));
  int64_t alignedElements =
      std::max<int64_t>(1, info.getDivisibility(dim) / elementBytes);
  return std::min(info.getContiguity(dim), alignedElements);
}

int64_t ModuleAxisInfoAnalysis::getPtrAlignment(Value ptr) const {
  return getPtrAlignment(ptr, getOrder(ptr).front());
}

int64_t ModuleAxisInfoAnalysis::getMaskAlignment(Value mask,
                                                 unsigned dim) const {
  AxisInfo info = getAxisInfo(mask);
  if (dim >= info.getRank())
    return 1;
  return std::max<int64_t>(1, info.getConstancy(dim));
}

int64_t ModuleAxisInfoAnalysis::getAccessVectorWidth(Value ptr,
                                                     Value mask) const {
  unsigned dim = getOrder(ptr).front();
  int64_t width = getPtrAlignment(ptr, dim);
  if (mask)
    width = std::min(width, getMaskAlignment(mask, dim));
  int64_t elementBytes =
      std::max<int64_t>(1, getPointeeByteWidth(ptr.getType()));
  return std::max<int64_t>(1, std::min(width, 16 / elementBytes));
}
