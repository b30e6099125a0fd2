//===- WgmmaOperand.cpp - A operands read from registers ------------------===//

#include "WgmmaOperand.h"

#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

Value warpforge::tilegpu::skipConversions(Value v) {
  while (auto cvt = v.getDefiningOp<ConvertLayoutOp>())
    v = cvt.getSrc();
  return v;
}

Value warpforge::tilegpu::registerOperand(OpBuilder &b, Value a,
                                          WgmmaEncodingAttr acc) {
  Value root = skipConversions(a);
  auto type = cast<RankedTensorType>(root.getType());
  auto layout = dyn_cast<WgmmaEncodingAttr>(type.getEncoding());
  if (!layout || type.getElementType().getIntOrFloatBitWidth() != 16 ||
      layout.getWarpsPerCTA() != acc.getWarpsPerCTA())
    return {};
  auto opLayout = DotOperandEncodingAttr::get(b.getContext(), 0, acc, 2);
  return ConvertLayoutOp::create(b, a.getLoc(), withEncoding(type, opLayout),
                                 root);
}
