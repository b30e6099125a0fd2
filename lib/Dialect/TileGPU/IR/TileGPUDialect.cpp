//===- TileGPUDialect.cpp - The tilegpu dialect and its types -------------===//

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

#include "warpforge/Dialect/TileGPU/IR/TileGPUDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"

namespace {
/// Prints layouts as aliases (`#blocked`, `#slice1`, ...): tensor types that
/// repeat a full layout on every value would be unreadable.
struct TileGPUOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    return llvm::TypeSwitch<Attribute, AliasResult>(attr)
        .Case<BlockedEncodingAttr>([&](auto) {
          os << "blocked";
          return AliasResult::FinalAlias;
        })
        .Case<SliceEncodingAttr>([&](auto) {
          os << "slice";
          return AliasResult::FinalAlias;
        })
        .Case<WgmmaEncodingAttr>([&](auto) {
          os << "wgmma";
          return AliasResult::FinalAlias;
        })
        .Case<DotOperandEncodingAttr>([&](auto) {
          os << "dot_op";
          return AliasResult::FinalAlias;
        })
        .Case<SharedEncodingAttr>([&](auto) {
          os << "shared";
          return AliasResult::FinalAlias;
        })
        .Case<NVMMASharedEncodingAttr>([&](auto) {
          os << "nvmma";
          return AliasResult::FinalAlias;
        })
        .Default([](Attribute) { return AliasResult::NoAlias; });
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addInterfaces<TileGPUOpAsmInterface>();
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "warpforge/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"
      >();
}

Operation *TileGPUDialect::materializeConstant(OpBuilder &builder,
                                               Attribute value, Type type,
                                               Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

void TileGPUDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "warpforge/Dialect/TileGPU/IR/TileGPUTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MemDescType
//===----------------------------------------------------------------------===//

// !tilegpu.memdesc<64x64xf16, #enc[, mutable][, buffers = N]>
Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseAttribute(encoding))
    return {};
  bool isMutable = false;
  int64_t numBuffers = 1;
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("mutable"))) {
      isMutable = true;
      continue;
    }
    if (parser.parseKeyword("buffers") || parser.parseEqual() ||
        parser.parseInteger(numBuffers))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<MemDescType>(parser.getContext(), shape,
                                        elementType, encoding, isMutable,
                                        numBuffers);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t dim : getShape())
    printer << dim << "x";
  printer << getElementType() << ", " << getEncoding();
  if (getIsMutable())
    printer << ", mutable";
  if (getNumBuffers() != 1)
    printer << ", buffers = " << getNumBuffers();
  printer << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  Attribute encoding, bool isMutable,
                                  int64_t numBuffers) {
  if (shape.empty())
    return emitError() << "memdesc must have at least one dimension";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "memdesc dimensions must be positive, got "
                         << dim;
  if (!elementType.isIntOrFloat())
    return emitError() << "memdesc elements must be integers or floats, got "
                       << elementType;
  if (numBuffers < 1)
    return emitError() << "memdesc must have at least one buffer, got "
                       << numBuffers;
  if (auto shared = dyn_cast<SharedEncodingAttr>(encoding)) {
    if (shared.getOrder().size() != shape.size())
      return emitError() << "shared layout order has "
                         << shared.getOrder().size()
                         << " dimensions but the memdesc has " << shape.size();
    return success();
  }
  if (auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(encoding)) {
    if (shape.size() < 2)
      return emitError() << "an nvmma_shared memdesc must be at least 2-D";
    if (nvmma.getElementBitWidth() != elementType.getIntOrFloatBitWidth())
      return emitError() << "nvmma_shared layout is for "
                         << nvmma.getElementBitWidth()
                         << "-bit elements but the memdesc holds "
                         << elementType;
    // The contiguous dimension must fill whole swizzle rows.
    int64_t contiguous = nvmma.getTransposed() ? shape[shape.size() - 2]
                                               : shape.back();
    int64_t rowBytes = contiguous * nvmma.getElementBitWidth() / 8;
    if (nvmma.getSwizzlingByteWidth() != 0 &&
        rowBytes % nvmma.getSwizzlingByteWidth() != 0)
      return emitError() << "the contiguous dimension holds " << rowBytes
                         << " bytes, not a multiple of the "
                         << nvmma.getSwizzlingByteWidth()
                         << "-byte swizzle";
    return success();
  }
  return emitError() << "memdesc encoding must be a shared layout "
                        "(#tilegpu.shared or #tilegpu.nvmma_shared), got "
                     << encoding;
}

int64_t MemDescType::getBufferBytes() const {
  int64_t elements = 1;
  for (int64_t dim : getShape())
    elements *= dim;
  return (elements * getElementType().getIntOrFloatBitWidth() + 7) / 8;
}

MemDescType MemDescType::getSingleBuffer() const {
  return MemDescType::get(getContext(), getShape(), getElementType(),
                          getEncoding(), getIsMutable(), 1);
}

LogicalResult ChannelType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t numBuffers) {
  if (numBuffers < 1)
    return emitError() << "a channel needs at least one slot, got "
                       << numBuffers;
  return success();
}
