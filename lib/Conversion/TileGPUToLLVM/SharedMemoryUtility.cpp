//===- SharedMemoryUtility.cpp - Accessing shared memory ------------------===//
//
// The kernel's shared memory and scratch, barriers and fences, loads and
// stores of it, and where the elements of a buffer (a memdesc) are.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"

#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using namespace warpforge::tilegpu;

namespace warpforge {

void emitBarrier(OpBuilder &b, Location loc) {
  NVVM::Barrier0Op::create(b, loc);
}

void emitAsyncProxyFence(OpBuilder &b, Location loc) {
  MLIRContext *context = b.getContext();
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
}

static constexpr llvm::StringLiteral kSharedMemoryGlobal = "warpforge_smem";

Value getSharedMemoryBase(OpBuilder &b, Location loc, Operation *op) {
  auto ptrType = LLVM::LLVMPointerType::get(b.getContext(),
                                            TargetInfo::kSharedAddressSpace);
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

OperandScratch getOperandScratch(ValueRange tensors, int64_t slots) {
  OperandScratch scratch;
  for (Value tensor : tensors) {
    Type element = cast<RankedTensorType>(tensor.getType()).getElementType();
    unsigned bytes = isa<tile::PointerType>(element)
                         ? 8
                         : getSharedStorageBytes(element);
    scratch.bytes = llvm::alignTo(scratch.bytes, 8);
    scratch.offsets.push_back(scratch.bytes);
    scratch.bytes += slots * bytes;
  }
  return scratch;
}

FailureOr<Value> getRequiredScratchBase(OpBuilder &b, Operation *op,
                                        StringRef what) {
  if (!op->hasAttr("tilegpu.scratch"))
    return op->emitError(what)
           << " has no scratch shared memory; run "
              "tilegpu-allocate-shared-memory first";
  return getScratchBase(b, op->getLoc(), op);
}

namespace {
/// The pointer to element `slot()` of operand `i`'s array, of lowered type
/// `type` (stored as toSharedStorage stores it).  The array's start comes
/// first, then the index, in that order in the IR.
Value getOperandSlotPtr(OpBuilder &b, Location loc, Value base,
                        const OperandScratch &scratch, unsigned i, Type type,
                        function_ref<Value()> slot) {
  Type storage = type.isInteger(1) ? b.getI8Type() : type;
  Value array =
      gep(b, loc, b.getI8Type(), base, i32Val(b, loc, scratch.offsets[i]));
  return gep(b, loc, storage, array, slot());
}
} // namespace

void storeOperandSlot(OpBuilder &b, Location loc, Value base,
                      const OperandScratch &scratch, ValueRange values,
                      function_ref<Value()> slot) {
  for (auto [i, v] : llvm::enumerate(values)) {
    Value ptr = getOperandSlotPtr(b, loc, base, scratch, i, v.getType(), slot);
    LLVM::StoreOp::create(b, loc, toSharedStorage(b, loc, v), ptr);
  }
}

SmallVector<Value> loadOperandSlot(OpBuilder &b, Location loc, Value base,
                                   const OperandScratch &scratch,
                                   TypeRange types,
                                   function_ref<Value()> slot) {
  SmallVector<Value> values;
  for (auto [i, type] : llvm::enumerate(types)) {
    Value ptr = getOperandSlotPtr(b, loc, base, scratch, i, type, slot);
    Type storage = type.isInteger(1) ? b.getI8Type() : type;
    values.push_back(fromSharedStorage(
        b, loc, LLVM::LoadOp::create(b, loc, storage, ptr), type));
  }
  return values;
}

namespace {
/// The PTX register constraint and integer type holding a value of `bits`.
std::pair<StringRef, Type> registerFor(OpBuilder &b, unsigned bits) {
  unsigned regBits = bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
  return {getRegisterConstraint(regBits), b.getIntegerType(regBits)};
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
  PTXBuilder ptx;
  PTXBuilder::Operand addr = ptx.addInput(ptr, kSharedPointerConstraint);
  PTXBuilder::Operand v =
      ptx.addInput(toRegisterInt(b, loc, value, regType), constraint);
  PTXBuilder::Operand p = ptx.addInput(pred, "b");
  ptx.instr("st.shared.b" + std::to_string(bits), {"[" + addr.str() + "]", v},
            p);
  ptx.launch(b, loc);
}

Value loadShared(OpBuilder &b, Location loc, Value ptr, Type type,
                 Value pred) {
  if (!pred)
    return LLVM::LoadOp::create(b, loc, type, ptr);
  unsigned bits = memoryBits(type);
  auto [constraint, regType] = registerFor(b, bits);
  PTXBuilder ptx;
  PTXBuilder::Operand out = ptx.addOutput(constraint, regType);
  PTXBuilder::Operand addr = ptx.addInput(ptr, kSharedPointerConstraint);
  PTXBuilder::Operand p = ptx.addInput(pred, "b");
  ptx.instr("mov.b" + std::to_string(regType.getIntOrFloatBitWidth()),
            {out, "0"});
  ptx.instr("ld.shared.b" + std::to_string(bits), {out, "[" + addr.str() + "]"},
            p);
  return fromRegisterInt(b, loc, ptx.launch(b, loc).front(), type);
}

//===----------------------------------------------------------------------===//
// Shared-memory buffers
//===----------------------------------------------------------------------===//

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


} // namespace warpforge
