//===- TypeConverter.cpp - Types of the lowered program -------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

TileGPUToLLVMTypeConverter::TileGPUToLLVMTypeConverter(MLIRContext *context)
    : LLVMTypeConverter(context) {
  addConversion([context](tile::PointerType type) -> Type {
    return LLVM::LLVMPointerType::get(context, type.getAddressSpace());
  });
  addConversion([this](RankedTensorType type) -> std::optional<Type> {
    Attribute layout = type.getEncoding();
    if (!layout || !isLowerableDistributed(layout))
      return std::nullopt; // Not lowerable here: the op reports it.
    Type element = convertType(type.getElementType());
    if (!element)
      return std::nullopt;
    unsigned count = getTotalElemsPerThread(type);
    SmallVector<Type> fields(count, element);
    return LLVM::LLVMStructType::getLiteral(type.getContext(), fields);
  });
  addConversion([context](MemDescType) -> Type {
    return LLVM::LLVMPointerType::get(context,
                                      TargetInfo::kSharedAddressSpace);
  });
  // A tensor descriptor is the generic address of its tensor map.
  addConversion([context](tile::TensorDescType) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
  addConversion([context](AsyncTokenType) -> Type {
    return IntegerType::get(context, 32);
  });
}
