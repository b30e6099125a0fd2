//===- MmaDotOpToLLVM.cpp - Matrix products on mma.sync -------------------===//
//
// A `tile.dot` wgmma cannot take but the warp-level tensor-core
// instructions can (fewer than 4 warps, fewer than 64 rows per warpgroup,
// a target below sm_90) reaches the lowering with its accumulator in an
// mma.sync layout (`#tilegpu.wgmma` with instrShape M = 16) and its
// operands in that layout's dot_op forms (tilegpu-accelerate-matmul).  It
// becomes one
//
//   mma.sync.aligned.m16n8k<K>.row.col.<d>.<a>.<b>.<c>
//
// per warp, M repetition, 8-column group and K step.  The registers are
// the ones the PTX ISA gives each lane, with g = lane / 4 and t = lane % 4
// and kw elements of 32 bits / element width per register:
//
//   A (16 x K):  a0 (g, kw*t..), a1 (g+8, kw*t..), a2 (g, K/2 + kw*t..),
//                a3 (g+8, K/2 + kw*t..)
//   B (K x 8):   b0 (kw*t.., g), b1 (K/2 + kw*t.., g)
//   C, D (16x8): c0 c1 (g, 2t, 2t+1), c2 c3 (g+8, 2t, 2t+1)
//
// which is exactly where the layouts put the elements (getWgmmaThreadBase
// and getWgmmaElementOffsets): the accumulator registers are wgmma's, warp
// by warp (an m64nN wgmma accumulator is four m16nN mma.sync ones), and A
// is wgmma's RS operand.  The elements are found by their offsets, so the
// order of the lists is the layouts' business.  16-bit accumulators (f16)
// are two elements per register, as the instruction wants them.
//
// tf32 operands are f32 registers passed as they are: the tensor cores
// read their top 19 bits, as Triton's mma v2 lowering leaves them.
//
// The K steps are the outer loop.  An operand that a local_load reads
// from a shared buffer (what tilegpu-accelerate-matmul makes of every
// operand not already in registers) is read here instead, one K step at a
// time, right before that step's instructions (the local_load itself
// lowers to nothing): loaded whole up front, a 32x128x128 tile's operands
// would hold 160 registers a thread and spill.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/SharedMemoryUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

using Offset = std::pair<int64_t, int64_t>;

std::map<Offset, unsigned> indexByOffset(Attribute layout,
                                         ArrayRef<int64_t> shape) {
  std::map<Offset, unsigned> index;
  for (auto [i, offset] : llvm::enumerate(getWgmmaElementOffsets(layout, shape)))
    index.emplace(offset, unsigned(i));
  return index;
}

/// The PTX name of an mma.sync operand type.
StringRef mmaTypeName(Type t) {
  if (t.isF32())
    return "tf32";
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isInteger(8))
    return "s8";
  return "";
}

/// `elems` (32 bits of consecutive elements) as one b32 register.
Value packWord(OpBuilder &b, Location loc, ArrayRef<Value> elems) {
  Type i32 = b.getI32Type();
  if (elems.size() == 1)
    return elems[0].getType() == i32
               ? elems[0]
               : LLVM::BitcastOp::create(b, loc, i32, elems[0]).getResult();
  auto vecType = VectorType::get({int64_t(elems.size())}, elems[0].getType());
  Value vec = LLVM::PoisonOp::create(b, loc, vecType);
  for (auto [i, e] : llvm::enumerate(elems))
    vec = LLVM::InsertElementOp::create(b, loc, vec, e, i32Val(b, loc, i));
  return LLVM::BitcastOp::create(b, loc, i32, vec);
}

/// One mma.sync: `c` the accumulator registers (tied to the results), `a`
/// and `b` the operand registers.
SmallVector<Value> emitMmaSync(OpBuilder &b, Location loc, StringRef instruction,
                               ArrayRef<Value> c, ArrayRef<Value> a,
                               ArrayRef<Value> bRegs, bool floatAcc) {
  PTXBuilder ptx;
  SmallVector<PTXBuilder::Operand> outs, aOps, bOps, cIns;
  for (Value v : c)
    outs.push_back(ptx.addOutput(floatAcc ? "f" : "r", v.getType()));
  for (Value v : a)
    aOps.push_back(ptx.addInput(v, "r"));
  for (Value v : bRegs)
    bOps.push_back(ptx.addInput(v, "r"));
  for (auto [v, out] : llvm::zip(c, outs))
    cIns.push_back(ptx.addTiedInput(v, out));
  ptx.instr(instruction, {PTXBuilder::vector(outs), PTXBuilder::vector(aOps),
                          PTXBuilder::vector(bOps), PTXBuilder::vector(cIns)});
  return ptx.launch(b, loc, /*hasSideEffects=*/false);
}

/// An operand's elements, by their index in its list: the lowered tensor's
/// values, or, for an operand a local_load reads from a shared buffer,
/// loads from the buffer made where an element is first needed (in
/// vectors of getSharedVectorElems), so that the product holds one K
/// step of it at a time.
class OperandSource {
public:
  OperandSource(ConversionPatternRewriter &rewriter, Location loc,
                const TypeConverter &converter, Value operand, Value lowered) {
    auto type = cast<RankedTensorType>(operand.getType());
    elemType = converter.convertType(type.getElementType());
    if (auto load = operand.getDefiningOp<LocalLoadOp>()) {
      vec = getSharedVectorElems(load.getSrc(), type);
      count = getTotalElemsPerThread(type);
      addresses.emplace(rewriter, loc, load.getSrc(),
                        rewriter.getRemappedValue(load.getSrc()), type, vec);
      return;
    }
    elems = unpackLLElements(loc, lowered, rewriter);
    count = elems.size();
  }
  size_t size() const { return count; }
  Value get(OpBuilder &b, Location loc, unsigned i) {
    if (!addresses)
      return elems[i];
    unsigned access = i / vec;
    SmallVector<Value> &loaded = loads[access];
    if (loaded.empty())
      loaded = loadVector(b, loc, addresses->get(b, loc, access), elemType, vec);
    return loaded[i % vec];
  }

private:
  Type elemType;
  unsigned vec = 1;
  size_t count = 0;
  SmallVector<Value> elems;
  std::optional<LazySharedAddresses> addresses;
  DenseMap<unsigned, SmallVector<Value>> loads;
};

/// 16-bit operands a local_load reads from an NVMMA buffer go through
/// `ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16`: four 8x8 matrices
/// per instruction, lane l giving the address of row l % 8 of matrix
/// l / 8 and receiving, of matrix q, the register (l / 4, 2 (l % 4) + {0,
/// 1}), or with .trans that of the transposed matrix.  That is the
/// fragment mma.sync takes: A's registers a0..a3 are the matrices (rows,
/// K) at (0, 0), (8, 0), (0, 8), (8, 8) of a 16x16 step; B's b0, b1 of an
/// 8-column group are the matrices at K 0 and 8, read transposed where B
/// is stored N-contiguous (row-major [K, N]): the buffer's 16-byte rows
/// run along its contiguous dimension, which .trans turns into the K pairs
/// each lane needs.  Swizzling permutes whole 16-byte chunks, so every
/// matrix row is one contiguous chunk of the buffer.
class LdMatrixSource {
public:
  /// Null (no ldmatrix) unless `operand` is a 16-bit local_load of an
  /// NVMMA buffer whose contiguous dimension is a multiple of 8 elements.
  static std::optional<LdMatrixSource> get(ConversionPatternRewriter &rewriter,
                                           Location loc, Value operand) {
    auto load = operand.getDefiningOp<LocalLoadOp>();
    auto type = cast<RankedTensorType>(operand.getType());
    if (!load || type.getElementType().getIntOrFloatBitWidth() != 16)
      return std::nullopt;
    auto memType = cast<MemDescType>(load.getSrc().getType());
    auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(memType.getEncoding());
    auto op = cast<DotOperandEncodingAttr>(type.getEncoding());
    if (!nvmma || memType.getShape().size() != 2)
      return std::nullopt;
    unsigned contig = nvmma.getTransposed() ? 0 : 1;
    if (memType.getShape()[contig] % 8 != 0)
      return std::nullopt;
    LdMatrixSource src;
    src.memType = memType;
    src.nvmma = nvmma;
    src.base = rewriter.getRemappedValue(load.getSrc());
    src.opIdx = op.getOpIdx();
    unsigned kDim = src.opIdx == 0 ? 1 : 0;
    src.trans = contig != kDim;
    auto parent = cast<WgmmaEncodingAttr>(op.getParent());
    unsigned wM = parent.getWarpsPerCTA()[0], wN = parent.getWarpsPerCTA()[1];
    OpBuilder &b = rewriter;
    auto [lane, warp] = getLaneAndWarpId(b, loc);
    Value q = LLVM::UDivOp::create(b, loc, lane, i32Val(b, loc, 8));
    src.row = LLVM::URemOp::create(b, loc, lane, i32Val(b, loc, 8));
    src.qLow = LLVM::URemOp::create(b, loc, q, i32Val(b, loc, 2));
    src.qHigh = LLVM::UDivOp::create(b, loc, q, i32Val(b, loc, 2));
    if (src.opIdx == 0) {
      Value warpM = LLVM::URemOp::create(b, loc, warp, i32Val(b, loc, wM));
      src.warpBase = LLVM::MulOp::create(b, loc, warpM, i32Val(b, loc, 16));
    } else {
      Value warpN = LLVM::URemOp::create(
          b, loc, LLVM::UDivOp::create(b, loc, warp, i32Val(b, loc, wM)),
          i32Val(b, loc, wN));
      src.warpBase = LLVM::MulOp::create(
          b, loc, warpN, i32Val(b, loc, parent.getInstrShape()[1]));
    }
    return src;
  }

  /// The 4 registers (num = 4) or 2 of matrices whose (M or N, K) origins,
  /// relative to the warp's, are (mn + 8 * mnStep(q), k + 8 * kStep(q)) for
  /// q = 0..3: A's step (rows by q % 2, K by q / 2); B's (K by q % 2,
  /// 8-column groups by q / 2).
  SmallVector<Value> load(OpBuilder &b, Location loc, int64_t mn, int64_t k,
                          unsigned num) {
    // This lane's matrix: A: rows + 8 (q % 2), K + 8 (q / 2); B: K + 8 (q
    // % 2), columns + 8 (q / 2).
    Value mnOff = opIdx == 0 ? qLow : qHigh;
    Value kOff = opIdx == 0 ? qHigh : qLow;
    Value mnCoord = LLVM::AddOp::create(
        b, loc, warpBase,
        LLVM::AddOp::create(b, loc, i32Val(b, loc, mn),
                            LLVM::MulOp::create(b, loc, mnOff, i32Val(b, loc, 8))));
    Value kCoord = LLVM::AddOp::create(
        b, loc, i32Val(b, loc, k),
        LLVM::MulOp::create(b, loc, kOff, i32Val(b, loc, 8)));
    // The lane's row of its matrix: along M/N untransposed (rows of the
    // matrix are the operand's M or N), along K transposed.
    if (trans)
      kCoord = LLVM::AddOp::create(b, loc, kCoord, row);
    else
      mnCoord = LLVM::AddOp::create(b, loc, mnCoord, row);
    unsigned mnDim = opIdx == 0 ? 0 : 1;
    int64_t mnSize = memType.getShape()[mnDim];
    // Warps replicated over a small tile read its rows again.
    mnCoord = LLVM::AndOp::create(b, loc, mnCoord, i32Val(b, loc, mnSize - 1));
    SmallVector<Value> coords(2);
    coords[mnDim] = mnCoord;
    coords[1 - mnDim] = kCoord;
    Value offset = emitNVMMAOffset(b, loc, coords, memType.getShape(), nvmma);
    Value ptr = gep(b, loc, b.getI8Type(), base, offset);
    PTXBuilder ptx;
    SmallVector<PTXBuilder::Operand> outs;
    for (unsigned i = 0; i < num; ++i)
      outs.push_back(ptx.addOutput("r", b.getI32Type()));
    PTXBuilder::Operand addr = ptx.addInput(ptr, kSharedPointerConstraint);
    std::string opcode = "ldmatrix.sync.aligned.m8n8.x" + std::to_string(num) +
                         (trans ? ".trans" : "") + ".shared.b16";
    ptx.instr(opcode, {PTXBuilder::vector(outs), "[" + addr.str() + "]"});
    return ptx.launch(b, loc);
  }

  unsigned getOpIdx() const { return opIdx; }

private:
  MemDescType memType;
  NVMMASharedEncodingAttr nvmma;
  Value base, row, qLow, qHigh, warpBase;
  unsigned opIdx = 0;
  bool trans = false;
};

struct MmaDotOpConversion : public TargetOpConversionPattern<tile::DotOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::DotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType aType = op.getA().getType(), bType = op.getB().getType();
    auto dType = cast<RankedTensorType>(op.getType());
    if (!isMmaDotForm(aType, bType, dType))
      return failure();
    if (failed(requireFeature(op, targetInfo.supportsMmaSync(), "mma.sync")))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    auto acc = cast<WgmmaEncodingAttr>(dType.getEncoding());
    auto aLayout = cast<DotOperandEncodingAttr>(aType.getEncoding());
    Type aElem = aType.getElementType(), dElem = dType.getElementType();
    int64_t kw = aLayout.getKWidth(), kStep = 8 * kw, half = 4 * kw;
    int64_t n = acc.getInstrShape()[1];
    int64_t tileM = 16 * acc.getWarpsPerCTA()[0];
    int64_t tileN = n * acc.getWarpsPerCTA()[1];
    auto [repM, repN] = getWgmmaReps(acc, dType.getShape());
    int64_t kSteps = aType.getShape()[1] / kStep;
    bool wordAcc = dElem.getIntOrFloatBitWidth() == 32;

    std::string instruction;
    llvm::raw_string_ostream os(instruction);
    os << "mma.sync.aligned.m16n8k" << kStep << ".row.col";
    if (aElem.isInteger(8))
      os << ".satfinite";
    StringRef d = aElem.isInteger(8) ? "s32" : dElem.isF16() ? "f16" : "f32";
    os << "." << d << "." << mmaTypeName(aElem) << "." << mmaTypeName(aElem)
       << "." << d;

    SmallVector<Value> dElems = unpackLLElements(loc, adaptor.getC(), b);
    OperandSource aSource(rewriter, loc, *getTypeConverter(), op.getA(),
                          adaptor.getA());
    OperandSource bSource(rewriter, loc, *getTypeConverter(), op.getB(),
                          adaptor.getB());
    std::map<Offset, unsigned> aIndex =
        indexByOffset(aLayout, aType.getShape());
    std::map<Offset, unsigned> bIndex =
        indexByOffset(bType.getEncoding(), bType.getShape());
    SmallVector<SmallVector<int64_t>> accOffsets =
        getRootElementOffsets(acc, dType.getShape());
    std::map<Offset, unsigned> dIndex;
    for (auto [i, o] : llvm::enumerate(accOffsets))
      dIndex.emplace(Offset{o[0], o[1]}, unsigned(i));
    if (accOffsets.size() != dElems.size() ||
        aIndex.size() != aSource.size() || bIndex.size() != bSource.size())
      return op.emitError("tl.dot on mma.sync: the operands' element lists "
                          "do not match their layouts");
    auto accIndex = [&](int64_t r, int64_t c) -> std::optional<unsigned> {
      auto it = dIndex.find({r % dType.getDimSize(0), c % dType.getDimSize(1)});
      if (it == dIndex.end())
        return std::nullopt;
      return it->second;
    };
    // One register of kw elements from an operand, by their offsets.
    auto word = [&](OperandSource &src, const std::map<Offset, unsigned> &index,
                    auto offsetOf) -> Value {
      SmallVector<Value> elems;
      for (int64_t e = 0; e < kw; ++e) {
        auto it = index.find(offsetOf(e));
        if (it == index.end())
          return {};
        elems.push_back(src.get(b, loc, it->second));
      }
      return packWord(b, loc, elems);
    };

    // K steps outermost, as a K loop would run them: one step's A and B
    // registers are read (from shared memory, where the operand was a
    // local_load) just before its instructions, so that only one step's
    // operands are live beside the accumulators.
    std::optional<LdMatrixSource> aMatrices =
        LdMatrixSource::get(rewriter, loc, op.getA());
    std::optional<LdMatrixSource> bMatrices =
        LdMatrixSource::get(rewriter, loc, op.getB());
    for (int64_t ks = 0; ks < kSteps; ++ks) {
      SmallVector<SmallVector<Value>> aRegs(repM);
      for (int64_t rm = 0; rm < repM; ++rm) {
        if (aMatrices) {
          aRegs[rm] = aMatrices->load(b, loc, rm * tileM, kStep * ks, 4);
          continue;
        }
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t i = 0; i < 2; ++i) {
            Value w = word(aSource, aIndex, [&](int64_t e) {
              return Offset{rm * tileM + 8 * i, kStep * ks + half * h + e};
            });
            if (!w)
              return op.emitError("tl.dot on mma.sync: an A element is "
                                  "missing from its layout");
            aRegs[rm].push_back(w);
          }
      }
      for (int64_t rn = 0; rn < repN; ++rn) {
        // B's registers of a pair of 8-column groups, by ldmatrix.
        SmallVector<Value> bPair;
        for (int64_t j = 0; j < n / 8; ++j) {
          int64_t col = rn * tileN + 8 * j;
          SmallVector<Value> bRegs;
          if (bMatrices) {
            if (j % 2 == 0)
              bPair = bMatrices->load(b, loc, col, kStep * ks,
                                      j + 1 < n / 8 ? 4 : 2);
            bRegs = {bPair[2 * (j % 2)], bPair[2 * (j % 2) + 1]};
          }
          for (int64_t h = 0; h < 2 && !bMatrices; ++h) {
            Value w = word(bSource, bIndex, [&](int64_t e) {
              return Offset{kStep * ks + half * h + e, col};
            });
            if (!w)
              return op.emitError("tl.dot on mma.sync: a B element is "
                                  "missing from its layout");
            bRegs.push_back(w);
          }
          for (int64_t rm = 0; rm < repM; ++rm) {
            int64_t row = rm * tileM;
            // The four accumulator elements: (0, 0), (0, 1), (8, 0), (8, 1).
            SmallVector<unsigned> cIdx;
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t e = 0; e < 2; ++e) {
                std::optional<unsigned> idx = accIndex(row + 8 * i, col + e);
                if (!idx)
                  return op.emitError("tl.dot on mma.sync: an accumulator "
                                      "element is missing from its layout");
                cIdx.push_back(*idx);
              }
            SmallVector<Value> cRegs;
            if (wordAcc) {
              for (unsigned idx : cIdx)
                cRegs.push_back(dElems[idx]);
            } else {
              cRegs.push_back(packPair(b, loc, dElems[cIdx[0]], dElems[cIdx[1]]));
              cRegs.push_back(packPair(b, loc, dElems[cIdx[2]], dElems[cIdx[3]]));
            }
            SmallVector<Value> results =
                emitMmaSync(b, loc, instruction, cRegs, aRegs[rm], bRegs,
                            wordAcc && isa<FloatType>(dElem));
            if (wordAcc) {
              for (auto [idx, v] : llvm::zip(cIdx, results))
                dElems[idx] = v;
            } else {
              auto [x0, x1] = unpackPair(b, loc, results[0], dElem);
              auto [x2, x3] = unpackPair(b, loc, results[1], dElem);
              dElems[cIdx[0]] = x0;
              dElems[cIdx[1]] = x1;
              dElems[cIdx[2]] = x2;
              dElems[cIdx[3]] = x3;
            }
          }
        }
      }
    }
    rewriter.replaceOp(
        op, packLLElements(loc, getTypeConverter(), dElems, b, dType));
    return success();
  }
};

} // namespace

void warpforge::populateMmaDotOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<MmaDotOpConversion>(converter, patterns.getContext(),
                                   targetInfo);
}
