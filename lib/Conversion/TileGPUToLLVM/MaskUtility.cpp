//===- MaskUtility.cpp - Masks and predicates -----------------------------===//
//
// The predicates of masked accesses: which threads own an element, and
// which elements of a thread share one mask value.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Conversion/TileGPUToLLVM/MaskUtility.h"

#include "warpforge/Conversion/TileGPUToLLVM/ThreadUtility.h"
#include "warpforge/Conversion/TileGPUToLLVM/Utility.h"

#include "llvm/ADT/Sequence.h"

#include <map>

using namespace mlir;
using namespace warpforge::tilegpu;

namespace warpforge {

Value emitOwnerPredicate(OpBuilder &b, Location loc, RankedTensorType type) {
  Attribute layout = type.getEncoding();
  // wgmma tiles are never larger than the tensor (the verifiers see to it).
  // Slices of one hold copies of an element in several lanes of a warp;
  // the users (stores, exchanges) write identical values from each.
  if (isWgmmaRooted(layout))
    return nullptr;
  BlockedEncodingAttr root = getRootBlocked(layout);
  SmallVector<int64_t> rootShape = getRootShape(layout, type.getShape());
  SmallVector<int64_t> tile = getRootCTATile(root);
  SmallVector<Value> base;
  Value pred;
  for (unsigned d = 0; d < root.getRank(); ++d) {
    if (rootShape[d] >= tile[d])
      continue;
    if (base.empty())
      base = getThreadBase(b, loc, layout);
    Value owner = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult,
                                       base[d], i32Val(b, loc, rootShape[d]));
    pred = pred ? LLVM::AndOp::create(b, loc, pred, owner) : owner;
  }
  return pred;
}

/// list whose mask is equal to its own in every one of the CTA's
/// `numThreads` threads, as `constancy` proves.
static SmallVector<unsigned>
getMaskRepresentatives(RankedTensorType type, ArrayRef<int64_t> constancy,
                       unsigned numThreads) {
  unsigned count = getTotalElemsPerThread(type);
  SmallVector<unsigned> reps = llvm::to_vector(llvm::seq<unsigned>(0, count));
  if (llvm::all_of(constancy, [](int64_t c) { return c <= 1; }))
    return reps;
  // An element's signature: the run of equal mask values it falls in, in
  // every thread.  Elements with the same signature have the same mask.
  SmallVector<SmallVector<int64_t>> signature(count);
  for (const auto &coords :
       getCTAElementCoords(type.getEncoding(), type.getShape(), numThreads))
    for (unsigned e = 0; e < count; ++e)
      for (auto [c, run] : llvm::zip(coords[e], constancy))
        signature[e].push_back(c / std::max<int64_t>(1, run));
  std::map<SmallVector<int64_t>, unsigned> first;
  for (unsigned e = 0; e < count; ++e)
    reps[e] = first.try_emplace(signature[e], e).first->second;
  return reps;
}

SmallVector<Value> unpackMaskElements(OpBuilder &b, Location loc,
                                      Value llMask, RankedTensorType type,
                                      ArrayRef<int64_t> constancy) {
  if (!llMask)
    return {};
  SmallVector<Value> masks = unpackLLElements(loc, llMask, b);
  SmallVector<unsigned> reps =
      getMaskRepresentatives(type, constancy, getNumThreads(b));
  SmallVector<Value> shared;
  for (unsigned rep : reps)
    shared.push_back(masks[rep]);
  return shared;
}

} // namespace warpforge
