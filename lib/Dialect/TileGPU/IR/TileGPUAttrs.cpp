//===- TileGPUAttrs.cpp - Layout attributes of tilegpu --------------------===//

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

#include "warpforge/Dialect/TileGPU/IR/TileGPUAttrInterfaces.cpp.inc"

/// `[a, b, ...]`, possibly empty: an empty list then reaches the verifier,
/// which says what the list should hold, instead of a parse error.
static ParseResult parseUnsignedList(AsmParser &parser,
                                     SmallVector<unsigned> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    unsigned value;
    if (parser.parseInteger(value))
      return failure();
    values.push_back(value);
    return success();
  });
}

static void printUnsignedList(AsmPrinter &printer, ArrayRef<unsigned> values) {
  printer << "[";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

#define GET_ATTRDEF_CLASSES
#include "warpforge/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"

void TileGPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "warpforge/Dialect/TileGPU/IR/TileGPUAttrs.cpp.inc"
      >();
}

namespace {
unsigned product(ArrayRef<unsigned> values) {
  unsigned p = 1;
  for (unsigned v : values)
    p *= v;
  return p;
}

LogicalResult checkPowersOfTwo(function_ref<InFlightDiagnostic()> emitError,
                               StringRef name, ArrayRef<unsigned> values) {
  for (unsigned v : values)
    if (v == 0 || !llvm::isPowerOf2_32(v))
      return emitError() << name << " entries must be powers of two, got "
                         << v;
  return success();
}

/// Warps per CTA: powers of two, or not (three consumer warpgroups: 12
/// warps, which a dimension may take as 3 x 4).
LogicalResult checkWarps(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<unsigned> values) {
  for (unsigned v : values)
    if (v == 0)
      return emitError() << "warpsPerCTA entries must be positive, got "
                         << v;
  return success();
}

LogicalResult checkPermutation(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<unsigned> order, unsigned rank) {
  if (order.size() != rank)
    return emitError() << "order has " << order.size()
                       << " entries but the layout has rank " << rank;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "order must be a permutation of 0.." << rank - 1;
    seen[d] = true;
  }
  return success();
}

/// A layout of rank `rank` only applies to tensors of that rank.
LogicalResult checkTensorRank(function_ref<InFlightDiagnostic()> emitError,
                              StringRef layout, unsigned rank,
                              ArrayRef<int64_t> shape) {
  if (shape.size() == rank)
    return success();
  return emitError() << "a rank-" << rank << " " << layout
                     << " layout cannot describe a rank-" << shape.size()
                     << " tensor";
}

/// A blocked layout (or a slice of one) covers a tensor in passes of its
/// CTA tile: each dimension must hold whole tiles, or divide the tile,
/// which then repeats it: the lowering reduces coordinates modulo the
/// dimension (a mask for powers of two, a remainder otherwise: 192 rows
/// under the 384-row tile of 12 warps). A dimension that is neither (176
/// under a 32-element tile) would have threads address past the tensor.
/// Every shape the language makes passes; the check guards the others
/// (wgmma's N takes any multiple of 8, three warpgroups make 12 warps).
LogicalResult checkCTATiles(function_ref<InFlightDiagnostic()> emitError,
                            StringRef layout, Attribute encoding,
                            ArrayRef<int64_t> shape) {
  SmallVector<unsigned> removed;
  BlockedEncodingAttr root = getRootBlocked(encoding, &removed);
  if (!root)
    return success();
  SmallVector<int64_t> rootShape = getRootShape(encoding, shape);
  SmallVector<int64_t> tile = getRootCTATile(root);
  for (unsigned d = 0, own = 0; d < rootShape.size(); ++d) {
    if (llvm::is_contained(removed, d))
      continue;
    int64_t size = rootShape[d], t = tile[d];
    unsigned dim = own++;
    if (size <= 0 || size % t == 0 || t % size == 0)
      continue;
    return emitError() << "dimension " << dim << " of the tensor (" << size
                       << ") is neither a multiple of the " << layout
                       << " layout's " << t
                       << "-element CTA tile nor a divisor of it";
  }
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// BlockedEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> sizePerThread,
                            ArrayRef<unsigned> threadsPerWarp,
                            ArrayRef<unsigned> warpsPerCTA,
                            ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (rank == 0)
    return emitError() << "blocked layout must have rank 1 or more";
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp and warpsPerCTA "
                          "must have one entry per dimension (" << rank
                       << ")";
  if (failed(checkPowersOfTwo(emitError, "sizePerThread", sizePerThread)) ||
      failed(checkPowersOfTwo(emitError, "threadsPerWarp", threadsPerWarp)) ||
      failed(checkWarps(emitError, warpsPerCTA)))
    return failure();
  if (product(threadsPerWarp) != 32)
    return emitError() << "threadsPerWarp must multiply to the warp size "
                          "(32), got "
                       << product(threadsPerWarp);
  return checkPermutation(emitError, order, rank);
}

unsigned BlockedEncodingAttr::getRank() const {
  return getSizePerThread().size();
}

LogicalResult BlockedEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(checkTensorRank(emitError, "blocked", getRank(), shape)))
    return failure();
  return checkCTATiles(emitError, "blocked", *this, shape);
}

SmallVector<unsigned> BlockedEncodingAttr::getWarpsPerCTAVector() const {
  return SmallVector<unsigned>(getWarpsPerCTA());
}

/// The default layout's repair for dimensions that are not powers of two
/// (experimental): the lanes and warps that fill the dimensions in order
/// leave whatever is left on the slowest one, whose tile may then neither
/// fill nor divide it (80x80 on 8 warps: 16 lanes and 8 warps on 80 rows, a
/// 128-row tile). Such a dimension hands its excess warps, then lanes, to
/// the dimensions that take them (a power of two: any, as copies; another
/// one: up to the largest power of two dividing it, holding fewer
/// elements a thread to make room), slowest first, and holds fewer
/// elements a thread itself where that is not enough. What cannot be
/// placed stays (no blocked layout holds the shape; the frontend's default
/// then is a slice of a larger one). Powers of two are never touched.
static void fitNonPowerOfTwoDims(ArrayRef<int64_t> shape,
                                 ArrayRef<unsigned> order,
                                 SmallVectorImpl<unsigned> &spt,
                                 SmallVectorImpl<unsigned> &tpw,
                                 SmallVectorImpl<unsigned> &wpc) {
  unsigned rank = shape.size();
  auto pow2 = [&](unsigned d) { return llvm::isPowerOf2_64(shape[d]); };
  auto cap = [&](unsigned d) { return int64_t(shape[d] & -shape[d]); };
  auto tile = [&](unsigned d) { return int64_t(spt[d]) * tpw[d] * wpc[d]; };
  // How many times its lanes and warps dimension e can still be
  // multiplied (a power of two takes any number, as copies).
  auto room = [&](unsigned e) -> int64_t {
    return pow2(e) ? INT64_MAX : cap(e) / tile(e);
  };
  for (unsigned d = 0; d < rank; ++d) {
    if (pow2(d) || shape[d] % tile(d) == 0 || tile(d) % shape[d] == 0)
      continue;
    for (SmallVectorImpl<unsigned> *part : {&wpc, &tpw}) {
      for (int i = rank - 1; i >= 0 && tile(d) > cap(d); --i) {
        unsigned e = order[i];
        if (e == d)
          continue;
        while (tile(d) > cap(d) && (*part)[d] % 2 == 0) {
          // A dimension full of lanes and warps makes room by holding
          // fewer elements a thread (80x80 on 8 warps: 16x16 threads of
          // one element each, rather than copies).
          if (room(e) < 2 && spt[e] > 1)
            spt[e] /= 2;
          if (room(e) < 2)
            break;
          (*part)[d] /= 2;
          (*part)[e] *= 2;
        }
      }
    }
    while (tile(d) > cap(d) && spt[d] > 1)
      spt[d] /= 2;
  }
}

BlockedEncodingAttr BlockedEncodingAttr::getDefault(
    MLIRContext *context, ArrayRef<int64_t> shape, unsigned sizePerThreadLast,
    unsigned threadsPerWarp, unsigned numWarps, ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1);
  // Along order[0], each thread takes up to sizePerThreadLast elements;
  // lanes then warps fill the dimensions from the fastest varying, as far
  // as each dimension has room, and whatever is left wraps on the slowest.
  // Sizes are powers of two (the verifier's rule): round down, so that a
  // thread never holds more than the tensor has along the dimension. A
  // dimension that is not a power of two (experimental) takes only the
  // lanes and warps of the largest power of two dividing it, so that it
  // holds whole CTA tiles (the encoding's verifier); for powers of two
  // that is the dimension itself, as before.
  auto room2 = [](int64_t room) { return uint64_t(room & -room); };
  unsigned fastest = order[0];
  spt[fastest] = llvm::bit_floor(std::max<uint64_t>(
      1, std::min<int64_t>(sizePerThreadLast, room2(shape[fastest]))));
  unsigned lanesLeft = threadsPerWarp;
  for (unsigned i = 0; i < rank && lanesLeft > 1; ++i) {
    unsigned d = order[i];
    int64_t room = std::max<int64_t>(1, shape[d] / spt[d]);
    unsigned take = std::min<int64_t>(lanesLeft, room2(room));
    if (i == rank - 1)
      take = lanesLeft;
    tpw[d] = take;
    lanesLeft /= take;
  }
  // Warps that are not a power of two (three consumer warpgroups, 12
  // warps) are placed as the others while a dimension has room; what is
  // left (the odd factor, and powers of two no dimension had room for)
  // goes to the slowest dimension that then holds whole tiles, else to one
  // whose tile it makes a multiple of the dimension (replicated), else the
  // slowest dimension's tile is stretched by sizePerThread until it is
  // (valid, if heavy: each thread holds more elements, copies among them;
  // in the attention kernels such blocks are TMA's, never in registers).
  if (!llvm::isPowerOf2_32(numWarps)) {
    unsigned left = numWarps;
    for (unsigned i = 0; i < rank; ++i) {
      unsigned d = order[i];
      int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
      unsigned pow2Left = 1u << llvm::countr_zero(left);
      unsigned take = std::min<int64_t>(pow2Left, room2(room));
      wpc[d] = take;
      left /= take;
    }
    if (left > 1) {
      auto tile = [&](unsigned d) {
        return int64_t(spt[d]) * tpw[d] * wpc[d];
      };
      int chosen = -1;
      for (int i = rank - 1; i >= 0 && chosen < 0; --i)
        if (shape[order[i]] % (tile(order[i]) * left) == 0)
          chosen = order[i];
      for (int i = rank - 1; i >= 0 && chosen < 0; --i)
        if ((tile(order[i]) * left) % shape[order[i]] == 0)
          chosen = order[i];
      if (chosen < 0) {
        chosen = order[rank - 1];
        for (int i = 0; i < 16 && (tile(chosen) * left) % shape[chosen]; ++i)
          spt[chosen] *= 2;
      }
      wpc[chosen] *= left;
    }
    fitNonPowerOfTwoDims(shape, order, spt, tpw, wpc);
    return BlockedEncodingAttr::get(context, spt, tpw, wpc, order);
  }
  unsigned warpsLeft = numWarps;
  for (unsigned i = 0; i < rank && warpsLeft > 1; ++i) {
    unsigned d = order[i];
    int64_t room = std::max<int64_t>(1, shape[d] / (spt[d] * tpw[d]));
    unsigned take = std::min<int64_t>(warpsLeft, room2(room));
    if (i == rank - 1)
      take = warpsLeft;
    wpc[d] = take;
    warpsLeft /= take;
  }
  fitNonPowerOfTwoDims(shape, order, spt, tpw, wpc);
  return BlockedEncodingAttr::get(context, spt, tpw, wpc, order);
}

//===----------------------------------------------------------------------===//
// SliceEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned dim, Attribute parent) {
  auto distributed = dyn_cast<DistributedLayoutAttr>(parent);
  if (!distributed)
    return emitError() << "slice parent must be a distributed layout, got "
                       << parent;
  if (distributed.getRank() < 2)
    return emitError() << "slice parent must have rank 2 or more, got rank "
                       << distributed.getRank();
  if (dim >= distributed.getRank())
    return emitError() << "slice dim " << dim << " is out of range for a "
                       << "parent of rank " << distributed.getRank();
  return success();
}

unsigned SliceEncodingAttr::getRank() const {
  return cast<DistributedLayoutAttr>(getParent()).getRank() - 1;
}

LogicalResult SliceEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(checkTensorRank(emitError, "slice", getRank(), shape)))
    return failure();
  return checkCTATiles(emitError, "slice", *this, shape);
}

SmallVector<unsigned> SliceEncodingAttr::getWarpsPerCTAVector() const {
  SmallVector<unsigned> warps =
      cast<DistributedLayoutAttr>(getParent()).getWarpsPerCTAVector();
  warps.erase(warps.begin() + getDim());
  return warps;
}

//===----------------------------------------------------------------------===//
// WgmmaEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
WgmmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> warpsPerCTA,
                          ArrayRef<unsigned> instrShape) {
  if (warpsPerCTA.size() != 2)
    return emitError() << "wgmma layout is 2-D: warpsPerCTA needs 2 entries";
  if (instrShape.size() != 3)
    return emitError() << "instrShape is [M, N, K]: 3 entries";
  if (failed(checkWarps(emitError, warpsPerCTA)))
    return failure();
  if (instrShape[0] == 16) {
    // mma.sync: each warp fills its own 16 rows, so warps split freely.
    unsigned n = instrShape[1], k = instrShape[2];
    if (n < 8 || n > 256 || n % 8 != 0)
      return emitError() << "mma.sync layout: a warp's N must be a multiple "
                            "of 8 from 8 to 256, got "
                         << n;
    if (k != 8 && k != 16 && k != 32)
      return emitError() << "mma.sync K is 8 (tf32), 16 (16-bit) or 32 "
                            "(8-bit), got "
                         << k;
    return success();
  }
  if (product(warpsPerCTA) % 4 != 0)
    return emitError() << "wgmma needs whole warpgroups: warpsPerCTA must "
                          "multiply to a multiple of 4, got "
                       << product(warpsPerCTA);
  if (warpsPerCTA[0] % 4 != 0)
    return emitError() << "warpgroups split along M: warpsPerCTA[0] must be "
                          "a multiple of 4, got "
                       << warpsPerCTA[0];
  unsigned m = instrShape[0], n = instrShape[1], k = instrShape[2];
  if (m != 64)
    return emitError() << "wgmma instructions have M = 64 (16: mma.sync), got "
                       << m;
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitError() << "wgmma N must be a multiple of 8 from 8 to 256, "
                          "got "
                       << n;
  if (k != 8 && k != 16 && k != 32)
    return emitError() << "wgmma K is 8 (tf32), 16 (16-bit) or 32 (8-bit), "
                          "got "
                       << k;
  return success();
}

unsigned WgmmaEncodingAttr::getRank() const { return 2; }

LogicalResult WgmmaEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return checkTensorRank(emitError, "wgmma", getRank(), shape);
}

SmallVector<unsigned> WgmmaEncodingAttr::getWarpsPerCTAVector() const {
  return SmallVector<unsigned>(getWarpsPerCTA());
}

//===----------------------------------------------------------------------===//
// DotOperandEncodingAttr
//===----------------------------------------------------------------------===//

LogicalResult
DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned opIdx, Attribute parent,
                               unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "opIdx is 0 (A) or 1 (B), got " << opIdx;
  if (!isa<DistributedLayoutAttr>(parent))
    return emitError() << "dot operand parent must be a distributed layout, "
                          "got "
                       << parent;
  if (auto wgmma = dyn_cast<WgmmaEncodingAttr>(parent);
      wgmma && opIdx == 1 && !isMmaSync(wgmma))
    return emitError() << "wgmma reads B from shared memory: only operand A "
                          "(opIdx = 0) may have a register layout";
  if (kWidth == 0 || !llvm::isPowerOf2_32(kWidth) || kWidth > 16)
    return emitError() << "kWidth must be a power of two from 1 to 16, got "
                       << kWidth;
  return success();
}

LogicalResult DotOperandEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(checkTensorRank(emitError, "dot_op",
                             cast<DistributedLayoutAttr>(getParent()).getRank(),
                             shape)))
    return failure();
  // An mma.sync operand register holds 32 bits of consecutive K elements.
  auto wgmma = dyn_cast<WgmmaEncodingAttr>(getParent());
  if (isMmaSync(wgmma) && elementType && elementType.isIntOrFloat() &&
      getKWidth() * elementType.getIntOrFloatBitWidth() != 32)
    return emitError() << "mma.sync operand of " << elementType
                       << " holds " << 32 / elementType.getIntOrFloatBitWidth()
                       << " elements per register: kWidth must be "
                       << 32 / elementType.getIntOrFloatBitWidth() << ", got "
                       << getKWidth();
  return success();
}

//===----------------------------------------------------------------------===//
// Shared layouts
//===----------------------------------------------------------------------===//

LogicalResult
SharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<unsigned> order) {
  if (order.empty())
    return emitError() << "shared layout order must not be empty";
  return checkPermutation(emitError, order, order.size());
}

LogicalResult SharedEncodingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  return checkTensorRank(emitError, "shared", getOrder().size(), shape);
}

LogicalResult NVMMASharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned swizzlingByteWidth,
    bool transposed, unsigned elementBitWidth) {
  if (swizzlingByteWidth != 0 && swizzlingByteWidth != 32 &&
      swizzlingByteWidth != 64 && swizzlingByteWidth != 128)
    return emitError() << "swizzlingByteWidth must be 0, 32, 64 or 128, got "
                       << swizzlingByteWidth;
  if (elementBitWidth != 8 && elementBitWidth != 16 && elementBitWidth != 32)
    return emitError() << "elementBitWidth must be 8, 16 or 32, got "
                       << elementBitWidth;
  return success();
}
