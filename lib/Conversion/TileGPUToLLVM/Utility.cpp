//===- Utility.cpp - Helpers for lowering tilegpu to LLVM -----------------===//
//
// Constants, per-thread tensors, elements as they are in memory, and
// inlined combiners.  Thread identity and shuffles are in ThreadUtility.cpp,
// shared-memory access in SharedMemoryUtility.cpp, masks in
// MaskUtility.cpp.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace warpforge {

Value intVal(OpBuilder &b, Location loc, Type type, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}
Value i32Val(OpBuilder &b, Location loc, int64_t v) {
  return intVal(b, loc, b.getI32Type(), v);
}
Value packPair(OpBuilder &b, Location loc, Value lo, Value hi) {
  auto vecType = VectorType::get({2}, lo.getType());
  Value vec = LLVM::PoisonOp::create(b, loc, vecType);
  vec = LLVM::InsertElementOp::create(b, loc, vec, lo, i32Val(b, loc, 0));
  vec = LLVM::InsertElementOp::create(b, loc, vec, hi, i32Val(b, loc, 1));
  return LLVM::BitcastOp::create(b, loc, b.getI32Type(), vec);
}

std::pair<Value, Value> unpackPair(OpBuilder &b, Location loc, Value word,
                                   Type elemType) {
  auto vecType = VectorType::get({2}, elemType);
  Value vec = LLVM::BitcastOp::create(b, loc, vecType, word);
  return {LLVM::ExtractElementOp::create(b, loc, vec, i32Val(b, loc, 0)),
          LLVM::ExtractElementOp::create(b, loc, vec, i32Val(b, loc, 1))};
}

Value i64Val(OpBuilder &b, Location loc, int64_t v) {
  return intVal(b, loc, b.getI64Type(), v);
}
Value boolVal(OpBuilder &b, Location loc, bool v) {
  return intVal(b, loc, b.getI1Type(), v);
}

Value zeroVal(OpBuilder &b, Location loc, Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::ZeroOp::create(b, loc, type);
  if (auto f = dyn_cast<FloatType>(type))
    return LLVM::ConstantOp::create(b, loc, type, b.getFloatAttr(f, 0.0));
  return intVal(b, loc, type, 0);
}

Value gep(OpBuilder &b, Location loc, Type elemType, Value base, Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elemType, base,
                             ValueRange{index});
}

SmallVector<Value> unpackLLElements(Location loc, Value llvmStruct,
                                    OpBuilder &b) {
  auto type = dyn_cast<LLVM::LLVMStructType>(llvmStruct.getType());
  if (!type)
    return {llvmStruct};
  SmallVector<Value> values;
  for (unsigned i = 0, e = type.getBody().size(); i < e; ++i)
    values.push_back(LLVM::ExtractValueOp::create(b, loc, llvmStruct, i));
  return values;
}

Value packLLElements(Location loc, const TypeConverter *converter,
                     ValueRange values, OpBuilder &b, Type tensorType) {
  auto structType =
      cast<LLVM::LLVMStructType>(converter->convertType(tensorType));
  assert(structType.getBody().size() == values.size() &&
         "element count does not match the layout");
  Value result = LLVM::UndefOp::create(b, loc, structType);
  for (auto [i, v] : llvm::enumerate(values))
    result = LLVM::InsertValueOp::create(b, loc, result, v, i);
  return result;
}

unsigned memoryBits(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 64;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits == 1 ? 8 : bits;
}

Value toMemoryInt(OpBuilder &b, Location loc, Value v, unsigned bits) {
  Type type = v.getType();
  Type intType = b.getIntegerType(bits);
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(b, loc, intType, v);
  if (type.isInteger(1))
    return LLVM::ZExtOp::create(b, loc, intType, v);
  if (isa<IntegerType>(type))
    return v;
  return LLVM::BitcastOp::create(b, loc, intType, v);
}

Value fromMemoryInt(OpBuilder &b, Location loc, Value v, Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::IntToPtrOp::create(b, loc, type, v);
  if (type.isInteger(1))
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v,
                                intVal(b, loc, v.getType(), 0));
  if (isa<IntegerType>(type))
    return v;
  return LLVM::BitcastOp::create(b, loc, type, v);
}

Type getLoweredElementType(const TypeConverter *converter, Type tensorType) {
  Type element = cast<RankedTensorType>(tensorType).getElementType();
  return converter->convertType(element);
}

Value toSharedStorage(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(1))
    return LLVM::ZExtOp::create(b, loc, b.getI8Type(), v);
  return v;
}

Value fromSharedStorage(OpBuilder &b, Location loc, Value v, Type type) {
  if (type.isInteger(1))
    return LLVM::TruncOp::create(b, loc, type, v);
  return v;
}

unsigned getSharedStorageBytes(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return 8;
  return std::max(1u, type.getIntOrFloatBitWidth() / 8);
}

SmallVector<SmallVector<Value>> unpackOperandTuples(Location loc,
                                                   ValueRange llvmStructs,
                                                   OpBuilder &b) {
  SmallVector<SmallVector<Value>> tuples;
  for (Value llvmStruct : llvmStructs) {
    SmallVector<Value> elements = unpackLLElements(loc, llvmStruct, b);
    tuples.resize(elements.size());
    for (auto [tuple, e] : llvm::zip(tuples, elements))
      tuple.push_back(e);
  }
  return tuples;
}

SmallVector<Value> packOperandTuples(Location loc,
                                     const TypeConverter *converter,
                                     ArrayRef<SmallVector<Value>> tuples,
                                     TypeRange resultTypes, OpBuilder &b) {
  SmallVector<Value> results;
  for (auto [i, type] : llvm::enumerate(resultTypes)) {
    if (!isa<RankedTensorType>(type)) {
      results.push_back(tuples.front()[i]);
      continue;
    }
    SmallVector<Value> values;
    for (ArrayRef<Value> tuple : tuples)
      values.push_back(tuple[i]);
    results.push_back(packLLElements(loc, converter, values, b, type));
  }
  return results;
}

SmallVector<Value> emitCombine(OpBuilder &b, Region &combiner, ValueRange lhs,
                               ValueRange rhs) {
  Block &block = combiner.front();
  IRMapping mapping;
  for (auto [i, v] : llvm::enumerate(lhs))
    mapping.map(block.getArgument(i), v);
  for (auto [i, v] : llvm::enumerate(rhs))
    mapping.map(block.getArgument(lhs.size() + i), v);
  for (Operation &op : block.without_terminator())
    b.clone(op, mapping);
  SmallVector<Value> results;
  for (Value v : block.getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(v));
  return results;
}

} // namespace warpforge
