//===- LayoutUtils.cpp - Queries on distributed layouts -------------------===//

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

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

BlockedEncodingAttr getRootBlocked(Attribute layout,
                                   SmallVectorImpl<unsigned> *removedDims) {
  SmallVector<unsigned> dims;
  while (auto slice = dyn_cast<SliceEncodingAttr>(layout)) {
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
  return dyn_cast<BlockedEncodingAttr>(layout);
}

SmallVector<int64_t> getRootShape(Attribute layout, ArrayRef<int64_t> shape) {
  SmallVector<unsigned> removed;
  getRootBlocked(layout, &removed);
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

SmallVector<SmallVector<int64_t>>
getThreadElementCoords(Attribute layout, ArrayRef<int64_t> shape,
                       unsigned tid) {
  SmallVector<unsigned> removed;
  BlockedEncodingAttr root = getRootBlocked(layout, &removed);
  SmallVector<int64_t> rootShape = getRootShape(layout, shape);
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
  SmallVector<SmallVector<int64_t>> coords;
  for (const SmallVector<int64_t> &offset :
       getRootElementOffsets(layout, shape)) {
    SmallVector<int64_t> c;
    for (unsigned d = 0; d < rank; ++d)
      if (!llvm::is_contained(removed, d))
        c.push_back((base[d] + offset[d]) % rootShape[d]);
    coords.push_back(std::move(c));
  }
  return coords;
}

RankedTensorType withEncoding(RankedTensorType type, Attribute encoding) {
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               encoding);
}

} // namespace warpforge::tilegpu
