//===- ThreadUtility.cpp - Thread ids, element indices, shuffles ----------===//
//
// Which thread is running and which elements of a distributed tensor it
// holds, and how values move between the lanes of a warp.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"

#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace warpforge::tilegpu;

namespace warpforge {

unsigned getNumWarps(Operation *op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op)
                                  : op->getParentOfType<ModuleOp>();
  // convert-tilegpu-to-llvm checks that the attribute is there before any
  // pattern runs.
  assert(hasCompileOptions(module) && "module has no tilegpu.num-warps");
  return tilegpu::getNumWarps(module);
}

WarpGroupContext getWarpGroupContext(OpBuilder &b) {
  Operation *at = b.getInsertionBlock()->getParentOp();
  WarpGroupContext context;
  context.numWarps = getNumWarps(at);
  // The innermost warp_specialize region around the insertion point.
  Region *region = b.getInsertionBlock()->getParent();
  for (; region; region = region->getParentRegion()) {
    auto ws = dyn_cast_or_null<WarpSpecializeOp>(region->getParentOp());
    if (!ws)
      continue;
    if (region == &ws.getDefaultRegion()) {
      context.barrierId = 1;
      return context;
    }
    unsigned first = context.numWarps;
    for (auto [i, partition] : llvm::enumerate(ws.getPartitionRegions())) {
      unsigned warps = ws.getPartitionNumWarps()[i];
      if (&partition == region)
        return WarpGroupContext{first, warps, 2 + unsigned(i)};
      first += warps;
    }
  }
  return context;
}

unsigned getNumThreads(OpBuilder &b) {
  return TargetInfo::kWarpSize * getWarpGroupContext(b).numWarps;
}

Value getThreadId(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  WarpGroupContext context = getWarpGroupContext(b);
  if (context.firstWarp == 0)
    return tid;
  return LLVM::SubOp::create(
      b, loc, tid,
      i32Val(b, loc, context.firstWarp * TargetInfo::kWarpSize));
}

std::pair<Value, Value> getLaneAndWarpId(OpBuilder &b, Location loc) {
  Value tid = getThreadId(b, loc);
  Value lane = LLVM::AndOp::create(b, loc, tid,
                                   i32Val(b, loc, TargetInfo::kWarpSize - 1));
  Value warp = LLVM::LShrOp::create(
      b, loc, tid, i32Val(b, loc, llvm::Log2_32(TargetInfo::kWarpSize)));
  return {lane, warp};
}

SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<unsigned> sizes,
                               ArrayRef<unsigned> order) {
  SmallVector<Value> indices(sizes.size());
  unsigned stride = 1;
  for (unsigned d : order) {
    Value v = linear;
    if (stride != 1)
      v = LLVM::UDivOp::create(b, loc, v, i32Val(b, loc, stride));
    if (sizes[d] == 1)
      v = i32Val(b, loc, 0);
    else
      v = LLVM::URemOp::create(b, loc, v, i32Val(b, loc, sizes[d]));
    indices[d] = v;
    stride *= sizes[d];
  }
  return indices;
}

SmallVector<Value> getThreadBase(OpBuilder &b, Location loc,
                                 Attribute layout) {
  BlockedEncodingAttr root = getRootBlocked(layout);
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  SmallVector<Value> lanes =
      delinearize(b, loc, lane, root.getThreadsPerWarp(), root.getOrder());
  SmallVector<Value> warps =
      delinearize(b, loc, warp, root.getWarpsPerCTA(), root.getOrder());
  SmallVector<Value> base;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    Value w = LLVM::MulOp::create(b, loc, warps[d],
                                  i32Val(b, loc, root.getThreadsPerWarp()[d]));
    Value t = LLVM::AddOp::create(b, loc, w, lanes[d]);
    base.push_back(LLVM::MulOp::create(
        b, loc, t, i32Val(b, loc, root.getSizePerThread()[d])));
  }
  return base;
}

namespace {
/// A thread's base (row, col) in a wgmma-family accumulator or register
/// operand, as getWgmmaThreadBase computes it at compile time:
/// accumulators (warpM*16 + lane/4, warpN*n + 2*(lane%4)), operand A
/// (warpM*16 + lane/4, kWidth*(lane%4)), operand B (kWidth*(lane%4),
/// warpN*n + lane/4).
std::pair<Value, Value> emitWgmmaBase(OpBuilder &b, Location loc,
                                      Attribute layout) {
  WgmmaEncodingAttr wgmma = getWgmmaParent(layout);
  unsigned wM = wgmma.getWarpsPerCTA()[0], wN = wgmma.getWarpsPerCTA()[1];
  unsigned n = wgmma.getInstrShape()[1];
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  auto warpN = [&]() -> Value {
    if (wN == 1)
      return i32Val(b, loc, 0);
    return LLVM::MulOp::create(
        b, loc,
        LLVM::URemOp::create(
            b, loc, LLVM::UDivOp::create(b, loc, warp, i32Val(b, loc, wM)),
            i32Val(b, loc, wN)),
        i32Val(b, loc, n));
  };
  Value quad = LLVM::UDivOp::create(b, loc, lane, i32Val(b, loc, 4));
  Value inQuad = LLVM::URemOp::create(b, loc, lane, i32Val(b, loc, 4));
  auto op = dyn_cast<DotOperandEncodingAttr>(layout);
  unsigned perLane = op ? op.getKWidth() : 2;
  Value spread = LLVM::MulOp::create(b, loc, inQuad, i32Val(b, loc, perLane));
  if (op && op.getOpIdx() == 1)
    return {spread, LLVM::AddOp::create(b, loc, warpN(), quad)};
  Value warpM = LLVM::URemOp::create(b, loc, warp, i32Val(b, loc, wM));
  Value row = LLVM::AddOp::create(
      b, loc, LLVM::MulOp::create(b, loc, warpM, i32Val(b, loc, 16)), quad);
  if (op)
    return {row, spread};
  return {row, wN > 1 ? LLVM::AddOp::create(b, loc, spread, warpN()).getResult()
                      : spread};
}

/// emitIndices for register operands: a base row and column per thread
/// plus compile-time offsets (see LayoutUtils.h), wrapped where the
/// operand is smaller than the warps' extent (mma.sync warps replicated
/// over a small tile; shapes are powers of two, so the modulo is a mask).
SmallVector<SmallVector<Value>> emitOperandIndices(OpBuilder &b, Location loc,
                                                   RankedTensorType type) {
  Attribute layout = type.getEncoding();
  auto [row, col] = emitWgmmaBase(b, loc, layout);
  ArrayRef<int64_t> shape = type.getShape();
  auto wrap = [&](Value v, int64_t size) -> Value {
    return LLVM::AndOp::create(b, loc, v, i32Val(b, loc, size - 1));
  };
  WgmmaEncodingAttr parent = getWgmmaParent(layout);
  unsigned opIdx = cast<DotOperandEncodingAttr>(layout).getOpIdx();
  // The extents one pass of the warps covers along M (A) or N (B).
  int64_t mnExtent =
      opIdx == 0 ? 16 * int64_t(parent.getWarpsPerCTA()[0])
                 : int64_t(parent.getInstrShape()[1]) * parent.getWarpsPerCTA()[1];
  unsigned mnDim = opIdx == 0 ? 0 : 1;
  SmallVector<SmallVector<Value>> indices;
  for (auto [r, c] : getWgmmaElementOffsets(layout, shape)) {
    Value rv = r ? LLVM::AddOp::create(b, loc, row, i32Val(b, loc, r)).getResult()
                 : row;
    Value cv = c ? LLVM::AddOp::create(b, loc, col, i32Val(b, loc, c)).getResult()
                 : col;
    Value &mn = mnDim == 0 ? rv : cv;
    if (shape[mnDim] < mnExtent)
      mn = wrap(mn, shape[mnDim]);
    indices.push_back({rv, cv});
  }
  return indices;
}

/// The coordinates of every element of a `type` tensor, in its own dims:
/// the thread's `base` in the root layout plus each element's offset,
/// wrapped where the root shape is smaller than the CTA `tile` (a tensor
/// smaller than the tile; shapes are powers of two, so the modulo is a
/// mask), with the dims slices removed dropped.
SmallVector<SmallVector<Value>>
emitRootIndices(OpBuilder &b, Location loc, RankedTensorType type,
                ArrayRef<Value> base, ArrayRef<int64_t> tile) {
  Attribute layout = type.getEncoding();
  SmallVector<unsigned> removed;
  getRootLayout(layout, &removed);
  SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
  SmallVector<SmallVector<Value>> indices;
  for (const SmallVector<int64_t> &offset :
       getRootElementOffsets(layout, type.getShape())) {
    SmallVector<Value> coords;
    for (unsigned d = 0; d < base.size(); ++d) {
      if (llvm::is_contained(removed, d))
        continue;
      Value c = offset[d] == 0
                    ? base[d]
                    : LLVM::AddOp::create(b, loc, base[d],
                                          i32Val(b, loc, offset[d]));
      if (rootShape[d] < tile[d])
        c = wrapIndex(b, loc, c, rootShape[d]);
      coords.push_back(c);
    }
    indices.push_back(std::move(coords));
  }
  return indices;
}
} // namespace

SmallVector<SmallVector<Value>> emitIndices(OpBuilder &b, Location loc,
                                            RankedTensorType type) {
  Attribute layout = type.getEncoding();
  if (isa<DotOperandEncodingAttr>(layout))
    return emitOperandIndices(b, loc, type);
  // wgmma accumulators and their slices: the accumulator's base and the
  // offsets of its list over the root shape (deduplicated).
  if (WgmmaEncodingAttr wgmma = getRootWgmma(layout)) {
    auto [row, col] = emitWgmmaBase(b, loc, wgmma);
    int64_t tile[2] = {16 * int64_t(wgmma.getWarpsPerCTA()[0]),
                       int64_t(wgmma.getInstrShape()[1]) *
                           wgmma.getWarpsPerCTA()[1]};
    return emitRootIndices(b, loc, type, {row, col}, tile);
  }
  return emitRootIndices(b, loc, type, getThreadBase(b, loc, layout),
                         getRootCTATile(getRootBlocked(layout)));
}

namespace {
/// Applies `shuffle` to an i32-sized piece of `value`, splitting or
/// extending other widths.
Value shuffleAny(OpBuilder &b, Location loc, Value value,
                 function_ref<Value(Value)> shuffle32) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type)) {
    Value asInt = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), value);
    return LLVM::IntToPtrOp::create(b, loc, type,
                                    shuffleAny(b, loc, asInt, shuffle32));
  }
  unsigned bits = type.getIntOrFloatBitWidth();
  Type i32 = b.getI32Type();
  if (bits == 64) {
    Type i64 = b.getI64Type();
    Value asInt = type.isInteger(64)
                      ? value
                      : LLVM::BitcastOp::create(b, loc, i64, value).getResult();
    Value lo = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value hi = LLVM::TruncOp::create(
        b, loc, i32, LLVM::LShrOp::create(b, loc, asInt, i64Val(b, loc, 32)));
    lo = LLVM::ZExtOp::create(b, loc, i64, shuffle32(lo));
    hi = LLVM::ZExtOp::create(b, loc, i64, shuffle32(hi));
    Value joined = LLVM::OrOp::create(
        b, loc, lo, LLVM::ShlOp::create(b, loc, hi, i64Val(b, loc, 32)));
    return type.isInteger(64)
               ? joined
               : LLVM::BitcastOp::create(b, loc, type, joined).getResult();
  }
  if (bits == 32) {
    Value asInt = type.isInteger(32)
                      ? value
                      : LLVM::BitcastOp::create(b, loc, i32, value).getResult();
    Value r = shuffle32(asInt);
    return type.isInteger(32) ? r
                              : LLVM::BitcastOp::create(b, loc, type, r)
                                    .getResult();
  }
  // Narrower: through an integer of the same width, zero-extended.
  Type narrow = b.getIntegerType(bits);
  Value asInt = type.isInteger(bits)
                    ? value
                    : LLVM::BitcastOp::create(b, loc, narrow, value).getResult();
  Value r = LLVM::TruncOp::create(
      b, loc, narrow,
      shuffle32(LLVM::ZExtOp::create(b, loc, i32, asInt).getResult()));
  return type.isInteger(bits) ? r
                              : LLVM::BitcastOp::create(b, loc, type, r)
                                    .getResult();
}
} // namespace

Value shuffleXor(OpBuilder &b, Location loc, Value value, unsigned laneMask) {
  return shuffleAny(b, loc, value, [&](Value v) -> Value {
    return NVVM::ShflOp::create(
        b, loc, v.getType(), i32Val(b, loc, -1), v, i32Val(b, loc, laneMask),
        i32Val(b, loc, TargetInfo::kWarpSize - 1), NVVM::ShflKind::bfly,
        UnitAttr());
  });
}

Value shuffleIdx(OpBuilder &b, Location loc, Value value, Value srcLane) {
  return shuffleAny(b, loc, value, [&](Value v) -> Value {
    return NVVM::ShflOp::create(
        b, loc, v.getType(), i32Val(b, loc, -1), v, srcLane,
        i32Val(b, loc, TargetInfo::kWarpSize - 1), NVVM::ShflKind::idx,
        UnitAttr());
  });
}

Value getUniformWarpId(OpBuilder &b, Location loc) {
  return shuffleIdx(b, loc, getLaneAndWarpId(b, loc).second,
                    i32Val(b, loc, 0));
}

Value linearize(OpBuilder &b, Location loc, ArrayRef<Value> coords,
                ArrayRef<int64_t> shape) {
  Value linear;
  int64_t stride = 1;
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      Value term = stride == 1 ? coords[d]
                               : LLVM::MulOp::create(b, loc, coords[d],
                                                     i32Val(b, loc, stride))
                                     .getResult();
      linear = linear ? LLVM::AddOp::create(b, loc, linear, term).getResult()
                      : term;
    }
    stride *= shape[d];
  }
  return linear ? linear : i32Val(b, loc, 0);
}

namespace {
/// getAxisDistribution of a wgmma accumulator (or slice of one) along its
/// root dimension d: rows are lane / 4 (lane stride 4, 8 lanes) and warp
/// % wM (warp stride 1), with two rows 8 apart in each thread; columns are
/// 2 * (lane % 4) (lane stride 1, 4 lanes, pairs in each thread) and warp
/// / wM.
AxisDistribution getWgmmaAxisDistribution(WgmmaEncodingAttr wgmma,
                                          unsigned d, int64_t size) {
  unsigned wM = wgmma.getWarpsPerCTA()[0], wN = wgmma.getWarpsPerCTA()[1];
  AxisDistribution dist;
  dist.rootDim = d;
  // Per warp, the extent along d one lane position covers (its elements
  // within one instruction) and the instruction's extent.
  int64_t perLane = d == 0 ? 1 : 2;
  int64_t warpExtent = d == 0 ? 16 : wgmma.getInstrShape()[1];
  dist.lanes = d == 0 ? 8 : 4;
  dist.laneStride = d == 0 ? 4 : 1;
  dist.warps = d == 0 ? wM : wN;
  dist.warpStride = d == 0 ? 1 : wM;
  dist.elemsPerRep = perLane;
  dist.reps = std::max<int64_t>(1, size / (warpExtent * dist.warps));
  // Lanes holding distinct elements: lane positions 1 apart are perLane
  // elements apart, and all of them fit in the tensor's extent.
  dist.distinctLanes = std::max<int64_t>(
      1, std::min<int64_t>(dist.lanes, size / perLane));
  dist.distinctWarps = std::max<int64_t>(
      1, std::min<int64_t>(dist.warps, size / warpExtent));
  return dist;
}
} // namespace

AxisDistribution getAxisDistribution(RankedTensorType type, unsigned axis) {
  Attribute layout = type.getEncoding();
  if (WgmmaEncodingAttr wgmma = getRootWgmma(layout)) {
    SmallVector<unsigned> removed;
    getRootLayout(layout, &removed);
    SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
    unsigned kept = 0;
    for (unsigned d = 0; d < 2; ++d) {
      if (llvm::is_contained(removed, d))
        continue;
      if (kept++ == axis)
        return getWgmmaAxisDistribution(wgmma, d, rootShape[d]);
    }
  }
  SmallVector<unsigned> removed;
  BlockedEncodingAttr root = getRootBlocked(layout, &removed);
  SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
  AxisDistribution dist;
  // The axis-th dimension the slices kept.
  unsigned kept = 0;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    if (llvm::is_contained(removed, d))
      continue;
    if (kept++ == axis) {
      dist.rootDim = d;
      break;
    }
  }
  unsigned d = dist.rootDim;
  int64_t size = rootShape[d];
  unsigned spt = root.getSizePerThread()[d];
  dist.lanes = root.getThreadsPerWarp()[d];
  dist.warps = root.getWarpsPerCTA()[d];
  int64_t tile = int64_t(spt) * dist.lanes * dist.warps;
  dist.elemsPerRep = std::min<int64_t>(spt, size);
  dist.reps = std::max<int64_t>(1, size / tile);
  // Thread positions along the axis holding distinct elements.
  int64_t positions = size >= tile ? int64_t(dist.lanes) * dist.warps
                                   : std::max<int64_t>(1, size / spt);
  dist.distinctLanes = std::min<int64_t>(dist.lanes, positions);
  dist.distinctWarps = std::max<int64_t>(1, positions / dist.lanes);
  for (unsigned o : root.getOrder()) {
    if (o == d)
      break;
    dist.laneStride *= root.getThreadsPerWarp()[o];
    dist.warpStride *= root.getWarpsPerCTA()[o];
  }
  return dist;
}

Value wrapIndex(OpBuilder &b, Location loc, Value v, int64_t n) {
  if (llvm::isPowerOf2_64(uint64_t(n)))
    return LLVM::AndOp::create(b, loc, v, i32Val(b, loc, n - 1));
  return LLVM::URemOp::create(b, loc, v, i32Val(b, loc, n));
}

std::pair<Value, Value> getLaneAndWarpAlongAxis(OpBuilder &b, Location loc,
                                                const AxisDistribution &axis) {
  auto [lane, warp] = getLaneAndWarpId(b, loc);
  auto along = [&](Value id, unsigned stride, unsigned count) -> Value {
    if (count == 1)
      return i32Val(b, loc, 0);
    // Warps need not be a power of 2 (three consumer warpgroups).
    if (stride != 1)
      id = llvm::isPowerOf2_32(stride)
               ? LLVM::LShrOp::create(b, loc, id,
                                      i32Val(b, loc, llvm::Log2_32(stride)))
                     .getResult()
               : LLVM::UDivOp::create(b, loc, id, i32Val(b, loc, stride))
                     .getResult();
    return wrapIndex(b, loc, id, count);
  };
  return {along(lane, axis.laneStride, axis.lanes),
          along(warp, axis.warpStride, axis.warps)};
}

} // namespace warpforge
