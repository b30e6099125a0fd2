//===- PointerBlock.cpp - Pointer loads that are TMA blocks ---------------===//
//
// See PointerBlock.h: each match below is one term of the block's address,
// and anything it does not recognize leaves the load to cp.async.
//
//===----------------------------------------------------------------------===//

#include "PointerBlock.h"

#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

std::optional<int64_t> getConstantInt(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// A tensor every element of which is one scalar: a splat, or a splat
/// constant.
std::optional<ScalarTerm> matchSplat(Value v) {
  if (auto splat = v.getDefiningOp<tile::SplatOp>()) {
    if (std::optional<int64_t> c = getConstantInt(splat.getSrc()))
      return ScalarTerm{Value(), *c};
    return ScalarTerm{splat.getSrc(), 0};
  }
  DenseIntElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return ScalarTerm{Value(), dense.getSplatValue<APInt>().getSExtValue()};
  return std::nullopt;
}

/// `start + [0, n)`: tile.make_range from 0 to n, plus a splat or not.
std::optional<ScalarTerm> matchRange(Value v, int64_t n) {
  auto isRange = [&](Value r) {
    auto range = r.getDefiningOp<tile::MakeRangeOp>();
    return range && range.getStart() == 0 && range.getEnd() == n;
  };
  if (isRange(v))
    return ScalarTerm{Value(), 0};
  if (auto add = v.getDefiningOp<arith::AddIOp>())
    for (auto [x, y] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())})
      if (isRange(y))
        if (std::optional<ScalarTerm> start = matchSplat(x))
          return start;
  return std::nullopt;
}

/// One dimension's share of a 2-D offset tensor of `shape`:
/// broadcast(expand_dims(start + [0, shape[dim]]) [* splat(scale)]).
struct AxisTerm {
  unsigned dim;
  ScalarTerm start, scale;
};

std::optional<AxisTerm> matchAxisTerm(Value v, ArrayRef<int64_t> shape) {
  if (auto broadcast = v.getDefiningOp<tile::BroadcastOp>())
    v = broadcast.getSrc();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 2)
    return std::nullopt;
  unsigned dim;
  if (type.getShape() == ArrayRef<int64_t>{shape[0], 1})
    dim = 0;
  else if (type.getShape() == ArrayRef<int64_t>{1, shape[1]})
    dim = 1;
  else
    return std::nullopt;
  ScalarTerm scale{Value(), 1};
  Value expanded = v;
  if (auto mul = v.getDefiningOp<arith::MulIOp>()) {
    expanded = Value();
    for (auto [x, y] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())})
      if (x.getDefiningOp<tile::ExpandDimsOp>())
        if (std::optional<ScalarTerm> s = matchSplat(y)) {
          expanded = x;
          scale = *s;
          break;
        }
    if (!expanded)
      return std::nullopt;
  }
  auto expand = expanded.getDefiningOp<tile::ExpandDimsOp>();
  if (!expand || expand.getAxis() != static_cast<int32_t>(1 - dim))
    return std::nullopt;
  std::optional<ScalarTerm> start = matchRange(expand.getSrc(), shape[dim]);
  if (!start)
    return std::nullopt;
  return AxisTerm{dim, *start, scale};
}

bool sameTerm(const ScalarTerm &a, const ScalarTerm &b) {
  return a.isConstant() ? b.isConstant() && a.constant == b.constant
                        : a.value == b.value;
}

/// Whether `term` (a count of elements of `elemBytes` bytes) is a multiple
/// of 16 bytes.
bool isMultipleOf16Bytes(const ScalarTerm &term, int64_t elemBytes,
                         const ModuleAxisInfoAnalysis &axisInfo) {
  if (term.isConstant())
    return term.constant > 0 && (term.constant * elemBytes) % 16 == 0;
  AxisInfo info = axisInfo.getAxisInfo(term.value);
  return info.getRank() >= 1 && (info.getDivisibility(0) * elemBytes) % 16 == 0;
}

} // namespace

std::optional<PointerBlock>
warpforge::tilegpu::matchPointerBlock(tile::LoadOp load, LocalAllocOp alloc,
                                      scf::ForOp loop,
                                      const ModuleAxisInfoAnalysis &axisInfo) {
  // Unmasked: every element is one the program reads.
  if (load.getMask() || load.getOther() || load.getIsVolatile())
    return std::nullopt;
  auto ptrType = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!ptrType || ptrType.getRank() != 2 || ptrType.getDimSize(0) < 2 ||
      ptrType.getDimSize(1) < 2)
    return std::nullopt;
  ArrayRef<int64_t> shape = ptrType.getShape();
  Type elem = cast<tile::PointerType>(ptrType.getElementType()).getPointeeType();
  int64_t elemBytes = elem.getIntOrFloatBitWidth() / 8;
  if (elemBytes == 0)
    return std::nullopt;

  // The pointers the loop advances: first value and step.
  auto arg = dyn_cast<BlockArgument>(load.getPtr());
  if (!arg || arg.getOwner() != loop.getBody() ||
      arg == loop.getInductionVar())
    return std::nullopt;
  PointerBlock block;
  block.iterArg = arg.getArgNumber() - loop.getNumInductionVars();
  Value init = loop.getInitArgs()[block.iterArg];
  Value next = loop.getBody()->getTerminator()->getOperand(block.iterArg);

  // base + (row + i) * stride + (col + j)
  auto first = init.getDefiningOp<tile::AddPtrOp>();
  if (!first)
    return std::nullopt;
  auto baseSplat = first.getPtr().getDefiningOp<tile::SplatOp>();
  if (!baseSplat)
    return std::nullopt;
  block.base = baseSplat.getSrc();
  auto sum = first.getOffset().getDefiningOp<arith::AddIOp>();
  if (!sum)
    return std::nullopt;
  std::optional<AxisTerm> x = matchAxisTerm(sum.getLhs(), shape);
  std::optional<AxisTerm> y = matchAxisTerm(sum.getRhs(), shape);
  if (!x || !y || x->dim == y->dim)
    return std::nullopt;
  const AxisTerm &rows = x->dim == 0 ? *x : *y;
  const AxisTerm &cols = x->dim == 0 ? *y : *x;
  // The TMA's innermost stride is one element.
  if (!cols.scale.isConstant() || cols.scale.constant != 1)
    return std::nullopt;
  block.stride = rows.scale;
  block.row = rows.start;
  block.col = cols.start;

  // Each iteration: pointers += splat(c) (c columns on: the addresses
  // are linear in both coordinates, and the map's bounds never cut) or
  // += splat(stride * c) (c rows down).
  auto advance = next.getDefiningOp<tile::AddPtrOp>();
  if (!advance || advance.getPtr() != arg)
    return std::nullopt;
  std::optional<ScalarTerm> inc = matchSplat(advance.getOffset());
  if (!inc)
    return std::nullopt;
  if (inc->isConstant()) {
    block.colStep = inc->constant;
  } else if (!block.stride.isConstant() && inc->value == block.stride.value) {
    block.rowStep = 1;
  } else if (auto mul = inc->value.getDefiningOp<arith::MulIOp>()) {
    for (auto [s, c] : {std::pair(mul.getLhs(), mul.getRhs()),
                        std::pair(mul.getRhs(), mul.getLhs())}) {
      std::optional<int64_t> factor = getConstantInt(c);
      if (factor && sameTerm(ScalarTerm{s, 0}, block.stride)) {
        block.rowStep = *factor;
        break;
      }
    }
    if (block.rowStep == 0)
      return std::nullopt;
  } else {
    return std::nullopt;
  }

  // The producer makes the map once, before its loops, from values of
  // the kernel's scope; the coordinates are 32-bit.
  auto atKernelScope = [](Value v) {
    return !v ||
           isa<FunctionOpInterface>(v.getParentRegion()->getParentOp());
  };
  auto is32Bit = [](const ScalarTerm &t) {
    return t.isConstant() || t.value.getType().isInteger(32);
  };
  if (!atKernelScope(block.base) || !atKernelScope(block.stride.value) ||
      !is32Bit(block.row) || !is32Bit(block.col) ||
      (!block.stride.isConstant() &&
       !isa<IntegerType>(block.stride.value.getType())))
    return std::nullopt;

  // The TMA's rules, proven: a 16-byte aligned base, rows of 16-byte
  // multiples.
  AxisInfo baseInfo = axisInfo.getAxisInfo(block.base);
  if (baseInfo.getRank() < 1 || baseInfo.getDivisibility(0) % 16 != 0 ||
      !isMultipleOf16Bytes(block.stride, elemBytes, axisInfo))
    return std::nullopt;

  // The buffer the TMA writes is the one the product reads.
  block.blockType = RankedTensorType::get(shape, elem);
  MemDescType buffer = getTMABufferType(block.blockType);
  MemDescType want = alloc.getType();
  if (buffer.getEncoding() != want.getEncoding() ||
      buffer.getShape() != want.getShape() ||
      buffer.getElementType() != want.getElementType())
    return std::nullopt;
  return block;
}
