//===- AxisInfoTransfer.cpp - Transfer functions of the axis analysis -----===//
//
// How each op maps the AxisInfo of its operands to that of its results.  The
// file comment of AxisInfo.h defines the three quantities; every rule below
// keeps them true, given that C, D and K are powers of two and runs are
// aligned (run k of length C covers positions [kC, (k+1)C)).
//
// The recurring argument: an aligned block of g positions (g a power of two)
// lies inside one run of x when g <= C(x), and its first value is a multiple
// of g when g <= D(x) (the block starts at the run's start plus a multiple of
// g).  A comparison against n, a division or remainder by n, is then constant
// or contiguous over the block when n is constant over it (g <= K(n)) and a
// multiple of g.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Analysis/AxisInfo.h"

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace warpforge;

using DimVector = AxisInfo::DimVector;

namespace {

//===----------------------------------------------------------------------===//
// Building results
//===----------------------------------------------------------------------===//

/// The longest aligned run that tiles a dimension of `size` elements.
int64_t runLimit(int64_t size) { return highestPowerOf2Divisor(size); }

/// a * b for powers of two, saturating at kMaxDivisor.
int64_t mulDivisors(int64_t a, int64_t b) {
  if (a > AxisInfo::kMaxDivisor / b)
    return AxisInfo::kMaxDivisor;
  return a * b;
}

/// The AxisInfo of a value of `type`, made consistent: every entry a power of
/// two, runs no longer than the dimension, and a known constant fully
/// constant with its own divisibility.
AxisInfo makeInfo(Type type, DimVector contiguity, DimVector divisibility,
                  DimVector constancy,
                  std::optional<int64_t> constant = std::nullopt) {
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t limit = runLimit(shape[d]);
    divisibility[d] =
        highestPowerOf2Divisor(std::max<int64_t>(divisibility[d], 1));
    // Shorter runs nest in the longer ones; runs that no longer start where
    // the longer ones did start at multiples of their length past them.
    int64_t requested = std::max<int64_t>(contiguity[d], 1);
    contiguity[d] = std::min(highestPowerOf2Divisor(requested), limit);
    if (contiguity[d] < requested)
      divisibility[d] = std::min(divisibility[d], contiguity[d]);
    constancy[d] = std::min(
        highestPowerOf2Divisor(std::max<int64_t>(constancy[d], 1)), limit);
    if (constant) {
      contiguity[d] = 1;
      constancy[d] = limit;
      divisibility[d] =
          std::max(divisibility[d], highestPowerOf2Divisor(*constant));
    }
  }
  return AxisInfo(std::move(contiguity), std::move(divisibility),
                  std::move(constancy), constant);
}

/// A value with nothing known but its constancy.
AxisInfo constancyOnly(Type type, DimVector constancy) {
  AxisInfo pessimistic = AxisInfo::getPessimisticState(type);
  unsigned rank = pessimistic.getRank();
  return makeInfo(type, DimVector(rank, 1),
                  DimVector(pessimistic.getDivisibility()),
                  std::move(constancy));
}

/// Per-dimension minimum of the constancies.
DimVector minConstancy(const AxisInfo &a, const AxisInfo &b) {
  DimVector result;
  for (unsigned d = 0; d < a.getRank(); ++d)
    result.push_back(std::min(a.getConstancy(d), b.getConstancy(d)));
  return result;
}

//===----------------------------------------------------------------------===//
// Integer constants
//===----------------------------------------------------------------------===//

/// The bit width of integer (or index, or pointer) elements; 0 otherwise.
unsigned getIntWidth(Type type) {
  Type elem = getElementTypeOrSelf(type);
  if (elem.isIndex() || isa<tile::PointerType>(elem))
    return 64;
  if (auto intType = dyn_cast<IntegerType>(elem))
    return intType.getWidth();
  return 0;
}

APInt toAPInt(int64_t value, unsigned width) {
  return APInt(width, static_cast<uint64_t>(value), /*isSigned=*/true,
               /*implicitTrunc=*/true);
}

/// Constants are kept sign-extended, except i1, kept as 0 or 1.
int64_t fromAPInt(const APInt &value) {
  if (value.getBitWidth() == 1)
    return value.getZExtValue();
  return value.getSExtValue();
}

/// a + b modulo 2^64, as the 64-bit hardware computes it.
int64_t wrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}

bool isConstant(const AxisInfo &info, int64_t value) {
  return info.getConstantValue() == value;
}

/// The AxisInfo of a dense integer constant, measured on its elements.
AxisInfo analyzeDenseInts(Type type, DenseIntElementsAttr attr) {
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  unsigned rank = shape.size();
  constexpr int64_t kMaxElements = 1 << 16;
  if (attr.getNumElements() > kMaxElements)
    return AxisInfo::getPessimisticState(type);
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(fromAPInt(v));

  // Row-major strides; elements at index[d] % run != 0 continue a run.
  SmallVector<int64_t, 4> strides(rank, 1);
  for (int d = static_cast<int>(rank) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  auto indexAlong = [&](int64_t flat, unsigned d) {
    return (flat / strides[d]) % shape[d];
  };
  // The longest run g (a power of two dividing the dimension) such that
  // inside every aligned run each value is `step` more than the previous.
  auto longestRun = [&](unsigned d, int64_t step) {
    for (int64_t run = runLimit(shape[d]); run > 1; run /= 2) {
      bool ok = true;
      for (int64_t i = 0; ok && i < static_cast<int64_t>(values.size()); ++i)
        if (indexAlong(i, d) % run != 0)
          ok = values[i] == wrappingAdd(values[i - strides[d]], step);
      if (ok)
        return run;
    }
    return int64_t(1);
  };

  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < rank; ++d) {
    int64_t run = longestRun(d, 1);
    int64_t divisor = AxisInfo::kMaxDivisor;
    for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i)
      if (indexAlong(i, d) % run == 0)
        divisor = std::min(divisor, highestPowerOf2Divisor(values[i]));
    contiguity.push_back(run);
    divisibility.push_back(divisor);
    constancy.push_back(longestRun(d, 0));
  }
  return makeInfo(type, contiguity, divisibility, constancy);
}

AxisInfo visitConstant(arith::ConstantOp op) {
  Type type = op.getType();
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  unsigned rank = shape.size();
  DimVector ones(rank, 1);
  if (auto intAttr = dyn_cast<IntegerAttr>(op.getValue()))
    return makeInfo(type, ones, ones, ones, fromAPInt(intAttr.getValue()));
  if (auto dense = dyn_cast<DenseIntElementsAttr>(op.getValue())) {
    if (dense.isSplat())
      return makeInfo(type, ones, ones, ones,
                      fromAPInt(dense.getSplatValue<APInt>()));
    return analyzeDenseInts(type, dense);
  }
  // A splat of a float: equal everywhere, nothing else to say.
  if (auto dense = dyn_cast<DenseElementsAttr>(op.getValue()))
    if (dense.isSplat())
      return constancyOnly(type, DimVector(shape));
  return AxisInfo::getPessimisticState(type);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

AxisInfo visitMakeRange(tile::MakeRangeOp op) {
  // The bounds are i32 attributes, read as unsigned by their accessors.
  int64_t start = static_cast<int32_t>(op.getStart());
  int64_t size = static_cast<int32_t>(op.getEnd()) - start;
  return makeInfo(op.getType(), {size}, {highestPowerOf2Divisor(start)}, {1},
                  size == 1 ? std::optional<int64_t>(start) : std::nullopt);
}

AxisInfo visitSplat(Type type, const AxisInfo &src) {
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  unsigned rank = shape.size();
  return makeInfo(type, DimVector(rank, 1),
                  DimVector(rank, src.getElementDivisibility()),
                  DimVector(shape), src.getConstantValue());
}

AxisInfo visitBroadcast(Type srcType, Type type, const AxisInfo &src) {
  SmallVector<int64_t, 4> srcShape = getAxisShape(srcType);
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  if (srcShape.size() != shape.size() || src.getRank() != shape.size())
    return AxisInfo::getPessimisticState(type);
  DimVector contiguity(src.getContiguity()), constancy(src.getConstancy());
  for (unsigned d = 0; d < shape.size(); ++d) {
    if (srcShape[d] == 1 && shape[d] != 1) {
      // Every position along d repeats the one source element.
      contiguity[d] = 1;
      constancy[d] = shape[d];
    }
  }
  return makeInfo(type, contiguity, DimVector(src.getDivisibility()), constancy,
                  src.getConstantValue());
}

AxisInfo visitExpandDims(tile::ExpandDimsOp op, const AxisInfo &src) {
  Type type = op.getType();
  unsigned axis = op.getAxis();
  unsigned rank = getAxisShape(type).size();
  if (src.getRank() + 1 != rank || axis >= rank)
    return AxisInfo::getPessimisticState(type);
  DimVector contiguity(src.getContiguity()),
      divisibility(src.getDivisibility()), constancy(src.getConstancy());
  // Along the new dimension of size 1, every element is its own run.
  contiguity.insert(contiguity.begin() + axis, 1);
  divisibility.insert(divisibility.begin() + axis,
                      src.getElementDivisibility());
  constancy.insert(constancy.begin() + axis, 1);
  return makeInfo(type, contiguity, divisibility, constancy,
                  src.getConstantValue());
}

AxisInfo visitTrans(tile::TransOp op, const AxisInfo &src) {
  Type type = op.getType();
  ArrayRef<int32_t> order = op.getOrder();
  if (src.getRank() != order.size() ||
      getAxisShape(type).size() != order.size())
    return AxisInfo::getPessimisticState(type);
  DimVector contiguity, divisibility, constancy;
  for (int32_t srcDim : order) {
    contiguity.push_back(src.getContiguity(srcDim));
    divisibility.push_back(src.getDivisibility(srcDim));
    constancy.push_back(src.getConstancy(srcDim));
  }
  return makeInfo(type, contiguity, divisibility, constancy,
                  src.getConstantValue());
}

AxisInfo visitReshape(tile::ReshapeOp op, const AxisInfo &src) {
  Type type = op.getType();
  SmallVector<int64_t, 4> srcShape = getAxisShape(op.getSrc().getType());
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  unsigned rank = shape.size();
  if (src.getRank() != srcShape.size())
    return AxisInfo::getPessimisticState(type);

  // What survives any reordering: every element's divisibility, and being
  // constant everywhere.
  bool allConstant = true;
  for (unsigned d = 0; d < srcShape.size(); ++d)
    allConstant &= src.getConstancy(d) == runLimit(srcShape[d]);
  DimVector contiguity(rank, 1),
      divisibility(rank, src.getElementDivisibility()),
      constancy = allConstant ? DimVector(shape) : DimVector(rank, 1);
  if (op.getAllowReorder())
    return makeInfo(type, contiguity, divisibility, constancy,
                    src.getConstantValue());

  // Only dimensions of size 1 added or removed: the others keep their info.
  SmallVector<unsigned, 4> srcDims, dims;
  for (unsigned d = 0; d < srcShape.size(); ++d)
    if (srcShape[d] != 1)
      srcDims.push_back(d);
  for (unsigned d = 0; d < rank; ++d)
    if (shape[d] != 1)
      dims.push_back(d);
  bool sameNonUnitDims =
      srcDims.size() == dims.size() &&
      llvm::all_of(llvm::zip(srcDims, dims), [&](auto pair) {
        return srcShape[std::get<0>(pair)] == shape[std::get<1>(pair)];
      });
  if (sameNonUnitDims) {
    for (auto [srcDim, dim] : llvm::zip(srcDims, dims)) {
      contiguity[dim] = src.getContiguity(srcDim);
      divisibility[dim] = src.getDivisibility(srcDim);
      constancy[dim] = src.getConstancy(srcDim);
    }
    return makeInfo(type, contiguity, divisibility, constancy,
                    src.getConstantValue());
  }

  // Row-major: the flattened order is a sequence of the source's aligned
  // runs along its last dimension, and the result's last dimension cuts it
  // into rows; runs dividing both survive.
  unsigned srcLast = srcShape.size() - 1, last = rank - 1;
  int64_t run = std::min(src.getContiguity(srcLast), runLimit(shape[last]));
  contiguity[last] = run;
  divisibility[last] = src.getDivisibilityAt(
      srcLast, run, std::max<int64_t>(1, getPointeeByteWidth(type)));
  constancy[last] =
      std::max(constancy[last],
               std::min(src.getConstancy(srcLast), runLimit(shape[last])));
  return makeInfo(type, contiguity, divisibility, constancy,
                  src.getConstantValue());
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

/// ptr + offset, or lhs + rhs (elementBytes = 1), or lhs - rhs.
AxisInfo visitAdd(Type type, const AxisInfo &lhs, const AxisInfo &rhs,
                  int64_t elementBytes, bool isSub,
                  std::optional<int64_t> constant) {
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < lhs.getRank(); ++d) {
    // Contiguous plus constant over the same run is contiguous; constant
    // minus contiguous decreases.
    int64_t run = std::min(lhs.getContiguity(d), rhs.getConstancy(d));
    if (!isSub)
      run = std::max(run, std::min(lhs.getConstancy(d), rhs.getContiguity(d)));
    contiguity.push_back(run);
    // At a run start both addends are multiples of their divisibility there
    // (the offset in elements, scaled to bytes for pointers).
    divisibility.push_back(
        std::min(lhs.getDivisibilityAt(d, run, elementBytes),
                 mulDivisors(rhs.getDivisibilityAt(d, run), elementBytes)));
    constancy.push_back(std::min(lhs.getConstancy(d), rhs.getConstancy(d)));
  }
  return makeInfo(type, contiguity, divisibility, constancy, constant);
}

AxisInfo visitAddPtr(tile::AddPtrOp op, const AxisInfo &ptr,
                     const AxisInfo &offset) {
  int64_t elementBytes = getPointeeByteWidth(op.getType());
  std::optional<int64_t> constant;
  if (ptr.getConstantValue() && offset.getConstantValue())
    constant = wrappingAdd(
        *ptr.getConstantValue(),
        static_cast<int64_t>(static_cast<uint64_t>(*offset.getConstantValue()) *
                             elementBytes));
  return visitAdd(op.getType(), ptr, offset, elementBytes, /*isSub=*/false,
                  constant);
}

/// Reinterpreting values whose consecutive elements are `srcStep` bytes
/// apart as values `dstStep` bytes apart (integers: 1; pointers: the pointee
/// size).  Addresses, hence divisibility in bytes, do not change.
AxisInfo visitAddressCast(Type type, const AxisInfo &src, int64_t srcStep,
                          int64_t dstStep) {
  if (srcStep == dstStep)
    return makeInfo(type, DimVector(src.getContiguity()),
                    DimVector(src.getDivisibility()),
                    DimVector(src.getConstancy()), src.getConstantValue());
  DimVector divisibility;
  for (unsigned d = 0; d < src.getRank(); ++d)
    divisibility.push_back(src.getContiguity(d) > 1
                               ? std::min(src.getDivisibility(d), srcStep)
                               : src.getDivisibility(d));
  return makeInfo(type, DimVector(src.getRank(), 1), divisibility,
                  DimVector(src.getConstancy()), src.getConstantValue());
}

/// tile.bitcast and arith.bitcast.
AxisInfo visitBitcast(Type srcType, Type type, const AxisInfo &src) {
  Type srcElem = getElementTypeOrSelf(srcType),
       elem = getElementTypeOrSelf(type);
  if (isa<tile::PointerType>(srcElem) && isa<tile::PointerType>(elem))
    return visitAddressCast(type, src, getPointeeByteWidth(srcType),
                            getPointeeByteWidth(type));
  if (isa<IntegerType>(srcElem) && isa<IntegerType>(elem))
    return visitAddressCast(type, src, 1, 1);
  return constancyOnly(type, DimVector(src.getConstancy()));
}

//===----------------------------------------------------------------------===//
// Integer arithmetic
//===----------------------------------------------------------------------===//

/// Operands and result of a binary integer op, with their constants.
struct Binary {
  Type type;
  unsigned width;
  const AxisInfo &lhs, &rhs;
  std::optional<APInt> lhsConst, rhsConst;

  Binary(Operation *op, ArrayRef<AxisInfo> operands)
      : type(op->getResult(0).getType()),
        width(getIntWidth(op->getOperand(0).getType())), lhs(operands[0]),
        rhs(operands[1]) {
    if (width == 0)
      return;
    if (auto c = lhs.getConstantValue())
      lhsConst = toAPInt(*c, width);
    if (auto c = rhs.getConstantValue())
      rhsConst = toAPInt(*c, width);
  }
  bool bothConstant() const { return lhsConst && rhsConst; }
  unsigned rank() const { return lhs.getRank(); }
};

AxisInfo visitMul(const Binary &b) {
  if (isConstant(b.rhs, 1))
    return b.lhs;
  if (isConstant(b.lhs, 1))
    return b.rhs;
  std::optional<int64_t> constant;
  if (b.bothConstant())
    constant = fromAPInt(*b.lhsConst * *b.rhsConst);
  else if (isConstant(b.lhs, 0) || isConstant(b.rhs, 0))
    constant = 0;
  DimVector divisibility;
  for (unsigned d = 0; d < b.rank(); ++d)
    divisibility.push_back(mulDivisors(b.lhs.getDivisibilityAt(d, 1),
                                       b.rhs.getDivisibilityAt(d, 1)));
  return makeInfo(b.type, DimVector(b.rank(), 1), divisibility,
                  minConstancy(b.lhs, b.rhs), constant);
}

/// The longest aligned block over which x op n keeps x's structure (x / n
/// constant, x % n contiguous, x < n constant): inside a run of x, starting
/// at a multiple of the block, with n constant and a multiple of the block.
int64_t alignedBlock(const AxisInfo &x, const AxisInfo &n, unsigned d) {
  int64_t block =
      std::min({x.getContiguity(d), x.getDivisibility(d), n.getConstancy(d)});
  return std::min(block, n.getDivisibilityAt(d, block));
}

/// divsi, divui, and shifts right by a constant (floor(x / 2^s)).
AxisInfo visitDiv(Type type, const AxisInfo &x, const AxisInfo &divisor,
                  std::optional<int64_t> constant) {
  if (isConstant(divisor, 1))
    return x;
  if (isConstant(x, 0))
    constant = 0;
  // x / 2^j is exact, and a multiple of D / 2^j, when 2^j divides x.
  std::optional<int64_t> shift;
  if (auto v = divisor.getConstantValue()) {
    uint64_t magnitude = *v < 0 ? -static_cast<uint64_t>(*v) : *v;
    if (llvm::isPowerOf2_64(magnitude))
      shift = llvm::Log2_64(magnitude);
  }
  DimVector divisibility, constancy;
  for (unsigned d = 0; d < x.getRank(); ++d) {
    int64_t elementDivisor = x.getDivisibilityAt(d, 1);
    if (shift && *shift < 63 && elementDivisor >= (int64_t(1) << *shift))
      divisibility.push_back(elementDivisor >> *shift);
    else
      divisibility.push_back(1);
    constancy.push_back(
        std::max(std::min(x.getConstancy(d), divisor.getConstancy(d)),
                 alignedBlock(x, divisor, d)));
  }
  return makeInfo(type, DimVector(x.getRank(), 1), divisibility, constancy,
                  constant);
}

AxisInfo visitDivOp(Operation *op, const Binary &b) {
  std::optional<int64_t> constant;
  if (b.bothConstant() && !b.rhsConst->isZero()) {
    bool overflow = false;
    APInt q = isa<arith::DivSIOp>(op)
                  ? b.lhsConst->sdiv_ov(*b.rhsConst, overflow)
                  : b.lhsConst->udiv(*b.rhsConst);
    if (!overflow)
      constant = fromAPInt(q);
  }
  return visitDiv(b.type, b.lhs, b.rhs, constant);
}

/// remsi and remui; also x & (2^k - 1), with `divisor` the constant 2^k.
AxisInfo visitRem(Type type, const AxisInfo &x, const AxisInfo &divisor,
                  std::optional<int64_t> constant) {
  if (isConstant(divisor, 1) || isConstant(divisor, -1) || isConstant(x, 0))
    constant = 0;
  std::optional<int64_t> powerOf2;
  if (auto v = divisor.getConstantValue())
    if (*v > 0 && llvm::isPowerOf2_64(*v))
      powerOf2 = *v;
  DimVector contiguity, divisibility;
  for (unsigned d = 0; d < x.getRank(); ++d) {
    int64_t run = alignedBlock(x, divisor, d);
    contiguity.push_back(run);
    int64_t startDivisor = x.getDivisibilityAt(d, run);
    // x - q * n at a run start; zero when 2^k divides x there.
    if (powerOf2 && startDivisor >= *powerOf2)
      divisibility.push_back(AxisInfo::kMaxDivisor);
    else
      divisibility.push_back(
          std::min(startDivisor, divisor.getDivisibilityAt(d, run)));
  }
  return makeInfo(type, contiguity, divisibility, minConstancy(x, divisor),
                  constant);
}

AxisInfo visitRemOp(Operation *op, const Binary &b) {
  std::optional<int64_t> constant;
  if (b.bothConstant() && !b.rhsConst->isZero()) {
    // INT_MIN % -1 is 0; srem does not trap on it.
    constant =
        fromAPInt(isa<arith::RemSIOp>(op) ? b.lhsConst->srem(*b.rhsConst)
                                          : b.lhsConst->urem(*b.rhsConst));
  }
  return visitRem(b.type, b.lhs, b.rhs, constant);
}

/// The constant 2^k as an AxisInfo of `rank` dimensions.
AxisInfo powerOf2Constant(Type type, int64_t value) {
  unsigned rank = getAxisShape(type).size();
  DimVector ones(rank, 1);
  return makeInfo(type, ones, ones, ones, value);
}

AxisInfo visitAnd(const Binary &b) {
  if (b.bothConstant())
    return makeInfo(b.type, DimVector(b.rank(), 1), DimVector(b.rank(), 1),
                    DimVector(b.rank(), 1),
                    fromAPInt(*b.lhsConst & *b.rhsConst));
  // Put a constant mask on the right.
  const AxisInfo &x = b.rhsConst ? b.lhs : b.rhs;
  std::optional<APInt> mask = b.rhsConst ? b.rhsConst : b.lhsConst;
  if (mask && mask->isAllOnes())
    return x;
  if (mask && mask->isZero())
    return makeInfo(b.type, DimVector(b.rank(), 1), DimVector(b.rank(), 1),
                    DimVector(b.rank(), 1), 0);
  if (mask && b.width > 1) {
    // x & (2^k - 1) is x mod 2^k (unsigned): a remainder.
    if (mask->isMask() && mask->countTrailingOnes() < 62) {
      int64_t modulus = int64_t(1) << mask->countTrailingOnes();
      return visitRem(b.type, x, powerOf2Constant(b.type, modulus),
                      std::nullopt);
    }
    // x & -2^k rounds down to a multiple of 2^k: a floor division, times 2^k.
    if ((-*mask).isPowerOf2() && mask->countTrailingZeros() < 62) {
      int64_t modulus = int64_t(1) << mask->countTrailingZeros();
      AxisInfo quotient =
          visitDiv(b.type, x, powerOf2Constant(b.type, modulus), std::nullopt);
      DimVector divisibility;
      for (unsigned d = 0; d < b.rank(); ++d)
        divisibility.push_back(std::max(x.getDivisibilityAt(d, 1), modulus));
      return makeInfo(b.type, DimVector(b.rank(), 1), divisibility,
                      DimVector(quotient.getConstancy()));
    }
  }
  // A bit clear in either operand is clear in the result.
  DimVector divisibility;
  for (unsigned d = 0; d < b.rank(); ++d)
    divisibility.push_back(
        std::max(b.lhs.getDivisibilityAt(d, 1), b.rhs.getDivisibilityAt(d, 1)));
  return makeInfo(b.type, DimVector(b.rank(), 1), divisibility,
                  minConstancy(b.lhs, b.rhs));
}

/// ori and xori: the low zero bits common to both operands stay zero.
AxisInfo visitOrXor(Operation *op, const Binary &b) {
  if (isConstant(b.rhs, 0))
    return b.lhs;
  if (isConstant(b.lhs, 0))
    return b.rhs;
  std::optional<int64_t> constant;
  if (b.bothConstant())
    constant = fromAPInt(isa<arith::OrIOp>(op) ? (*b.lhsConst | *b.rhsConst)
                                               : (*b.lhsConst ^ *b.rhsConst));
  DimVector divisibility;
  for (unsigned d = 0; d < b.rank(); ++d)
    divisibility.push_back(
        std::min(b.lhs.getDivisibilityAt(d, 1), b.rhs.getDivisibilityAt(d, 1)));
  return makeInfo(b.type, DimVector(b.rank(), 1), divisibility,
                  minConstancy(b.lhs, b.rhs), constant);
}

/// shli, shrsi, shrui.
AxisInfo visitShift(Operation *op, const Binary &b) {
  std::optional<uint64_t> amount;
  if (b.rhsConst && b.rhsConst->ult(b.width))
    amount = b.rhsConst->getZExtValue();
  if (amount == 0u)
    return b.lhs;
  std::optional<int64_t> constant;
  if (b.lhsConst && amount) {
    if (isa<arith::ShLIOp>(op))
      constant = fromAPInt(b.lhsConst->shl(*amount));
    else if (isa<arith::ShRSIOp>(op))
      constant = fromAPInt(b.lhsConst->ashr(*amount));
    else
      constant = fromAPInt(b.lhsConst->lshr(*amount));
  }
  if (isa<arith::ShLIOp>(op)) {
    // x << s multiplies x by 2^s (modulo 2^width, which keeps low zeros).
    DimVector divisibility;
    for (unsigned d = 0; d < b.rank(); ++d) {
      int64_t elementDivisor = b.lhs.getDivisibilityAt(d, 1);
      divisibility.push_back(
          amount && *amount < 62
              ? mulDivisors(elementDivisor, int64_t(1) << *amount)
              : elementDivisor);
    }
    return makeInfo(b.type, DimVector(b.rank(), 1), divisibility,
                    minConstancy(b.lhs, b.rhs), constant);
  }
  // Shifting right by s is floor(x / 2^s), for either sign.
  if (amount && *amount < 62)
    return visitDiv(b.type, b.lhs,
                    powerOf2Constant(b.type, int64_t(1) << *amount), constant);
  return makeInfo(b.type, DimVector(b.rank(), 1), DimVector(b.rank(), 1),
                  minConstancy(b.lhs, b.rhs), constant);
}

/// minsi, maxsi, minui, maxui: over a run where both are contiguous, the
/// result is one of them, shifted by the same amount.
AxisInfo visitMinMax(Operation *op, const Binary &b) {
  std::optional<int64_t> constant;
  if (b.bothConstant()) {
    const APInt &l = *b.lhsConst, &r = *b.rhsConst;
    APInt result = TypeSwitch<Operation *, APInt>(op)
                       .Case([&](arith::MinSIOp) { return l.slt(r) ? l : r; })
                       .Case([&](arith::MaxSIOp) { return l.sgt(r) ? l : r; })
                       .Case([&](arith::MinUIOp) { return l.ult(r) ? l : r; })
                       .Default([&](Operation *) { return l.ugt(r) ? l : r; });
    constant = fromAPInt(result);
  }
  DimVector contiguity, divisibility;
  for (unsigned d = 0; d < b.rank(); ++d) {
    int64_t run = std::min(b.lhs.getContiguity(d), b.rhs.getContiguity(d));
    contiguity.push_back(run);
    divisibility.push_back(std::min(b.lhs.getDivisibilityAt(d, run),
                                    b.rhs.getDivisibilityAt(d, run)));
  }
  return makeInfo(b.type, contiguity, divisibility, minConstancy(b.lhs, b.rhs),
                  constant);
}

AxisInfo visitCmp(arith::CmpIOp op, const Binary &b) {
  using Pred = arith::CmpIPredicate;
  Pred pred = op.getPredicate();
  std::optional<int64_t> constant;
  if (b.bothConstant())
    constant = arith::applyCmpPredicate(pred, *b.lhsConst, *b.rhsConst);
  // x < n and x >= n change value only at n: over an aligned block of x's
  // run with n a constant multiple of the block, they are constant.  (x <= n
  // and x > n change at n + 1, whose alignment is unknown.)
  const AxisInfo *x = nullptr, *n = nullptr;
  if (pred == Pred::slt || pred == Pred::ult || pred == Pred::sge ||
      pred == Pred::uge)
    x = &b.lhs, n = &b.rhs;
  else if (pred == Pred::sgt || pred == Pred::ugt || pred == Pred::sle ||
           pred == Pred::ule)
    x = &b.rhs, n = &b.lhs;
  DimVector constancy = minConstancy(b.lhs, b.rhs);
  if (x)
    for (unsigned d = 0; d < b.rank(); ++d)
      constancy[d] = std::max(constancy[d], alignedBlock(*x, *n, d));
  return makeInfo(b.type, DimVector(b.rank(), 1), DimVector(b.rank(), 1),
                  constancy, constant);
}

AxisInfo visitSelect(arith::SelectOp op, const AxisInfo &cond,
                     const AxisInfo &a, const AxisInfo &b) {
  Type type = op.getType();
  if (auto c = cond.getConstantValue())
    return *c ? a : b;
  // A scalar condition picks one whole operand.
  bool uniform = !isa<RankedTensorType>(op.getCondition().getType());
  SmallVector<int64_t, 4> shape = getAxisShape(type);
  std::optional<int64_t> constant;
  if (a.getConstantValue() == b.getConstantValue())
    constant = a.getConstantValue();
  int64_t step = std::max<int64_t>(1, getPointeeByteWidth(type));
  DimVector contiguity, divisibility, constancy;
  for (unsigned d = 0; d < a.getRank(); ++d) {
    int64_t condRun = uniform ? runLimit(shape[d]) : cond.getConstancy(d);
    int64_t run = std::min({condRun, a.getContiguity(d), b.getContiguity(d)});
    contiguity.push_back(run);
    divisibility.push_back(std::min(a.getDivisibilityAt(d, run, step),
                                    b.getDivisibilityAt(d, run, step)));
    constancy.push_back(
        std::min({condRun, a.getConstancy(d), b.getConstancy(d)}));
  }
  return makeInfo(type, contiguity, divisibility, constancy, constant);
}

/// extsi, extui, trunci, index_cast(ui): the same values, re-encoded.
/// Truncation keeps low zero bits (or makes the value 0).
AxisInfo visitIntCast(Operation *op, const AxisInfo &src) {
  Type type = op->getResult(0).getType();
  std::optional<int64_t> constant;
  unsigned srcWidth = getIntWidth(op->getOperand(0).getType());
  unsigned width = getIntWidth(type);
  if (auto c = src.getConstantValue(); c && srcWidth && width) {
    APInt value = toAPInt(*c, srcWidth);
    bool zeroExtend = isa<arith::ExtUIOp, arith::IndexCastUIOp>(op);
    constant = fromAPInt(zeroExtend ? value.zextOrTrunc(width)
                                    : value.sextOrTrunc(width));
  }
  return makeInfo(type, DimVector(src.getContiguity()),
                  DimVector(src.getDivisibility()),
                  DimVector(src.getConstancy()), constant);
}

//===----------------------------------------------------------------------===//
// Memory and fallback
//===----------------------------------------------------------------------===//

/// Loads through equal pointers, under an equal mask, read equal values (the
/// program's own accesses are ordered; volatile loads promise nothing).
AxisInfo visitLoad(tile::LoadOp op, ArrayRef<AxisInfo> operands) {
  Type type = op.getType();
  if (op.getIsVolatile())
    return AxisInfo::getPessimisticState(type);
  DimVector constancy(operands[0].getConstancy());
  for (const AxisInfo &operand : operands.drop_front())
    for (unsigned d = 0; d < constancy.size(); ++d)
      constancy[d] = std::min(constancy[d], operand.getConstancy(d));
  return constancyOnly(type, constancy);
}

/// Ops with no rule: nothing known, except that a pure element-wise op maps
/// equal operands to equal results.
AxisInfo visitUnknown(Operation *op, Type type, ArrayRef<AxisInfo> operands) {
  AxisInfo pessimistic = AxisInfo::getPessimisticState(type);
  if (!op->hasTrait<OpTrait::Elementwise>() || !isPure(op) || operands.empty())
    return pessimistic;
  DimVector constancy(getAxisShape(type));
  for (auto [value, info] : llvm::zip(op->getOperands(), operands)) {
    // Scalar operands of element-wise ops are the same for every element.
    if (!isa<RankedTensorType>(value.getType()))
      continue;
    if (info.getRank() != constancy.size())
      return pessimistic;
    for (unsigned d = 0; d < constancy.size(); ++d)
      constancy[d] = std::min(constancy[d], info.getConstancy(d));
  }
  return constancyOnly(type, constancy);
}

std::optional<AxisInfo> visitSingleResult(Operation *op,
                                          ArrayRef<AxisInfo> operands) {
  Type type = op->getResult(0).getType();
  // Every rule below expects operands shaped like the result (or scalars
  // where the op allows them); anything else is left to the fallback.
  auto sameRank = [&](ArrayRef<AxisInfo> infos) {
    unsigned rank = getAxisShape(type).size();
    return llvm::all_of(infos,
                        [&](const AxisInfo &i) { return i.getRank() == rank; });
  };
  using Result = std::optional<AxisInfo>;
  return TypeSwitch<Operation *, Result>(op)
      .Case([&](arith::ConstantOp c) { return visitConstant(c); })
      .Case([&](tile::MakeRangeOp r) { return visitMakeRange(r); })
      .Case([&](tile::SplatOp) { return visitSplat(type, operands[0]); })
      .Case([&](tile::BroadcastOp b) {
        return visitBroadcast(b.getSrc().getType(), type, operands[0]);
      })
      .Case(
          [&](tile::ExpandDimsOp e) { return visitExpandDims(e, operands[0]); })
      .Case([&](tile::TransOp t) { return visitTrans(t, operands[0]); })
      // A layout conversion moves values between threads, not their values.
      .Case([&](tilegpu::ConvertLayoutOp) { return operands[0]; })
      .Case([&](tile::ReshapeOp r) { return visitReshape(r, operands[0]); })
      .Case([&](tile::AddPtrOp a) -> Result {
        if (!sameRank(operands))
          return std::nullopt;
        return visitAddPtr(a, operands[0], operands[1]);
      })
      .Case([&](tile::IntToPtrOp) -> Result {
        if (!sameRank(operands))
          return std::nullopt;
        return visitAddressCast(type, operands[0], 1,
                                getPointeeByteWidth(type));
      })
      .Case([&](tile::PtrToIntOp p) -> Result {
        if (!sameRank(operands))
          return std::nullopt;
        return visitAddressCast(type, operands[0],
                                getPointeeByteWidth(p.getSrc().getType()), 1);
      })
      .Case<tile::BitcastOp, arith::BitcastOp>([&](Operation *) -> Result {
        if (!sameRank(operands))
          return std::nullopt;
        return visitBitcast(op->getOperand(0).getType(), type, operands[0]);
      })
      .Case([&](tile::LoadOp l) -> Result {
        if (!sameRank(operands))
          return std::nullopt;
        return visitLoad(l, operands);
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp,
            arith::IndexCastUIOp>([&](Operation *) -> Result {
        if (!sameRank(operands))
          return std::nullopt;
        return visitIntCast(op, operands[0]);
      })
      .Case([&](arith::SelectOp s) -> Result {
        if (!sameRank(operands.drop_front()) || getIntWidth(type) == 0)
          return std::nullopt;
        return visitSelect(s, operands[0], operands[1], operands[2]);
      })
      .Default([&](Operation *) -> Result {
        // Binary integer ops.
        if (op->getNumOperands() != 2 || !sameRank(operands) ||
            getIntWidth(op->getOperand(0).getType()) == 0)
          return std::nullopt;
        Binary b(op, operands);
        return TypeSwitch<Operation *, Result>(op)
            .Case([&](arith::AddIOp) -> Result {
              std::optional<int64_t> c;
              if (b.bothConstant())
                c = fromAPInt(*b.lhsConst + *b.rhsConst);
              return visitAdd(type, b.lhs, b.rhs, 1, /*isSub=*/false, c);
            })
            .Case([&](arith::SubIOp) -> Result {
              std::optional<int64_t> c;
              if (b.bothConstant())
                c = fromAPInt(*b.lhsConst - *b.rhsConst);
              return visitAdd(type, b.lhs, b.rhs, 1, /*isSub=*/true, c);
            })
            .Case([&](arith::MulIOp) { return visitMul(b); })
            .Case<arith::DivSIOp, arith::DivUIOp>(
                [&](Operation *) { return visitDivOp(op, b); })
            .Case<arith::RemSIOp, arith::RemUIOp>(
                [&](Operation *) { return visitRemOp(op, b); })
            .Case([&](arith::AndIOp) { return visitAnd(b); })
            .Case<arith::OrIOp, arith::XOrIOp>(
                [&](Operation *) { return visitOrXor(op, b); })
            .Case<arith::ShLIOp, arith::ShRSIOp, arith::ShRUIOp>(
                [&](Operation *) { return visitShift(op, b); })
            .Case<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp,
                  arith::MaxUIOp>(
                [&](Operation *) { return visitMinMax(op, b); })
            .Case([&](arith::CmpIOp c) { return visitCmp(c, b); })
            .Default([](Operation *) -> Result { return std::nullopt; });
      });
}

} // namespace

SmallVector<AxisInfo, 1>
warpforge::computeAxisInfo(Operation *op, ArrayRef<AxisInfo> operands) {
  SmallVector<AxisInfo, 1> results;
  if (op->getNumResults() == 1)
    if (std::optional<AxisInfo> info = visitSingleResult(op, operands))
      results.push_back(std::move(*info));
  if (results.empty())
    for (Value result : op->getResults())
      results.push_back(visitUnknown(op, result.getType(), operands));
  return results;
}

AxisInfo warpforge::applyHints(Operation *op, Type resultType, AxisInfo info) {
  auto hint = [&](StringRef name) -> ArrayRef<int32_t> {
    auto attr = op->getAttrOfType<DenseI32ArrayAttr>(name);
    if (!attr || attr.size() != static_cast<int64_t>(info.getRank()) ||
        llvm::any_of(attr.asArrayRef(), [](int32_t v) { return v <= 0; }))
      return {};
    return attr.asArrayRef();
  };
  ArrayRef<int32_t> divisibilityHint = hint(tile::TileDialect::kDivisibility);
  ArrayRef<int32_t> contiguityHint = hint(tile::TileDialect::kContiguity);
  ArrayRef<int32_t> constancyHint = hint(tile::TileDialect::kConstancy);
  if (divisibilityHint.empty() && contiguityHint.empty() &&
      constancyHint.empty())
    return info;
  // A hint is a promise; what the analysis proved also holds: keep the
  // larger.  Aligned runs of the largest power of two dividing a hinted run
  // length lie inside the hinted runs.
  DimVector contiguity(info.getContiguity()),
      divisibility(info.getDivisibility()), constancy(info.getConstancy());
  for (unsigned d = 0; d < info.getRank(); ++d) {
    if (!divisibilityHint.empty())
      divisibility[d] = std::max(divisibility[d],
                                 highestPowerOf2Divisor(divisibilityHint[d]));
    if (!contiguityHint.empty())
      contiguity[d] =
          std::max(contiguity[d], highestPowerOf2Divisor(contiguityHint[d]));
    if (!constancyHint.empty())
      constancy[d] =
          std::max(constancy[d], highestPowerOf2Divisor(constancyHint[d]));
  }
  return makeInfo(resultType, contiguity, divisibility, constancy,
                  info.getConstantValue());
}
