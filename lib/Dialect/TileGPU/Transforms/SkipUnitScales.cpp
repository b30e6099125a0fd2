//===- SkipUnitScales.cpp - Skip rescales by exactly 1 -------------------===//
//
// See the pass description in Passes.td. Why a warp's vote and not the
// CTA's: the rows of a block are spread over the warps (16 rows a warp in
// a wgmma accumulator), and a warp whose rows all kept their maximum can
// skip its multiplications while the others do theirs, with no
// communication. Why only in loops: the rescale of an epilogue runs once,
// where the vote would cost about as much as it saves.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/LayoutUtils.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUSKIPUNITSCALES
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// The vector `b` broadcasts, if `b` is a `tile.broadcast` of a float
/// tensor with at most 1/8 of `b`'s elements a thread.
Value getScaleVector(Value b) {
  auto broadcast = b.getDefiningOp<tile::BroadcastOp>();
  if (!broadcast)
    return nullptr;
  Value v = broadcast->getOperand(0);
  auto vType = dyn_cast<RankedTensorType>(v.getType());
  auto bType = dyn_cast<RankedTensorType>(b.getType());
  if (!vType || !bType || !vType.getEncoding() || !bType.getEncoding())
    return nullptr;
  if (getTotalElemsPerThread(vType) * 8 > getTotalElemsPerThread(bType))
    return nullptr;
  return v;
}

void skipUnitScale(arith::MulFOp mul, Value x, Value vector) {
  OpBuilder b(mul);
  Location loc = mul.getLoc();
  auto vType = cast<RankedTensorType>(vector.getType());
  auto one = arith::ConstantOp::create(
      b, loc, vType,
      DenseElementsAttr::get(vType,
                             b.getFloatAttr(vType.getElementType(), 1.0)));
  Value ones = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, vector,
                                     one);
  Value all = WarpAllOp::create(b, loc, ones);
  auto branch = scf::IfOp::create(b, loc, mul.getType(), all,
                                  /*withElseRegion=*/true);
  OpBuilder thenB = branch.getThenBodyBuilder();
  scf::YieldOp::create(thenB, loc, x);
  OpBuilder elseB = branch.getElseBodyBuilder();
  Value product = arith::MulFOp::create(elseB, loc, mul.getLhs(), mul.getRhs(),
                                        mul.getFastmathAttr());
  scf::YieldOp::create(elseB, loc, product);
  mul.replaceAllUsesWith(branch.getResult(0));
  mul.erase();
}

struct TileGPUSkipUnitScales
    : public tilegpu::impl::TileGPUSkipUnitScalesBase<TileGPUSkipUnitScales> {
  using TileGPUSkipUnitScalesBase::TileGPUSkipUnitScalesBase;

  void runOnOperation() override {
    SmallVector<std::tuple<arith::MulFOp, Value, Value>> found;
    getOperation().walk([&](arith::MulFOp mul) {
      auto type = dyn_cast<RankedTensorType>(mul.getType());
      if (!type || !type.getEncoding() || !mul->getParentOfType<scf::ForOp>() ||
          int64_t(getTotalElemsPerThread(type)) < minElements)
        return;
      for (auto [x, scale] : {std::pair(mul.getLhs(), mul.getRhs()),
                              std::pair(mul.getRhs(), mul.getLhs())}) {
        if (Value vector = getScaleVector(scale)) {
          found.emplace_back(mul, x, vector);
          return;
        }
      }
    });
    for (auto [mul, x, vector] : found)
      skipUnitScale(mul, x, vector);
  }
};

} // namespace
