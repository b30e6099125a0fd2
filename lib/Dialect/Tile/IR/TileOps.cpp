//===- TileOps.cpp - Verifiers and functions of the tile dialect ----------===//
//
// Every verifier says which rule is broken and what would be allowed: these
// messages are what a kernel author sees, mapped back to the Python line.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace warpforge::tile;

#define GET_OP_CLASSES
#include "warpforge/Dialect/Tile/IR/TileOps.cpp.inc"

namespace {
/// Prints a shape as `[a, b, c]`.
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

ArrayRef<int64_t> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

/// Both scalars, or tensors of one shape.
bool sameShape(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a);
  auto tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return !ta && !tb;
  return ta.getShape() == tb.getShape();
}

bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// Shape-only ops keep the element type.
LogicalResult verifySameElementType(Operation *op, RankedTensorType src,
                                    RankedTensorType res) {
  if (src.getElementType() == res.getElementType())
    return success();
  return op->emitOpError() << "result element type " << res.getElementType()
                           << " differs from the source element type "
                           << src.getElementType();
}

/// The result of a shape op must be `elem` in `shape`, described by `what`.
LogicalResult verifyResultShape(Operation *op, RankedTensorType res,
                                ArrayRef<int64_t> shape, Type elem,
                                const std::string &what) {
  if (res.getShape() == shape && res.getElementType() == elem)
    return success();
  return op->emitOpError() << "result type " << res << " is not " << what
                           << " (expected "
                           << RankedTensorType::get(shape, elem) << ")";
}

unsigned bitWidthOf(Type t) {
  if (isa<PointerType>(t))
    return 64;
  return t.getIntOrFloatBitWidth();
}
} // namespace

//===----------------------------------------------------------------------===//
// Tensor construction and shape manipulation
//===----------------------------------------------------------------------===//

// I32Attr getters return uint32_t; the attributes are signed, so every
// verifier reads them through int32_t.

LogicalResult MakeRangeOp::verify() {
  int64_t start = (int32_t)getStart(), end = (int32_t)getEnd();
  if (start >= end)
    return emitOpError() << "start (" << start << ") must be less than end ("
                         << end << ")";
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError() << "result must be a 1-D tensor, got " << type;
  if (type.getDimSize(0) != end - start)
    return emitOpError() << "result has " << type.getDimSize(0)
                         << " elements but the range [" << start << ", "
                         << end << ") has " << end - start;
  return success();
}

LogicalResult SplatOp::verify() {
  Type elem = getType().getElementType();
  if (elem != getSrc().getType())
    return emitOpError() << "result element type " << elem
                         << " differs from the operand type "
                         << getSrc().getType();
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  if (failed(verifySameElementType(*this, src, res)))
    return failure();
  if (src.getRank() != res.getRank())
    return emitOpError() << "result rank (" << res.getRank()
                         << ") differs from source rank (" << src.getRank()
                         << "); insert dimensions with tile.expand_dims first";
  for (auto [i, dims] : llvm::enumerate(llvm::zip(src.getShape(),
                                                  res.getShape()))) {
    auto [from, to] = dims;
    if (from != to && from != 1)
      return emitOpError() << "dimension " << i << " of size " << from
                           << " cannot be broadcast to " << to
                           << "; only dimensions of size 1 broadcast";
  }
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = (int32_t)getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError() << "axis " << axis << " is out of range for a rank-"
                         << src.getRank() << " source (expected 0 to "
                         << src.getRank() << ")";
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  return verifyResultShape(*this, getType(), shape, src.getElementType(),
                           "the source with a dimension of size 1 inserted "
                           "at axis " + std::to_string(axis));
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType();
  auto res = getType();
  if (failed(verifySameElementType(*this, src, res)))
    return failure();
  if (src.getNumElements() != res.getNumElements())
    return emitOpError() << "source has " << src.getNumElements()
                         << " elements but the result has "
                         << res.getNumElements();
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType();
  ArrayRef<int32_t> order = getOrder();
  if ((int64_t)order.size() != src.getRank())
    return emitOpError() << "order has " << order.size()
                         << " entries but the source has rank "
                         << src.getRank();
  SmallVector<bool> seen(order.size(), false);
  for (int32_t d : order) {
    if (d < 0 || d >= (int32_t)order.size() || seen[d]) {
      std::string o;
      llvm::raw_string_ostream os(o);
      llvm::interleaveComma(order, os);
      return emitOpError() << "order [" << o << "] is not a permutation of 0 to "
                           << order.size() - 1;
    }
    seen[d] = true;
  }
  SmallVector<int64_t> shape;
  for (int32_t d : order)
    shape.push_back(src.getDimSize(d));
  return verifyResultShape(*this, getType(), shape, src.getElementType(),
                           "the source permuted by the order");
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  if (!sameShape(getPtr().getType(), getOffset().getType()))
    return emitOpError() << "ptr and offset must both be scalars or tensors "
                            "of one shape, got "
                         << getPtr().getType() << " and "
                         << getOffset().getType();
  return success();
}

LogicalResult IntToPtrOp::verify() {
  if (!sameShape(getSrc().getType(), getType()))
    return emitOpError() << "operand and result must have the same shape";
  return success();
}

LogicalResult PtrToIntOp::verify() {
  if (!sameShape(getSrc().getType(), getType()))
    return emitOpError() << "operand and result must have the same shape";
  return success();
}

LogicalResult BitcastOp::verify() {
  Type src = getSrc().getType(), res = getType();
  if (!sameShape(src, res))
    return emitOpError() << "operand and result must have the same shape";
  Type srcElem = mlir::getElementTypeOrSelf(src), resElem = mlir::getElementTypeOrSelf(res);
  if (isa<PointerType>(srcElem) != isa<PointerType>(resElem))
    return emitOpError() << "cannot bitcast between a pointer and " << 
           (isa<PointerType>(srcElem) ? resElem : srcElem)
           << "; use tile.ptr_to_int or tile.int_to_ptr";
  if (bitWidthOf(srcElem) != bitWidthOf(resElem))
    return emitOpError() << "cannot bitcast " << srcElem << " ("
                         << bitWidthOf(srcElem) << " bits) to " << resElem
                         << " (" << bitWidthOf(resElem) << " bits)";
  return success();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "'other' gives the value of masked-off elements "
                            "and needs a mask";
  return success();
}

namespace {
LogicalResult verifyAtomicElement(Operation *op, RMWOp rmw, Type elem) {
  auto isInt3264 = [&] {
    return elem.isInteger(32) || elem.isInteger(64);
  };
  switch (rmw) {
  case RMWOp::FADD:
    if (!isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(elem))
      return op->emitOpError() << "'fadd' needs f16, bf16, f32 or f64 "
                                  "elements, got "
                               << elem;
    return success();
  case RMWOp::XCHG:
    if (!isInt3264() && !elem.isF32() && !elem.isF64())
      return op->emitOpError() << "'xchg' needs 32- or 64-bit elements, got "
                               << elem;
    return success();
  case RMWOp::MAX:
  case RMWOp::MIN:
    if (!isInt3264())
      return op->emitOpError()
             << "'" << stringifyRMWOp(rmw)
             << "' needs 32- or 64-bit integer elements (float max and min "
                "are built from integer atomics by the frontend), got "
             << elem;
    return success();
  default:
    if (!isInt3264())
      return op->emitOpError() << "'" << stringifyRMWOp(rmw)
                               << "' needs 32- or 64-bit integer elements, got "
                               << elem;
    return success();
  }
}
} // namespace

LogicalResult AtomicRMWOp::verify() {
  return verifyAtomicElement(*this, getAtomicRmwOp(),
                             mlir::getElementTypeOrSelf(getVal().getType()));
}

LogicalResult AtomicCASOp::verify() {
  Type elem = mlir::getElementTypeOrSelf(getVal().getType());
  unsigned width = bitWidthOf(elem);
  if (width != 16 && width != 32 && width != 64)
    return emitOpError() << "needs 16-, 32- or 64-bit elements, got " << elem;
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

LogicalResult MakeTensorDescriptorOp::verify() {
  RankedTensorType block = getType().getBlockType();
  int64_t rank = block.getRank();
  if ((int64_t)getShape().size() != rank)
    return emitOpError() << "a rank-" << rank << " descriptor needs " << rank
                         << " shape values, got " << getShape().size();
  if ((int64_t)getStrides().size() != rank)
    return emitOpError() << "a rank-" << rank << " descriptor needs " << rank
                         << " strides, got " << getStrides().size();
  Type pointee = getBase().getType().getPointeeType();
  if (pointee != block.getElementType())
    return emitOpError() << "base points to " << pointee
                         << " but the descriptor's blocks hold "
                         << block.getElementType();
  // TMA's hardware limits on the box it moves: 256 elements per
  // dimension, except the outermost, which the lowering moves in pieces of
  // 256 (see tilegpu's TMA.h).
  for (auto [i, dim] : llvm::enumerate(block.getShape()))
    if (i != 0 && dim > 256)
      return emitOpError() << "block dimension " << i << " is " << dim
                           << "; TMA moves at most 256 elements per "
                              "dimension but the outermost";
  int64_t elemBits = block.getElementTypeBitWidth();
  if (elemBits < 8)
    return emitOpError() << "the TMA moves whole bytes; "
                         << block.getElementType()
                         << " elements are narrower";
  int64_t innerBytes = block.getShape().back() * elemBits / 8;
  if (innerBytes % 16 != 0)
    return emitOpError() << "the innermost block dimension spans "
                         << innerBytes
                         << " bytes; TMA needs a multiple of 16 bytes";
  // Strides known here must be what the TMA takes: the innermost 1, the
  // others multiples of 16 bytes.  Others are the launch's responsibility
  // (a misaligned one faults in the TMA unit).
  for (auto [i, stride] : llvm::enumerate(getStrides())) {
    llvm::APInt value;
    if (!matchPattern(stride, m_ConstantInt(&value)))
      continue;
    int64_t v = value.getSExtValue();
    if (i + 1 == getStrides().size()) {
      if (v != 1)
        return emitOpError() << "the innermost dimension must be contiguous "
                                "(stride 1), got stride "
                             << v;
    } else if ((v * elemBits / 8) % 16 != 0 || v <= 0) {
      return emitOpError() << "stride " << v << " of dimension " << i
                           << " is " << v * elemBits / 8
                           << " bytes; the TMA needs a positive multiple of "
                              "16 bytes";
    }
  }
  return success();
}

namespace {
LogicalResult verifyDescriptorAccess(Operation *op, TensorDescType desc,
                                     size_t numIndices, Type valueType,
                                     StringRef what) {
  RankedTensorType block = desc.getBlockType();
  if ((int64_t)numIndices != block.getRank())
    return op->emitOpError() << "a rank-" << block.getRank()
                             << " descriptor needs " << block.getRank()
                             << " indices, got " << numIndices;
  auto value = cast<RankedTensorType>(valueType);
  if (value.getShape() != block.getShape() ||
      value.getElementType() != block.getElementType())
    return op->emitOpError() << what << " type " << value
                             << " differs from the descriptor's block type "
                             << block;
  return success();
}
} // namespace

LogicalResult DescriptorLoadOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(),
                                getIndices().size(), getType(), "result");
}

LogicalResult DescriptorStoreOp::verify() {
  return verifyDescriptorAccess(*this, getDesc().getType(),
                                getIndices().size(), getSrc().getType(),
                                "stored value");
}

LogicalResult DescriptorReduceOp::verify() {
  if (failed(verifyDescriptorAccess(*this, getDesc().getType(),
                                    getIndices().size(), getSrc().getType(),
                                    "reduced value")))
    return failure();
  // What cp.reduce.async.bulk.tensor takes (the type comes from the tensor
  // map: integers as the descriptor makes them, signed).
  Type elem = getDesc().getType().getBlockType().getElementType();
  unsigned bits = elem.getIntOrFloatBitWidth();
  bool isInt = isa<IntegerType>(elem) && (bits == 32 || bits == 64);
  bool ok = false;
  switch (getKind()) {
  case DescriptorReduceKind::ADD:
    ok = isInt || elem.isF32() || elem.isF16() || elem.isBF16();
    break;
  case DescriptorReduceKind::MIN:
  case DescriptorReduceKind::MAX:
    ok = isInt || elem.isF16() || elem.isBF16();
    break;
  case DescriptorReduceKind::AND:
  case DescriptorReduceKind::OR:
  case DescriptorReduceKind::XOR:
    ok = isInt;
    break;
  }
  if (!ok)
    return emitOpError() << "the TMA cannot reduce " << elem << " with "
                         << stringifyDescriptorReduceKind(getKind());
  return success();
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  int64_t rank = a.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "operands must be rank 2 (M x K, K x N) or rank "
                            "3 with a leading batch dimension, got rank "
                         << rank;
  if (b.getRank() != rank || c.getRank() != rank)
    return emitOpError() << "a, b and c must have one rank, got " << a.getRank()
                         << ", " << b.getRank() << " and " << c.getRank();
  int64_t m = a.getDimSize(rank - 2), k = a.getDimSize(rank - 1);
  int64_t kb = b.getDimSize(rank - 2), n = b.getDimSize(rank - 1);
  if (k != kb)
    return emitOpError() << "a is " << m << " x " << k << " and b is " << kb
                         << " x " << n << ": the inner dimensions must match";
  if (c.getDimSize(rank - 2) != m || c.getDimSize(rank - 1) != n)
    return emitOpError() << "accumulator shape " << shapeStr(c.getShape())
                         << " must be " << m << " x " << n;
  if (rank == 3 && (b.getDimSize(0) != a.getDimSize(0) ||
                    c.getDimSize(0) != a.getDimSize(0)))
    return emitOpError() << "batch dimensions differ: " << a.getDimSize(0)
                         << ", " << b.getDimSize(0) << " and "
                         << c.getDimSize(0);

  Type ea = a.getElementType(), eb = b.getElementType(),
       ec = c.getElementType();
  bool fp8 = isFp8(ea) && isFp8(eb);
  if (ea != eb && !fp8)
    return emitOpError() << "operand element types differ (" << ea << " and "
                         << eb << "); only fp8 kinds may be mixed";
  auto accError = [&](StringRef allowed) {
    return emitOpError() << "accumulator element type " << ec
                         << " is not allowed for " << ea << " operands; "
                         << allowed;
  };
  if (fp8 || ea.isF16()) {
    if (!ec.isF32() && !ec.isF16())
      return accError("use f32 or f16");
  } else if (ea.isBF16()) {
    if (!ec.isF32())
      return accError("use f32");
  } else if (ea.isF32()) {
    if (!ec.isF32())
      return accError("use f32");
  } else if (ea.isF64()) {
    if (!ec.isF64())
      return accError("use f64");
  } else if (ea.isInteger(8)) {
    if (!ec.isInteger(32))
      return accError("use i32");
  } else {
    return emitOpError() << "operand element type " << ea
                         << " is not supported; use f16, bf16, f8E4M3FN, "
                            "f8E5M2, f32, f64 or i8";
  }
  if (getInputPrecision() != InputPrecision::IEEE && !ea.isF32())
    return emitOpError() << "input precision '"
                         << stringifyInputPrecision(getInputPrecision())
                         << "' applies to f32 operands only, got " << ea;
  if (getMaxNumImpreciseAcc() != 0 && !fp8)
    return emitOpError() << "maxNumImpreciseAcc applies to fp8 operands "
                            "only, got "
                         << ea;
  if ((int32_t)getMaxNumImpreciseAcc() < 0)
    return emitOpError() << "maxNumImpreciseAcc must be non-negative";
  return success();
}

LogicalResult FpToFpOp::verify() {
  Type src = mlir::getElementTypeOrSelf(getSrc().getType());
  Type dst = mlir::getElementTypeOrSelf(getType());
  if (src == dst)
    return emitOpError() << "source and result element types are both "
                         << src;
  if (!isFp8(src) && !isFp8(dst))
    return emitOpError() << "converts to or from an fp8 type; use "
                            "arith.extf or arith.truncf for "
                         << src << " to " << dst;
  bool needsRounding = isFp8(dst);
  if (needsRounding && !getRounding())
    return emitOpError() << "conversion from " << src << " to " << dst
                         << " is inexact and needs a rounding mode (rtne or "
                            "rtz)";
  if (!needsRounding && getRounding())
    return emitOpError() << "conversion from " << src << " to " << dst
                         << " is exact and takes no rounding mode";
  return success();
}

namespace {
/// Checks the rules `tile.reduce` and `tile.scan` share: operands of one
/// shape, an axis inside it.
LogicalResult verifyReduceOrScanOperands(Operation *op, ValueRange srcs,
                                         int64_t axis) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one operand";
  auto first = cast<RankedTensorType>(srcs[0].getType());
  for (auto [i, src] : llvm::enumerate(srcs)) {
    auto type = cast<RankedTensorType>(src.getType());
    if (type.getShape() != first.getShape())
      return op->emitOpError() << "operand #" << i << " has shape "
                               << shapeStr(type.getShape())
                               << " but operand #0 has shape "
                               << shapeStr(first.getShape());
  }
  if (axis < 0 || axis >= first.getRank())
    return op->emitOpError() << "axis " << axis << " is out of range for rank "
                             << first.getRank() << " operands (expected 0 to "
                             << first.getRank() - 1 << ")";
  return success();
}

/// Checks a combiner region: 2N scalar arguments (left values then right
/// values) and a terminator returning N values of the operands' element
/// types.
template <typename ReturnOpT>
LogicalResult verifyCombiner(Operation *op, Region &region, ValueRange srcs) {
  size_t n = srcs.size();
  Block &block = region.front();
  if (block.getNumArguments() != 2 * n)
    return op->emitOpError() << "combiner takes " << 2 * n
                             << " arguments (left and right values of " << n
                             << " operands), got " << block.getNumArguments();
  for (size_t i = 0; i < 2 * n; ++i) {
    Type expected = mlir::getElementTypeOrSelf(srcs[i % n].getType());
    if (block.getArgument(i).getType() != expected)
      return op->emitOpError() << "combiner argument #" << i << " has type "
                               << block.getArgument(i).getType()
                               << "; expected " << expected;
  }
  auto ret = dyn_cast_or_null<ReturnOpT>(
      block.empty() ? nullptr : &block.back());
  if (!ret)
    return op->emitOpError() << "combiner must end with "
                             << ReturnOpT::getOperationName();
  if (ret->getNumOperands() != n)
    return op->emitOpError() << "combiner returns " << ret->getNumOperands()
                             << " values; expected " << n;
  for (size_t i = 0; i < n; ++i) {
    Type expected = mlir::getElementTypeOrSelf(srcs[i].getType());
    if (ret->getOperand(i).getType() != expected)
      return op->emitOpError() << "combiner result #" << i << " has type "
                               << ret->getOperand(i).getType()
                               << "; expected " << expected;
  }
  return success();
}
} // namespace

LogicalResult ReduceOp::verify() {
  if (failed(verifyReduceOrScanOperands(*this, getSrcs(), (int32_t)getAxis())))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "has " << getSrcs().size() << " operands but "
                         << getNumResults() << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getSrcs(), getResult()))) {
    auto [src, res] = pair;
    auto srcType = cast<RankedTensorType>(src.getType());
    SmallVector<int64_t> shape(srcType.getShape());
    shape.erase(shape.begin() + (int32_t)getAxis());
    Type expected = shape.empty()
                        ? srcType.getElementType()
                        : Type(RankedTensorType::get(
                              shape, srcType.getElementType()));
    Type actual = res.getType();
    auto actualTensor = dyn_cast<RankedTensorType>(actual);
    bool ok = shape.empty()
                  ? actual == expected
                  : actualTensor && actualTensor.getShape() ==
                                        ArrayRef<int64_t>(shape) &&
                        actualTensor.getElementType() ==
                            srcType.getElementType();
    if (!ok)
      return emitOpError() << "result #" << i << " has type " << actual
                           << "; reducing axis " << (int32_t)getAxis() << " of "
                           << srcType << " gives " << expected;
  }
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  return verifyCombiner<ReduceReturnOp>(*this, getCombineOp(), getSrcs());
}

LogicalResult ScanOp::verify() {
  if (failed(verifyReduceOrScanOperands(*this, getSrcs(), (int32_t)getAxis())))
    return failure();
  if (getNumResults() != getSrcs().size())
    return emitOpError() << "has " << getSrcs().size() << " operands but "
                         << getNumResults() << " results";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getSrcs(), getResult()))) {
    auto [src, res] = pair;
    auto srcType = cast<RankedTensorType>(src.getType());
    auto resType = cast<RankedTensorType>(res.getType());
    if (srcType.getShape() != resType.getShape() ||
        srcType.getElementType() != resType.getElementType())
      return emitOpError() << "result #" << i << " has type " << resType
                           << "; a scan keeps the operand type " << srcType;
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  return verifyCombiner<ScanReturnOp>(*this, getCombineOp(), getSrcs());
}

LogicalResult PrintOp::verify() {
  if (getIsSigned().size() != getArgs().size())
    return emitOpError() << "isSigned has " << getIsSigned().size()
                         << " entries but there are " << getArgs().size()
                         << " arguments";
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void FuncOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                   FunctionType type) {
  state.addAttribute(SymbolTable::getSymbolAttrName(),
                     builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), TypeAttr::get(type));
  state.addRegion();
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  for (unsigned i = 0, e = getNumArguments(); i < e; ++i) {
    Attribute attr = getArgAttr(i, TileDialect::kDivisibility);
    if (!attr)
      continue;
    // getValue(), not getInt(): the attribute may be of an unsigned type.
    auto value = dyn_cast<IntegerAttr>(attr);
    if (!value || !value.getValue().isStrictlyPositive() ||
        !value.getValue().isPowerOf2())
      return emitOpError() << "argument #" << i
                           << ": tile.divisibility must be a positive power "
                              "of two, got "
                           << attr;
  }
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto fnAttr = (*this)->getAttrOfType<FlatSymbolRefAttr>("callee");
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, fnAttr);
  if (!fn)
    return emitOpError() << "'" << fnAttr.getValue()
                         << "' does not name a tile.func in this module";
  FunctionType type = fn.getFunctionType();
  if (type.getNumInputs() != getNumOperands())
    return emitOpError() << "passes " << getNumOperands()
                         << " arguments but @" << fnAttr.getValue()
                         << " takes " << type.getNumInputs();
  for (unsigned i = 0, e = type.getNumInputs(); i != e; ++i)
    if (getOperand(i).getType() != type.getInput(i))
      return emitOpError() << "argument #" << i << " has type "
                           << getOperand(i).getType() << " but @"
                           << fnAttr.getValue() << " expects "
                           << type.getInput(i);
  if (type.getNumResults() != getNumResults())
    return emitOpError() << "expects " << getNumResults()
                         << " results but @" << fnAttr.getValue()
                         << " returns " << type.getNumResults();
  for (unsigned i = 0, e = type.getNumResults(); i != e; ++i)
    if (getResult(i).getType() != type.getResult(i))
      return emitOpError() << "result #" << i << " has type "
                           << getResult(i).getType() << " but @"
                           << fnAttr.getValue() << " returns "
                           << type.getResult(i);
  return success();
}

LogicalResult ReturnOp::verify() {
  auto fn = cast<FuncOp>((*this)->getParentOp());
  ArrayRef<Type> results = fn.getFunctionType().getResults();
  if (getNumOperands() != results.size())
    return emitOpError() << "returns " << getNumOperands() << " values but @"
                         << fn.getName() << " returns " << results.size();
  for (unsigned i = 0, e = results.size(); i != e; ++i)
    if (getOperand(i).getType() != results[i])
      return emitOpError() << "value #" << i << " has type "
                           << getOperand(i).getType() << " but @"
                           << fn.getName() << " returns " << results[i];
  return success();
}

//===----------------------------------------------------------------------===//
// GridDependencyOp
//===----------------------------------------------------------------------===//

LogicalResult GridDependencyOp::verify() {
  if (getAction() != "wait" && getAction() != "launch_dependents")
    return emitOpError() << "action must be \"wait\" or \"launch_dependents\", got \""
                         << getAction() << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// Inline assembly
//===----------------------------------------------------------------------===//

LogicalResult ElementwiseInlineAsmOp::verify() {
  if (getResults().empty())
    return emitOpError() << "needs at least one result (Triton's rule: return "
                            "a dummy value if the assembly has none)";
  if (getPackedElement() < 1)
    return emitOpError() << "packed_element must be at least 1, got "
                         << getPackedElement();
  std::optional<ArrayRef<int64_t>> shape;
  auto check = [&](Type type, StringRef what) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    ArrayRef<int64_t> s = tensor ? tensor.getShape() : ArrayRef<int64_t>();
    if (!shape) {
      shape = s;
      return success();
    }
    if (*shape != s)
      return emitOpError() << "operands and results must share one shape "
                              "(or all be scalars); "
                           << what << " has type " << type;
    return success();
  };
  for (Type t : getArgs().getTypes())
    if (failed(check(t, "an operand")))
      return failure();
  for (Type t : getResults().getTypes())
    if (failed(check(t, "a result")))
      return failure();
  // Outputs come first in the constraints: one `=` entry per result
  // register is counted at the lowering, which knows the packing; here,
  // that there are outputs at all.
  if (!getConstraints().contains('='))
    return emitOpError() << "constraints \"" << getConstraints()
                         << "\" name no output (`=r`, ...)";
  return success();
}

void ElementwiseInlineAsmOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (getPure())
    return;
  // Not pure: it may read and write memory (global or shared, which the
  // rest of the compiler orders through this resource).
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}
