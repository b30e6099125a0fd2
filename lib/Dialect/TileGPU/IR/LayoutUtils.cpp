//===- LayoutUtils.cpp - Queries on distributed layouts -------------------===//

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/IR/TMA.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace warpforge::tilegpu;

namespace warpforge::tilegpu {

bool isBlockedLike(Attribute layout) {
  if (isa_and_nonnull<BlockedEncodingAttr>(layout))
    return true;
  if (auto slice = dyn_cast_or_null<SliceEncodingAttr>(layout))
    return isBlockedLike(slice.getParent());
  return false;
}

Attribute getRootLayout(Attribute layout,
                        SmallVectorImpl<unsigned> *removedDims) {
  SmallVector<unsigned> dims;
  while (auto slice = dyn_cast_or_null<SliceEncodingAttr>(layout)) {
    // `slice.getDim()` counts in the parent's dims; the dims removed
    // further down (already in `dims`, in this parent's numbering) shift up.
    for (unsigned &d : dims)
      if (d >= slice.getDim())
        ++d;
    dims.push_back(slice.getDim());
    layout = slice.getParent();
  }
  if (removedDims) {
    llvm::sort(dims);
    removedDims->assign(dims.begin(), dims.end());
  }
  return layout;
}

BlockedEncodingAttr getRootBlocked(Attribute layout,
                                   SmallVectorImpl<unsigned> *removedDims) {
  return dyn_cast_or_null<BlockedEncodingAttr>(
      getRootLayout(layout, removedDims));
}

WgmmaEncodingAttr getRootWgmma(Attribute layout) {
  return dyn_cast_or_null<WgmmaEncodingAttr>(getRootLayout(layout));
}

bool isWgmmaRooted(Attribute layout) {
  return static_cast<bool>(getRootWgmma(layout));
}

bool isRegularDistributed(Attribute layout) {
  return isBlockedLike(layout) || isWgmmaRooted(layout);
}

SmallVector<int64_t> getRootShape(Attribute layout, ArrayRef<int64_t> shape) {
  SmallVector<unsigned> removed;
  getRootLayout(layout, &removed);
  SmallVector<int64_t> root(shape);
  for (unsigned d : removed)
    root.insert(root.begin() + d, 1);
  return root;
}

namespace {
/// Drops the removed dims from a per-root-dimension vector.
SmallVector<unsigned> dropRemoved(Attribute layout, ArrayRef<unsigned> values) {
  SmallVector<unsigned> removed;
  getRootBlocked(layout, &removed);
  SmallVector<unsigned> out;
  for (auto [d, v] : llvm::enumerate(values))
    if (!llvm::is_contained(removed, d))
      out.push_back(v);
  return out;
}
} // namespace

SmallVector<unsigned> getSizePerThread(Attribute layout) {
  return dropRemoved(layout, getRootBlocked(layout).getSizePerThread());
}
SmallVector<unsigned> getThreadsPerWarp(Attribute layout) {
  return dropRemoved(layout, getRootBlocked(layout).getThreadsPerWarp());
}
SmallVector<unsigned> getWarpsPerCTA(Attribute layout) {
  return dropRemoved(layout, getRootBlocked(layout).getWarpsPerCTA());
}

SmallVector<unsigned> getOrder(Attribute layout) {
  SmallVector<unsigned> removed;
  BlockedEncodingAttr root = getRootBlocked(layout, &removed);
  SmallVector<unsigned> order;
  for (unsigned d : root.getOrder()) {
    if (llvm::is_contained(removed, d))
      continue;
    // Renumber: dims after removed ones move down.
    unsigned shift = llvm::count_if(removed, [&](unsigned r) { return r < d; });
    order.push_back(d - shift);
  }
  return order;
}

SmallVector<int64_t> getRootCTATile(BlockedEncodingAttr layout) {
  SmallVector<int64_t> tile;
  for (unsigned d = 0; d < layout.getRank(); ++d)
    tile.push_back(int64_t(layout.getSizePerThread()[d]) *
                   layout.getThreadsPerWarp()[d] * layout.getWarpsPerCTA()[d]);
  return tile;
}

SmallVector<unsigned> getRootElemsPerThread(Attribute layout,
                                            ArrayRef<int64_t> shape) {
  BlockedEncodingAttr root = getRootBlocked(layout);
  SmallVector<int64_t> rootShape = getRootShape(layout, shape);
  SmallVector<int64_t> tile = getRootCTATile(root);
  SmallVector<unsigned> elems;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    int64_t perRep = std::min<int64_t>(root.getSizePerThread()[d], rootShape[d]);
    int64_t reps = std::max<int64_t>(1, (rootShape[d] + tile[d] - 1) / tile[d]);
    elems.push_back(perRep * reps);
  }
  return elems;
}

unsigned getTotalElemsPerThread(Attribute layout, ArrayRef<int64_t> shape) {
  if (isa<DotOperandEncodingAttr>(layout))
    return getWgmmaElementOffsets(layout, shape).size();
  if (isWgmmaRooted(layout))
    return getRootElementOffsets(layout, shape).size();
  unsigned total = 1;
  for (unsigned n : getRootElemsPerThread(layout, shape))
    total *= n;
  return total;
}

unsigned getTotalElemsPerThread(RankedTensorType type) {
  return getTotalElemsPerThread(type.getEncoding(), type.getShape());
}

SmallVector<SmallVector<int64_t>>
getRootElementOffsets(Attribute layout, ArrayRef<int64_t> shape) {
  if (WgmmaEncodingAttr wgmma = getRootWgmma(layout)) {
    // The accumulator's list over the root shape, each offset reduced
    // modulo the root shape and kept once: along a dimension smaller than
    // the CTA tile (a slice's size-1 dim, a narrow tensor) several of the
    // instruction's registers hold the same element.
    SmallVector<int64_t> rootShape = getRootShape(layout, shape);
    SmallVector<SmallVector<int64_t>> offsets;
    llvm::DenseSet<std::pair<int64_t, int64_t>> seen;
    for (auto [r, c] : getWgmmaElementOffsets(wgmma, rootShape)) {
      std::pair<int64_t, int64_t> key{r % rootShape[0], c % rootShape[1]};
      if (seen.insert(key).second)
        offsets.push_back({key.first, key.second});
    }
    return offsets;
  }
  BlockedEncodingAttr root = getRootBlocked(layout);
  SmallVector<int64_t> rootShape = getRootShape(layout, shape);
  SmallVector<int64_t> tile = getRootCTATile(root);
  SmallVector<unsigned> elems = getRootElemsPerThread(layout, shape);
  unsigned rank = root.getRank();
  unsigned total = getTotalElemsPerThread(layout, shape);
  SmallVector<SmallVector<int64_t>> offsets;
  offsets.reserve(total);
  for (unsigned linear = 0; linear < total; ++linear) {
    SmallVector<int64_t> offset(rank, 0);
    unsigned rest = linear;
    for (unsigned d : root.getOrder()) {
      unsigned k = rest % elems[d];
      rest /= elems[d];
      int64_t perRep =
          std::min<int64_t>(root.getSizePerThread()[d], rootShape[d]);
      offset[d] = (k / perRep) * tile[d] + k % perRep;
    }
    offsets.push_back(std::move(offset));
  }
  return offsets;
}

unsigned getContiguousElemsPerThread(Attribute layout,
                                     ArrayRef<int64_t> shape) {
  BlockedEncodingAttr root = getRootBlocked(layout);
  if (!root)
    return 1;
  SmallVector<int64_t> rootShape = getRootShape(layout, shape);
  unsigned d = root.getOrder()[0];
  return std::min<int64_t>(root.getSizePerThread()[d], rootShape[d]);
}

BlockedEncodingAttr permuteBlocked(BlockedEncodingAttr layout,
                                   ArrayRef<int32_t> order) {
  unsigned rank = layout.getRank();
  SmallVector<unsigned> spt, tpw, wpc, newOrder;
  SmallVector<unsigned> position(rank);
  for (auto [i, d] : llvm::enumerate(order)) {
    spt.push_back(layout.getSizePerThread()[d]);
    tpw.push_back(layout.getThreadsPerWarp()[d]);
    wpc.push_back(layout.getWarpsPerCTA()[d]);
    position[d] = i;
  }
  // The fastest source dim is still the fastest; it now has another number.
  for (unsigned d : layout.getOrder())
    newOrder.push_back(position[d]);
  return BlockedEncodingAttr::get(layout.getContext(), spt, tpw, wpc,
                                  newOrder);
}

Attribute getBlockedLikeForWarps(Attribute layout, unsigned numWarps) {
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout)) {
    Attribute parent = getBlockedLikeForWarps(slice.getParent(), numWarps);
    return parent ? SliceEncodingAttr::get(layout.getContext(), slice.getDim(),
                                           parent)
                  : Attribute();
  }
  auto blocked = dyn_cast<BlockedEncodingAttr>(layout);
  if (!blocked || !llvm::isPowerOf2_32(numWarps))
    return {};
  SmallVector<unsigned> wpc(blocked.getWarpsPerCTA());
  unsigned total = 1;
  for (unsigned w : wpc)
    total *= w;
  // Fewer warps: halve the slowest dimension that has more than one, so
  // that a warp's share stays whole rows along the fastest dimension.
  for (auto it = blocked.getOrder().rbegin();
       total > numWarps && it != blocked.getOrder().rend();) {
    if (wpc[*it] > 1) {
      wpc[*it] /= 2;
      total /= 2;
    } else {
      ++it;
    }
  }
  // More warps: they repeat along the slowest dimension.
  if (total < numWarps)
    wpc[blocked.getOrder().back()] *= numWarps / total;
  return BlockedEncodingAttr::get(layout.getContext(),
                                  blocked.getSizePerThread(),
                                  blocked.getThreadsPerWarp(), wpc,
                                  blocked.getOrder());
}

/// The element offsets getThreadElementCoords adds to a thread's base:
/// the same for every thread.
static SmallVector<SmallVector<int64_t>>
getElementOffsets(Attribute layout, ArrayRef<int64_t> shape) {
  if (isa<DotOperandEncodingAttr>(layout)) {
    SmallVector<SmallVector<int64_t>> offsets;
    for (auto [r, c] : getWgmmaElementOffsets(layout, shape))
      offsets.push_back({r, c});
    return offsets;
  }
  return getRootElementOffsets(layout, shape);
}

namespace {
/// What getThreadElementCoords needs of a layout and shape, computed once
/// for all the threads of a CTA (getCTAElementCoords runs for every
/// exchange, stmatrix store and mask in a kernel).
struct ElementPlacement {
  ElementPlacement(Attribute layout, ArrayRef<int64_t> shape)
      : layout(layout), offsets(getElementOffsets(layout, shape)) {
    isOperand = isa<DotOperandEncodingAttr>(layout);
    wgmmaLike = isOperand || isWgmmaRooted(layout);
    if (wgmmaLike) {
      wgmma = isOperand ? getWgmmaParent(layout) : getRootWgmma(layout);
      getRootLayout(layout, &removed);
      rootShape = isOperand ? SmallVector<int64_t>(shape)
                            : getRootShape(layout, shape);
      return;
    }
    root = getRootBlocked(layout, &removed);
    rootShape = getRootShape(layout, shape);
  }

  SmallVector<SmallVector<int64_t>> coords(unsigned tid) const {
    SmallVector<SmallVector<int64_t>> coords;
    coords.reserve(offsets.size());
    if (wgmmaLike) {
      auto [row, col] =
          getWgmmaThreadBase(isOperand ? layout : Attribute(wgmma), tid);
      for (const SmallVector<int64_t> &offset : offsets) {
        int64_t rootCoord[2] = {(row + offset[0]) % rootShape[0],
                                (col + offset[1]) % rootShape[1]};
        SmallVector<int64_t> c;
        for (unsigned d = 0; d < 2; ++d)
          if (!llvm::is_contained(removed, d))
            c.push_back(rootCoord[d]);
        coords.push_back(std::move(c));
      }
      return coords;
    }
    unsigned rank = root.getRank();
    // Split the lane and warp ids along `order`, as the lowering does.
    SmallVector<int64_t> base(rank);
    unsigned lane = tid % 32, warp = tid / 32;
    for (unsigned d : root.getOrder()) {
      unsigned laneD = lane % root.getThreadsPerWarp()[d];
      unsigned warpD = warp % root.getWarpsPerCTA()[d];
      lane /= root.getThreadsPerWarp()[d];
      warp /= root.getWarpsPerCTA()[d];
      base[d] = (int64_t(warpD) * root.getThreadsPerWarp()[d] + laneD) *
                root.getSizePerThread()[d];
    }
    for (const SmallVector<int64_t> &offset : offsets) {
      SmallVector<int64_t> c;
      for (unsigned d = 0; d < rank; ++d)
        if (!llvm::is_contained(removed, d))
          c.push_back((base[d] + offset[d]) % rootShape[d]);
      coords.push_back(std::move(c));
    }
    return coords;
  }

  Attribute layout;
  SmallVector<SmallVector<int64_t>> offsets;
  bool isOperand = false, wgmmaLike = false;
  WgmmaEncodingAttr wgmma;
  BlockedEncodingAttr root;
  SmallVector<unsigned> removed;
  SmallVector<int64_t> rootShape;
};
} // namespace

SmallVector<SmallVector<int64_t>>
getThreadElementCoords(Attribute layout, ArrayRef<int64_t> shape,
                       unsigned tid) {
  return ElementPlacement(layout, shape).coords(tid);
}

SmallVector<SmallVector<SmallVector<int64_t>>>
getCTAElementCoords(Attribute layout, ArrayRef<int64_t> shape,
                    unsigned numThreads) {
  ElementPlacement placement(layout, shape);
  SmallVector<SmallVector<SmallVector<int64_t>>> coords;
  coords.reserve(numThreads);
  for (unsigned tid = 0; tid < numThreads; ++tid)
    coords.push_back(placement.coords(tid));
  return coords;
}

bool isLowerableDistributed(Attribute layout) {
  if (isRegularDistributed(layout))
    return true;
  auto op = dyn_cast_or_null<DotOperandEncodingAttr>(layout);
  auto parent = op ? dyn_cast<WgmmaEncodingAttr>(op.getParent()) : nullptr;
  return parent && (op.getOpIdx() == 0 || isMmaSync(parent));
}

BlockedEncodingAttr getFmaOperandLayout(BlockedEncodingAttr acc,
                                        unsigned opIdx, int64_t k) {
  SmallVector<unsigned> sizePerThread(acc.getSizePerThread());
  unsigned rank = sizePerThread.size();
  sizePerThread[opIdx == 0 ? rank - 1 : rank - 2] = unsigned(k);
  return BlockedEncodingAttr::get(acc.getContext(), sizePerThread,
                                  acc.getThreadsPerWarp(), acc.getWarpsPerCTA(),
                                  acc.getOrder());
}

bool isFmaDotForm(RankedTensorType a, RankedTensorType b,
                  RankedTensorType d) {
  auto acc = dyn_cast<BlockedEncodingAttr>(d.getEncoding());
  int64_t k = a.getShape().back();
  return acc && a.getEncoding() == getFmaOperandLayout(acc, 0, k) &&
         b.getEncoding() == getFmaOperandLayout(acc, 1, k) &&
         (!isa<FloatType>(a.getElementType()) ||
          a.getElementType() == d.getElementType());
}

std::pair<int64_t, int64_t> getWgmmaReps(WgmmaEncodingAttr layout,
                                         ArrayRef<int64_t> shape) {
  int64_t tileM = 16 * layout.getWarpsPerCTA()[0];
  int64_t tileN = int64_t(layout.getInstrShape()[1]) * layout.getWarpsPerCTA()[1];
  return {std::max<int64_t>(1, shape[0] / tileM),
          std::max<int64_t>(1, shape[1] / tileN)};
}

SmallVector<std::pair<int64_t, int64_t>>
getWgmmaElementOffsets(Attribute layout, ArrayRef<int64_t> shape) {
  WgmmaEncodingAttr wgmma = getWgmmaParent(layout);
  int64_t tileM = 16 * wgmma.getWarpsPerCTA()[0];
  int64_t n = wgmma.getInstrShape()[1];
  int64_t tileN = n * wgmma.getWarpsPerCTA()[1];
  SmallVector<std::pair<int64_t, int64_t>> offsets;
  if (auto op = dyn_cast<DotOperandEncodingAttr>(layout)) {
    // One instruction's K step holds 8 * kWidth elements: two halves of
    // 4 * kWidth, kWidth consecutive ones per register (a 32-bit register
    // of 16-bit elements holds 2, of 8-bit ones 4, of tf32 one).
    int64_t kw = op.getKWidth(), kStep = 8 * kw, half = 4 * kw;
    if (op.getOpIdx() == 0) {
      // A [M, K]: per K step the registers a0..a3 are (row, half) = (0,
      // 0), (8, 0), (0, 1), (8, 1).
      int64_t repM = std::max<int64_t>(1, shape[0] / tileM);
      for (int64_t rm = 0; rm < repM; ++rm)
        for (int64_t s = 0; s < shape[1] / kStep; ++s)
          for (int64_t h = 0; h < 2; ++h)
            for (int64_t i = 0; i < 2; ++i)
              for (int64_t e = 0; e < kw; ++e)
                offsets.push_back({rm * tileM + 8 * i, kStep * s + half * h + e});
      return offsets;
    }
    // B [K, N] (mma.sync): per 8 columns and K step the registers b0, b1
    // are the two halves of the step.
    int64_t repN = std::max<int64_t>(1, shape[1] / tileN);
    for (int64_t rn = 0; rn < repN; ++rn)
      for (int64_t j = 0; j < n / 8; ++j)
        for (int64_t s = 0; s < shape[0] / kStep; ++s)
          for (int64_t h = 0; h < 2; ++h)
            for (int64_t e = 0; e < kw; ++e)
              offsets.push_back({kStep * s + half * h + e, rn * tileN + 8 * j});
    return offsets;
  }
  auto [repM, repN] = getWgmmaReps(wgmma, shape);
  for (int64_t rm = 0; rm < repM; ++rm)
    for (int64_t rn = 0; rn < repN; ++rn)
      for (int64_t j = 0; j < n / 8; ++j)
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t e = 0; e < 2; ++e)
            offsets.push_back({rm * tileM + 8 * i, rn * tileN + 8 * j + e});
  return offsets;
}

std::pair<int64_t, int64_t> getWgmmaThreadBase(Attribute layout, unsigned tid) {
  WgmmaEncodingAttr wgmma = getWgmmaParent(layout);
  unsigned lane = tid % 32, warp = tid / 32;
  unsigned wM = wgmma.getWarpsPerCTA()[0], wN = wgmma.getWarpsPerCTA()[1];
  int64_t warpM = warp % wM, warpN = (warp / wM) % wN;
  int64_t n = wgmma.getInstrShape()[1];
  if (auto op = dyn_cast<DotOperandEncodingAttr>(layout)) {
    int64_t k = int64_t(op.getKWidth()) * (lane % 4);
    if (op.getOpIdx() == 0)
      return {warpM * 16 + lane / 4, k};
    return {k, warpN * n + lane / 4};
  }
  return {warpM * 16 + lane / 4, warpN * n + 2 * (lane % 4)};
}

bool isMmaSync(WgmmaEncodingAttr layout) {
  return layout && layout.getInstrShape()[0] == 16;
}

bool isMmaDotForm(RankedTensorType a, RankedTensorType b, RankedTensorType d) {
  auto acc = dyn_cast<WgmmaEncodingAttr>(d.getEncoding());
  auto aOp = dyn_cast<DotOperandEncodingAttr>(a.getEncoding());
  auto bOp = dyn_cast<DotOperandEncodingAttr>(b.getEncoding());
  return isMmaSync(acc) && aOp && bOp && aOp.getOpIdx() == 0 &&
         bOp.getOpIdx() == 1 && aOp.getParent() == acc &&
         bOp.getParent() == acc && aOp.getKWidth() == bOp.getKWidth() &&
         a.getElementType() == b.getElementType();
}

WgmmaEncodingAttr getWgmmaParent(Attribute layout) {
  if (auto op = dyn_cast<DotOperandEncodingAttr>(layout))
    return cast<WgmmaEncodingAttr>(op.getParent());
  return cast<WgmmaEncodingAttr>(layout);
}

unsigned getWarpCount(Attribute layout) {
  SmallVector<unsigned> warps;
  if (isa<DotOperandEncodingAttr>(layout))
    warps.assign(getWgmmaParent(layout).getWarpsPerCTA().begin(),
                 getWgmmaParent(layout).getWarpsPerCTA().end());
  else if (WgmmaEncodingAttr wgmma = getRootWgmma(layout))
    warps.assign(wgmma.getWarpsPerCTA().begin(), wgmma.getWarpsPerCTA().end());
  else
    warps.assign(getRootBlocked(layout).getWarpsPerCTA().begin(),
                 getRootBlocked(layout).getWarpsPerCTA().end());
  unsigned count = 1;
  for (unsigned w : warps)
    count *= w;
  return count;
}

RankedTensorType withEncoding(RankedTensorType type, Attribute encoding) {
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               encoding);
}

//===----------------------------------------------------------------------===//
// The NVMMA shared-memory layout
//===----------------------------------------------------------------------===//

NVMMAGeometry::NVMMAGeometry(ArrayRef<int64_t> shape,
                             NVMMASharedEncodingAttr layout)
    : contigDim(layout.getTransposed() ? 0 : 1), otherDim(1 - contigDim),
      lc(shape[contigDim]), lo(shape[otherDim]),
      eb(layout.getElementBitWidth() / 8),
      swizzle(layout.getSwizzlingByteWidth()) {}

int64_t getNVMMAOffset(ArrayRef<int64_t> coords, ArrayRef<int64_t> shape,
                       NVMMASharedEncodingAttr layout) {
  NVMMAGeometry g(shape, layout);
  int64_t c = coords[g.contigDim], o = coords[g.otherDim];
  if (g.swizzle == 0)
    return (o * g.lc + c) * g.eb;
  int64_t u = getNVMMAUnswizzledOffset(o, c, g.lo, g.swizzle, g.eb);
  return u ^ (((u >> 7) & (g.swizzle / 16 - 1)) << 4);
}

int64_t getNVMMAUnswizzledOffset(int64_t o, int64_t c, int64_t lo,
                                 int64_t swizzleBytes, int64_t elemBytes) {
  int64_t w = swizzleBytes / elemBytes;
  return (c / w) * lo * swizzleBytes + o * swizzleBytes + (c % w) * elemBytes;
}

} // namespace warpforge::tilegpu

Attribute warpforge::tilegpu::getTMASharedEncoding(RankedTensorType blockType) {
  MLIRContext *ctx = blockType.getContext();
  unsigned bits = blockType.getElementType().getIntOrFloatBitWidth();
  tma::Encoding e = tma::encodingFor(
      bits, std::vector<int64_t>(blockType.getShape().begin(),
                                 blockType.getShape().end()));
  if (e.swizzleBytes)
    return NVMMASharedEncodingAttr::get(ctx, e.swizzleBytes,
                                        /*transposed=*/false, bits);
  SmallVector<unsigned> order;
  for (int64_t d = blockType.getRank() - 1; d >= 0; --d)
    order.push_back(d);
  return SharedEncodingAttr::get(ctx, order);
}

MemDescType warpforge::tilegpu::getTMABufferType(RankedTensorType blockType,
                                                 int64_t numBuffers) {
  return MemDescType::get(blockType.getContext(), blockType.getShape(),
                          blockType.getElementType(),
                          getTMASharedEncoding(blockType), /*isMutable=*/true,
                          numBuffers);
}
