//===- AccelerateMatmul.cpp - tile.dot on Hopper's wgmma ------------------===//
//
// After convert-tile-to-tilegpu a tile.dot takes its operands in dot_op
// layouts of a blocked parent, which nothing lowers.  On Hopper this pass
// chooses the wgmma instruction and the warp split, stages the operands in
// NVMMA swizzled shared memory and emits the asynchronous product and its
// wait (see Passes.td for the rules).  The software pipeliner then turns
// the operand stores of a K loop into multi-buffered cp.async copies and
// keeps one product in flight.  A dot wgmma cannot take (planDot says
// why) runs on FMA instead: rewriteFmaDot puts its operands in the FMA
// layouts of its accumulator, which FmaDotOpToLLVM.cpp lowers.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "WgmmaOperand.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUACCELERATEMATMUL
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// What a dot becomes: the accumulator layout and the operands' shared
/// layouts.
struct DotPlan {
  WgmmaEncodingAttr acc;
  NVMMASharedEncodingAttr aLayout, bLayout;
};

unsigned bitWidth(Type t) { return t.getIntOrFloatBitWidth(); }

/// The register layout an operand arrives in (its fastest dim decides the
/// shared layout's contiguous dim).
Attribute sourceLayout(Value operand) {
  return cast<RankedTensorType>(skipConversions(operand).getType())
      .getEncoding();
}

/// Why wgmma cannot take a dot (the FMA dot's `tilegpu.fma` attribute),
/// written as a diagnostic would be; it converts to failure().
class Reason {
public:
  explicit Reason(std::string &text) : os(text) {}
  template <typename T> Reason &operator<<(const T &value) {
    os << value;
    return *this;
  }
  template <typename T> operator FailureOr<T>() const { return failure(); }

private:
  llvm::raw_string_ostream os;
};

/// The shared layout of an operand: `contiguousDim` of its 2-D tile is the
/// contiguous one; `mnExtent` is how many of its M (or N) elements one
/// instruction reads.
FailureOr<NVMMASharedEncodingAttr>
planOperand(tile::DotOp dot, StringRef name, RankedTensorType type,
            unsigned contiguousDim, bool isKDim, int64_t mnExtent,
            std::string &why) {
  unsigned bits = bitWidth(type.getElementType());
  int64_t rowBytes = type.getDimSize(contiguousDim) * bits / 8;
  int64_t extentBytes = mnExtent * bits / 8;
  int64_t limit = std::min<int64_t>(128, rowBytes);
  if (!isKDim)
    limit = std::min<int64_t>(limit, extentBytes);
  // The widest swizzle within the limit whose rows the contiguous dimension
  // (and, M- or N-major, one instruction's extent) holds whole: for powers
  // of two the limit itself; a dimension that is not one (experimental:
  // 80 columns are 160 bytes) takes 32-byte rows, or none fits.
  int64_t swizzle = 0;
  for (int64_t width : {128, 64, 32})
    if (width <= limit && rowBytes % width == 0 &&
        (isKDim || extentBytes % width == 0)) {
      swizzle = width;
      break;
    }
  if (swizzle == 0 && limit >= 32)
    return Reason(why) << "tl.dot: the " << name << " tile "
           << type.getDimSize(0) << "x" << type.getDimSize(1) << " of "
           << type.getElementType() << " has " << rowBytes
           << " bytes along its contiguous dimension"
           << (isKDim ? std::string()
                      : ", " + std::to_string(extentBytes) +
                            " bytes an instruction")
           << ", which no swizzled row of wgmma (128, 64 or 32 bytes) "
              "divides";
  if (swizzle < 32)
    return Reason(why) << ("tl.dot: the ")
           << name << " tile " << type.getDimSize(0) << "x"
           << type.getDimSize(1) << " of " << type.getElementType()
           << " has " << rowBytes
           << " bytes along its contiguous dimension; wgmma reads shared "
              "memory in rows of at least 32 bytes (for "
           << type.getElementType() << ": a block dimension of at least "
           << 256 / bits << ")";
  return NVMMASharedEncodingAttr::get(dot.getContext(), swizzle,
                                      /*transposed=*/contiguousDim == 0, bits);
}

FailureOr<DotPlan> planDot(tile::DotOp dot, unsigned numWarps,
                           std::string &why) {
  auto aType = cast<RankedTensorType>(dot.getA().getType());
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  auto dType = cast<RankedTensorType>(dot.getType());
  if (dType.getRank() != 2)
    return Reason(why) << ("batched (3-D) products: wgmma multiplies 2-D "
                           "tiles");
  Type ea = aType.getElementType(), eb = bType.getElementType();
  Type ed = dType.getElementType();
  if (ea.isF32() && dot.getInputPrecision() != tile::InputPrecision::TF32)
    return Reason(why) << ("float32 operands with input_precision ieee or "
                           "tf32x3: wgmma multiplies float32 as tf32");
  if (ea.isBF16() && !ed.isF32())
    return Reason(why) << ("tl.dot of bfloat16 operands accumulates in "
                         "float32 on Hopper, not ")
           << ed;
  unsigned instrK = getWgmmaInstrK(ea);
  if (instrK == 0)
    return Reason(why) << ("tl.dot of ")
           << ea << " operands has no wgmma form on Hopper; use float16, "
           << "bfloat16, float8 or float32 (as tf32)";
  int64_t m = dType.getDimSize(0), n = dType.getDimSize(1),
          k = aType.getDimSize(1);
  if (numWarps % 4 != 0)
    return Reason(why) << ("tl.dot on Hopper runs on whole warpgroups: "
                         "num_warps must be a multiple of 4, got ")
           << numWarps;
  // Warpgroups stack along M while the tile has rows for them, then split
  // N.
  unsigned wM = 4, wN = 1;
  // Warpgroups that are not a power of 2 (three consumer warpgroups)
  // all stack along M.
  if (!llvm::isPowerOf2_32(numWarps))
    wM = numWarps;
  while (wM * wN < numWarps) {
    if (m > 16 * wM)
      wM *= 2;
    else
      wN *= 2;
  }
  if (m % (16 * wM) != 0)
    return Reason(why) << ("tl.dot with M = ")
           << m << ": wgmma gives each warpgroup (4 warps) 64 rows, so with "
           << "num_warps = " << numWarps << " M must be a multiple of "
           << 16 * wM
           << (llvm::isPowerOf2_32(numWarps) ? " (use BLOCK_M >= 64)"
                                             : " (each warpgroup's 64 rows)");
  if (n % (8 * wN) != 0)
    return Reason(why) << ("tl.dot with N = ")
           << n << ": the " << wN << " warpgroups along N each need a "
           << "multiple of 8 columns";
  if (k % instrK != 0)
    return Reason(why) << ("tl.dot with K = ")
           << k << ": wgmma multiplies " << ea << " in steps of K = "
           << instrK << ", so K must be a multiple of " << instrK;
  int64_t perWarpN = n / wN;
  int64_t instrN = 8;
  for (int64_t c = 256; c >= 8; c -= 8)
    if (perWarpN % c == 0 && isWgmmaInstrN(ea, c)) {
      instrN = c;
      break;
    }
  MLIRContext *ctx = dot.getContext();
  DotPlan plan;
  plan.acc = WgmmaEncodingAttr::get(
      ctx, {wM, wN}, {64, unsigned(instrN), instrK});
  // 16-bit operands keep the dimension their registers run along
  // contiguous; wgmma reads other widths K-major only.
  auto fastest = [](Value v) {
    Attribute layout = sourceLayout(v);
    return isBlockedLike(layout) ? getOrder(layout)[0] : 1u;
  };
  bool is16 = bitWidth(ea) == 16;
  unsigned aContig = is16 ? fastest(dot.getA()) : 1;
  unsigned bContig = is16 ? fastest(dot.getB()) : 0;
  auto aLayout = planOperand(dot, "A", aType, aContig, aContig == 1, 64, why);
  if (failed(aLayout))
    return failure();
  auto bLayout = planOperand(dot, "B", bType, bContig, bContig == 0, instrN, why);
  if (failed(bLayout))
    return failure();
  plan.aLayout = *aLayout;
  plan.bLayout = *bLayout;
  return plan;
}

/// `v` as a tensor in a blocked(-like) layout: the operand before its
/// conversion to a dot_op layout.
Value blockedOperand(OpBuilder &b, Value v, unsigned numWarps) {
  Value src = skipConversions(v);
  auto type = cast<RankedTensorType>(src.getType());
  if (isBlockedLike(type.getEncoding()))
    return src;
  auto layout = BlockedEncodingAttr::getDefault(
      b.getContext(), type.getShape(), 1, 32, numWarps, {1, 0});
  return ConvertLayoutOp::create(b, v.getLoc(), withEncoding(type, layout),
                                 src);
}

/// `v`, a splat (of a scalar, or a splat constant, behind any conversions),
/// made again in `layout`; null when `v` is not one.
Value splatIn(OpBuilder &b, Value v, Attribute layout) {
  Value root = skipConversions(v);
  auto type = withEncoding(cast<RankedTensorType>(root.getType()), layout);
  if (auto splat = root.getDefiningOp<tile::SplatOp>())
    return tile::SplatOp::create(b, splat.getLoc(), type, splat.getSrc());
  if (auto constant = root.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<SplatElementsAttr>(constant.getValue()))
      return arith::ConstantOp::create(b, constant.getLoc(), type,
                                       dense.reshape(type));
  return nullptr;
}

/// Erases the conversions that fed a rewritten dot's old operands, now
/// unused.
void eraseDeadConversions(ArrayRef<Value> oldOperands) {
  for (Value v : oldOperands)
    if (auto cvt = v.getDefiningOp<ConvertLayoutOp>(); cvt && cvt->use_empty())
      cvt->erase();
}

/// Moves a conversion out of a wgmma layout after the element-wise op it
/// alone feeds, as long as there is one: a cast (the exchange then moves
/// the narrower type) or arithmetic with splats (a scale, a bias by a
/// scalar: `acc * scale`, whose splat is made again in the wgmma layout),
/// so an epilogue computes in the accumulator's registers and converts
/// once, at the end, instead of sending the f32 accumulator through shared
/// memory first.
void sinkConversion(ConvertLayoutOp cvt) {
  while (cvt->hasOneUse()) {
    Operation *user = *cvt->getUsers().begin();
    bool elementwise = isa<arith::TruncFOp, arith::ExtFOp, tile::FpToFpOp>(user) ||
                       (user->hasTrait<OpTrait::Elementwise>() &&
                        isMemoryEffectFree(user));
    if (!elementwise || user->getNumResults() != 1 ||
        user->getNumRegions() != 0 ||
        !isa<RankedTensorType>(user->getResult(0).getType()))
      return;
    Attribute layout = cvt.getSrc().getType().getEncoding();
    // Every other tensor operand must be a splat.
    for (Value operand : user->getOperands())
      if (operand != cvt.getResult() &&
          isa<RankedTensorType>(operand.getType())) {
        Value root = skipConversions(operand);
        auto constant = root.getDefiningOp<arith::ConstantOp>();
        if (!root.getDefiningOp<tile::SplatOp>() &&
            !(constant && isa<SplatElementsAttr>(constant.getValue())))
          return;
      }
    OpBuilder b(user);
    SmallVector<Value> movedOperands;
    for (Value operand : user->getOperands())
      movedOperands.push_back(operand == cvt.getResult() ? cvt.getSrc()
                              : isa<RankedTensorType>(operand.getType())
                                  ? splatIn(b, operand, layout)
                                  : operand);
    Operation *moved = b.clone(*user);
    moved->setOperands(movedOperands);
    auto userType = cast<RankedTensorType>(user->getResult(0).getType());
    moved->getResult(0).setType(withEncoding(userType, layout));
    auto back = ConvertLayoutOp::create(b, user->getLoc(), userType,
                                        moved->getResult(0));
    // The splats the user took (conversions of them are left to the
    // canonicalizer: one may be another conversion the caller holds).
    SetVector<Operation *> splats;
    for (Value operand : user->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && isa<tile::SplatOp, arith::ConstantOp>(def))
        splats.insert(def);
    user->getResult(0).replaceAllUsesWith(back.getResult());
    user->erase();
    cvt->erase();
    for (Operation *splat : splats)
      if (splat->use_empty())
        splat->erase();
    cvt = back;
  }
}

/// A loop carrying the accumulator of `dotOp` (converted into the wgmma
/// layout at the top of the body and back before the yield) carries it in
/// the wgmma layout instead.
void keepAccumulatorInLoop(Value accInput, Value accOutput,
                           ConvertLayoutOp back) {
  auto accIn = accInput.getDefiningOp<ConvertLayoutOp>();
  if (!accIn)
    return;
  auto arg = dyn_cast<BlockArgument>(accIn.getSrc());
  if (!arg || !arg.hasOneUse())
    return;
  auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!loop || arg.getArgNumber() == 0)
    return;
  unsigned idx = arg.getArgNumber() - 1;
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (yield.getOperand(idx) != back.getResult() || !back->hasOneUse())
    return;
  Type wgmmaType = accInput.getType();
  Type oldType = arg.getType();
  OpBuilder b(loop);
  Value init = ConvertLayoutOp::create(b, loop.getLoc(), wgmmaType,
                                       loop.getInitArgs()[idx]);
  loop.getInitArgsMutable()[idx].set(init);
  arg.setType(wgmmaType);
  accIn.getResult().replaceAllUsesWith(arg);
  accIn->erase();
  yield->setOperand(idx, accOutput);
  back->erase();
  Value result = loop.getResult(idx);
  result.setType(wgmmaType);
  b.setInsertionPointAfter(loop);
  auto out = ConvertLayoutOp::create(b, loop.getLoc(), oldType, result);
  result.replaceAllUsesExcept(out.getResult(), out);
}

/// Whether `dot` is already in the form the FMA lowering takes.
bool isFmaDot(tile::DotOp dot) {
  return isFmaDotForm(dot.getA().getType(), dot.getB().getType(),
                      cast<RankedTensorType>(dot.getType()));
}
/// `v` with its elements converted to `to` (the accumulator's element
/// type) where that is wider: the FMA lowering multiplies in the
/// accumulator's type.  Integer operands stay i8 (the lowering
/// sign-extends them).
Value castForFma(OpBuilder &b, Location loc, Value v, Type to) {
  auto type = cast<RankedTensorType>(v.getType());
  Type from = type.getElementType();
  if (from == to || !isa<FloatType>(from))
    return v;
  auto castType = RankedTensorType::get(type.getShape(), to, type.getEncoding());
  if (bitWidth(from) == 8)
    return tile::FpToFpOp::create(b, loc, castType, v, /*rounding=*/nullptr);
  return arith::ExtFOp::create(b, loc, castType, v);
}

/// A dot wgmma cannot take (fp64, float32 with ieee precision, fewer than
/// 4 warps, tiles too small for its instructions, batched, or a target
/// without wgmma) stays a tile.dot computed on the CUDA cores: its
/// operands converted to the FMA layouts of its accumulator's blocked
/// layout (getFmaOperandLayout), where every thread holds the rows of A and
/// columns of B its accumulator elements need, and multiplied element by
/// element in the accumulator's type by the LLVM lowering.
void rewriteFmaDot(tile::DotOp dot, unsigned numWarps, StringRef why) {
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto dType = cast<RankedTensorType>(dot.getType());
  auto acc = dyn_cast<BlockedEncodingAttr>(dType.getEncoding());
  if (!acc) {
    SmallVector<unsigned> order;
    for (unsigned d = dType.getRank(); d-- > 0;)
      order.push_back(d);
    acc = BlockedEncodingAttr::getDefault(dot.getContext(), dType.getShape(),
                                          1, 32, numWarps, order);
  }
  auto accType = withEncoding(dType, acc);
  int64_t k = dot.getA().getType().getShape().back();
  auto operand = [&](Value v, unsigned opIdx) {
    Value src = skipConversions(v);
    auto type = cast<RankedTensorType>(src.getType());
    Value laidOut = ConvertLayoutOp::create(
        b, loc, withEncoding(type, getFmaOperandLayout(acc, opIdx, k)), src);
    return castForFma(b, loc, laidOut, dType.getElementType());
  };
  Value a = operand(dot.getA(), 0), bOp = operand(dot.getB(), 1);
  Value c = ConvertLayoutOp::create(b, loc, accType, dot.getC());
  // fp8 operands arrive in the accumulator's type: exact accumulation.
  auto fma = tile::DotOp::create(b, loc, accType, a, bOp, c,
                                 dot.getInputPrecision(),
                                 /*maxNumImpreciseAcc=*/0);
  // Why, for a reader of the IR.
  fma->setAttr("tilegpu.fma", b.getStringAttr(why));
  auto back = ConvertLayoutOp::create(b, loc, dType, fma.getResult());
  SmallVector<Value> oldOperands{dot.getA(), dot.getB()};
  dot.getResult().replaceAllUsesWith(back.getResult());
  dot->erase();
  eraseDeadConversions(oldOperands);
}

/// The mma.sync accumulator layout of a dot wgmma cannot take, or failure
/// with why mma.sync cannot take it either (appended to `why`).  mma.sync
/// (m16n8k16 for 16-bit operands, k32 for int8, k8 for tf32) runs on
/// single warps, so it takes what wgmma's warpgroups cannot: fewer than 4
/// warps, fewer than 64 rows per warpgroup, narrow N, targets below
/// sm_90.  The warps split the larger share of M and N (see below); warps
/// left over (a 16x8 tile on 4 warps) repeat columns of the tile.
FailureOr<WgmmaEncodingAttr> planMmaSync(tile::DotOp dot, unsigned numWarps,
                                         std::string &why) {
  auto aType = cast<RankedTensorType>(dot.getA().getType());
  auto bType = cast<RankedTensorType>(dot.getB().getType());
  auto dType = cast<RankedTensorType>(dot.getType());
  Type ea = aType.getElementType(), eb = bType.getElementType();
  Type ed = dType.getElementType();
  std::string mine;
  Reason reason(mine);
  auto fail = [&]() -> FailureOr<WgmmaEncodingAttr> {
    why += (why.empty() ? "" : "; mma.sync: ") + mine;
    return failure();
  };
  // A batched product is planned per batch (rewriteBatchedMmaDot).
  unsigned lead = dType.getRank() - 2;
  unsigned instrK = 0;
  if ((ea.isF16() && (ed.isF32() || ed.isF16())) || (ea.isBF16() && ed.isF32()))
    instrK = 16;
  else if (isa<Float8E4M3FNType, Float8E5M2Type>(ea) && isa<Float8E4M3FNType, Float8E5M2Type>(eb) &&
           ed.isF32())
    instrK = 16; // fp8 widened to f16 (exactly), as Triton's mma v2 does
  else if (ea.isInteger(8) && ed.isInteger(32))
    instrK = 32;
  else if (ea.isF32() && ed.isF32() &&
           dot.getInputPrecision() == tile::InputPrecision::TF32)
    instrK = 8;
  if (instrK == 0 || (ea != eb && !isa<Float8E4M3FNType, Float8E5M2Type>(ea))) {
    reason << "no mma.sync form for " << ea << " x " << eb << " -> " << ed;
    return fail();
  }
  // M below 16 and N below 8 wrap: the instruction's rows (columns) beyond
  // the tile repeat it (the layouts reduce coordinates modulo the shape,
  // a power of two), as Triton's mma v2 does; K cannot, so it must hold
  // whole instructions.
  int64_t m = dType.getDimSize(lead), n = dType.getDimSize(lead + 1),
          k = aType.getDimSize(lead + 1);
  if (k < instrK || k % instrK) {
    reason << "a " << m << "x" << n << "x" << k
           << " product has K below or not a multiple of one m16n8k" << instrK
           << " instruction's";
    return fail();
  }
  if (!llvm::isPowerOf2_64(m) || !llvm::isPowerOf2_64(n)) {
    // Experimental block dimensions (multiples of 16).
    reason << "a " << m << "x" << n << "x" << k
           << " product: mma.sync tiles M and N in powers of 2";
    return fail();
  }
  // Warps that are not a power of 2 (three warpgroups) split no power-of-2
  // tile: the FMA form then, on default layouts that repeat the tile.
  if (!llvm::isPowerOf2_32(numWarps)) {
    reason << numWarps << " warps (not a power of 2) split no " << m << "x"
           << n << " tile of m16n8 instructions";
    return fail();
  }
  // As Triton's mma v2 warpsPerTile: compare the shares in units of 16
  // along both dimensions (a square warp tile reads the fewest operand
  // elements per product).
  unsigned wM = 1, wN = 1;
  while (wM * wN < numWarps) {
    if (m / 16 / wM >= n / 16 / wN && wM < m / 16)
      wM *= 2;
    else
      wN *= 2;
  }
  int64_t perWarpN = std::max<int64_t>(8, n / wN);
  unsigned instrN = unsigned(std::min<int64_t>(perWarpN, 256));
  return WgmmaEncodingAttr::get(dot.getContext(), {wM, wN},
                                {16, instrN, instrK});
}

Value sharedBeforeLoops(tile::DotOp dot, Value src, MemDescType memType);

/// The swizzled shared layout an mma.sync operand is staged in: its
/// source's fastest dimension contiguous, rows swizzled at the widest of
/// 128, 64 or 32 bytes they fill (0: unswizzled), so that the 8 rows a
/// warp's fragment load touches fall in distinct banks.
NVMMASharedEncodingAttr mmaStagingLayout(RankedTensorType type,
                                         Attribute sourceLayout) {
  unsigned contig = isBlockedLike(sourceLayout) ? getOrder(sourceLayout)[0] : 1;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  int64_t rowBytes = type.getDimSize(contig) * bits / 8;
  unsigned swizzle = rowBytes >= 128 ? 128 : rowBytes >= 64 ? 64
                     : rowBytes >= 32 ? 32 : 0;
  return NVMMASharedEncodingAttr::get(type.getContext(), swizzle,
                                      /*transposed=*/contig == 0, bits);
}

/// `v` behind its conversions, widened to f16 when it is fp8: fp8 has no
/// mma.sync form on Hopper, and f16 holds every fp8 value exactly, so the
/// products and their f32 sums are the same.
Value widenFp8ForMma(OpBuilder &b, Location loc, Value v) {
  Value src = skipConversions(v);
  auto type = cast<RankedTensorType>(src.getType());
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(type.getElementType()))
    return src;
  auto f16Type = RankedTensorType::get(type.getShape(), b.getF16Type(),
                                       type.getEncoding());
  return tile::FpToFpOp::create(b, loc, f16Type, src, /*rounding=*/nullptr);
}

/// The register-operand width (elements per 32-bit register) of an
/// mma.sync operand of element type `elem` (fp8 is widened to f16).
unsigned mmaKWidth(Type elem) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(elem)
             ? 2
             : 32 / elem.getIntOrFloatBitWidth();
}

/// The blocked layout a batched product's 3-D operand or result goes
/// through shared memory in: its own when it has one, else the default
/// with the batch outermost.
RankedTensorType blocked3DType(RankedTensorType type, unsigned numWarps) {
  if (isBlockedLike(type.getEncoding()))
    return type;
  return withEncoding(type, BlockedEncodingAttr::getDefault(
                                type.getContext(), type.getShape(), 1, 32,
                                numWarps, {2, 1, 0}));
}

/// `v` in blocked3DType's layout.
Value blocked3D(OpBuilder &b, Value v, unsigned numWarps) {
  auto type = cast<RankedTensorType>(v.getType());
  RankedTensorType blocked = blocked3DType(type, numWarps);
  if (blocked == type)
    return v;
  return ConvertLayoutOp::create(b, v.getLoc(), blocked, v);
}

/// Rewrites a batched (3-D) dot onto mma.sync, one batch at a time (where
/// Triton's mma v2 spreads the warps over the batches, every batch here
/// has all the warps, so its product is as wide as a 2-D one): each
/// operand goes to shared memory whole, as one buffer per batch (a multi-buffered
/// memdesc taking the 3-D tensor, its leading dimension walking the
/// buffers), and each batch's product reads its buffers with ldmatrix,
/// multiplies on all the warps (`acc` is the 2-D accumulator layout
/// planMmaSync chose for one batch) and stores its result into the
/// batch's buffer of a result memdesc, read back whole as the 3-D result.
/// A splat accumulator (zeros, usually) is made in registers per batch;
/// any other is read from the result's buffers, which it initializes.
/// The batch loop is unrolled: B is a compile-time tile dimension.
void rewriteBatchedMmaDot(tile::DotOp dot, WgmmaEncodingAttr acc,
                          unsigned numWarps) {
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto dType = cast<RankedTensorType>(dot.getType());
  int64_t batches = dType.getDimSize(0);
  auto perBatch = [](RankedTensorType t) {
    return RankedTensorType::get(t.getShape().drop_front(), t.getElementType());
  };
  unsigned kWidth = mmaKWidth(
      cast<RankedTensorType>(dot.getA().getType()).getElementType());
  auto operandBuffers = [&](Value v) -> Value {
    Value blocked = blocked3D(b, widenFp8ForMma(b, loc, v), numWarps);
    auto type = cast<RankedTensorType>(blocked.getType());
    // The staging layout of one batch: its contiguous dimension is the
    // 3-D layout's fastest one, less the batch.
    unsigned fastest = getOrder(type.getEncoding())[0];
    auto page = perBatch(type);
    auto pageLayout = BlockedEncodingAttr::getDefault(
        b.getContext(), page.getShape(), 1, 32, numWarps,
        fastest == 1 ? SmallVector<unsigned>{0, 1} : SmallVector<unsigned>{1, 0});
    auto memType = MemDescType::get(
        b.getContext(), page.getShape(), page.getElementType(),
        mmaStagingLayout(page, pageLayout), /*isMutable=*/false, batches);
    return LocalAllocOp::create(b, loc, memType, blocked);
  };
  Value aMem = operandBuffers(dot.getA());
  Value bMem = operandBuffers(dot.getB());

  RankedTensorType accPage = withEncoding(perBatch(dType), acc);
  auto resultType = MemDescType::get(
      b.getContext(), accPage.getShape(), dType.getElementType(),
      SharedEncodingAttr::get(b.getContext(), {1, 0}), /*isMutable=*/true,
      batches);
  // A splat accumulator (zeros, usually) is made again per batch.
  Value splatAcc;
  Value cRoot = skipConversions(dot.getC());
  if (auto splat = cRoot.getDefiningOp<tile::SplatOp>())
    splatAcc = tile::SplatOp::create(b, loc, accPage, splat.getSrc());
  else if (auto constant = cRoot.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<SplatElementsAttr>(constant.getValue()))
      splatAcc = arith::ConstantOp::create(
          b, loc, accPage,
          SplatElementsAttr::get(accPage, dense.getSplatValue<Attribute>()));
  Value result =
      splatAcc ? LocalAllocOp::create(b, loc, resultType, Value()).getResult()
               : LocalAllocOp::create(b, loc, resultType,
                                      blocked3D(b, cRoot, numWarps))
                     .getResult();
  auto pageOf = [&](Value mem, Value index) {
    auto type = cast<MemDescType>(mem.getType());
    return MemDescIndexOp::create(b, loc, type.getSingleBuffer(), mem, index)
        .getResult();
  };
  for (int64_t i = 0; i < batches; ++i) {
    Value index = arith::ConstantIntOp::create(b, loc, i, 32);
    auto load = [&](Value mem, unsigned opIdx) -> Value {
      auto page = cast<MemDescType>(mem.getType());
      auto type = RankedTensorType::get(
          page.getShape(), page.getElementType(),
          DotOperandEncodingAttr::get(b.getContext(), opIdx, acc, kWidth));
      return LocalLoadOp::create(b, loc, type, pageOf(mem, index));
    };
    Value a = load(aMem, 0), bOp = load(bMem, 1);
    Value out = pageOf(result, index);
    Value c = splatAcc ? splatAcc
                       : LocalLoadOp::create(b, loc, accPage, out).getResult();
    auto mma = tile::DotOp::create(b, loc, accPage, a, bOp, c,
                                   dot.getInputPrecision(),
                                   dot.getMaxNumImpreciseAcc());
    LocalStoreOp::create(b, loc, mma.getResult(), out);
  }
  Value d = LocalLoadOp::create(
      b, loc, blocked3DType(cast<RankedTensorType>(cRoot.getType()), numWarps),
      result);
  auto back = ConvertLayoutOp::create(b, loc, dType, d);
  SmallVector<Value> oldOperands{dot.getA(), dot.getB(), dot.getC()};
  dot.getResult().replaceAllUsesWith(back.getResult());
  dot->erase();
  eraseDeadConversions(oldOperands);
}

/// Rewrites a dot onto mma.sync: its operands in the dot_op layouts of the
/// `acc` accumulator (kWidth: the elements of one 32-bit register),
/// lowered by MmaDotOpToLLVM.cpp.  An operand held in an accumulator
/// layout (an earlier product's result) converts in registers; any other
/// goes through a swizzled shared buffer (local_alloc, then local_load in
/// the operand layout), which the software pipeliner turns into cp.async
/// rings in a K loop.
void rewriteMmaDot(tile::DotOp dot, WgmmaEncodingAttr acc) {
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto dType = cast<RankedTensorType>(dot.getType());
  auto accType = withEncoding(dType, acc);
  Type aElem = cast<RankedTensorType>(dot.getA().getType()).getElementType();
  // fp8 operands are widened to f16 below.
  unsigned kWidth = mmaKWidth(aElem);
  auto operand = [&](Value v, unsigned opIdx) -> Value {
    Value src = widenFp8ForMma(b, loc, v);
    if (src != skipConversions(v))
      v = src;
    auto type = cast<RankedTensorType>(src.getType());
    auto layout = DotOperandEncodingAttr::get(b.getContext(), opIdx, acc, kWidth);
    if (isWgmmaRooted(type.getEncoding()))
      return ConvertLayoutOp::create(b, loc, withEncoding(type, layout), src);
    Value blocked = blockedOperand(b, v, getWarpCount(acc));
    auto blockedType = cast<RankedTensorType>(blocked.getType());
    auto memType = MemDescType::get(
        b.getContext(), type.getShape(), type.getElementType(),
        mmaStagingLayout(type, blockedType.getEncoding()),
        /*isMutable=*/false, /*numBuffers=*/1);
    Value shared = sharedBeforeLoops(dot, blocked, memType);
    if (!shared)
      shared = LocalAllocOp::create(b, loc, memType, blocked);
    return LocalLoadOp::create(b, loc, withEncoding(type, layout), shared);
  };
  Value a = operand(dot.getA(), 0), bOp = operand(dot.getB(), 1);
  Value c = ConvertLayoutOp::create(b, loc, accType, dot.getC());
  auto mma = tile::DotOp::create(b, loc, accType, a, bOp, c,
                                 dot.getInputPrecision(),
                                 dot.getMaxNumImpreciseAcc());
  auto back = ConvertLayoutOp::create(b, loc, dType, mma.getResult());
  SmallVector<Value> oldOperands{dot.getA(), dot.getB()};
  dot.getResult().replaceAllUsesWith(back.getResult());
  dot->erase();
  eraseDeadConversions(oldOperands);
  keepAccumulatorInLoop(c, mma.getResult(), back);
}

/// A product's operand that its loop does not change (tutorial 06's K and V
/// in the loops of its backward kernel) goes to shared memory once, right
/// after it is computed, and one buffer serves every product of it: written
/// in the loop, it would be stored again at every iteration, and every loop
/// using it would hold a copy of its own (shared memory is allocated in
/// program order; tutorial 06's backward needed 237 KB with a copy of K and
/// of V per loop). The buffer is immutable, so sharing it is safe. Null
/// when `src` changes in the dot's loop or the dot is in no loop.
Value sharedBeforeLoops(tile::DotOp dot, Value src, MemDescType memType) {
  auto loop = dot->getParentOfType<scf::ForOp>();
  if (!loop || loop->isAncestor(src.getParentRegion()->getParentOp()))
    return {};
  Block *home = src.getParentBlock();
  Operation *dotInHome = home->findAncestorOpInBlock(*dot);
  if (!dotInHome)
    return {};
  for (Operation *user : src.getUsers())
    if (auto existing = dyn_cast<LocalAllocOp>(user))
      if (existing.getType() == memType && existing->getBlock() == home &&
          existing->isBeforeInBlock(dotInHome))
        return existing.getResult();
  OpBuilder b(dot->getContext());
  b.setInsertionPointAfterValue(src);
  return LocalAllocOp::create(b, dot.getLoc(), memType, src).getResult();
}

LogicalResult rewriteDot(tile::DotOp dot, unsigned numWarps, bool hasWgmma,
                         bool hasMmaSync) {
  if (isFmaDot(dot) ||
      isMmaDotForm(dot.getA().getType(), dot.getB().getType(),
                   cast<RankedTensorType>(dot.getType())))
    return success();
  std::string why;
  FailureOr<DotPlan> plan =
      hasWgmma ? planDot(dot, numWarps, why) : FailureOr<DotPlan>(failure());
  if (failed(plan)) {
    if (!hasWgmma)
      why = "the target has no wgmma";
    if (hasMmaSync) {
      FailureOr<WgmmaEncodingAttr> mma = planMmaSync(dot, numWarps, why);
      if (succeeded(mma)) {
        if (cast<RankedTensorType>(dot.getType()).getRank() == 3)
          rewriteBatchedMmaDot(dot, *mma, numWarps);
        else
          rewriteMmaDot(dot, *mma);
        return success();
      }
    }
    rewriteFmaDot(dot, numWarps, why);
    return success();
  }
  OpBuilder b(dot);
  Location loc = dot.getLoc();
  auto dType = cast<RankedTensorType>(dot.getType());
  auto accType = withEncoding(dType, plan->acc);

  auto toShared = [&](Value v, NVMMASharedEncodingAttr layout) -> Value {
    Value src = blockedOperand(b, v, numWarps);
    auto type = cast<RankedTensorType>(src.getType());
    auto memType =
        MemDescType::get(b.getContext(), type.getShape(),
                         type.getElementType(), layout, /*isMutable=*/false,
                         /*numBuffers=*/1);
    if (Value shared = sharedBeforeLoops(dot, src, memType))
      return shared;
    return LocalAllocOp::create(b, loc, memType, src);
  };
  Value a = registerOperand(b, dot.getA(), plan->acc);
  if (!a)
    a = toShared(dot.getA(), plan->aLayout);
  Value bMem = toShared(dot.getB(), plan->bLayout);
  Value c = ConvertLayoutOp::create(b, loc, accType, dot.getC());
  auto wgmma = WarpGroupDotOp::create(b, loc, accType, a, bMem, c,
                                      dot.getInputPrecision(),
                                      dot.getMaxNumImpreciseAcc());
  auto wait = WarpGroupDotWaitOp::create(b, loc, TypeRange{accType},
                                         ValueRange{wgmma.getD()}, 0);
  auto back = ConvertLayoutOp::create(b, loc, dType, wait.getResult(0));
  dot.getResult().replaceAllUsesWith(back.getResult());
  SmallVector<Value> oldOperands{dot.getA(), dot.getB()};
  dot->erase();
  // The conversions to the old dot_op layouts are dead now.
  eraseDeadConversions(oldOperands);
  keepAccumulatorInLoop(wgmma.getC(), wait.getResult(0), back);
  return success();
}

struct TileGPUAccelerateMatmul
    : public tilegpu::impl::TileGPUAccelerateMatmulBase<TileGPUAccelerateMatmul> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasCompileOptions(module))
      return;
    // wgmma is Hopper's (sm_90a): other targets' dots run on FMA.
    int cc = parseCudaTarget(getTarget(module)).value_or(0);
    bool wgmma = cc == 90;
    // mma.sync is sm_80's and later.
    bool mmaSync = cc >= 80;
    SmallVector<tile::DotOp> dots;
    module.walk([&](tile::DotOp dot) { dots.push_back(dot); });
    // In program order, so that a dot fed by an earlier one sees that
    // one's accumulator (cast in its wgmma layout) and can take it as a
    // register operand.
    for (tile::DotOp dot : dots) {
      sinkConversionsThroughCasts(module);
      if (failed(rewriteDot(dot, getNumWarps(module), wgmma, mmaSync)))
        return signalPassFailure();
    }
    sinkConversionsThroughCasts(module);
  }

  /// Casts of accumulators, and arithmetic with splats, move before the
  /// conversions back.
  static void sinkConversionsThroughCasts(ModuleOp module) {
    SmallVector<ConvertLayoutOp> conversions;
    module.walk([&](ConvertLayoutOp cvt) {
      if (isa<WgmmaEncodingAttr>(cvt.getSrc().getType().getEncoding()))
        conversions.push_back(cvt);
    });
    for (ConvertLayoutOp cvt : conversions)
      sinkConversion(cvt);
  }
};

} // namespace
