//===- TMAUtility.cpp - Descriptor loads feeding products -----------------===//

#include "TMAUtility.h"

#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

std::optional<TMAOperand>
warpforge::tilegpu::matchTMAOperand(LocalAllocOp alloc, bool sharedLoad) {
  Value src = alloc.getSrc();
  if (!src)
    return std::nullopt;
  // Products read a mutable buffer as they read an immutable one; other
  // readers (sub-slices, loads) keep the allocation's own type.
  for (Operation *user : alloc->getUsers())
    if (!isa<WarpGroupDotOp>(user))
      return std::nullopt;
  TMAOperand result;
  result.alloc = alloc;
  // Walk back through single-use conversions and at most one transpose.
  while (true) {
    Operation *def = src.getDefiningOp();
    if (sharedLoad && def && isa<tile::DescriptorLoadOp>(def)) {
      result.load = cast<tile::DescriptorLoadOp>(def);
      break;
    }
    if (!def || !src.hasOneUse() || def->getBlock() != alloc->getBlock())
      return std::nullopt;
    if (auto load = dyn_cast<tile::DescriptorLoadOp>(def)) {
      result.load = load;
      break;
    }
    if (auto cvt = dyn_cast<ConvertLayoutOp>(def)) {
      result.chain.push_back(def);
      src = cvt.getSrc();
      continue;
    }
    auto trans = dyn_cast<tile::TransOp>(def);
    if (!trans || result.transposed || trans.getType().getRank() != 2)
      return std::nullopt;
    result.transposed = true;
    result.chain.push_back(def);
    src = trans.getSrc();
  }
  RankedTensorType block = result.load.getDesc().getType().getBlockType();
  MemDescType buffer = getTMABufferType(block);
  MemDescType want = alloc.getType();
  Attribute layout = buffer.getEncoding();
  SmallVector<int64_t> shape(block.getShape());
  if (result.transposed) {
    auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(layout);
    if (!nvmma)
      return std::nullopt;
    layout = NVMMASharedEncodingAttr::get(alloc.getContext(),
                                          nvmma.getSwizzlingByteWidth(),
                                          !nvmma.getTransposed(),
                                          nvmma.getElementBitWidth());
    std::swap(shape[0], shape[1]);
  }
  if (want.getEncoding() != layout || want.getShape() != ArrayRef(shape) ||
      want.getElementType() != block.getElementType() ||
      want.getNumBuffers() != 1)
    return std::nullopt;
  return result;
}

int64_t warpforge::tilegpu::getTMABlockBytes(tile::TensorDescType desc) {
  RankedTensorType block = desc.getBlockType();
  return block.getNumElements() *
         std::max<int64_t>(1, block.getElementTypeBitWidth() / 8);
}

MemDescType warpforge::tilegpu::getBarrierType(MLIRContext *context,
                                               int64_t numBuffers) {
  return MemDescType::get(context, {1}, IntegerType::get(context, 64),
                          SharedEncodingAttr::get(context, {0}),
                          /*isMutable=*/true, numBuffers);
}
