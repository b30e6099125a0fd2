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
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
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

    SmallVector<Value> aElems = unpackLLElements(loc, adaptor.getA(), b);
    SmallVector<Value> bElems = unpackLLElements(loc, adaptor.getB(), b);
    SmallVector<Value> dElems = unpackLLElements(loc, adaptor.getC(), b);
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
        aIndex.size() != aElems.size() || bIndex.size() != bElems.size())
      return op.emitError("tl.dot on mma.sync: the operands' element lists "
                          "do not match their layouts");
    // Offsets are the layouts' own, reduced modulo the shape where warps
    // are replicated over a small tile.
    auto find = [&](const std::map<Offset, unsigned> &index,
                    ArrayRef<Value> elems, Offset o) -> Value {
      auto it = index.find(o);
      return it == index.end() ? Value() : elems[it->second];
    };
    auto accIndex = [&](int64_t r, int64_t c) -> std::optional<unsigned> {
      auto it = dIndex.find({r % dType.getDimSize(0), c % dType.getDimSize(1)});
      if (it == dIndex.end())
        return std::nullopt;
      return it->second;
    };

    for (int64_t rm = 0; rm < repM; ++rm)
      for (int64_t rn = 0; rn < repN; ++rn)
        for (int64_t j = 0; j < n / 8; ++j) {
          int64_t row = rm * tileM, col = rn * tileN + 8 * j;
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
          for (int64_t ks = 0; ks < kSteps; ++ks) {
            SmallVector<Value> aRegs, bRegs;
            for (int64_t h = 0; h < 2; ++h)
              for (int64_t i = 0; i < 2; ++i) {
                SmallVector<Value> word;
                for (int64_t e = 0; e < kw; ++e)
                  word.push_back(find(aIndex, aElems,
                                      {row + 8 * i, kStep * ks + half * h + e}));
                if (llvm::is_contained(word, Value()))
                  return op.emitError("tl.dot on mma.sync: an A element is "
                                      "missing from its layout");
                aRegs.push_back(packWord(b, loc, word));
              }
            for (int64_t h = 0; h < 2; ++h) {
              SmallVector<Value> word;
              for (int64_t e = 0; e < kw; ++e)
                word.push_back(find(bIndex, bElems,
                                    {kStep * ks + half * h + e, col}));
              if (llvm::is_contained(word, Value()))
                return op.emitError("tl.dot on mma.sync: a B element is "
                                    "missing from its layout");
              bRegs.push_back(packWord(b, loc, word));
            }
            PTXBuilder ptx;
            SmallVector<PTXBuilder::Operand> outs, cIns;
            SmallVector<Value> cRegs;
            if (wordAcc) {
              for (unsigned idx : cIdx)
                cRegs.push_back(dElems[idx]);
            } else {
              cRegs.push_back(packPair(b, loc, dElems[cIdx[0]], dElems[cIdx[1]]));
              cRegs.push_back(packPair(b, loc, dElems[cIdx[2]], dElems[cIdx[3]]));
            }
            StringRef cons = wordAcc ? (isa<FloatType>(dElem) ? "f" : "r") : "r";
            for (Value c : cRegs)
              outs.push_back(ptx.addOutput(cons, c.getType()));
            SmallVector<PTXBuilder::Operand> aOps, bOps;
            for (Value v : aRegs)
              aOps.push_back(ptx.addInput(v, "r"));
            for (Value v : bRegs)
              bOps.push_back(ptx.addInput(v, "r"));
            for (auto [c, out] : llvm::zip(cRegs, outs))
              cIns.push_back(ptx.addTiedInput(c, out));
            ptx.instr(instruction,
                      {PTXBuilder::vector(outs), PTXBuilder::vector(aOps),
                       PTXBuilder::vector(bOps), PTXBuilder::vector(cIns)});
            SmallVector<Value> results = ptx.launch(b, loc, /*hasSideEffects=*/false);
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
