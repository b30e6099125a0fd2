//===- TileGPUOps.cpp - Operations of the tilegpu dialect -----------------===//

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

#define GET_OP_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUOps.cpp.inc"

namespace {
/// Checks that `tensor` matches the shape and element type of one buffer of
/// `memdesc`, and that it has a distributed layout.
LogicalResult checkTensorMatchesBuffer(Operation *op, RankedTensorType tensor,
                                       MemDescType memdesc) {
  if (tensor.getShape() != memdesc.getShape() ||
      tensor.getElementType() != memdesc.getElementType())
    return op->emitOpError("tensor ")
           << tensor << " does not match the shape and element type of "
           << memdesc;
  // Register operands of products (dot_op layouts) are distributed too:
  // local_load reads mma.sync operands straight into them.
  Attribute layout = tensor.getEncoding();
  if (!isa_and_nonnull<DistributedLayoutAttr>(layout) &&
      !(isa<LocalLoadOp>(op) && isa_and_nonnull<DotOperandEncodingAttr>(layout)))
    return op->emitOpError("tensor must have a distributed layout, got ")
           << tensor;
  return success();
}

/// A tensor read from or written to `memdesc` whole: one buffer's shape,
/// or, for a memdesc of N buffers, N of them along a leading dimension (a
/// batched product's operands, one 2-D buffer per batch).
LogicalResult checkTensorMatchesBuffers(Operation *op, RankedTensorType tensor,
                                        MemDescType memdesc, StringRef what) {
  int64_t n = memdesc.getNumBuffers();
  bool walksBuffers = tensor.getRank() == int64_t(memdesc.getShape().size()) + 1 &&
                      tensor.getDimSize(0) == n;
  if (n == 1 && !walksBuffers)
    return checkTensorMatchesBuffer(op, tensor, memdesc);
  if (walksBuffers)
    return checkTensorMatchesBuffer(
        op,
        RankedTensorType::get(tensor.getShape().drop_front(),
                              tensor.getElementType(), tensor.getEncoding()),
        memdesc);
  return op->emitOpError()
         << what << " has " << n << " buffers: select one with "
         << "tilegpu.memdesc_index, or give a tensor whose leading dimension "
         << "of " << n << " walks them, got " << tensor;
}

LogicalResult checkSingleBuffer(Operation *op, MemDescType memdesc,
                                StringRef what) {
  if (memdesc.getNumBuffers() != 1)
    return op->emitOpError() << what << " must be a single buffer (select one "
                                        "of the "
                             << memdesc.getNumBuffers()
                             << " with tilegpu.memdesc_index)";
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// ConvertLayoutOp
//===----------------------------------------------------------------------===//

LogicalResult ConvertLayoutOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getResult().getType();
  if (!isa_and_nonnull<DistributedLayoutAttr, DotOperandEncodingAttr>(
          srcType.getEncoding()) ||
      !isa_and_nonnull<DistributedLayoutAttr, DotOperandEncodingAttr>(
          resultType.getEncoding()))
    return emitOpError("converts between distributed layouts; both types "
                       "need one, got ")
           << srcType << " and " << resultType;
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  // A constant splat has no layout to move: it is the same splat in the
  // new layout.
  if (auto splat = dyn_cast_or_null<SplatElementsAttr>(adaptor.getSrc()))
    return SplatElementsAttr::get(getResult().getType(),
                                  splat.getSplatValue<Attribute>());
  return {};
}

namespace {
/// convert(convert(x)) is one conversion from x.
struct FoldConvertOfConvert : public OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(),
                                                 inner.getSrc());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldConvertOfConvert>(context);
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

LogicalResult LocalAllocOp::verify() {
  MemDescType type = getResult().getType();
  if (!getSrc()) {
    if (!type.getIsMutable())
      return emitOpError("an allocation without an initial value must be "
                         "mutable");
    return success();
  }
  return checkTensorMatchesBuffers(*this, getSrc().getType(), type,
                                   "an initialized allocation");
}

LogicalResult LocalLoadOp::verify() {
  MemDescType type = getSrc().getType();
  return checkTensorMatchesBuffers(*this, getResult().getType(), type,
                                   "the source");
}

LogicalResult LocalStoreOp::verify() {
  MemDescType type = getDst().getType();
  if (!type.getIsMutable())
    return emitOpError("destination must be mutable");
  return checkTensorMatchesBuffers(*this, getSrc().getType(), type,
                                   "the destination");
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType src = getSrc().getType();
  if (getResult().getType() != src.getSingleBuffer())
    return emitOpError("result must be one buffer of the source, ")
           << src.getSingleBuffer() << ", got " << getResult().getType();
  return success();
}

LogicalResult MemDescSubsliceOp::verify() {
  MemDescType src = getSrc().getType();
  MemDescType result = getResult().getType();
  if (failed(checkSingleBuffer(*this, src, "the source")))
    return failure();
  ArrayRef<int64_t> offsets = getOffsets();
  if (result.getElementType() != src.getElementType() ||
      result.getEncoding() != src.getEncoding() ||
      result.getIsMutable() != src.getIsMutable() ||
      result.getNumBuffers() != 1)
    return emitOpError("result must keep the source's element type, layout "
                       "and mutability");
  if (offsets.size() != src.getShape().size() ||
      result.getShape().size() != src.getShape().size())
    return emitOpError("needs one offset per dimension and a result of the "
                       "source's rank");
  for (auto [offset, size, full] :
       llvm::zip(offsets, result.getShape(), src.getShape())) {
    if (offset < 0 || offset + size > full)
      return emitOpError("sub-tile [")
             << offset << ", " << offset + size << ") is out of bounds of "
             << full;
    if (offset % size != 0)
      return emitOpError("offset ")
             << offset << " must be a multiple of the sub-tile size " << size;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

/// The source of a cp.async copy into `dst` (one mutable buffer): pointers
/// to its elements in a distributed layout, and the mask and fill value.
static LogicalResult verifyCopySource(Operation *op, RankedTensorType ptrs,
                                      MemDescType dst, Value mask,
                                      Value other) {
  auto ptrType = dyn_cast<tile::PointerType>(ptrs.getElementType());
  if (!ptrType)
    return op->emitOpError("source must be a tensor of pointers, got ")
           << ptrs;
  // Each thread copies the elements the pointers' layout gives it.
  if (!isa_and_nonnull<DistributedLayoutAttr>(ptrs.getEncoding()))
    return op->emitOpError("pointers must have a distributed layout, got ")
           << ptrs;
  if (ptrs.getShape() != dst.getShape() ||
      ptrType.getPointeeType() != dst.getElementType())
    return op->emitOpError("pointers ")
           << ptrs << " do not match the destination " << dst;
  unsigned bits = dst.getElementType().getIntOrFloatBitWidth();
  if (bits < 8)
    return op->emitOpError("cp.async copies whole bytes; ")
           << dst.getElementType() << " elements are narrower";
  if (mask && mask.getType() != tile::getI1SameShape(ptrs))
    return op->emitOpError("mask must be ")
           << tile::getI1SameShape(ptrs) << ", got " << mask.getType();
  if (other && other.getType() != tile::getPointeeType(ptrs))
    return op->emitOpError("'other' must be ")
           << tile::getPointeeType(ptrs) << ", got " << other.getType();
  if (other && !mask)
    return op->emitOpError("'other' needs a mask");
  return success();
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  MemDescType dst = getDst().getType();
  if (!dst.getIsMutable())
    return emitOpError("destination must be mutable");
  if (failed(checkSingleBuffer(*this, dst, "the destination")))
    return failure();
  return verifyCopySource(*this, getPtrs().getType(), dst, getMask(),
                          getOther());
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

static LogicalResult verifyBarrier(Operation *op, MemDescType type) {
  if (type.getShape() != ArrayRef<int64_t>{1} ||
      !type.getElementType().isInteger(64) || !type.getIsMutable() ||
      type.getNumBuffers() != 1)
    return op->emitOpError("barrier must be a mutable, single 1xi64 shared "
                           "buffer, got ")
           << type;
  return success();
}

LogicalResult InitBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult BarrierExpectOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult ArriveBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult AsyncCopyMBarrierArriveOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult WaitBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult InvalBarrierOp::verify() {
  return verifyBarrier(*this, getBarrier().getType());
}

//===----------------------------------------------------------------------===//
// Views and TMA copies
//===----------------------------------------------------------------------===//

LogicalResult MemDescTransOp::verify() {
  MemDescType src = getSrc().getType(), result = getType();
  if (src.getShape().size() != 2)
    return emitOpError("transposes 2-D buffers, got ") << src;
  auto expected = [&]() -> Attribute {
    if (auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(src.getEncoding()))
      return NVMMASharedEncodingAttr::get(
          getContext(), nvmma.getSwizzlingByteWidth(), !nvmma.getTransposed(),
          nvmma.getElementBitWidth());
    if (auto plain = dyn_cast<SharedEncodingAttr>(src.getEncoding()))
      return SharedEncodingAttr::get(getContext(),
                                     {plain.getOrder()[1], plain.getOrder()[0]});
    return {};
  }();
  if (!expected)
    return emitOpError("cannot transpose a buffer in layout ")
           << src.getEncoding();
  SmallVector<int64_t> shape{src.getShape()[1], src.getShape()[0]};
  if (result.getShape() != ArrayRef<int64_t>(shape) ||
      result.getElementType() != src.getElementType() ||
      result.getEncoding() != expected ||
      result.getIsMutable() != src.getIsMutable() ||
      result.getNumBuffers() != src.getNumBuffers())
    return emitOpError("result must be ")
           << MemDescType::get(getContext(), shape, src.getElementType(),
                               expected, src.getIsMutable(),
                               src.getNumBuffers())
           << ", got " << result;
  return success();
}

/// A TMA copy's buffer holds one block of the descriptor in the layout the
/// descriptor's tensor map writes.
static LogicalResult verifyTMABuffer(Operation *op, tile::TensorDescType desc,
                                     size_t numIndices, MemDescType buffer,
                                     bool mustBeMutable) {
  RankedTensorType block = desc.getBlockType();
  if (numIndices != static_cast<size_t>(block.getRank()))
    return op->emitOpError("needs ")
           << block.getRank() << " indices for " << desc << ", got "
           << numIndices;
  if (failed(checkSingleBuffer(op, buffer, "the buffer")))
    return failure();
  if (mustBeMutable && !buffer.getIsMutable())
    return op->emitOpError("the destination buffer must be mutable");
  Attribute layout = getTMASharedEncoding(block);
  if (buffer.getShape() != block.getShape() ||
      buffer.getElementType() != block.getElementType() ||
      buffer.getEncoding() != layout)
    return op->emitOpError("the buffer must hold one block of ")
           << desc << " in the layout " << layout << ", got " << buffer;
  return success();
}

/// A block the CTAs of a cluster copy in `ctas` slices of its rows: 2-D,
/// and each slice whole swizzle atoms (8 rows), so that the slices' images
/// side by side are the whole block's.
static LogicalResult verifyMulticast(Operation *op, tile::TensorDescType desc,
                                     std::optional<uint32_t> multicast) {
  if (!multicast)
    return success();
  ArrayRef<int64_t> shape = desc.getBlockType().getShape();
  if (shape.size() != 2)
    return op->emitOpError("multicasts 2-D blocks, got ") << desc;
  if (shape[0] % (*multicast * 8) != 0)
    return op->emitOpError("multicast = ")
           << *multicast << " divides the block's " << shape[0]
           << " rows into slices that are not multiples of 8 rows";
  return success();
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  if (failed(verifyTMABuffer(*this, getDesc().getType(), getIndices().size(),
                             getResult().getType(), /*mustBeMutable=*/true)) ||
      failed(verifyMulticast(*this, getDesc().getType(), getMulticast())))
    return failure();
  return verifyBarrier(*this, getBarrier().getType());
}

LogicalResult AsyncTMACopyLocalToGlobalOp::verify() {
  return verifyTMABuffer(*this, getDesc().getType(), getIndices().size(),
                         getSrc().getType(), /*mustBeMutable=*/false);
}

//===----------------------------------------------------------------------===//
// WarpGroupDotOp
//===----------------------------------------------------------------------===//

namespace {
bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }
} // namespace

bool warpforge::tilegpu::isWgmmaInstrN(Type t, int64_t n) {
  if (n < 8 || n > 256 || n % 8 != 0)
    return false;
  return !t.isInteger(8) || n <= 24 || n % 16 == 0;
}

unsigned warpforge::tilegpu::getWgmmaInstrK(Type t) {
  if (t.isF16() || t.isBF16())
    return 16;
  if (isFp8(t) || t.isInteger(8))
    return 32;
  if (t.isF32())
    return 8;
  return 0;
}

LogicalResult WarpGroupDotOp::verify() {
  auto dType = getD().getType();
  auto acc = dyn_cast_or_null<WgmmaEncodingAttr>(dType.getEncoding());
  if (!acc)
    return emitOpError("the accumulator needs a #tilegpu.wgmma layout, got ")
           << dType;
  if (isMmaSync(acc))
    return emitOpError("the accumulator's layout is an mma.sync one "
                       "(instrShape M = 16); wgmma needs M = 64, got ")
           << acc;
  auto bType = cast<MemDescType>(getB().getType());
  ArrayRef<int64_t> aShape, bShape = bType.getShape();
  Type aElem, bElem = bType.getElementType();
  if (auto aMem = dyn_cast<MemDescType>(getA().getType())) {
    aShape = aMem.getShape();
    aElem = aMem.getElementType();
    if (aMem.getNumBuffers() != 1)
      return emitOpError("a must be a single buffer");
    if (!isa<NVMMASharedEncodingAttr>(aMem.getEncoding()))
      return emitOpError("a in shared memory needs a #tilegpu.nvmma_shared "
                         "layout, got ")
             << aMem.getEncoding();
  } else {
    auto aTensor = cast<RankedTensorType>(getA().getType());
    aShape = aTensor.getShape();
    aElem = aTensor.getElementType();
    auto op = dyn_cast_or_null<DotOperandEncodingAttr>(aTensor.getEncoding());
    if (!op || op.getOpIdx() != 0 || op.getParent() != acc)
      return emitOpError("a in registers needs the layout "
                         "#tilegpu.dot_op<opIdx = 0, parent = ")
             << acc << ", ...>, got " << aTensor;
    if (aElem.getIntOrFloatBitWidth() != 16)
      return emitOpError("a in registers must be 16-bit (f16 or bf16), got ")
             << aElem;
  }
  if (bType.getNumBuffers() != 1)
    return emitOpError("b must be a single buffer");
  if (!isa<NVMMASharedEncodingAttr>(bType.getEncoding()))
    return emitOpError("b needs a #tilegpu.nvmma_shared layout, got ")
           << bType.getEncoding();
  if (aShape.size() != 2 || bShape.size() != 2 ||
      aShape[1] != bShape[0] || aShape[0] != dType.getDimSize(0) ||
      bShape[1] != dType.getDimSize(1))
    return emitOpError("shapes do not form a product: a is ")
           << aShape.size() << "-D [" << aShape << "], b [" << bShape
           << "], d [" << dType.getShape() << "]";

  // Element types.
  Type dElem = dType.getElementType();
  bool ok = false;
  if (aElem.isF16() && bElem.isF16())
    ok = dElem.isF32() || dElem.isF16();
  else if (aElem.isBF16() && bElem.isBF16())
    ok = dElem.isF32();
  else if (isFp8(aElem) && isFp8(bElem))
    ok = dElem.isF32() || dElem.isF16();
  else if (aElem.isF32() && bElem.isF32())
    ok = dElem.isF32() && getInputPrecision() == tile::InputPrecision::TF32;
  else if (aElem.isInteger(8) && bElem.isInteger(8))
    ok = dElem.isInteger(32); // signed: tl.dot takes int8, not uint8
  if (!ok)
    return emitOpError("wgmma has no form for ")
           << aElem << " x " << bElem << " -> " << dElem
           << "; it takes f16 x f16 -> f32/f16, bf16 x bf16 -> f32, fp8 x "
              "fp8 -> f32/f16, i8 x i8 -> i32 and f32 x f32 -> f32 with "
              "inputPrecision = tf32";

  // Operand layouts in shared memory.
  for (auto [name, value, elem] :
       {std::tuple<StringRef, Value, Type>{"a", getA(), aElem},
        {"b", getB(), bElem}}) {
    auto mem = dyn_cast<MemDescType>(value.getType());
    if (!mem)
      continue;
    auto layout = cast<NVMMASharedEncodingAttr>(mem.getEncoding());
    if (layout.getElementBitWidth() != elem.getIntOrFloatBitWidth())
      return emitOpError() << name << "'s layout is for "
                           << layout.getElementBitWidth()
                           << "-bit elements, not " << elem;
    // A [M, K] is K-major untransposed, B [K, N] transposed.
    bool mnMajor = layout.getTransposed() == (name == "a");
    if (mnMajor && elem.getIntOrFloatBitWidth() != 16)
      return emitOpError() << name << " is MN-major, which wgmma allows only "
                                      "for 16-bit types, not "
                           << elem << "; store it K-major";
    // The lowering's descriptors describe the swizzled layouts.
    unsigned swizzle = layout.getSwizzlingByteWidth();
    if (swizzle == 0)
      return emitOpError() << name << "'s layout is not swizzled; wgmma "
                                      "operands need swizzlingByteWidth = 32, "
                                      "64 or 128";
    // (The memdesc type checks that the contiguous dim is whole swizzle
    // rows.)
  }

  // The instruction shape tiles the product.
  ArrayRef<unsigned> instr = acc.getInstrShape();
  unsigned instrK = getWgmmaInstrK(aElem);
  if (!isWgmmaInstrN(aElem, instr[1]))
    return emitOpError("wgmma has no N = ")
           << instr[1] << " for " << aElem
           << "; integer products take N = 8, 16, 24 or a multiple of 16";
  if (instr[2] != instrK)
    return emitOpError("the instruction K for ")
           << aElem << " is " << instrK << ", but the layout has " << instr[2];
  if (aShape[1] % instrK != 0)
    return emitOpError("K = ") << aShape[1] << " is not a multiple of the "
                               << "instruction's K = " << instrK;
  unsigned warpsM = acc.getWarpsPerCTA()[0], warpsN = acc.getWarpsPerCTA()[1];
  int64_t tileM = 16 * warpsM, tileN = int64_t(instr[1]) * warpsN;
  if (dType.getDimSize(0) % tileM != 0 || dType.getDimSize(1) % tileN != 0)
    return emitOpError("the ")
           << dType.getDimSize(0) << " x " << dType.getDimSize(1)
           << " result is not a whole number of the layout's " << tileM
           << " x " << tileN << " tiles";
  // An N-major B: each instruction's N columns lie in one swizzle row or
  // cover whole ones.
  auto bLayout = cast<NVMMASharedEncodingAttr>(bType.getEncoding());
  if (!bLayout.getTransposed()) {
    int64_t width =
        bLayout.getSwizzlingByteWidth() * 8 / bElem.getIntOrFloatBitWidth();
    if (instr[1] % width != 0 && width % instr[1] != 0)
      return emitOpError("b is N-major with ")
             << width << "-element swizzle rows, which the instruction's N = "
             << instr[1] << " neither divides nor is a multiple of";
  }
  return success();
}

LogicalResult ScheduleAfterOp::verify() {
  for (Value v : getValues()) {
    Type elem = getElementTypeOrSelf(v.getType());
    if (!elem.isIntOrFloat() || elem.getIntOrFloatBitWidth() > 32)
      return emitOpError("takes integers and floats of 32 bits or fewer "
                         "(and tensors of them), not ")
             << v.getType();
  }
  return success();
}

LogicalResult WarpAllOp::verify() {
  Attribute encoding = getCondition().getType().getEncoding();
  if (!encoding || isa<NVMMASharedEncodingAttr, SharedEncodingAttr>(encoding))
    return emitOpError("takes a tensor in registers (a distributed layout), not ")
           << getCondition().getType();
  // Its value differs from warp to warp: only a branch may use it (a value
  // the CTA's scalars are taken to share would be one warp's).
  for (Operation *user : getResult().getUsers())
    if (!isa<RegionBranchOpInterface, BranchOpInterface>(user))
      return emitOpError("is the same within a warp only: its result may "
                         "only decide a branch, not '")
             << user->getName() << "'";
  return success();
}

LogicalResult WarpGroupDotWaitOp::verify() {
  for (Value v : getInputs())
    if (!isa_and_nonnull<WgmmaEncodingAttr, DotOperandEncodingAttr>(
            cast<RankedTensorType>(v.getType()).getEncoding()))
      return emitOpError("waits on wgmma results; ")
             << v.getType() << " is not in a #tilegpu.wgmma layout";
  return success();
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

int32_t WarpSpecializeOp::getTotalPartitionWarps() {
  int32_t total = 0;
  for (int32_t n : getPartitionNumWarps())
    total += n;
  return total;
}

// tilegpu.warp_specialize(%a, %b) attributes {...}
// default {
//   ...
// }
// partition0(%x: T, %y: U) num_warps(4) {
//   ...
// }
ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> captures;
  SMLoc capturesLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(captures, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseKeyword("default"))
    return failure();
  SmallVector<OpAsmParser::Argument> defaultArgs;
  if (parser.parseArgumentList(defaultArgs, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true))
    return failure();
  Region *defaultRegion = result.addRegion();
  if (parser.parseRegion(*defaultRegion, defaultArgs))
    return failure();
  SmallVector<int32_t> numWarps;
  SmallVector<Type> captureTypes;
  for (auto &arg : defaultArgs)
    captureTypes.push_back(arg.type);
  bool typesKnown = true;
  for (unsigned i = 0;; ++i) {
    std::string keyword = "partition" + std::to_string(i);
    if (parser.parseOptionalKeyword(keyword))
      break;
    SmallVector<OpAsmParser::Argument> args;
    if (parser.parseArgumentList(args, OpAsmParser::Delimiter::Paren,
                                 /*allowType=*/true))
      return failure();
    int32_t warps;
    if (parser.parseKeyword("num_warps") || parser.parseLParen() ||
        parser.parseInteger(warps) || parser.parseRParen())
      return failure();
    numWarps.push_back(warps);
    SmallVector<Type> types;
    for (auto &arg : args)
      types.push_back(arg.type);
    if (!typesKnown) {
      captureTypes = types;
      typesKnown = true;
    } else if (types != captureTypes) {
      return parser.emitError(parser.getCurrentLocation(),
                              "every region takes the captures' types");
    }
    Region *region = result.addRegion();
    if (parser.parseRegion(*region, args))
      return failure();
  }
  if (parser.resolveOperands(captures, captureTypes, capturesLoc,
                             result.operands))
    return failure();
  result.addAttribute(getPartitionNumWarpsAttrName(result.name),
                      parser.getBuilder().getDenseI32ArrayAttr(numWarps));
  return success();
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  p << "(" << getExplicitCaptures() << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getPartitionNumWarpsAttrName()});
  p.printNewline();
  auto printArgs = [&](Region &region) {
    p << "(";
    llvm::interleaveComma(region.getArguments(), p, [&](BlockArgument arg) {
      p.printRegionArgument(arg);
    });
    p << ")";
  };
  p << "default";
  printArgs(getDefaultRegion());
  p << " ";
  p.printRegion(getDefaultRegion(), /*printEntryBlockArgs=*/false);
  for (auto [i, region, warps] :
       llvm::enumerate(getPartitionRegions(), getPartitionNumWarps())) {
    p.printNewline();
    p << "partition" << i;
    printArgs(region);
    p << " num_warps(" << warps << ") ";
    p.printRegion(region, /*printEntryBlockArgs=*/false);
  }
}

static bool isValidRegisterCount(int32_t n) {
  return n >= 24 && n <= 256 && n % 8 == 0;
}

LogicalResult WarpSpecializeOp::verify() {
  ArrayRef<int32_t> numWarps = getPartitionNumWarps();
  if (numWarps.size() != getPartitionRegions().size())
    return emitOpError("has ") << getPartitionRegions().size()
                               << " partitions but " << numWarps.size()
                               << " warp counts";
  if (numWarps.empty())
    return emitOpError("needs at least one partition");
  for (int32_t n : numWarps)
    if (n <= 0)
      return emitOpError("a partition needs at least one warp, got ") << n;
  if (std::optional<ArrayRef<int32_t>> regs = getRequestedRegisters()) {
    if (regs->size() != numWarps.size())
      return emitOpError("requests registers for ")
             << regs->size() << " partitions, but it has " << numWarps.size();
    if (!getDefaultRegisters())
      return emitOpError("requests partition registers without "
                         "defaultRegisters: setmaxnreg moves registers "
                         "between all the warpgroups");
    for (auto [n, r] : llvm::zip(numWarps, *regs)) {
      if (n % 4 != 0)
        return emitOpError("setmaxnreg needs whole warpgroups: a partition "
                           "of ")
               << n << " warps cannot request registers";
      if (!isValidRegisterCount(r))
        return emitOpError("register counts must be multiples of 8 from 24 "
                           "to 256, got ")
               << r;
    }
  } else if (getDefaultRegisters()) {
    return emitOpError("has defaultRegisters but no requestedRegisters");
  }
  if (std::optional<int32_t> r = getDefaultRegisters())
    if (!isValidRegisterCount(*r))
      return emitOpError("register counts must be multiples of 8 from 24 "
                         "to 256, got ")
             << *r;
  // setmaxnreg.inc waits for registers other warps gave back: requests
  // beyond what the CTA starts with never complete. It starts with every
  // thread's even share of the SM's 64K in steps of 8 (the kernel's
  // .maxnreg when registers move), which is less than 64K when the
  // threads do not divide it (640 threads: 96 each, 61440).
  auto module = (*this)->getParentOfType<ModuleOp>();
  if (getRequestedRegisters() && module && hasCompileOptions(module)) {
    int64_t threads = int64_t(getNumWarps(module)) * 32;
    int64_t total = threads * *getDefaultRegisters();
    for (auto [n, r] : llvm::zip(numWarps, *getRequestedRegisters())) {
      total += int64_t(n) * 32 * r;
      threads += int64_t(n) * 32;
    }
    int64_t share = std::min<int64_t>(248, 65536 / threads / 8 * 8);
    if (total > threads * share)
      return emitOpError("requests ")
             << total << " registers, more than the " << threads * share
             << " its " << threads << " threads start with (" << share
             << " each): setmaxnreg.inc would wait forever";
  }
  return success();
}

/// Every block of `region` that leaves it ends with a `Terminator`.
template <typename Terminator>
static bool leavesThrough(Region &region) {
  for (Block &block : region) {
    Operation *last = block.empty() ? nullptr : &block.back();
    if (!last || !last->hasTrait<OpTrait::IsTerminator>())
      return false;
    if (last->getNumSuccessors() == 0 && !isa<Terminator>(last))
      return false;
  }
  return true;
}

LogicalResult WarpSpecializeOp::verifyRegions() {
  if (!leavesThrough<WarpYieldOp>(getDefaultRegion()))
    return emitOpError("the default region must end with tilegpu.warp_yield");
  if (getDefaultRegion().front().getArgumentTypes() !=
      getExplicitCaptures().getTypes())
    return emitOpError("the default region must take one argument per "
                       "capture, of its type");
  for (auto [i, region] : llvm::enumerate(getPartitionRegions())) {
    if (!leavesThrough<WarpReturnOp>(region))
      return emitOpError("partition ")
             << i << " must end with tilegpu.warp_return";
    if (region.front().getArgumentTypes() != getExplicitCaptures().getTypes())
      return emitOpError("partition ")
             << i << " must take one argument per capture, of its type";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

/// The hardware's 16 named barriers, of which the CTA's and the enclosing
/// warp_specialize regions' own are taken; whole warps.
static LogicalResult verifyNamedBarrier(Operation *op, int32_t id,
                                        int32_t threads) {
  if (id < 1 || id > 15)
    return op->emitOpError("barrier id must be from 1 to 15 (0 is the "
                           "CTA's tile.barrier), got ")
           << id;
  if (threads <= 0 || threads % 32 != 0 || threads > 1024)
    return op->emitOpError("thread count must be a positive multiple of "
                           "32 up to 1024, got ")
           << threads;
  if (auto ws = op->getParentOfType<WarpSpecializeOp>())
    if (id < ws.getFirstFreeBarrierId())
      return op->emitOpError("barrier id ")
             << id << " is one of the enclosing tilegpu.warp_specialize "
             << "regions' own barriers (0 to "
             << ws.getFirstFreeBarrierId() - 1 << ")";
  return success();
}

LogicalResult NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getBarrierId(), getNumThreads());
}

LogicalResult NamedBarrierWaitOp::verify() {
  return verifyNamedBarrier(*this, getBarrierId(), getNumThreads());
}

/// Turns among the warpgroups of a region: a barrier per group, all free.
static LogicalResult verifyWarpGroupTurn(Operation *op, int32_t first,
                                         int32_t groups,
                                         std::optional<int32_t> only) {
  if (groups < 2)
    return op->emitOpError("turns need at least 2 warpgroups, got ")
           << groups;
  if (only && (*only < 0 || *only >= groups))
    return op->emitOpError("warpgroup ")
           << *only << " is not one of the " << groups;
  if (failed(verifyNamedBarrier(op, first, 256)))
    return failure();
  return verifyNamedBarrier(op, first + groups - 1, 256);
}

LogicalResult WarpGroupTurnWaitOp::verify() {
  return verifyWarpGroupTurn(*this, getFirstBarrierId(), getNumGroups(),
                             getOnlyGroup());
}

LogicalResult WarpGroupTurnPassOp::verify() {
  return verifyWarpGroupTurn(*this, getFirstBarrierId(), getNumGroups(),
                             getOnlyGroup());
}

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

LogicalResult CreateChannelOp::verify() {
  int64_t n = getResult().getType().getNumBuffers();
  if (getBuffers().empty())
    return emitOpError("needs at least one ring buffer");
  for (Value buffer : getBuffers()) {
    auto type = cast<MemDescType>(buffer.getType());
    if (!type.getIsMutable() || type.getNumBuffers() != n)
      return emitOpError("each ring must be mutable with the channel's ")
             << n << " buffers, got " << type;
  }
  return success();
}

/// The channel's rings, when its tilegpu.create_channel is in view (through
/// the captures of the partitions it is passed to).
static std::optional<OperandRange> getChannelRings(Value channel) {
  while (auto arg = dyn_cast<BlockArgument>(channel)) {
    auto ws = dyn_cast_or_null<WarpSpecializeOp>(arg.getOwner()->getParentOp());
    if (!ws || arg.getArgNumber() >= ws.getExplicitCaptures().size())
      return std::nullopt;
    channel = ws.getExplicitCaptures()[arg.getArgNumber()];
  }
  if (auto create = channel.getDefiningOp<CreateChannelOp>())
    return create.getBuffers();
  return std::nullopt;
}

/// The ring number `buffer` of `channel`, when the channel's creation is
/// in view: null (success) when it is not, failure when there is no such
/// ring.
static FailureOr<MemDescType> getChannelRing(Operation *op, Value channel,
                                             uint32_t buffer) {
  std::optional<OperandRange> rings = getChannelRings(channel);
  if (!rings)
    return MemDescType();
  if (buffer >= rings->size())
    return op->emitOpError("buffer ")
           << buffer << " of a channel of " << rings->size() << " rings";
  return cast<MemDescType>((*rings)[buffer].getType());
}

LogicalResult ChannelTMALoadOp::verify() {
  FailureOr<MemDescType> ring = getChannelRing(*this, getChannel(), getBuffer());
  if (failed(ring) || !*ring)
    return ring;
  if (failed(verifyMulticast(*this, getDesc().getType(), getMulticast())))
    return failure();
  return verifyTMABuffer(*this, getDesc().getType(), getIndices().size(),
                         ring->getSingleBuffer(), /*mustBeMutable=*/true);
}

LogicalResult ChannelAsyncCopyOp::verify() {
  FailureOr<MemDescType> ring = getChannelRing(*this, getChannel(), getBuffer());
  if (failed(ring) || !*ring)
    return ring;
  return verifyCopySource(*this, getPtrs().getType(), ring->getSingleBuffer(),
                          getMask(), getOther());
}

LogicalResult ChannelWaitOp::verify() {
  std::optional<OperandRange> rings = getChannelRings(getChannel());
  if (!rings)
    return success();
  if (rings->size() != getBuffers().size())
    return emitOpError("gives one buffer per ring of the channel (")
           << rings->size() << "), got " << getBuffers().size();
  for (auto [ring, slot] : llvm::zip(*rings, getBuffers())) {
    auto expected = cast<MemDescType>(ring.getType()).getSingleBuffer();
    if (slot.getType() != expected)
      return emitOpError("buffer type ")
             << slot.getType() << " is not one slot of the ring, " << expected;
  }
  return success();
}
