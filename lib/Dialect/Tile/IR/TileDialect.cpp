//===- TileDialect.cpp - The tile dialect and its types -------------------===//

#include "warpforge/Dialect/Tile/IR/Tile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace warpforge::tile;

#include "warpforge/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "warpforge/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "warpforge/Dialect/Tile/IR/TileTypes.cpp.inc"

namespace {
/// Device functions are always inlined into kernels, so everything in the
/// dialect may be inlined.
struct TileInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Operation *, bool) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }

  /// A `tile.return` in a multi-block callee becomes a branch to the block
  /// after the call.
  void handleTerminator(Operation *op, Block *newDest) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret)
      return;
    OpBuilder builder(op);
    cf::BranchOp::create(builder, op->getLoc(), newDest, ret.getOperands());
    op->erase();
  }

  /// A `tile.return` in a single-block callee forwards its operands.
  void handleTerminator(Operation *op, ValueRange valuesToRepl) const final {
    auto ret = dyn_cast<ReturnOp>(op);
    if (!ret)
      return;
    for (auto [value, replacement] :
         llvm::zip(valuesToRepl, ret.getOperands()))
      value.replaceAllUsesWith(replacement);
  }
};
} // namespace

void TileDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "warpforge/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
  addInterfaces<TileInlinerInterface>();
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "warpforge/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

/// The axis-analysis hints: one positive entry per dimension of the op's
/// single integer or pointer result.  Other `tile.` attributes are not the
/// dialect's to check here.
LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != kDivisibility && name != kContiguity && name != kConstancy)
    return success();
  if (op->getNumResults() != 1)
    return op->emitOpError() << name << " applies to ops with one result, got "
                             << op->getNumResults();
  Type type = op->getResult(0).getType();
  if (!isa<IntegerType, IndexType, PointerType>(getElementTypeOrSelf(type)))
    return op->emitOpError()
           << name << " applies to integers and pointers, got " << type;
  auto values = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
  if (!values)
    return op->emitOpError()
           << name << " must be an array<i32>, got " << attr.getValue();
  auto tensorType = dyn_cast<RankedTensorType>(type);
  int64_t rank = tensorType ? std::max<int64_t>(tensorType.getRank(), 1) : 1;
  if (values.size() != rank)
    return op->emitOpError() << name << " needs " << rank
                             << " entries, one per dimension, got "
                             << values.size();
  for (int32_t value : values.asArrayRef())
    if (value <= 0)
      return op->emitOpError()
             << name << " entries must be positive, got " << value;
  return success();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

LogicalResult
PointerType::verify(function_ref<InFlightDiagnostic()> emitError,
                    Type pointeeType, int addressSpace) {
  if (!isa<IntegerType, FloatType, PointerType>(pointeeType))
    return emitError() << "pointee type must be an integer, a float or a "
                          "pointer, got "
                       << pointeeType;
  if (addressSpace < 0)
    return emitError() << "address space must be non-negative, got "
                       << addressSpace;
  return success();
}

LogicalResult
TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                       RankedTensorType blockType) {
  int64_t rank = blockType.getRank();
  if (rank < 1 || rank > 5)
    return emitError() << "block rank must be 1 to 5 (TMA's limit), got "
                       << rank;
  Type elem = blockType.getElementType();
  if (!isa<IntegerType, FloatType>(elem))
    return emitError() << "block elements must be integers or floats, got "
                       << elem;
  for (int64_t dim : blockType.getShape())
    if (ShapedType::isDynamic(dim) || dim <= 0)
      return emitError() << "block dimensions must be static and positive, "
                            "got "
                         << blockType;
  return success();
}

//===----------------------------------------------------------------------===//
// Type helpers
//===----------------------------------------------------------------------===//

namespace warpforge::tile {

LogicalResult verifyNoEmptyTensors(Operation *root, StringRef pass) {
  auto isEmpty = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && llvm::is_contained(tensor.getShape(), 0);
  };
  auto isHuge = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() &&
           tensor.getNumElements() > kMaxTensorElements;
  };
  WalkResult result = root->walk([&](Operation *op) {
    for (Type type : llvm::concat<const Type>(
             llvm::to_vector(op->getOperandTypes()),
             llvm::to_vector(op->getResultTypes()))) {
      if (isHuge(type)) {
        op->emitError() << pass << ": " << type << " has "
                        << cast<RankedTensorType>(type).getNumElements()
                        << " elements; a tensor in a kernel holds at most "
                        << kMaxTensorElements;
        return WalkResult::interrupt();
      }
      if (!isEmpty(type))
        continue;
      op->emitError() << pass << ": " << type
                      << " has a zero-sized dimension; tensors in kernels "
                         "have at least one element per dimension";
      return WalkResult::interrupt();
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (isEmpty(arg.getType())) {
            op->emitError() << pass << ": block argument of type "
                            << arg.getType()
                            << " has a zero-sized dimension; tensors in "
                               "kernels have at least one element per "
                               "dimension";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

Type getPointeeType(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (auto ptr = dyn_cast<PointerType>(tensor.getElementType()))
      return RankedTensorType::get(tensor.getShape(), ptr.getPointeeType(),
                                   tensor.getEncoding());
    return type;
  }
  if (auto ptr = dyn_cast<PointerType>(type))
    return ptr.getPointeeType();
  return type;
}

Type getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), i1, tensor.getEncoding());
  return i1;
}

} // namespace warpforge::tile
