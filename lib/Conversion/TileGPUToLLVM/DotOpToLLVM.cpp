//===- DotOpToLLVM.cpp - Hopper warpgroup matrix products (wgmma) ---------===//
//
// `tilegpu.warp_group_dot` becomes
//
//   wgmma.fence.sync.aligned
//   wgmma.mma_async ... (one per M repetition, N repetition and K step)
//   wgmma.commit_group.sync.aligned
//
// and `tilegpu.warp_group_dot_wait` becomes `wgmma.wait_group.sync.aligned`
// with every accumulator register tied through it.  The instructions are
// inline PTX: wgmma's operand lists are too long and too varied for
// intrinsics.
//
// Shared-memory operands are read through 64-bit matrix descriptors:
//
//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset (LBO) >> 4
//   bits 32-45  stride dimension byte offset (SBO) >> 4
//   bits 62-63  swizzle mode: 1 = 128B, 2 = 64B, 3 = 32B
//
// A `#tilegpu.nvmma_shared` buffer of Lo x Lc elements (Lc along the
// contiguous dim, split into column blocks of W = S / elementBytes
// elements; block j holds Lo rows of S bytes at j * Lo * S) is exactly
// the canonical wgmma layout for swizzle width S:
//
// - K-major (the contiguous dim is K): the instruction's M (or N) rows are
//   S bytes apart and repeat in groups of 8 (core matrices) every 8 * S
//   bytes: SBO = 8 * S.  Its K extent (32 bytes) lies within one swizzle
//   row, so LBO is unused (the PTX ISA says: "assumed to be 1").  A K step
//   moves the start address along the row by instrK * elementBytes bytes,
//   or into the next column block (+ Lo * S).
//
// - MN-major (the contiguous dim is M or N): the PTX ISA defines, for
//   swizzled MN-major layouts, LBO as the offset "from the first
//   (swizzle-byte-size/16) rows to the next (swizzle-byte-size/16) rows"
//   and SBO as the offset "from the first 8 columns to the next 8 columns"
//   of the matrix normalized to 128-bit elements.  A normalized row of an
//   MN-major operand is 16 bytes along MN, so S/16 of them are one swizzle
//   row's worth of MN, and the next S bytes of MN are the next column
//   block: LBO = Lo * S.  The normalized columns run along K, one K row
//   every S bytes, so 8 of them are 8 * S bytes: SBO = 8 * S.  CUTLASS's
//   canonical MN-major layouts agree: ((T, S/16, m), (8, k)) :
//   ((1, T, LBO), (S/16 * T, SBO)) in 16-byte units, i.e. the MN atoms
//   repeat at LBO and the 8-row K groups at SBO.
//
// Buffers start 1024-byte aligned (a whole swizzle pattern), so the base
// offset field (bits 49-51) stays 0 and the start address may point into
// the middle of a swizzle row: the hardware swizzles the absolute address.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// The PTX name of a wgmma operand or accumulator type.
StringRef getPtxTypeName(Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF32())
    return "f32"; // accumulators; f32 operands are "tf32"
  if (isa<Float8E4M3FNType>(t))
    return "e4m3";
  if (isa<Float8E5M2Type>(t))
    return "e5m2";
  if (t.isInteger(8))
    return "s8"; // tl.dot's int8 is signed (it rejects uint8)
  if (t.isInteger(32))
    return "s32";
  llvm_unreachable("the verifier admits no other wgmma type");
}

/// How an operand in shared memory is laid out, in the terms of the file
/// comment.
struct SharedOperand {
  int64_t swizzleBytes; // S
  int64_t elemBytes;
  int64_t otherSize;    // Lo
  bool mnMajor;

  int64_t getWidth() const { return swizzleBytes / elemBytes; } // W

  /// Unswizzled byte offset of element (o, c): o along the other dim, c
  /// along the contiguous one.
  int64_t getByteOffset(int64_t o, int64_t c) const {
    return getNVMMAUnswizzledOffset(o, c, otherSize, swizzleBytes, elemBytes);
  }

  /// The descriptor without its start address.
  uint64_t getDescriptorBits() const {
    uint64_t mode = swizzleBytes == 128 ? 1 : swizzleBytes == 64 ? 2 : 3;
    uint64_t lbo = mnMajor ? uint64_t(otherSize * swizzleBytes) >> 4 : 1;
    uint64_t sbo = uint64_t(8 * swizzleBytes) >> 4;
    return (lbo << 16) | (sbo << 32) | (mode << 62);
  }
};

SharedOperand getSharedOperand(MemDescType type, bool isA) {
  auto layout = cast<NVMMASharedEncodingAttr>(type.getEncoding());
  SharedOperand op;
  op.swizzleBytes = layout.getSwizzlingByteWidth();
  op.elemBytes = layout.getElementBitWidth() / 8;
  // transposed: dim 0 contiguous.  A [M, K] is MN-major then, B [K, N]
  // K-major.
  op.otherSize = type.getShape()[layout.getTransposed() ? 1 : 0];
  op.mnMajor = layout.getTransposed() == isA;
  return op;
}

/// Emits the descriptors of one shared operand.  The instruction's MN start
/// is `warpIndex * extent + mnConst` (warpIndex: the warpgroup along M for
/// A, the warp column along N for B; null when it is always 0) and its K
/// start `kConst`.
class DescriptorBuilder {
public:
  DescriptorBuilder(OpBuilder &b, Location loc, Value base,
                    SharedOperand operand, Value warpIndex, int64_t extent)
      : b(b), loc(loc), operand(operand), warpIndex(warpIndex),
        extent(extent) {
    baseAddr = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), base);
  }

  Value get(int64_t mnConst, int64_t kConst) {
    int64_t w = operand.getWidth();
    Value runtimeBytes;
    int64_t constBytes;
    if (!operand.mnMajor) {
      // MN rows are S bytes apart whichever the warp: linear.
      constBytes = operand.getByteOffset(mnConst, kConst);
      runtimeBytes = scaledWarpIndex(extent * operand.swizzleBytes);
    } else if (extent % w == 0 || !warpIndex) {
      // Every instruction starts at a column block (or the start is the
      // same for all warps): linear too.
      constBytes = operand.getByteOffset(kConst, mnConst);
      if (warpIndex)
        runtimeBytes = scaledWarpIndex(extent / w * operand.otherSize *
                                       operand.swizzleBytes);
    } else {
      // Several instructions share a column block (the verifier makes the
      // extent divide W): the block and the place in it depend on the warp.
      constBytes = operand.getByteOffset(kConst, 0);
      runtimeBytes = mnMajorWarpBytes(mnConst);
    }
    // The start address field is 14 bits of a shared-window address < 256K.
    auto it = startFields.find(runtimeBytes);
    if (it == startFields.end()) {
      Value addr = baseAddr;
      if (runtimeBytes)
        addr = LLVM::AddOp::create(b, loc, addr, runtimeBytes);
      Value field = LLVM::AndOp::create(b, loc, addr, i32Val(b, loc, 0x3FFFF));
      field = LLVM::LShrOp::create(b, loc, field, i32Val(b, loc, 4));
      field = LLVM::ZExtOp::create(b, loc, b.getI64Type(), field);
      it = startFields.try_emplace(runtimeBytes, field).first;
    }
    uint64_t constant = operand.getDescriptorBits() + (constBytes >> 4);
    return LLVM::AddOp::create(b, loc, it->second,
                               i64Val(b, loc, int64_t(constant)));
  }

private:
  Value scaledWarpIndex(int64_t bytes) {
    if (!warpIndex)
      return nullptr;
    if (!scaledWarp)
      scaledWarp = LLVM::MulOp::create(b, loc, warpIndex, i32Val(b, loc, bytes));
    return scaledWarp;
  }

  /// Byte offset of MN element warpIndex * extent + mnConst at K row 0.
  Value mnMajorWarpBytes(int64_t mnConst) {
    Value &bytes = warpBytesByMN[mnConst];
    if (!bytes)
      bytes = emitMNMajorWarpBytes(mnConst);
    return bytes;
  }
  Value emitMNMajorWarpBytes(int64_t mnConst) {
    int64_t w = operand.getWidth();
    Value mn = LLVM::MulOp::create(b, loc, warpIndex, i32Val(b, loc, extent));
    if (mnConst)
      mn = LLVM::AddOp::create(b, loc, mn, i32Val(b, loc, mnConst));
    Value block = LLVM::UDivOp::create(b, loc, mn, i32Val(b, loc, w));
    Value inBlock = LLVM::URemOp::create(b, loc, mn, i32Val(b, loc, w));
    Value blockBytes = LLVM::MulOp::create(
        b, loc, block,
        i32Val(b, loc, operand.otherSize * operand.swizzleBytes));
    Value inBlockBytes = LLVM::MulOp::create(
        b, loc, inBlock, i32Val(b, loc, operand.elemBytes));
    return LLVM::AddOp::create(b, loc, blockBytes, inBlockBytes);
  }

  OpBuilder &b;
  Location loc;
  SharedOperand operand;
  Value warpIndex;
  int64_t extent;
  Value baseAddr;
  Value scaledWarp;
  llvm::DenseMap<int64_t, Value> warpBytesByMN;
  /// The start address field for each runtime offset (null: none).
  llvm::DenseMap<Value, Value> startFields;
};

/// One `wgmma.mma_async`: `acc` (f32, i32, or f16 pairs as i32) are the
/// accumulator registers, tied to the results; `a` is a descriptor (SS) or
/// four i32 (RS); `immediates` follow scale-d (none for integer types).
SmallVector<Value> emitMmaAsync(OpBuilder &b, Location loc,
                                StringRef instruction, ValueRange acc,
                                ValueRange a, Value bDesc,
                                StringRef immediates) {
  bool f32Acc = acc.front().getType().isF32();
  Type word = f32Acc ? Type(b.getF32Type()) : Type(b.getI32Type());
  PTXBuilder ptx;
  SmallVector<PTXBuilder::Operand> d;
  for (unsigned i = 0; i < acc.size(); ++i)
    d.push_back(ptx.addOutput(f32Acc ? "f" : "r", word));
  for (auto [out, in] : llvm::zip(d, acc))
    ptx.addTiedInput(in, out);
  // scale-d = 1: accumulate onto acc.
  PTXBuilder::Operand scaleD = ptx.addInput(i32Val(b, loc, 1), "r");
  std::string aArg;
  if (a.size() == 1) {
    aArg = ptx.addInput(a.front(), "l");
  } else {
    SmallVector<PTXBuilder::Operand> aRegs;
    for (Value v : a)
      aRegs.push_back(ptx.addInput(v, "r"));
    aArg = PTXBuilder::vector(aRegs);
  }
  PTXBuilder::Operand bArg = ptx.addInput(bDesc, "l");
  SmallVector<std::string> args{PTXBuilder::vector(d), aArg, bArg, "p"};
  if (!immediates.empty())
    args.push_back(immediates.str());
  // scale-d is a predicate operand, set from a register in a scope of its
  // own.
  ptx.line("{")
      .instr(".reg .pred", {"p"})
      .instr("setp.ne.b32", {"p", scaleD, "0"})
      .instr(instruction, args)
      .line("}");
  return ptx.launch(b, loc);
}

/// `wgmma.wait_group 0` with `words` tied through it: nothing reads them
/// before the products writing them have completed.
SmallVector<Value> waitAllTied(OpBuilder &b, Location loc, ValueRange words) {
  PTXBuilder ptx;
  SmallVector<PTXBuilder::Operand> outs;
  for (Value w : words)
    outs.push_back(ptx.addOutput(w.getType().isF32() ? "f" : "r", w.getType()));
  for (auto [out, w] : llvm::zip(outs, words))
    ptx.addTiedInput(w, out);
  ptx.instr("wgmma.wait_group.sync.aligned", {"0"});
  return ptx.launch(b, loc);
}

struct WarpGroupDotOpConversion
    : public TargetOpConversionPattern<WarpGroupDotOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsWgmma(), "wgmma")))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    RankedTensorType dType = op.getD().getType();
    WgmmaEncodingAttr acc = op.getAccLayout();
    unsigned wM = acc.getWarpsPerCTA()[0], wN = acc.getWarpsPerCTA()[1];
    int64_t n = acc.getInstrShape()[1], instrK = acc.getInstrShape()[2];
    int64_t tileM = 16 * wM, tileN = n * wN;
    auto [repM, repN] = getWgmmaReps(acc, dType.getShape());
    auto bType = cast<MemDescType>(op.getB().getType());
    int64_t kSteps = bType.getShape()[0] / instrK;
    auto aMem = dyn_cast<MemDescType>(op.getA().getType());
    Type aElem = aMem ? aMem.getElementType()
                      : cast<RankedTensorType>(op.getA().getType())
                            .getElementType();
    Type dElem = dType.getElementType();
    // f32 and i32 accumulators are a register per element; f16 ones pairs.
    bool wordAcc = dElem.getIntOrFloatBitWidth() == 32;
    // max_num_imprecise_acc (fp8 into f32): the tensor cores' fp8
    // accumulation keeps fewer bits than f32, so every `imprecise`
    // products' worth of K (at least one instruction's) is summed from
    // zero and then added to the f32 accumulator in f32 (Triton's partial
    // accumulator on Hopper).  Each partial sum is waited for before its
    // add: this serializes the products, the price of the precision.
    int64_t imprecise = op.getMaxNumImpreciseAcc();
    bool partial = isa<Float8E4M3FNType, Float8E5M2Type>(aElem) &&
                   dElem.isF32() && imprecise > 0 &&
                   imprecise <= kSteps * instrK;
    int64_t stepsPerPartial =
        partial ? std::max<int64_t>(1, (imprecise + instrK - 1) / instrK)
                : kSteps;

    // The instruction and its immediates.
    SharedOperand bOperand = getSharedOperand(bType, /*isA=*/false);
    std::string instruction;
    llvm::raw_string_ostream(instruction)
        << "wgmma.mma_async.sync.aligned.m64n" << n << "k" << instrK << "."
        << getPtxTypeName(dElem) << "."
        << (aElem.isF32() ? StringRef("tf32") : getPtxTypeName(aElem)) << "."
        << (aElem.isF32() ? StringRef("tf32")
                          : getPtxTypeName(bType.getElementType()));
    // scale-a, scale-b = 1 (floating-point types only); the transpose
    // immediates exist for 16-bit types only (the others are K-major only),
    // and trans-a for SS only.
    std::string immediates = aElem.isInteger(8) ? "" : "1, 1";
    if (aElem.getIntOrFloatBitWidth() == 16) {
      if (aMem)
        immediates +=
            getSharedOperand(aMem, /*isA=*/true).mnMajor ? ", 1" : ", 0";
      immediates += bOperand.mnMajor ? ", 1" : ", 0";
    }

    // The warpgroup's rows and the warp's columns (from a warp index ptxas
    // knows to be warp-uniform, so that the descriptors are computed once
    // per warp in uniform registers).
    Value warp = getUniformWarpId(b, loc);
    Value warpGroupM, warpN;
    if (wM > 4)
      warpGroupM = LLVM::URemOp::create(
          b, loc, LLVM::UDivOp::create(b, loc, warp, i32Val(b, loc, 4)),
          i32Val(b, loc, wM / 4));
    if (wN > 1)
      warpN = LLVM::URemOp::create(
          b, loc, LLVM::UDivOp::create(b, loc, warp, i32Val(b, loc, wM)),
          i32Val(b, loc, wN));

    std::optional<DescriptorBuilder> aDescs;
    SmallVector<Value> aElems;
    if (aMem)
      aDescs.emplace(b, loc, adaptor.getA(),
                     getSharedOperand(aMem, /*isA=*/true), warpGroupM, 64);
    else
      aElems = unpackLLElements(loc, adaptor.getA(), b);
    DescriptorBuilder bDescs(b, loc, adaptor.getB(), bOperand, warpN, n);

    SmallVector<Value> cElems = unpackLLElements(loc, adaptor.getC(), b);
    SmallVector<Value> dElems, partialRegs;
    int64_t perInstr = n / 2;
    // Every register the products read (the accumulator's words, and A's
    // in registers) is written before the fence: PTX asks that registers a
    // wgmma reads be written before the wgmma.fence that precedes it. When
    // A comes through a loop as 16-bit values (P carried to the next
    // iteration's PV in the rotated attention loop), packing its pairs
    // after the fence made ptxas inject a warpgroup.arrive before each
    // product (C7519).
    SmallVector<SmallVector<Value>> cWords;
    for (int64_t rm = 0; rm < repM; ++rm)
      for (int64_t rn = 0; rn < repN; ++rn) {
        ArrayRef<Value> c =
            ArrayRef<Value>(cElems).slice((rm * repN + rn) * perInstr, perInstr);
        SmallVector<Value> &regs = cWords.emplace_back();
        if (wordAcc)
          regs.assign(c.begin(), c.end());
        else
          for (int64_t i = 0; i < perInstr; i += 2)
            regs.push_back(packPair(b, loc, c[i], c[i + 1]));
      }
    SmallVector<Value> aWords;
    if (!aDescs)
      for (int64_t i = 0; i + 1 < static_cast<int64_t>(aElems.size()); i += 2)
        aWords.push_back(packPair(b, loc, aElems[i], aElems[i + 1]));
    NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (int64_t rm = 0; rm < repM; ++rm) {
      for (int64_t rn = 0; rn < repN; ++rn) {
        SmallVector<Value> regs = cWords[rm * repN + rn];
        for (int64_t ks = 0; ks < kSteps; ++ks) {
          SmallVector<Value> a;
          if (aDescs) {
            a.push_back(aDescs->get(rm * tileM, ks * instrK));
          } else {
            // The A fragment's 8 elements (4 words) of this M repetition
            // and K step.
            int64_t first = (rm * kSteps + ks) * 4;
            a.append(aWords.begin() + first, aWords.begin() + first + 4);
          }
          Value bDesc = bDescs.get(rn * tileN, ks * instrK);
          if (!partial) {
            regs = emitMmaAsync(b, loc, instruction, regs, a, bDesc,
                                immediates);
            continue;
          }
          if (ks % stepsPerPartial == 0) {
            Value zero = LLVM::ConstantOp::create(b, loc, b.getF32Type(),
                                                  b.getF32FloatAttr(0));
            partialRegs.assign(regs.size(), zero);
          }
          partialRegs = emitMmaAsync(b, loc, instruction, partialRegs, a,
                                     bDesc, immediates);
          if ((ks + 1) % stepsPerPartial != 0 && ks + 1 != kSteps)
            continue;
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          partialRegs = waitAllTied(b, loc, partialRegs);
          // `contract`: ptxas may fuse the add (PTX's add.f32, as
          // Triton's; add.rn.f32 otherwise).
          for (auto [full, part] : llvm::zip(regs, partialRegs))
            full = LLVM::FAddOp::create(b, loc, full, part,
                                        LLVM::FastmathFlags::contract);
          // The registers the next products use were written by other
          // instructions.
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
        }
        if (wordAcc) {
          dElems.append(regs.begin(), regs.end());
        } else {
          for (Value word : regs) {
            auto [lo, hi] = unpackPair(b, loc, word, dElem);
            dElems.push_back(lo);
            dElems.push_back(hi);
          }
        }
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    rewriter.replaceOp(
        op, packLLElements(loc, getTypeConverter(), dElems, b, dType));
    return success();
  }
};

struct WarpGroupDotWaitOpConversion
    : public TargetOpConversionPattern<WarpGroupDotWaitOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(WarpGroupDotWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireFeature(op, targetInfo.supportsWgmma(), "wgmma")))
      return failure();
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    // Every element goes through the asm as a register it "writes", so that
    // nothing reads an accumulator before the wait.  16-bit elements travel
    // in pairs.
    SmallVector<SmallVector<Value>> elems;
    SmallVector<Value> words;
    for (auto [input, lowered] :
         llvm::zip(op.getInputs(), adaptor.getInputs())) {
      Type elemType = cast<RankedTensorType>(input.getType()).getElementType();
      elems.push_back(unpackLLElements(loc, lowered, b));
      SmallVector<Value> &values = elems.back();
      if (elemType.isF32() || elemType.isInteger(32)) {
        words.append(values.begin(), values.end());
      } else if (elemType.getIntOrFloatBitWidth() == 16 &&
                 values.size() % 2 == 0) {
        for (unsigned i = 0; i < values.size(); i += 2)
          words.push_back(packPair(b, loc, values[i], values[i + 1]));
      } else {
        return op.emitError("cannot wait on a tensor of ")
               << elemType << " (the wait ties 32-bit and 16-bit elements)";
      }
    }
    SmallVector<Value> results;
    if (words.empty()) {
      NVVM::WgmmaWaitGroupSyncOp::create(b, loc, op.getPendings());
    } else {
      PTXBuilder ptx;
      SmallVector<PTXBuilder::Operand> outs;
      for (Value w : words)
        outs.push_back(
            ptx.addOutput(w.getType().isF32() ? "f" : "r", w.getType()));
      for (auto [out, w] : llvm::zip(outs, words))
        ptx.addTiedInput(w, out);
      ptx.instr("wgmma.wait_group.sync.aligned",
                {std::to_string(op.getPendings())});
      results = ptx.launch(b, loc);
    }

    // Unpack the words into each output.
    SmallVector<Value> outputs;
    unsigned next = 0;
    for (auto [input, values] : llvm::zip(op.getInputs(), elems)) {
      auto type = cast<RankedTensorType>(input.getType());
      Type elemType = values.front().getType();
      SmallVector<Value> outElems;
      if (elemType.getIntOrFloatBitWidth() == 32) {
        for (unsigned i = 0; i < values.size(); ++i)
          outElems.push_back(results[next++]);
      } else {
        for (unsigned i = 0; i < values.size(); i += 2) {
          auto [lo, hi] = unpackPair(b, loc, results[next++], elemType);
          outElems.push_back(lo);
          outElems.push_back(hi);
        }
      }
      outputs.push_back(
          packLLElements(loc, getTypeConverter(), outElems, b, type));
    }
    rewriter.replaceOp(op, outputs);
    return success();
  }
};

/// `tilegpu.schedule_after`: every element of the values, as 32 bits,
/// xor-ed into one register that a branch tests (see the op's
/// description). The branch skips or runs a `membar.cta`, which orders
/// nothing the kernel relies on: only the schedule changes.
struct ScheduleAfterOpConversion
    : public TargetOpConversionPattern<ScheduleAfterOp> {
  using TargetOpConversionPattern::TargetOpConversionPattern;

  LogicalResult
  matchAndRewrite(ScheduleAfterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type i32 = b.getI32Type();
    Value acc;
    for (auto [value, lowered] :
         llvm::zip(op.getValues(), adaptor.getValues())) {
      SmallVector<Value> elems;
      if (isa<RankedTensorType>(value.getType()))
        elems = unpackLLElements(loc, lowered, b);
      else
        elems.push_back(lowered);
      for (Value elem : elems) {
        // 32 bits or fewer (the verifier's).
        Type type = elem.getType();
        unsigned width = type.getIntOrFloatBitWidth();
        if (isa<FloatType>(type))
          elem = LLVM::BitcastOp::create(b, loc, b.getIntegerType(width), elem);
        if (width < 32)
          elem = LLVM::ZExtOp::create(b, loc, i32, elem);
        acc = acc ? LLVM::XOrOp::create(b, loc, acc, elem).getResult() : elem;
      }
    }
    if (!acc) {
      rewriter.eraseOp(op);
      return success();
    }
    PTXBuilder ptx;
    PTXBuilder::Operand bits = ptx.addInput(acc, "r");
    ptx.line("{")
        .line(".reg .pred p;")
        .instr("setp.eq.b32", {"p", bits, "-1"})
        .line("@p bra SCHEDULE_RARE;")
        .line("bra.uni SCHEDULE_DONE;")
        .line("SCHEDULE_RARE:")
        .instr("membar.cta")
        .line("SCHEDULE_DONE:")
        .line("}");
    ptx.launch(b, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void warpforge::populateDotOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<WarpGroupDotOpConversion, WarpGroupDotWaitOpConversion,
               ScheduleAfterOpConversion>(converter, patterns.getContext(),
                                          targetInfo);
}
