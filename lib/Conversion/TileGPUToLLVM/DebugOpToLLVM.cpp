//===- DebugOpToLLVM.cpp - device_assert and device_print -----------------===//
//
// tile.assert calls the CUDA runtime's `__assertfail(message, file, line,
// function, charSize)` in every thread holding a false element (the kernel
// then stops with the message, file and line, as a failed assert() in CUDA
// C does).  tile.print calls `vprintf(format, args)` once per element a
// thread holds, prefixed with the program id and the element's index:
//
//   pid (0, 0, 0) idx (3, 17) x: 1.500000
//
// A tensor element several threads hold is printed by each of them, as in
// Triton.  Strings are private constants of the module.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/Patterns.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// The address (generic) of a NUL-terminated constant holding `text`,
/// named after `prefix`; equal strings share one constant.
Value getStringConstant(OpBuilder &b, Location loc, Operation *from,
                        StringRef prefix, StringRef text) {
  auto module = from->getParentOfType<ModuleOp>();
  std::string contents = (text + Twine('\0')).str();
  LLVM::GlobalOp global;
  unsigned count = 0;
  for (auto g : module.getOps<LLVM::GlobalOp>()) {
    if (!g.getSymName().starts_with(prefix))
      continue;
    ++count;
    if (auto value = dyn_cast_or_null<StringAttr>(g.getValueOrNull()))
      if (value.getValue() == contents)
        global = g;
  }
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
    global = LLVM::GlobalOp::create(
        b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal,
        (prefix + "_" + Twine(count)).str(), b.getStringAttr(contents),
        /*alignment=*/1);
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// Declares (once) the external function `name` of `type`.
LLVM::LLVMFuncOp getOrDeclare(OpBuilder &b, Operation *from, StringRef name,
                              LLVM::LLVMFunctionType type) {
  auto module = from->getParentOfType<ModuleOp>();
  if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, from->getLoc(), name, type);
}

/// The file and line of `loc` (the first file position inside it).
std::pair<std::string, unsigned> getFileLine(Location loc) {
  std::pair<std::string, unsigned> result{"<unknown>", 0};
  bool found = false;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner); file && !found) {
      result = {file.getFilename().str(), file.getLine()};
      found = true;
    }
    return WalkResult::advance();
  });
  return result;
}

struct AssertOpConversion : public OpConversionPattern<tile::AssertOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(tile::AssertOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    // True when any element the thread holds is false.
    Value failed;
    for (Value v : unpackLLElements(loc, adaptor.getCondition(), rewriter)) {
      Value isFalse = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                           v, boolVal(rewriter, loc, false));
      failed = failed ? LLVM::OrOp::create(rewriter, loc, failed, isFalse)
                            .getResult()
                      : isFalse;
    }
    auto [file, line] = getFileLine(loc);
    std::string function = "<unknown>";
    if (auto func = op->getParentOfType<FunctionOpInterface>())
      function = func.getName().str();

    // before: cond_br failed, ^fail, ^after;  ^fail: __assertfail; br ^after
    Block *before = op->getBlock();
    Block *after = rewriter.splitBlock(before, op->getIterator());
    Block *fail = rewriter.createBlock(after);
    rewriter.setInsertionPointToEnd(before);
    LLVM::CondBrOp::create(rewriter, loc, failed, fail, after);
    rewriter.setInsertionPointToEnd(fail);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto type = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(ctx),
        {ptr, ptr, rewriter.getI32Type(), ptr, rewriter.getI64Type()});
    LLVM::LLVMFuncOp assertFail =
        getOrDeclare(rewriter, op, "__assertfail", type);
    Value args[] = {
        getStringConstant(rewriter, loc, op, "assertMessage", op.getMessage()),
        getStringConstant(rewriter, loc, op, "assertFile", file),
        i32Val(rewriter, loc, line),
        getStringConstant(rewriter, loc, op, "assertFunction", function),
        i64Val(rewriter, loc, 1)};
    LLVM::CallOp::create(rewriter, loc, assertFail, args);
    LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
    rewriter.eraseOp(op);
    return success();
  }
};

/// How vprintf receives one value: its printf conversion and the value
/// widened as C's variadic promotion does.
std::pair<std::string, Value> formatValue(OpBuilder &b, Location loc, Value v,
                                          bool isSigned, bool hex) {
  Type type = v.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return {"%p", LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v)};
  if (isa<FloatType>(type)) {
    if (!type.isF64())
      v = LLVM::FPExtOp::create(b, loc, b.getF64Type(), v);
    return {"%f", v};
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  if (bits == 64)
    return {hex ? "0x%llx" : isSigned ? "%lld" : "%llu", v};
  if (bits < 32)
    v = isSigned && bits > 1
            ? LLVM::SExtOp::create(b, loc, b.getI32Type(), v).getResult()
            : LLVM::ZExtOp::create(b, loc, b.getI32Type(), v).getResult();
  return {hex ? "0x%x" : isSigned ? "%d" : "%u", v};
}

std::string escapePercent(StringRef text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '%')
      out += '%';
  }
  return out;
}

struct PrintOpConversion : public OpConversionPattern<tile::PrintOp> {
  using OpConversionPattern::OpConversionPattern;

  void emitPrintf(ConversionPatternRewriter &rewriter, Location loc,
                  Operation *op, StringRef format, ArrayRef<Value> args) const {
    MLIRContext *ctx = getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto type = LLVM::LLVMFunctionType::get(rewriter.getI32Type(), {ptr, ptr});
    LLVM::LLVMFuncOp vprintf = getOrDeclare(rewriter, op, "vprintf", type);
    Value formatPtr = getStringConstant(rewriter, loc, op, "printFormat", format);
    Value buffer;
    if (args.empty()) {
      buffer = LLVM::ZeroOp::create(rewriter, loc, ptr);
    } else {
      SmallVector<Type> fields;
      for (Value a : args)
        fields.push_back(a.getType());
      auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
      {
        // In the entry block: an alloca in a loop would grow the stack on
        // every iteration.
        OpBuilder::InsertionGuard guard(rewriter);
        if (auto func = op->getParentOfType<FunctionOpInterface>())
          rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
        buffer = LLVM::AllocaOp::create(rewriter, loc, ptr, structType,
                                        i32Val(rewriter, loc, 1));
      }
      for (auto [i, a] : llvm::enumerate(args)) {
        Value field = LLVM::GEPOp::create(
            rewriter, loc, ptr, structType, buffer,
            ArrayRef<LLVM::GEPArg>{0, int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, a, field);
      }
    }
    LLVM::CallOp::create(rewriter, loc, vprintf, ValueRange{formatPtr, buffer});
  }

  LogicalResult
  matchAndRewrite(tile::PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    std::string prefix = escapePercent(op.getPrefix());
    SmallVector<Value> pid = {
        NVVM::BlockIdXOp::create(rewriter, loc, rewriter.getI32Type()),
        NVVM::BlockIdYOp::create(rewriter, loc, rewriter.getI32Type()),
        NVVM::BlockIdZOp::create(rewriter, loc, rewriter.getI32Type())};
    std::string pidFormat = "pid (%u, %u, %u) ";
    bool anyTensor = llvm::any_of(op.getArgs(), [](Value v) {
      return isa<RankedTensorType>(v.getType());
    });
    if (!anyTensor) {
      // One line with every scalar.
      std::string format = pidFormat + prefix;
      SmallVector<Value> args(pid);
      for (auto [i, v] : llvm::enumerate(adaptor.getArgs())) {
        auto [conv, arg] = formatValue(rewriter, loc, v, op.getIsSigned()[i],
                                       op.getHex());
        format += (i ? ", " : "") + conv;
        args.push_back(arg);
      }
      emitPrintf(rewriter, loc, op, format + "\n", args);
      rewriter.eraseOp(op);
      return success();
    }
    bool several = op.getArgs().size() > 1;
    for (auto [i, pair] : llvm::enumerate(
             llvm::zip(op.getArgs(), adaptor.getArgs()))) {
      auto [original, lowered] = pair;
      std::string operandTag =
          several ? " (operand " + std::to_string(i) + ")" : "";
      auto tensorType = dyn_cast<RankedTensorType>(original.getType());
      if (!tensorType) {
        auto [conv, arg] = formatValue(rewriter, loc, lowered,
                                       op.getIsSigned()[i], op.getHex());
        SmallVector<Value> args(pid);
        args.push_back(arg);
        emitPrintf(rewriter, loc, op,
                   pidFormat + prefix + operandTag + conv + "\n", args);
        continue;
      }
      if (!tensorType.getEncoding() ||
          !isBlockedLike(tensorType.getEncoding()))
        return op.emitError("cannot print a tensor of type ")
               << tensorType << ": it needs a blocked layout";
      SmallVector<Value> elements = unpackLLElements(loc, lowered, rewriter);
      auto indices = emitIndices(rewriter, loc, tensorType);
      std::string idxFormat = "idx (";
      for (unsigned d = 0; d < tensorType.getRank(); ++d)
        idxFormat += d ? ", %u" : "%u";
      idxFormat += ")";
      for (auto [value, coords] : llvm::zip(elements, indices)) {
        auto [conv, arg] = formatValue(rewriter, loc, value,
                                       op.getIsSigned()[i], op.getHex());
        SmallVector<Value> args(pid);
        args.append(coords.begin(), coords.end());
        args.push_back(arg);
        emitPrintf(rewriter, loc, op,
                   pidFormat + idxFormat + prefix + operandTag + conv + "\n",
                   args);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void warpforge::populateDebugOpToLLVMPatterns(
    TileGPUToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo) {
  patterns.add<AssertOpConversion, PrintOpConversion>(converter,
                                                      patterns.getContext());
}
