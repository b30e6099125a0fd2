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
  WarpGroupContext context = getWarpGroupContext(b);
  if (context.barrierId == 0) {
    NVVM::Barrier0Op::create(b, loc);
    return;
  }
  // In a tilegpu.warp_specialize region: only its own warps, on the
  // region's named barrier.  (Inline PTX rather than nvvm.barrier, whose
  // custom syntax does not parse back with a location alias defined later
  // in the file, as the JIT's printed stages have them.)
  PTXBuilder ptx;
  ptx.instr("bar.sync", {std::to_string(context.barrierId),
                         std::to_string(context.numWarps *
                                        TargetInfo::kWarpSize)});
  ptx.launch(b, loc);
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
  if (auto op = dyn_cast_or_null<DotOperandEncodingAttr>(layout)) {
    // A register operand's kWidth consecutive K elements (one 32-bit
    // register, starting at a multiple of kWidth) are one access where K
    // is the buffer's contiguous dimension.
    auto [dim, run] = getContiguousRun(memdesc);
    if (dim != (op.getOpIdx() == 0 ? 1u : 0u))
      return 1;
    return unsigned(std::min<int64_t>(op.getKWidth(),
                                      largestPowerOfTwoDividing(run)));
  }
  if (!isBlockedLike(layout))
    return 1;
  auto type = cast<MemDescType>(memdesc.getType());
  auto [dim, run] = getContiguousRun(memdesc);
  // A tensor holding every buffer of a multi-buffered memdesc has the
  // buffer index as its leading dimension.
  dim += tensorType.getRank() - type.getShape().size();
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

namespace {

/// Where the elements of a shared buffer are, at compile time and in the
/// IR: bytes into an NVMMA buffer (swizzled), elements into a dense one
/// (by the strides of the buffer a sub-tile is cut from).  A tensor with
/// one dimension more than the memdesc holds all of its buffers (a
/// batched product's operands, one 2-D buffer per batch): its leading
/// coordinate is the buffer's index, and the buffers follow one another.
struct BufferAddressing {
  MemDescType type;
  NVMMASharedEncodingAttr nvmma;
  SmallVector<int64_t> strides;
  Type unitType;
  bool buffered = false;
  int64_t bufferUnits = 0;

  BufferAddressing(OpBuilder &b, Value memdesc, unsigned tensorRank)
      : type(cast<MemDescType>(memdesc.getType())),
        nvmma(dyn_cast<NVMMASharedEncodingAttr>(type.getEncoding())) {
    if (!nvmma) {
      auto buffer = cast<MemDescType>(getAddressedBuffer(memdesc).getType());
      strides = getDenseStrides(buffer.getShape(),
                                cast<SharedEncodingAttr>(buffer.getEncoding()));
    }
    unitType = nvmma ? b.getI8Type() : type.getElementType();
    buffered = tensorRank == type.getShape().size() + 1;
    bufferUnits = nvmma ? type.getBufferBytes()
                        : type.getBufferBytes() * 8 /
                              type.getElementType().getIntOrFloatBitWidth();
  }

  int64_t offsetOf(ArrayRef<int64_t> coords) const {
    int64_t start = 0;
    if (buffered) {
      start = coords.front() * bufferUnits;
      coords = coords.drop_front();
    }
    if (nvmma)
      return start + getNVMMAOffset(coords, type.getShape(), nvmma);
    int64_t offset = start;
    for (auto [c, stride] : llvm::zip(coords, strides))
      offset += c * stride;
    return offset;
  }

  Value emitOffset(OpBuilder &b, Location loc, ArrayRef<Value> coords) const {
    if (buffered) {
      Value start = LLVM::MulOp::create(b, loc, coords.front(),
                                        i32Val(b, loc, bufferUnits));
      Value inner = emitBufferOffset(b, loc, coords.drop_front());
      return LLVM::AddOp::create(b, loc, start, inner);
    }
    return emitBufferOffset(b, loc, coords);
  }

  Value emitBufferOffset(OpBuilder &b, Location loc,
                         ArrayRef<Value> coords) const {
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
  }
};

/// How each access of a thread is placed relative to its first one, the
/// same way in every thread: at `offsets[i]` added to it, or xor-ed into it.
struct ThreadInvariantOffsets {
  bool additive;
  SmallVector<int64_t> offsets;
};

/// For each access (`cta[tid][i]` are the coordinates of thread tid's i-th
/// access), the offset of its first element relative to that of the
/// thread's first access, when it is the same in every thread, as a
/// difference (checked first) or as an xor; nothing when neither holds.
std::optional<ThreadInvariantOffsets>
getThreadInvariantOffsets(ArrayRef<SmallVector<SmallVector<int64_t>>> cta,
                          const BufferAddressing &addressing) {
  SmallVector<int64_t> sums, xors;
  bool additive = true, xored = true;
  for (auto [tid, coords] : llvm::enumerate(cta)) {
    if (!additive && !xored)
      break;
    int64_t first = addressing.offsetOf(coords[0]);
    for (auto [i, c] : llvm::enumerate(coords)) {
      int64_t offset = addressing.offsetOf(c);
      if (tid == 0) {
        sums.push_back(offset - first);
        xors.push_back(offset ^ first);
        continue;
      }
      additive &= sums[i] == offset - first;
      xored &= xors[i] == (offset ^ first);
    }
  }
  if (additive)
    return ThreadInvariantOffsets{true, sums};
  if (xored)
    return ThreadInvariantOffsets{false, xors};
  return std::nullopt;
}

/// The `!llvm.ptr<3>` of each of the running thread's accesses, at `coords`
/// in the IR, `cta` at compile time (thread by thread).  Where every
/// thread's accesses sit at the same distances from its first one, one
/// address computation serves them all: repetitions of a layout's tile
/// along rows keep a row's position in the 8-row swizzle atom, and ptxas
/// folds the distances into the instructions' immediate offsets.  Where
/// they sit at the same xor (repetitions along a swizzled line), one xor
/// per access does.
SmallVector<Value>
emitAccessAddresses(OpBuilder &b, Location loc,
                    const BufferAddressing &addressing, Value base,
                    ArrayRef<SmallVector<Value>> coords,
                    ArrayRef<SmallVector<SmallVector<int64_t>>> cta) {
  Type unitType = addressing.unitType;
  if (std::optional<ThreadInvariantOffsets> relative =
          getThreadInvariantOffsets(cta, addressing)) {
    Value first = addressing.emitOffset(b, loc, coords[0]);
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
  for (ArrayRef<Value> c : coords)
    ptrs.push_back(gep(b, loc, unitType, base, addressing.emitOffset(b, loc, c)));
  return ptrs;
}

} // namespace

SmallVector<Value> emitSharedVectorAddresses(OpBuilder &b, Location loc,
                                             Value memdesc, Value base,
                                             RankedTensorType tensorType,
                                             unsigned vec) {
  LazySharedAddresses lazy(b, loc, memdesc, base, tensorType, vec);
  SmallVector<Value> ptrs;
  for (unsigned i = 0; i < lazy.size(); ++i)
    ptrs.push_back(lazy.get(b, loc, i));
  return ptrs;
}

struct LazySharedAddresses::Impl {
  BufferAddressing addressing;
  Value base;
  // With thread-invariant offsets: the first access's offset and pointer,
  // and each access's offset from it.
  std::optional<ThreadInvariantOffsets> relative;
  Value first, firstPtr;
  // Otherwise: each access's coordinates.
  SmallVector<SmallVector<Value>> coords;
  DenseMap<unsigned, Value> made;
  Impl(OpBuilder &b, Value memdesc, Value base, unsigned tensorRank)
      : addressing(b, memdesc, tensorRank), base(base) {}
};

LazySharedAddresses::LazySharedAddresses(OpBuilder &b, Location loc,
                                         Value memdesc, Value base,
                                         RankedTensorType tensorType,
                                         unsigned vec)
    : impl(std::make_unique<Impl>(b, memdesc, base, tensorType.getRank())) {
  auto cta = getCTAElementCoords(tensorType.getEncoding(),
                                 tensorType.getShape(), getNumThreads(b));
  for (auto &threadCoords : cta) {
    SmallVector<SmallVector<int64_t>> firsts;
    for (unsigned i = 0; i < threadCoords.size(); i += vec)
      firsts.push_back(std::move(threadCoords[i]));
    threadCoords = std::move(firsts);
  }
  SmallVector<SmallVector<Value>> indices = emitIndices(b, loc, tensorType);
  impl->relative = getThreadInvariantOffsets(cta, impl->addressing);
  if (impl->relative) {
    impl->first = impl->addressing.emitOffset(b, loc, indices[0]);
    impl->firstPtr = gep(b, loc, impl->addressing.unitType, base, impl->first);
    return;
  }
  for (unsigned i = 0; i < indices.size(); i += vec)
    impl->coords.push_back(indices[i]);
}

LazySharedAddresses::~LazySharedAddresses() = default;

unsigned LazySharedAddresses::size() const {
  return impl->relative ? impl->relative->offsets.size() : impl->coords.size();
}

Value LazySharedAddresses::get(OpBuilder &b, Location loc, unsigned i) {
  Value &made = impl->made[i];
  if (made)
    return made;
  Type unitType = impl->addressing.unitType;
  if (impl->relative) {
    int64_t offset = impl->relative->offsets[i];
    if (offset == 0)
      made = impl->firstPtr;
    else if (impl->relative->additive)
      made = gep(b, loc, unitType, impl->firstPtr, i32Val(b, loc, offset));
    else
      made = gep(b, loc, unitType, impl->base,
                 LLVM::XOrOp::create(b, loc, impl->first, i32Val(b, loc, offset))
                     .getResult());
    return made;
  }
  made = gep(b, loc, unitType, impl->base,
             impl->addressing.emitOffset(b, loc, impl->coords[i]));
  return made;
}

//===----------------------------------------------------------------------===//
// stmatrix
//
// `stmatrix.sync.aligned.m8n8.x4.shared.b16` stores four 8x8 matrices of
// 16-bit elements per warp.  Thread l gives one 32-bit register per matrix
// (its elements (l / 4, 2 * (l % 4) + {0, 1}) of that matrix) and the
// address of one matrix row (row l % 8 of matrix l / 8).  That register
// fragment is the one mma and wgmma accumulators have: each pair of a
// thread's list, taken in order, is such a register of an 8x8 matrix whose
// rows are 16 contiguous bytes in the buffer (swizzling permutes aligned
// 16-byte chunks, so a swizzled buffer keeps rows whole).  One instruction
// replaces four 4-byte stores and writes whole 16-byte rows, which spreads
// a warp's 512 bytes over all banks.
//
// Whether a layout has that fragment is decided at compile time by
// evaluating where every thread's elements are, not by naming layouts:
// pair k of thread l of warp w must sit at M_k(w) + (l / 4, 2 * (l % 4))
// (row, column; columns the buffer's contiguous dim) with M_k(w)'s column
// a multiple of 8, and the four matrices of each instruction must sit at
// the same offsets from the first in every warp and instruction, linear
// in the bits of the matrix index (as (0,0), (8,0), (0,8), (8,8) in the
// accumulators), so that a lane finds its row's address with two selects
// folded into adds.
//===----------------------------------------------------------------------===//

namespace {

struct StMatrixPlan {
  unsigned rowDim, colDim;
  /// Offset of matrix q of an instruction from its first matrix:
  /// (q & 1) * step1 + (q >> 1) * step2, per dim.
  SmallVector<int64_t> step1, step2;
  /// Coordinates of each thread's row address, per instruction.
  SmallVector<SmallVector<SmallVector<int64_t>>> cta;
};

std::optional<StMatrixPlan> planStMatrix(Value memdesc,
                                         RankedTensorType tensorType,
                                         unsigned numThreads) {
  auto type = cast<MemDescType>(memdesc.getType());
  if (type.getShape().size() != 2 || tensorType.getRank() != 2 ||
      type.getElementType().getIntOrFloatBitWidth() != 16 ||
      !isLowerableDistributed(tensorType.getEncoding()) ||
      numThreads % 32 != 0)
    return std::nullopt;
  auto [colDim, run] = getContiguousRun(memdesc);
  if (run % 8 != 0)
    return std::nullopt;
  unsigned rowDim = 1 - colDim;
  auto coords = getCTAElementCoords(tensorType.getEncoding(),
                                    tensorType.getShape(), numThreads);
  size_t n = coords[0].size();
  if (n == 0 || n % 8 != 0)
    return std::nullopt;
  // M_k(w): the matrix origins of each warp.
  unsigned numWarps = numThreads / 32;
  SmallVector<SmallVector<std::array<int64_t, 2>>> origin(numWarps);
  for (unsigned tid = 0; tid < numThreads; ++tid) {
    unsigned lane = tid % 32, warp = tid / 32;
    int64_t dr = lane / 4, dc = 2 * (lane % 4);
    for (size_t k = 0; k < n / 2; ++k) {
      ArrayRef<int64_t> e0 = coords[tid][2 * k], e1 = coords[tid][2 * k + 1];
      if (e1[rowDim] != e0[rowDim] || e1[colDim] != e0[colDim] + 1)
        return std::nullopt;
      std::array<int64_t, 2> m = {e0[rowDim] - dr, e0[colDim] - dc};
      if (lane == 0) {
        if (m[1] % 8 != 0)
          return std::nullopt;
        origin[warp].push_back(m);
      } else if (origin[warp][k] != m) {
        return std::nullopt;
      }
    }
  }
  // The four matrices of an instruction, relative to its first.
  auto delta = [&](unsigned warp, size_t g, unsigned q) {
    auto a = origin[warp][4 * g + q], o = origin[warp][4 * g];
    return std::array<int64_t, 2>{a[0] - o[0], a[1] - o[1]};
  };
  std::array<int64_t, 2> d1 = delta(0, 0, 1), d2 = delta(0, 0, 2),
                         d3 = delta(0, 0, 3);
  if (d3[0] != d1[0] + d2[0] || d3[1] != d1[1] + d2[1])
    return std::nullopt;
  for (unsigned w = 0; w < numWarps; ++w)
    for (size_t g = 0; g < n / 8; ++g)
      if (delta(w, g, 1) != d1 || delta(w, g, 2) != d2 ||
          delta(w, g, 3) != d3)
        return std::nullopt;
  StMatrixPlan plan;
  plan.rowDim = rowDim;
  plan.colDim = colDim;
  plan.step1.assign(2, 0);
  plan.step2.assign(2, 0);
  plan.step1[rowDim] = d1[0];
  plan.step1[colDim] = d1[1];
  plan.step2[rowDim] = d2[0];
  plan.step2[colDim] = d2[1];
  plan.cta.resize(numThreads);
  for (unsigned tid = 0; tid < numThreads; ++tid) {
    unsigned lane = tid % 32, q = lane / 8;
    for (size_t g = 0; g < n / 8; ++g) {
      auto o = origin[tid / 32][4 * g];
      SmallVector<int64_t> c(2);
      c[rowDim] = o[0] + (q & 1) * d1[0] + (q >> 1) * d2[0] + lane % 8;
      c[colDim] = o[1] + (q & 1) * d1[1] + (q >> 1) * d2[1];
      plan.cta[tid].push_back(std::move(c));
    }
  }
  return plan;
}

} // namespace

std::optional<SmallVector<Value>>
emitStMatrixAddresses(OpBuilder &b, Location loc, Value memdesc, Value base,
                      RankedTensorType tensorType) {
  std::optional<StMatrixPlan> plan =
      planStMatrix(memdesc, tensorType, getNumThreads(b));
  if (!plan)
    return std::nullopt;
  BufferAddressing addressing(b, memdesc, tensorType.getRank());
  SmallVector<SmallVector<Value>> indices = emitIndices(b, loc, tensorType);
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  (void)warp;
  // The lane's row address, relative to its own first element of the
  // instruction: back to the matrix origin (-(l / 4), -2 * (l % 4)), to
  // matrix q = l / 8 of the instruction, to row l % 8.
  auto c = [&](int64_t v) { return i32Val(b, loc, v); };
  Value q = LLVM::LShrOp::create(b, loc, lane, c(3));
  Value q1 = LLVM::AndOp::create(b, loc, q, c(1));
  Value q2 = LLVM::LShrOp::create(b, loc, q, c(1));
  auto along = [&](unsigned dim) -> Value {
    Value d = c(0);
    if (plan->step1[dim])
      d = LLVM::AddOp::create(b, loc, d,
                              LLVM::MulOp::create(b, loc, q1,
                                                  c(plan->step1[dim])));
    if (plan->step2[dim])
      d = LLVM::AddOp::create(b, loc, d,
                              LLVM::MulOp::create(b, loc, q2,
                                                  c(plan->step2[dim])));
    return d;
  };
  Value rowDelta = LLVM::SubOp::create(
      b, loc,
      LLVM::AddOp::create(b, loc, along(plan->rowDim),
                          LLVM::AndOp::create(b, loc, lane, c(7))),
      LLVM::LShrOp::create(b, loc, lane, c(2)));
  Value colDelta = LLVM::SubOp::create(
      b, loc, along(plan->colDim),
      LLVM::ShlOp::create(b, loc, LLVM::AndOp::create(b, loc, lane, c(3)),
                          c(1)));
  SmallVector<SmallVector<Value>> coords;
  for (size_t i = 0; i < indices.size(); i += 8) {
    SmallVector<Value> rc(2);
    rc[plan->rowDim] =
        LLVM::AddOp::create(b, loc, indices[i][plan->rowDim], rowDelta);
    rc[plan->colDim] =
        LLVM::AddOp::create(b, loc, indices[i][plan->colDim], colDelta);
    coords.push_back(std::move(rc));
  }
  return emitAccessAddresses(b, loc, addressing, base, coords, plan->cta);
}

void emitStMatrixStores(OpBuilder &b, Location loc, ArrayRef<Value> ptrs,
                        ArrayRef<Value> values) {
  for (auto [g, ptr] : llvm::enumerate(ptrs)) {
    SmallVector<Value> regs;
    for (unsigned k = 0; k < 4; ++k)
      regs.push_back(packPair(b, loc, values[8 * g + 2 * k],
                                values[8 * g + 2 * k + 1]));
    NVVM::StMatrixOp::create(b, loc, ptr, regs, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
}

} // namespace warpforge
