//===- ElementwiseOpToLLVM.cpp - Element-wise ops, one element at a time --===//
//
// A thread computes an element-wise op on a tensor by applying it to each
// element it holds.  arith and math ops on tensors become the same ops on
// scalars, which the arith, math (libdevice) and LLVM patterns then lower;
// tile's own element-wise ops lower here directly.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/PTXBuilder.h"
#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// Unpacks each operand: tensors into their elements, scalars repeated.
SmallVector<SmallVector<Value>> unpackOperands(Location loc,
                                               ValueRange operands,
                                               unsigned count,
                                               OpBuilder &b) {
  SmallVector<SmallVector<Value>> unpacked;
  for (Value v : operands) {
    if (isa<LLVM::LLVMStructType>(v.getType()))
      unpacked.push_back(unpackLLElements(loc, v, b));
    else
      unpacked.push_back(SmallVector<Value>(count, v));
  }
  return unpacked;
}

/// arith and math ops on tensors become the same ops on each element.
struct ArithMathOnTensorConversion : public ConversionPattern {
  ArithMathOnTensorConversion(const TypeConverter &converter,
                              MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/20,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        isa<arith::ConstantOp>(op) || op->getNumRegions() != 0 ||
        op->getNumResults() != 1)
      return failure();
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.getEncoding())
      return failure();
    Type elementType =
        getTypeConverter()->convertType(resultType.getElementType());
    if (!elementType)
      return failure();
    Location loc = op->getLoc();
    unsigned count = getTotalElemsPerThread(resultType);
    auto unpacked = unpackOperands(loc, operands, count, rewriter);
    SmallVector<Value> results;
    for (unsigned i = 0; i < count; ++i) {
      OperationState state(loc, op->getName());
      for (auto &elems : unpacked)
        state.addOperands(elems[i]);
      state.addTypes(elementType);
      state.addAttributes(op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(op, packLLElements(loc, getTypeConverter(), results,
                                          rewriter, resultType));
    return success();
  }
};

/// f32 -> f16/bf16 truncation of a tensor, two elements per instruction
/// (`cvt.rn.f16x2.f32`, `cvt.rn.bf16x2.f32`), as the wgmma epilogues need:
/// ptxas pipelines wgmma only when every non-wgmma reader of an accumulator
/// register is one it can place after the retiring wait, and it does not
/// manage that for the scalar `cvt.rn.f16.f32` that LLVM emits for a
/// truncation whose halves are used one by one (tutorial 09's bf16 epilogue
/// rounds to f16 first, then widens each element again): there it
/// serializes every wgmma of the kernel (ptxas C7514) and the main loop
/// loses a fifth of its speed.  The paired form is what LLVM itself emits
/// when the halves are stored together, so the fp16 epilogue is unchanged.
struct TruncFPairConversion : public OpConversionPattern<arith::TruncFOp> {
  TruncFPairConversion(const TypeConverter &converter, MLIRContext *context)
      : OpConversionPattern(converter, context, /*benefit=*/30) {}

  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.getEncoding())
      return failure();
    auto srcType = cast<RankedTensorType>(op.getIn().getType());
    Type dst = type.getElementType();
    if (!srcType.getElementType().isF32() || !(dst.isF16() || dst.isBF16()))
      return failure();
    if (auto mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return failure();
    unsigned count = getTotalElemsPerThread(type);
    if (count % 2)
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> in = unpackLLElements(loc, adaptor.getIn(), rewriter);
    std::string opcode =
        std::string("cvt.rn.") + (dst.isF16() ? "f16x2" : "bf16x2") + ".f32";
    SmallVector<Value> results;
    for (unsigned i = 0; i < count; i += 2) {
      // The first source goes to the upper half.
      PTXBuilder ptx;
      PTXBuilder::Operand out = ptx.addOutput("r", rewriter.getI32Type());
      PTXBuilder::Operand hi = ptx.addInput(in[i + 1], "f");
      PTXBuilder::Operand lo = ptx.addInput(in[i], "f");
      ptx.instr(opcode, {out, hi, lo});
      Value pair = ptx.launch(rewriter, loc, /*hasSideEffects=*/false).front();
      auto [first, second] = unpackPair(rewriter, loc, pair, dst);
      results.push_back(first);
      results.push_back(second);
    }
    rewriter.replaceOp(op, packLLElements(loc, getTypeConverter(), results,
                                          rewriter, type));
    return success();
  }
};

/// Tensor constants: splats only (the frontend makes no others).
struct TensorConstantConversion : public OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return op.emitError("only splat tensor constants can be lowered");
    Type elementType = getTypeConverter()->convertType(type.getElementType());
    Attribute value = splat.getSplatValue<Attribute>();
    if (elementType != type.getElementType()) {
      // fp8 and friends are stored as integers of their width.
      auto bits = cast<FloatAttr>(value).getValue().bitcastToAPInt();
      value = rewriter.getIntegerAttr(elementType, bits);
    }
    Value scalar =
        LLVM::ConstantOp::create(rewriter, op.getLoc(), elementType, value);
    SmallVector<Value> elems(getTotalElemsPerThread(type), scalar);
    rewriter.replaceOp(op, packLLElements(op.getLoc(), getTypeConverter(),
                                          elems, rewriter, type));
    return success();
  }
};

/// Base of tile's element-wise ops: `convertElement` computes one element
/// from the lowered operands' elements.
template <typename SourceOp>
struct ElementwiseTileOpConversion : public OpConversionPattern<SourceOp> {
  using OpConversionPattern<SourceOp>::OpConversionPattern;

  virtual Value convertElement(SourceOp op, OpBuilder &b, Location loc,
                               Type resultElement,
                               ArrayRef<Value> operands) const = 0;

  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type resultType = op.getResult().getType();
    auto tensorType = dyn_cast<RankedTensorType>(resultType);
    Type element = this->getTypeConverter()->convertType(
        tensorType ? tensorType.getElementType() : resultType);
    if (!element)
      return failure();
    if (!tensorType) {
      Value v = convertElement(op, rewriter, loc, element,
                               SmallVector<Value>(adaptor.getOperands()));
      if (!v)
        return failure();
      rewriter.replaceOp(op, v);
      return success();
    }
    unsigned count = getTotalElemsPerThread(tensorType);
    auto unpacked = unpackOperands(loc, adaptor.getOperands(), count, rewriter);
    SmallVector<Value> results;
    for (unsigned i = 0; i < count; ++i) {
      SmallVector<Value> elems;
      for (auto &operand : unpacked)
        elems.push_back(operand[i]);
      Value v = convertElement(op, rewriter, loc, element, elems);
      if (!v)
        return failure();
      results.push_back(v);
    }
    rewriter.replaceOp(op, packLLElements(loc, this->getTypeConverter(),
                                          results, rewriter, tensorType));
    return success();
  }
};

struct AddPtrOpConversion : ElementwiseTileOpConversion<tile::AddPtrOp> {
  using ElementwiseTileOpConversion::ElementwiseTileOpConversion;
  Value convertElement(tile::AddPtrOp op, OpBuilder &b, Location loc, Type,
                       ArrayRef<Value> operands) const override {
    Type pointee = tile::getPointeeType(getElementTypeOrSelf(op.getPtr()));
    Type memoryType = getTypeConverter()->convertType(pointee);
    // Booleans occupy a byte in memory.
    if (memoryType.isInteger(1))
      memoryType = b.getI8Type();
    return gep(b, loc, memoryType, operands[0], operands[1]);
  }
};

struct IntToPtrOpConversion : ElementwiseTileOpConversion<tile::IntToPtrOp> {
  using ElementwiseTileOpConversion::ElementwiseTileOpConversion;
  Value convertElement(tile::IntToPtrOp, OpBuilder &b, Location loc,
                       Type result, ArrayRef<Value> operands) const override {
    return LLVM::IntToPtrOp::create(b, loc, result, operands[0]);
  }
};

struct PtrToIntOpConversion : ElementwiseTileOpConversion<tile::PtrToIntOp> {
  using ElementwiseTileOpConversion::ElementwiseTileOpConversion;
  Value convertElement(tile::PtrToIntOp, OpBuilder &b, Location loc,
                       Type result, ArrayRef<Value> operands) const override {
    return LLVM::PtrToIntOp::create(b, loc, result, operands[0]);
  }
};

struct BitcastOpConversion : ElementwiseTileOpConversion<tile::BitcastOp> {
  using ElementwiseTileOpConversion::ElementwiseTileOpConversion;
  Value convertElement(tile::BitcastOp, OpBuilder &b, Location loc,
                       Type result, ArrayRef<Value> operands) const override {
    Value src = operands[0];
    if (src.getType() == result)
      return src;
    if (isa<LLVM::LLVMPointerType>(src.getType()) &&
        isa<LLVM::LLVMPointerType>(result))
      return LLVM::AddrSpaceCastOp::create(b, loc, result, src);
    return LLVM::BitcastOp::create(b, loc, result, src);
  }
};

/// Runs one PTX conversion instruction `opcode $0, $1[, $1];` on a scalar:
/// the result in a `resultConstraint` register of `resultType`, the source
/// in a `srcConstraint` one, passed `srcCount` times (conversions to a
/// pair take a source per half).  Pure: LLVM may move or drop it.
Value ptxConvert(OpBuilder &b, Location loc, StringRef opcode,
                 StringRef resultConstraint, Type resultType,
                 StringRef srcConstraint, Value src, unsigned srcCount = 1) {
  PTXBuilder ptx;
  PTXBuilder::Operand out = ptx.addOutput(resultConstraint, resultType);
  PTXBuilder::Operand in = ptx.addInput(src, srcConstraint);
  SmallVector<std::string> args{out};
  args.append(srcCount, in);
  ptx.instr(opcode, args);
  return ptx.launch(b, loc, /*hasSideEffects=*/false).front();
}

/// fp8 (`x`, its byte in an i8) to f16 without the hardware conversion,
/// which sm_89 introduced; exact.  e5m2 is the high byte of an f16.
/// e4m3fn (bias 7, no infinities, NaN at magnitude 0x7f): a normal value
/// is an f16 whose exponent field is 8 more; a subnormal m * 2^-9 (m < 8)
/// is the f16 m times 2^-9, both normal, so no subnormal arithmetic (and
/// no flush to zero) is involved.
Value emulateFp8ToF16(OpBuilder &b, Location loc, Value x, bool e4m3) {
  Type i16 = b.getI16Type(), f16 = b.getF16Type();
  auto c16 = [&](int64_t v) { return LLVM::ConstantOp::create(b, loc, i16, v); };
  Value wide = LLVM::ZExtOp::create(b, loc, i16, x);
  if (!e4m3)
    return LLVM::BitcastOp::create(
        b, loc, f16, LLVM::ShlOp::create(b, loc, wide, c16(8)));
  Value mag = LLVM::AndOp::create(b, loc, wide, c16(0x7f));
  Value sign = LLVM::ShlOp::create(
      b, loc, LLVM::AndOp::create(b, loc, wide, c16(0x80)), c16(8));
  Value normalBits = LLVM::AddOp::create(
      b, loc, LLVM::ShlOp::create(b, loc, mag, c16(7)), c16(0x2000));
  Value m = LLVM::AndOp::create(b, loc, mag, c16(7));
  Value sub = LLVM::FMulOp::create(
      b, loc, LLVM::UIToFPOp::create(b, loc, f16, m),
      LLVM::ConstantOp::create(b, loc, f16, b.getF16FloatAttr(1.0 / 512)));
  Value subBits = LLVM::BitcastOp::create(b, loc, i16, sub);
  Value isSub = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult, mag,
                                     c16(8));
  Value bits = LLVM::SelectOp::create(b, loc, isSub, subBits, normalBits);
  Value isNan = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, mag,
                                     c16(0x7f));
  bits = LLVM::SelectOp::create(b, loc, isNan, c16(0x7e00), bits);
  return LLVM::BitcastOp::create(b, loc, f16,
                                 LLVM::OrOp::create(b, loc, bits, sign));
}

struct FpToFpOpConversion : ElementwiseTileOpConversion<tile::FpToFpOp> {
  FpToFpOpConversion(const TypeConverter &converter, MLIRContext *context,
                     const TargetInfo &targetInfo)
      : ElementwiseTileOpConversion(converter, context),
        computeCapability(targetInfo.getComputeCapability()),
        fp8Conversions(targetInfo.supportsFp8Conversions()) {}

  int computeCapability;
  bool fp8Conversions;
  bool hasFp8Conversions() const { return fp8Conversions; }

  Value convertElement(tile::FpToFpOp op, OpBuilder &b, Location loc,
                       Type result, ArrayRef<Value> operands) const override {
    Type srcType = getElementTypeOrSelf(op.getSrc());
    Type dstType = getElementTypeOrSelf(op.getResult());
    Value src = operands[0];
    bool rtz = op.getRounding() && *op.getRounding() == tile::RoundingMode::RTZ;
    auto isFp8 = [](Type t) {
      return isa<Float8E4M3FNType, Float8E5M2Type>(t);
    };
    auto fp8Name = [](Type t) {
      return isa<Float8E4M3FNType>(t) ? "e4m3" : "e5m2";
    };
    Type i16 = b.getI16Type(), i32 = b.getI32Type(), f16 = b.getF16Type(),
         f32 = b.getF32Type();
    if (isFp8(srcType)) {
      // fp8 -> f16 in hardware (a pair at a time; the high half is unused),
      // or emulated before sm_89, then to the destination.
      Value half;
      if (hasFp8Conversions()) {
        Value wide = LLVM::ZExtOp::create(b, loc, i16, src);
        std::string opcode =
            std::string("cvt.rn.f16x2.") + fp8Name(srcType) + "x2";
        Value pair = ptxConvert(b, loc, opcode, "r", i32, "h", wide);
        half = LLVM::BitcastOp::create(
            b, loc, f16, LLVM::TruncOp::create(b, loc, i16, pair));
      } else {
        half = emulateFp8ToF16(b, loc, src, isa<Float8E4M3FNType>(srcType));
      }
      if (dstType.isF16())
        return half;
      Value asF32 = LLVM::FPExtOp::create(b, loc, f32, half);
      if (dstType.isF32())
        return asF32;
      if (dstType.isF64())
        return LLVM::FPExtOp::create(b, loc, result, asF32);
      return LLVM::FPTruncOp::create(b, loc, result, asF32);
    }
    if (isFp8(dstType)) {
      if (!hasFp8Conversions()) {
        op.emitError("conversion to ")
            << dstType << " needs sm_89 or later (cvt.satfinite to fp8); the "
            << "target is sm_" << computeCapability
            << ": fp8 data can be read and multiplied there, not produced";
        return nullptr;
      }
      if (rtz) {
        op.emitError("conversion to ")
            << dstType << " supports round-to-nearest-even only";
        return nullptr;
      }
      Value asF32 = src;
      if (srcType.getIntOrFloatBitWidth() < 32)
        asF32 = LLVM::FPExtOp::create(b, loc, f32, src);
      else if (srcType.isF64())
        asF32 = LLVM::FPTruncOp::create(b, loc, f32, src);
      std::string opcode =
          std::string("cvt.rn.satfinite.") + fp8Name(dstType) + "x2.f32";
      Value pair = ptxConvert(b, loc, opcode, "h", i16, "f", asF32,
                              /*srcCount=*/2);
      return LLVM::TruncOp::create(b, loc, result, pair);
    }
    unsigned srcBits = srcType.getIntOrFloatBitWidth();
    unsigned dstBits = dstType.getIntOrFloatBitWidth();
    if (dstBits > srcBits)
      return LLVM::FPExtOp::create(b, loc, result, src);
    if (dstBits == srcBits)
      return src;
    if (!rtz)
      return LLVM::FPTruncOp::create(b, loc, result, src);
    if (!srcType.isF32()) {
      op.emitError("round-toward-zero conversion is supported from f32 only");
      return nullptr;
    }
    std::string opcode =
        std::string("cvt.rz.") + (dstType.isF16() ? "f16" : "bf16") + ".f32";
    Value bits = ptxConvert(b, loc, opcode, "h", i16, "f", src);
    return LLVM::BitcastOp::create(b, loc, result, bits);
  }
};

/// `tile.elementwise_inline_asm`: one LLVM inline asm per `packed_element`
/// of the thread's elements (the same positions in every operand and
/// result; which elements a thread groups is its layout's business, as
/// Triton leaves it unspecified).  Per invocation an operand or result
/// element of 32 bits or more takes a register of its own; narrower ones
/// are packed into vectors of 32 bits (4 x i8, 2 x f16), as Triton's
/// lowering does, so that the assembly sees 32-bit registers.
struct ElementwiseInlineAsmOpConversion
    : public OpConversionPattern<tile::ElementwiseInlineAsmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::ElementwiseInlineAsmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    const TypeConverter *converter = getTypeConverter();
    auto elementOf = [&](Type t) {
      return converter->convertType(getElementTypeOrSelf(t));
    };
    SmallVector<Type> argElems, resultElems;
    for (Type t : op.getArgs().getTypes())
      argElems.push_back(elementOf(t));
    for (Type t : op.getResultTypes())
      resultElems.push_back(elementOf(t));
    auto tensorType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
    unsigned count = tensorType ? getTotalElemsPerThread(tensorType) : 1;
    unsigned pack = tensorType ? op.getPackedElement() : 1;
    if (count % pack)
      return op.emitError("inline asm packs ")
             << pack << " elements per invocation but a thread holds "
             << count << " elements of " << tensorType
             << "; use a pack that divides it";
    // Elements per register: 32 bits of narrower ones, else one.
    auto perRegister = [&](Type elem) -> unsigned {
      unsigned bits = isa<LLVM::LLVMPointerType>(elem)
                          ? 64
                          : elem.getIntOrFloatBitWidth();
      return std::min<unsigned>(bits < 32 ? 32 / bits : 1, pack);
    };
    auto registerType = [&](Type elem) -> Type {
      unsigned n = perRegister(elem);
      return n == 1 ? elem : VectorType::get(n, elem);
    };
    unsigned outputRegs = 0, inputRegs = 0;
    for (Type e : resultElems)
      outputRegs += pack / perRegister(e);
    for (Type e : argElems)
      inputRegs += pack / perRegister(e);
    // The constraints must name exactly those registers (clobbers, `~{..}`,
    // aside): LLVM would otherwise fail far from the user's line.
    unsigned outputs = 0, inputs = 0;
    for (StringRef c : llvm::split(op.getConstraints(), ',')) {
      c = c.trim();
      if (c.empty() || c.starts_with("~"))
        continue;
      (c.starts_with("=") ? outputs : inputs) += 1;
    }
    if (outputs != outputRegs || inputs != inputRegs)
      return op.emitError("inline asm constraints \"")
             << op.getConstraints() << "\" name " << outputs
             << " output and " << inputs << " input registers; with "
             << pack << " element(s) per invocation it takes " << outputRegs
             << " and " << inputRegs
             << " (one register per element of 32 bits or more, narrower "
                "ones packed 32 bits to a register)";

    SmallVector<SmallVector<Value>> args;
    for (Value v : adaptor.getArgs())
      args.push_back(tensorType ? unpackLLElements(loc, v, rewriter)
                                : SmallVector<Value>{v});
    SmallVector<Type> asmTypes;
    for (Type e : resultElems)
      for (unsigned k = 0; k < pack; k += perRegister(e))
        asmTypes.push_back(registerType(e));
    Type asmResult = asmTypes.size() == 1
                         ? asmTypes.front()
                         : LLVM::LLVMStructType::getLiteral(ctx, asmTypes);
    SmallVector<SmallVector<Value>> results(resultElems.size());
    for (unsigned i = 0; i < count; i += pack) {
      SmallVector<Value> operands;
      for (auto [j, e] : llvm::enumerate(argElems)) {
        unsigned n = perRegister(e);
        for (unsigned k = 0; k < pack; k += n) {
          if (n == 1) {
            operands.push_back(args[j][i + k]);
            continue;
          }
          Value vec = LLVM::UndefOp::create(rewriter, loc, registerType(e));
          for (unsigned l = 0; l < n; ++l)
            vec = LLVM::InsertElementOp::create(rewriter, loc, vec,
                                                args[j][i + k + l],
                                                i32Val(rewriter, loc, l));
          operands.push_back(vec);
        }
      }
      auto asmOp = LLVM::InlineAsmOp::create(
          rewriter, loc, asmResult, operands, op.getAsmString(),
          op.getConstraints(), /*has_side_effects=*/!op.getPure(),
          /*is_align_stack=*/false, LLVM::TailCallKind::None,
          LLVM::AsmDialectAttr{}, ArrayAttr{});
      unsigned reg = 0;
      for (auto [j, e] : llvm::enumerate(resultElems)) {
        unsigned n = perRegister(e);
        for (unsigned k = 0; k < pack; k += n, ++reg) {
          Value value =
              asmTypes.size() == 1
                  ? asmOp.getResult(0)
                  : LLVM::ExtractValueOp::create(rewriter, loc,
                                                 asmOp.getResult(0), reg)
                        .getResult();
          if (n == 1) {
            results[j].push_back(value);
            continue;
          }
          for (unsigned l = 0; l < n; ++l)
            results[j].push_back(LLVM::ExtractElementOp::create(
                rewriter, loc, value, i32Val(rewriter, loc, l)));
        }
      }
    }
    SmallVector<Value> replacements;
    for (auto [j, type] : llvm::enumerate(op.getResultTypes()))
      replacements.push_back(
          tensorType ? packLLElements(loc, converter, results[j], rewriter,
                                      cast<RankedTensorType>(type))
                     : results[j].front());
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

/// `math.sqrt` without the `afn` fast-math flag (tl.math.sqrt_rn) is the
/// correctly rounded square root: LLVM's sqrt intrinsic, `sqrt.rn` in PTX.
/// With `afn` (tl.sqrt, Triton's approximate one) libdevice's sqrtf takes
/// it, as before.  Scalars only: tensors are split into elements first.
struct PreciseSqrtConversion : public OpConversionPattern<math::SqrtOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(math::SqrtOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (isa<ShapedType>(op.getType()) ||
        bitEnumContainsAny(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::SqrtOp>(op, adaptor.getOperand());
    return success();
  }
};

/// fp32 `arith.divf` with the `afn` fast-math flag (Triton's `/` and
/// `tl.math.fdiv(x, y)`) is `div.full.f32`, Triton's division: full range,
/// at most 2 ulp from the rounded quotient, a reciprocal and a multiply
/// where `div.rn.f32` (IEEE, `tl.math.div_rn`, the op without the flag)
/// adds a Newton step, a range check and a slow path.  LLVM would take
/// `afn` as leave for `div.approx.f32`, which is wrong for denominators
/// beyond 2^126: hence the instruction here, not the flag there.  Scalars
/// only: tensors are split into elements first.
struct FullRangeDivConversion : public OpConversionPattern<arith::DivFOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32() ||
        !bitEnumContainsAny(op.getFastmath(), arith::FastMathFlags::afn))
      return failure();
    PTXBuilder ptx;
    PTXBuilder::Operand out = ptx.addOutput("f", rewriter.getF32Type());
    PTXBuilder::Operand lhs = ptx.addInput(adaptor.getLhs(), "f");
    PTXBuilder::Operand rhs = ptx.addInput(adaptor.getRhs(), "f");
    ptx.instr("div.full.f32", {std::string(out), std::string(lhs), std::string(rhs)});
    rewriter.replaceOp(op, ptx.launch(rewriter, op.getLoc(),
                                      /*hasSideEffects=*/false).front());
    return success();
  }
};

} // namespace

void warpforge::populateElementwiseOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ArithMathOnTensorConversion, TruncFPairConversion>(converter,
                                                                 context);
  patterns.add<TensorConstantConversion, AddPtrOpConversion,
               IntToPtrOpConversion, PtrToIntOpConversion, BitcastOpConversion,
               ElementwiseInlineAsmOpConversion>(converter, context);
  patterns.add<FpToFpOpConversion>(converter, context, targetInfo);
  // Above libdevice's patterns (benefit 10).
  patterns.add<PreciseSqrtConversion, FullRangeDivConversion>(
      converter, context, /*benefit=*/20);
}
