//===- Utility.cpp - Helpers for lowering tilegpu to LLVM -----------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/Support/MathExtras.h"

#include <map>
#include <optional>

using namespace mlir;
using namespace warpforge::tilegpu;

namespace warpforge {

Value intVal(OpBuilder &b, Location loc, Type type, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, v));
}
Value i32Val(OpBuilder &b, Location loc, int64_t v) {
  return intVal(b, loc, b.getI32Type(), v);
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

Value getThreadId(OpBuilder &b, Location loc) {
  return NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
}

std::pair<Value, Value> getLaneAndWarpId(OpBuilder &b, Location loc) {
  Value tid = getThreadId(b, loc);
  Value lane = LLVM::AndOp::create(b, loc, tid, i32Val(b, loc, 31));
  Value warp = LLVM::LShrOp::create(b, loc, tid, i32Val(b, loc, 5));
  return {lane, warp};
}

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<unsigned> sizes,
                               ArrayRef<unsigned> order) {
  SmallVector<Value> indices(sizes.size());
  unsigned stride = 1;
  for (unsigned d : order) {
    Value v = linear;
    if (stride != 1)
      v = LLVM::UDivOp::create(b, loc, v, i32Val(b, loc, stride));
    if (sizes[d] == 1)
      v = i32Val(b, loc, 0);
    else
      v = LLVM::URemOp::create(b, loc, v, i32Val(b, loc, sizes[d]));
    indices[d] = v;
    stride *= sizes[d];
  }
  return indices;
}

SmallVector<Value> getThreadBase(OpBuilder &b, Location loc,
                                 Attribute layout) {
  BlockedEncodingAttr root = getRootBlocked(layout);
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  SmallVector<Value> lanes =
      delinearize(b, loc, lane, root.getThreadsPerWarp(), root.getOrder());
  SmallVector<Value> warps =
      delinearize(b, loc, warp, root.getWarpsPerCTA(), root.getOrder());
  SmallVector<Value> base;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    Value w = LLVM::MulOp::create(b, loc, warps[d],
                                  i32Val(b, loc, root.getThreadsPerWarp()[d]));
    Value t = LLVM::AddOp::create(b, loc, w, lanes[d]);
    base.push_back(LLVM::MulOp::create(
        b, loc, t, i32Val(b, loc, root.getSizePerThread()[d])));
  }
  return base;
}

namespace {
/// emitIndices for wgmma accumulators and register operands: a base row and
/// column per thread plus compile-time offsets (see LayoutUtils.h).
SmallVector<SmallVector<Value>> emitWgmmaIndices(OpBuilder &b, Location loc,
                                                 RankedTensorType type) {
  Attribute layout = type.getEncoding();
  WgmmaEncodingAttr wgmma = getWgmmaParent(layout);
  unsigned wM = wgmma.getWarpsPerCTA()[0], wN = wgmma.getWarpsPerCTA()[1];
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  Value warpM = LLVM::URemOp::create(b, loc, warp, i32Val(b, loc, wM));
  Value row = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, warpM, i32Val(b, loc, 16)),
      LLVM::UDivOp::create(b, loc, lane, i32Val(b, loc, 4)));
  Value col = LLVM::MulOp::create(
      b, loc, LLVM::URemOp::create(b, loc, lane, i32Val(b, loc, 4)),
      i32Val(b, loc, 2));
  if (!isa<DotOperandEncodingAttr>(layout) && wN > 1) {
    Value warpN = LLVM::URemOp::create(
        b, loc, LLVM::UDivOp::create(b, loc, warp, i32Val(b, loc, wM)),
        i32Val(b, loc, wN));
    col = LLVM::AddOp::create(
        b, loc, col,
        LLVM::MulOp::create(b, loc, warpN,
                            i32Val(b, loc, wgmma.getInstrShape()[1])));
  }
  SmallVector<SmallVector<Value>> indices;
  for (auto [r, c] : getWgmmaElementOffsets(layout, type.getShape())) {
    Value rv = r ? LLVM::AddOp::create(b, loc, row, i32Val(b, loc, r)).getResult()
                 : row;
    Value cv = c ? LLVM::AddOp::create(b, loc, col, i32Val(b, loc, c)).getResult()
                 : col;
    indices.push_back({rv, cv});
  }
  return indices;
}
} // namespace

SmallVector<SmallVector<Value>> emitIndices(OpBuilder &b, Location loc,
                                            RankedTensorType type) {
  Attribute layout = type.getEncoding();
  if (isa<WgmmaEncodingAttr, DotOperandEncodingAttr>(layout))
    return emitWgmmaIndices(b, loc, type);
  SmallVector<unsigned> removed;
  BlockedEncodingAttr root = getRootBlocked(layout, &removed);
  SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
  SmallVector<int64_t> tile = getRootCTATile(root);
  SmallVector<Value> base = getThreadBase(b, loc, layout);
  SmallVector<SmallVector<Value>> indices;
  for (const SmallVector<int64_t> &offset :
       getRootElementOffsets(layout, type.getShape())) {
    SmallVector<Value> coords;
    for (unsigned d = 0; d < root.getRank(); ++d) {
      if (llvm::is_contained(removed, d))
        continue;
      Value c = offset[d] == 0
                    ? base[d]
                    : LLVM::AddOp::create(b, loc, base[d],
                                          i32Val(b, loc, offset[d]));
      // A tensor smaller than the CTA tile wraps around (shapes are powers
      // of two, so the modulo is a mask).
      if (rootShape[d] < tile[d])
        c = LLVM::AndOp::create(b, loc, c, i32Val(b, loc, rootShape[d] - 1));
      coords.push_back(c);
    }
    indices.push_back(std::move(coords));
  }
  return indices;
}

Value emitOwnerPredicate(OpBuilder &b, Location loc, RankedTensorType type) {
  Attribute layout = type.getEncoding();
  // wgmma tiles are never larger than the tensor (the verifiers see to it).
  if (isa<WgmmaEncodingAttr>(layout))
    return nullptr;
  BlockedEncodingAttr root = getRootBlocked(layout);
  SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
  SmallVector<int64_t> tile = getRootCTATile(root);
  SmallVector<Value> base;
  Value pred;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    if (rootShape[d] >= tile[d])
      continue;
    if (base.empty())
      base = getThreadBase(b, loc, layout);
    Value owner = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult,
                                       base[d], i32Val(b, loc, rootShape[d]));
    pred = pred ? LLVM::AndOp::create(b, loc, pred, owner) : owner;
  }
  return pred;
}

namespace {
/// Applies `shuffle` to an i32-sized piece of `value`, splitting or
/// extending other widths.
Value shuffleAny(OpBuilder &b, Location loc, Value value,
                 function_ref<Value(Value)> shuffle32) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type)) {
    Value asInt = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), value);
    return LLVM::IntToPtrOp::create(b, loc, type,
                                    shuffleAny(b, loc, asInt, shuffle32));
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  if (bits == 64) {
    Type i64 = b.getI64Type();
    Value asInt = type.isInteger(64)
                      ? value
                      : LLVM::BitcastOp::create(b, loc, i64, value).getResult();
    Value lo = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, asInt, i64Val(b, loc, 32)));
    lo = LLVM::ZExtOp::create(b, loc, i64, shuffle32(lo));
    hi = LLVM::ZExtOp::create(b, loc, i64, shuffle32(hi));
    Value joined = LLVM::OrOp::create(
        b, loc, lo, LLVM::ShlOp::create(b, loc, hi, i64Val(b, loc, 32)));
    return type.isInteger(64)
               ? joined
               : LLVM::BitcastOp::create(b, loc, type, joined).getResult();
  }
  if (bits == 32) {
    Value asInt = type.isInteger(32)
                      ? value
                      : LLVM::BitcastOp::create(b, loc, i32, value).getResult();
    Value r = shuffle32(asInt);
    return type.isInteger(32) ? r
                              : LLVM::BitcastOp::create(b, loc, type, r)
                                    .getResult();
  }
  // Narrower: through an integer of the same width, zero-extended.
  Type narrow = b.getIntegerType(bits);
  Value asInt = type.isInteger(bits)
                    ? value
                    : LLVM::BitcastOp::create(b, loc, narrow, value).getResult();
  Value r = LLVM::TruncOp::create(
      b, loc, narrow,
      shuffle32(LLVM::ZExtOp::create(b, loc, i32, asInt).getResult()));
  return type.isInteger(bits) ? r
                              : LLVM::BitcastOp::create(b, loc, type, r)
                                    .getResult();
}
} // namespace

Value shuffleXor(OpBuilder &b, Location loc, Value value, unsigned laneMask) {
  return shuffleAny(b, loc, value, [&](Value v) -> Value {
    return NVVM::ShflOp::create(b, loc, v.getType(), i32Val(b, loc, -1), v,
                                i32Val(b, loc, laneMask), i32Val(b, loc, 0x1f),
                                NVVM::ShflKind::bfly, UnitAttr());
  });
}

Value shuffleIdx(OpBuilder &b, Location loc, Value value, Value srcLane) {
  return shuffleAny(b, loc, value, [&](Value v) -> Value {
    return NVVM::ShflOp::create(b, loc, v.getType(), i32Val(b, loc, -1), v,
                                srcLane, i32Val(b, loc, 0x1f),
                                NVVM::ShflKind::idx, UnitAttr());
  });
}

Value getUniformWarpId(OpBuilder &b, Location loc) {
  return shuffleIdx(b, loc, getLaneAndWarpId(b, loc).second,
                    i32Val(b, loc, 0));
}

void emitBarrier(OpBuilder &b, Location loc) { NVVM::Barrier0Op::create(b, loc); }

void emitAsyncProxyFence(OpBuilder &b, Location loc) {
  MLIRContext *context = b.getContext();
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
}

static constexpr llvm::StringLiteral kSharedMemoryGlobal = "warpforge_smem";

Value getSharedMemoryBase(OpBuilder &b, Location loc, Operation *op) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  return LLVM::AddressOfOp::create(b, loc, ptrType, kSharedMemoryGlobal);
}

Value getScratchBase(OpBuilder &b, Location loc, Operation *op) {
  auto offset = op->getAttrOfType<IntegerAttr>("tilegpu.scratch");
  assert(offset && "op was not given scratch shared memory");
  Value base = getSharedMemoryBase(b, loc, op);
  if (offset.getInt() == 0)
    return base;
  return gep(b, loc, b.getI8Type(), base, i32Val(b, loc, offset.getInt()));
}

Value gep(OpBuilder &b, Location loc, Type elemType, Value base, Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elemType, base,
                             ValueRange{index});
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

namespace {
/// The PTX register constraint and integer type holding a value of `bits`.
std::pair<StringRef, Type> registerFor(OpBuilder &b, unsigned bits) {
  if (bits <= 16)
    return {"h", b.getI16Type()};
  if (bits == 32)
    return {"r", b.getI32Type()};
  return {"l", b.getI64Type()};
}

/// `v` as an integer in a register of type `regType` (zero-extended).
Value toRegisterInt(OpBuilder &b, Location loc, Value v, Type regType) {
  unsigned bits = memoryBits(v.getType());
  Value asInt = toMemoryInt(b, loc, v, bits);
  if (bits < regType.getIntOrFloatBitWidth())
    asInt = LLVM::ZExtOp::create(b, loc, regType, asInt);
  return asInt;
}

Value fromRegisterInt(OpBuilder &b, Location loc, Value v, Type type) {
  unsigned bits = memoryBits(type);
  if (bits < v.getType().getIntOrFloatBitWidth())
    v = LLVM::TruncOp::create(b, loc, b.getIntegerType(bits), v);
  return fromMemoryInt(b, loc, v, type);
}
} // namespace

static Type vectorOf(Type elemType, unsigned vec) {
  return vec == 1 ? elemType : VectorType::get({vec}, elemType);
}

/// Stores `values` (vec of them) at `ptr` in one access.
void storeVector(OpBuilder &b, Location loc, Value ptr,
                 ArrayRef<Value> values) {
  unsigned vec = values.size();
  Type elemType = values.front().getType();
  if (vec == 1) {
    LLVM::StoreOp::create(b, loc, values.front(), ptr);
    return;
  }
  Value v = LLVM::PoisonOp::create(b, loc, vectorOf(elemType, vec));
  for (auto [i, e] : llvm::enumerate(values))
    v = LLVM::InsertElementOp::create(b, loc, v, e, i32Val(b, loc, i));
  LLVM::StoreOp::create(b, loc, v, ptr,
                        /*alignment=*/vec * memoryBits(elemType) / 8);
}

/// Loads vec elements of `elemType` at `ptr` in one access.
SmallVector<Value> loadVector(OpBuilder &b, Location loc, Value ptr,
                              Type elemType, unsigned vec) {
  if (vec == 1)
    return {LLVM::LoadOp::create(b, loc, elemType, ptr)};
  Value v = LLVM::LoadOp::create(b, loc, vectorOf(elemType, vec), ptr,
                                 /*alignment=*/vec * memoryBits(elemType) / 8);
  SmallVector<Value> values;
  for (unsigned i = 0; i < vec; ++i)
    values.push_back(
        LLVM::ExtractElementOp::create(b, loc, v, i32Val(b, loc, i)));
  return values;
}

void storeShared(OpBuilder &b, Location loc, Value ptr, Value value,
                 Value pred) {
  if (!pred) {
    LLVM::StoreOp::create(b, loc, value, ptr);
    return;
  }
  unsigned bits = memoryBits(value.getType());
  auto [constraint, regType] = registerFor(b, bits);
  std::string asmText = "@$2 st.shared.b" + std::to_string(bits) +
                        " [$0], $1;";
  // Shared pointers are 32-bit (nvptx-short-ptr): "r".
  std::string constraints = ("r," + constraint + ",b").str();
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange{}, ValueRange{ptr, toRegisterInt(b, loc, value, regType), pred},
      asmText, constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr{}, ArrayAttr{});
}

Value loadShared(OpBuilder &b, Location loc, Value ptr, Type type,
                 Value pred) {
  if (!pred)
    return LLVM::LoadOp::create(b, loc, type, ptr);
  unsigned bits = memoryBits(type);
  auto [constraint, regType] = registerFor(b, bits);
  std::string width = std::to_string(bits);
  std::string asmText = "mov.b" + std::to_string(regType.getIntOrFloatBitWidth()) +
                        " $0, 0;\n\t@$2 ld.shared.b" + width + " $0, [$1];";
  std::string constraints = ("=" + constraint + ",r,b").str();
  auto asmOp = LLVM::InlineAsmOp::create(
      b, loc, regType, ValueRange{ptr, pred}, asmText, constraints,
      /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::TailCallKind::None, LLVM::AsmDialectAttr{}, ArrayAttr{});
  return fromRegisterInt(b, loc, asmOp.getResult(0), type);
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

//===----------------------------------------------------------------------===//
// Shared-memory buffers
//===----------------------------------------------------------------------===//

namespace {
/// The nvmma placement's parameters for a 2-D buffer of `shape`.
struct NVMMAGeometry {
  unsigned contigDim, otherDim;
  int64_t lc, lo, eb, swizzle;
  NVMMAGeometry(ArrayRef<int64_t> shape, NVMMASharedEncodingAttr layout)
      : contigDim(layout.getTransposed() ? 0 : 1), otherDim(1 - contigDim),
        lc(shape[contigDim]), lo(shape[otherDim]),
        eb(layout.getElementBitWidth() / 8),
        swizzle(layout.getSwizzlingByteWidth()) {}
  int64_t width() const { return swizzle / eb; } // W: elements per row
};
} // namespace

int64_t getNVMMAOffset(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape,
                       NVMMASharedEncodingAttr layout) {
  NVMMAGeometry g(shape, layout);
  int64_t c = coords[g.contigDim], o = coords[g.otherDim];
  if (g.swizzle == 0)
    return (o * g.lc + c) * g.eb;
  int64_t u = getNVMMAUnswizzledOffset(o, c, g.lo, g.swizzle, g.eb);
  return u ^ (((u >> 7) & (g.swizzle / 16 - 1)) << 4);
}

int64_t getNVMMAUnswizzledOffset(int64_t o, int64_t c, int64_t lo,
                                 int64_t swizzleBytes, int64_t elemBytes) {
  int64_t w = swizzleBytes / elemBytes;
  return (c / w) * lo * swizzleBytes + o * swizzleBytes + (c % w) * elemBytes;
}

Value emitNVMMAOffset(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                      ArrayRef<int64_t> shape,
                      NVMMASharedEncodingAttr layout) {
  NVMMAGeometry g(shape, layout);
  Value c = coords[g.contigDim], o = coords[g.otherDim];
  auto mul = [&](Value v, int64_t k) -> Value {
    if (k == 1)
      return v;
    if (llvm::isPowerOf2_64(k))
      return LLVM::ShlOp::create(b, loc, v, i32Val(b, loc, llvm::Log2_64(k)));
    return LLVM::MulOp::create(b, loc, v, i32Val(b, loc, k));
  };
  auto add = [&](Value x, Value y) -> Value {
    return LLVM::AddOp::create(b, loc, x, y);
  };
  // Named steps: the order of the ops must not depend on the compiler's
  // order of evaluating arguments.
  if (g.swizzle == 0) {
    Value rowStart = mul(o, g.lc);
    return mul(add(rowStart, c), g.eb);
  }
  // W = S / eb is a power of two: the block index and the column within it
  // are a shift and a mask.
  int64_t w = g.width();
  Value column = LLVM::AndOp::create(b, loc, c, i32Val(b, loc, w - 1));
  Value block =
      LLVM::LShrOp::create(b, loc, c, i32Val(b, loc, llvm::Log2_64(w)));
  Value blockStart = mul(block, g.lo * g.swizzle);
  Value rowStart = mul(o, g.swizzle);
  Value rowInBlock = add(blockStart, rowStart);
  Value u = add(rowInBlock, mul(column, g.eb));
  Value line = LLVM::LShrOp::create(b, loc, u, i32Val(b, loc, 7));
  Value phase = LLVM::AndOp::create(b, loc, line,
                                    i32Val(b, loc, g.swizzle / 16 - 1));
  Value chunkXor = LLVM::ShlOp::create(b, loc, phase, i32Val(b, loc, 4));
  return LLVM::XOrOp::create(b, loc, u, chunkXor);
}

Value getAddressedBuffer(Value memdesc) {
  while (auto sub = memdesc.getDefiningOp<MemDescSubsliceOp>())
    memdesc = sub.getSrc();
  return memdesc;
}

SmallVector<int64_t> getDenseStrides(ArrayRef<int64_t> shape,
                                     SharedEncodingAttr layout) {
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t stride = 1;
  for (unsigned d : layout.getOrder()) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

LogicalResult checkSharedElementAccess(Operation *op, Value memdesc) {
  auto type = cast<MemDescType>(memdesc.getType());
  Attribute encoding = type.getEncoding();
  if (isa<NVMMASharedEncodingAttr>(encoding) && type.getShape().size() != 2)
    return op->emitError("element access to a ")
           << type.getShape().size()
           << "-D #tilegpu.nvmma_shared buffer is not supported (only 2-D)";
  if (!isa<SharedEncodingAttr, NVMMASharedEncodingAttr>(encoding))
    return op->emitError("element access to shared memory in layout ")
           << encoding << " is not supported";
  if (!type.getElementType().isIntOrFloat() ||
      type.getElementType().getIntOrFloatBitWidth() < 8)
    return op->emitError("shared buffers of ")
           << type.getElementType() << " are not supported (elements must "
           << "be whole bytes)";
  return success();
}

namespace {
int64_t largestPowerOfTwoDividing(int64_t n) { return n & -n; }

/// The dim along which consecutive elements of `memdesc` are adjacent in
/// memory, and how many of them stay adjacent and aligned (a power of two).
std::pair<unsigned, int64_t> getContiguousRun(Value memdesc) {
  auto type = cast<MemDescType>(memdesc.getType());
  if (auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(type.getEncoding())) {
    NVMMAGeometry g(type.getShape(), nvmma);
    // Rows of S bytes (or the whole dim without swizzle) in aligned 16-byte
    // chunks; the 1024-byte-aligned base keeps them aligned.
    return {g.contigDim, g.lc};
  }
  auto layout = cast<SharedEncodingAttr>(type.getEncoding());
  unsigned dim = layout.getOrder()[0];
  // A sub-tile's rows start at multiples of its own row length (offsets
  // are multiples of its shape) and of its buffer's.
  auto buffer = cast<MemDescType>(getAddressedBuffer(memdesc).getType());
  return {dim, std::min(largestPowerOfTwoDividing(type.getShape()[dim]),
                        largestPowerOfTwoDividing(buffer.getShape()[dim]))};
}

} // namespace

unsigned getSharedVectorElems(Value memdesc, RankedTensorType tensorType) {
  Attribute layout = tensorType.getEncoding();
  if (!isBlockedLike(layout))
    return 1;
  auto type = cast<MemDescType>(memdesc.getType());
  auto [dim, run] = getContiguousRun(memdesc);
  if (getOrder(layout)[0] != dim)
    return 1;
  // The thread's runs start at multiples of their length, so a vector that
  // divides the run is aligned.
  int64_t vec = largestPowerOfTwoDividing(
      getContiguousElemsPerThread(layout, tensorType.getShape()));
  vec = std::min(vec, largestPowerOfTwoDividing(run));
  int64_t elemBytes = type.getElementType().getIntOrFloatBitWidth() / 8;
  vec = std::min<int64_t>(vec, 16 / elemBytes);
  return unsigned(std::max<int64_t>(1, vec));
}

/// The number of threads of the CTA the op at `b`'s insertion point runs on.
static unsigned getNumThreads(OpBuilder &b) {
  auto module =
      b.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  return 32 * getNumWarps(module);
}

/// How each vector of a thread's list is placed relative to its first one,
/// the same way in every thread: at `offsets[i]` added to it, or xor-ed
/// into it.
struct ThreadInvariantOffsets {
  bool additive;
  SmallVector<int64_t> offsets;
};

/// For each vector of `vec` elements of the thread's `type` list, the
/// offset `offsetOf` gives its first element relative to that of the first
/// vector, when it is the same in every thread, as a difference (checked
/// first) or as an xor; nothing when neither holds.
static std::optional<ThreadInvariantOffsets> getThreadInvariantOffsets(
    RankedTensorType type, unsigned vec, unsigned numThreads,
    llvm::function_ref<int64_t(ArrayRef<int64_t>)> offsetOf) {
  SmallVector<int64_t> sums, xors;
  bool additive = true, xored = true;
  auto cta = getCTAElementCoords(type.getEncoding(), type.getShape(),
                                 numThreads);
  for (unsigned tid = 0; tid < numThreads && (additive || xored); ++tid) {
    ArrayRef<SmallVector<int64_t>> coords = cta[tid];
    int64_t first = offsetOf(coords[0]);
    for (unsigned i = 0; i < coords.size(); i += vec) {
      int64_t offset = offsetOf(coords[i]);
      if (tid == 0) {
        sums.push_back(offset - first);
        xors.push_back(offset ^ first);
        continue;
      }
      additive &= sums[i / vec] == offset - first;
      xored &= xors[i / vec] == (offset ^ first);
    }
  }
  if (additive)
    return ThreadInvariantOffsets{true, sums};
  if (xored)
    return ThreadInvariantOffsets{false, xors};
  return std::nullopt;
}

SmallVector<Value> emitSharedVectorAddresses(OpBuilder &b, Location loc,
                                             Value memdesc, Value base,
                                             RankedTensorType tensorType,
                                             unsigned vec) {
  auto type = cast<MemDescType>(memdesc.getType());
  auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(type.getEncoding());
  SmallVector<int64_t> strides;
  if (!nvmma) {
    auto buffer = cast<MemDescType>(getAddressedBuffer(memdesc).getType());
    strides = getDenseStrides(buffer.getShape(),
                              cast<SharedEncodingAttr>(buffer.getEncoding()));
  }
  // Bytes into an NVMMA buffer, elements into a dense one.
  Type unitType = nvmma ? b.getI8Type() : type.getElementType();
  auto offsetOf = [&](ArrayRef<int64_t> coords) -> int64_t {
    if (nvmma)
      return getNVMMAOffset(coords, type.getShape(), nvmma);
    int64_t offset = 0;
    for (auto [c, stride] : llvm::zip(coords, strides))
      offset += c * stride;
    return offset;
  };
  auto emitOffset = [&](ArrayRef<Value> coords) -> Value {
    if (nvmma)
      return emitNVMMAOffset(b, loc, coords, type.getShape(), nvmma);
    Value offset;
    for (auto [c, stride] : llvm::zip(coords, strides)) {
      Value term = stride == 1 ? c
                               : LLVM::MulOp::create(b, loc, c,
                                                     i32Val(b, loc, stride))
                                     .getResult();
      offset = offset ? LLVM::AddOp::create(b, loc, offset, term).getResult()
                      : term;
    }
    return offset ? offset : i32Val(b, loc, 0);
  };
  SmallVector<SmallVector<Value>> indices = emitIndices(b, loc, tensorType);
  // Where every thread's vectors sit at the same distances from its first
  // one, one address computation serves them all: repetitions of the
  // layout's tile along rows keep a row's position in the 8-row swizzle
  // atom, and ptxas folds the distances into the instructions' immediate
  // offsets.  Where they sit at the same xor (repetitions along a swizzled
  // line), one xor per vector does.
  if (std::optional<ThreadInvariantOffsets> relative =
          getThreadInvariantOffsets(tensorType, vec, getNumThreads(b),
                                    offsetOf)) {
    Value first = emitOffset(indices[0]);
    Value firstPtr = gep(b, loc, unitType, base, first);
    SmallVector<Value> ptrs;
    for (int64_t offset : relative->offsets) {
      if (offset == 0)
        ptrs.push_back(firstPtr);
      else if (relative->additive)
        ptrs.push_back(gep(b, loc, unitType, firstPtr, i32Val(b, loc, offset)));
      else
        ptrs.push_back(gep(
            b, loc, unitType, base,
            LLVM::XOrOp::create(b, loc, first, i32Val(b, loc, offset))
                .getResult()));
    }
    return ptrs;
  }
  SmallVector<Value> ptrs;
  for (unsigned i = 0; i < indices.size(); i += vec)
    ptrs.push_back(gep(b, loc, unitType, base, emitOffset(indices[i])));
  return ptrs;
}

/// For each element of a thread's `type` list, the first element of the
/// list whose mask is equal to its own in every one of the CTA's
/// `numThreads` threads, as `constancy` proves.
static SmallVector<unsigned>
getMaskRepresentatives(RankedTensorType type, ArrayRef<int64_t> constancy,
                       unsigned numThreads) {
  unsigned count = getTotalElemsPerThread(type);
  SmallVector<unsigned> reps = llvm::to_vector(llvm::seq<unsigned>(0, count));
  if (llvm::all_of(constancy, [](int64_t c) { return c <= 1; }))
    return reps;
  // An element's signature: the run of equal mask values it falls in, in
  // every thread.  Elements with the same signature have the same mask.
  SmallVector<SmallVector<int64_t>> signature(count);
  for (const auto &coords :
       getCTAElementCoords(type.getEncoding(), type.getShape(), numThreads))
    for (unsigned e = 0; e < count; ++e)
      for (auto [c, run] : llvm::zip(coords[e], constancy))
        signature[e].push_back(c / std::max<int64_t>(1, run));
  std::map<SmallVector<int64_t>, unsigned> first;
  for (unsigned e = 0; e < count; ++e)
    reps[e] = first.try_emplace(signature[e], e).first->second;
  return reps;
}

SmallVector<Value> unpackMaskElements(OpBuilder &b, Location loc,
                                      Value llMask, RankedTensorType type,
                                      ArrayRef<int64_t> constancy) {
  if (!llMask)
    return {};
  SmallVector<Value> masks = unpackLLElements(loc, llMask, b);
  SmallVector<unsigned> reps =
      getMaskRepresentatives(type, constancy, getNumThreads(b));
  SmallVector<Value> shared;
  for (unsigned rep : reps)
    shared.push_back(masks[rep]);
  return shared;
}

Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                ArrayRef<int64_t> shape) {
  Value linear;
  int64_t stride = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      Value term = stride == 1 ? coords[d]
                               : LLVM::MulOp::create(b, loc, coords[d],
                                                     i32Val(b, loc, stride))
                                     .getResult();
      linear = linear ? LLVM::AddOp::create(b, loc, linear, term).getResult()
                      : term;
    }
    stride *= shape[d];
  }
  return linear ? linear : i32Val(b, loc, 0);
}

AxisDistribution getAxisDistribution(RankedTensorType type, unsigned axis) {
  Attribute layout = type.getEncoding();
  SmallVector<unsigned> removed;
  BlockedEncodingAttr root = getRootBlocked(layout, &removed);
  SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
  AxisDistribution dist;
  // The axis-th dimension the slices kept.
  unsigned kept = 0;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    if (llvm::is_contained(removed, d))
      continue;
    if (kept++ == axis) {
      dist.rootDim = d;
      break;
    }
  }
  unsigned d = dist.rootDim;
  int64_t size = rootShape[d];
  unsigned spt = root.getSizePerThread()[d];
  dist.lanes = root.getThreadsPerWarp()[d];
  dist.warps = root.getWarpsPerCTA()[d];
  int64_t tile = int64_t(spt) * dist.lanes * dist.warps;
  dist.elemsPerRep = std::min<int64_t>(spt, size);
  dist.reps = std::max<int64_t>(1, size / tile);
  // Thread positions along the axis holding distinct elements.
  int64_t positions = size >= tile ? int64_t(dist.lanes) * dist.warps
                                   : std::max<int64_t>(1, size / spt);
  dist.distinctLanes = std::min<int64_t>(dist.lanes, positions);
  dist.distinctWarps = std::max<int64_t>(1, positions / dist.lanes);
  for (unsigned o : root.getOrder()) {
    if (o == d)
      break;
    dist.laneStride *= root.getThreadsPerWarp()[o];
    dist.warpStride *= root.getWarpsPerCTA()[o];
  }
  return dist;
}

std::pair<Value, Value> getLaneAndWarpAlongAxis(OpBuilder &b, Location loc,
                                                const AxisDistribution &axis) {
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  auto along = [&](Value id, unsigned stride, unsigned count) -> Value {
    if (count == 1)
      return i32Val(b, loc, 0);
    if (stride != 1)
      id = LLVM::LShrOp::create(b, loc, id,
                                i32Val(b, loc, llvm::Log2_32(stride)));
    return LLVM::AndOp::create(b, loc, id, i32Val(b, loc, count - 1));
  };
  return {along(lane, axis.laneStride, axis.lanes),
          along(warp, axis.warpStride, axis.warps)};
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

unsigned getNumWarps(ModuleOp module) {
  auto attr = module->getAttrOfType<IntegerAttr>(TileGPUDialect::kNumWarps);
  return attr ? attr.getInt() : 4;
}

} // namespace warpforge
