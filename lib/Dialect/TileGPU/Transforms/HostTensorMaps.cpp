//===- HostTensorMaps.cpp - Compiler-made tensor maps encoded at launch ---===//
//
// tilegpu-warp-specialize copies a pointer load that is a 2-D block with
// the TMA through a tensor map it makes (`tile.make_tensor_descriptor`
// marked `tilegpu.synthesized-map`).  Made on the device, every program
// writes its own 128-byte map into global scratch, releases it to the
// tensormap proxy and acquires it before its first copy; and each program's
// first copy then misses the TMA unit's descriptor cache, since every map
// has its own address.  For seed 000's kernel at 8192x16384x8192 that is
// 4096 programs, 8192 maps, and a quarter of the time.
//
// When everything the map encodes is the same for every program (the base
// and the row stride are kernel arguments, the dimensions constants), the
// launcher can encode it once per launch, as it does a host
// TensorDescriptor's, and pass it as a `__grid_constant__` parameter.  This
// pass makes that so: the op becomes a new kernel argument of its
// descriptor type (appended after the others, before any global scratch),
// reaching a warp_specialize partition as one more capture, and the
// recipe is recorded on the module (`tilegpu.host-tensor-maps`): for each
// such argument, which argument is the base and, per dimension, which
// argument (or constant) is its size and its stride.
//
// Only maps the compiler made are moved.  A map the source makes
// (`tl.make_tensor_descriptor`) keeps Triton's semantics: its values are
// checked where the kernel makes it, which a launch-time check would make
// an error even in a program that never uses the descriptor.
//
//===----------------------------------------------------------------------===//

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUHOSTTENSORMAPS
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

/// One operand of a map as the launcher finds it: kernel argument `arg`
/// (sign-extended from its width), or the constant `value`.
struct Source {
  int64_t arg = -1;
  int64_t value = 0;
};

/// The kernel argument `v` is, seen through warp_specialize captures and
/// sign extensions, or the constant it is; nothing when it is neither.
std::optional<Source> findSource(Value v, tile::FuncOp kernel) {
  while (true) {
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return Source{-1, constant.getSExtValue()};
    if (auto ext = v.getDefiningOp<arith::ExtSIOp>()) {
      v = ext.getIn();
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg)
      return std::nullopt;
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == kernel.getOperation()) {
      if (arg.getOwner() != &kernel.getBody().front())
        return std::nullopt;
      return Source{arg.getArgNumber(), 0};
    }
    auto ws = dyn_cast<WarpSpecializeOp>(owner);
    if (!ws || !arg.getOwner()->isEntryBlock())
      return std::nullopt;
    v = ws.getExplicitCaptures()[arg.getArgNumber()];
  }
}

/// The chain of warp_specialize ops from the kernel body down to `op`.
SmallVector<WarpSpecializeOp> enclosingWarpSpecializes(Operation *op) {
  SmallVector<WarpSpecializeOp> chain;
  for (Operation *p = op->getParentOp(); p && !isa<tile::FuncOp>(p);
       p = p->getParentOp())
    if (auto ws = dyn_cast<WarpSpecializeOp>(p))
      chain.push_back(ws);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// `value` (defined outside `ws`) made available inside region `region` of
/// `ws`: as one more capture, an argument of every region's entry block.
Value capture(WarpSpecializeOp ws, Value value, Region &region) {
  ws.getExplicitCapturesMutable().append(value);
  Value inside;
  for (Region &r : ws->getRegions()) {
    BlockArgument arg = r.front().addArgument(value.getType(), ws.getLoc());
    if (&r == &region)
      inside = arg;
  }
  return inside;
}

struct HostTensorMaps
    : public tilegpu::impl::TileGPUHostTensorMapsBase<HostTensorMaps> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(module.getContext());
    SmallVector<Attribute> recipes;
    for (auto kernel : module.getOps<tile::FuncOp>()) {
      if (!kernel.isKernel() || kernel.isExternal())
        continue;
      SmallVector<tile::MakeTensorDescriptorOp> makes;
      kernel.walk([&](tile::MakeTensorDescriptorOp op) {
        if (op->hasAttr(attr::kSynthesizedMap))
          makes.push_back(op);
      });
      for (tile::MakeTensorDescriptorOp op : makes) {
        std::optional<Source> base = findSource(op.getBase(), kernel);
        if (!base || base->arg < 0)
          continue;
        SmallVector<Source> shape, strides;
        bool uniform = true;
        for (Value v : op.getShape())
          if (std::optional<Source> s = findSource(v, kernel))
            shape.push_back(*s);
          else
            uniform = false;
        for (Value v : op.getStrides())
          if (std::optional<Source> s = findSource(v, kernel))
            strides.push_back(*s);
          else
            uniform = false;
        if (!uniform)
          continue;

        // The new argument, and the op's result replaced by it, through
        // each warp_specialize between the kernel body and the op.
        unsigned index = kernel.getNumArguments();
        if (failed(kernel.insertArgument(index, op.getType(),
                                         DictionaryAttr(), op.getLoc()))) {
          op.emitError("cannot add a kernel argument for its tensor map");
          return signalPassFailure();
        }
        Value map = kernel.getArgument(index);
        for (WarpSpecializeOp ws : enclosingWarpSpecializes(op)) {
          Region *region = nullptr;
          for (Region &r : ws->getRegions())
            if (r.isAncestor(op->getParentRegion()))
              region = &r;
          map = capture(ws, map, *region);
        }
        op.replaceAllUsesWith(map);
        op.erase();

        auto sources = [&](ArrayRef<Source> list, bool args) {
          SmallVector<int64_t> out;
          for (const Source &s : list)
            out.push_back(args ? s.arg : s.value);
          return b.getDenseI64ArrayAttr(out);
        };
        auto block = cast<tile::TensorDescType>(map.getType()).getBlockType();
        recipes.push_back(b.getDictionaryAttr({
            b.getNamedAttr("param", b.getI64IntegerAttr(index)),
            b.getNamedAttr("base", b.getI64IntegerAttr(base->arg)),
            b.getNamedAttr("block", b.getDenseI64ArrayAttr(block.getShape())),
            b.getNamedAttr("shape", sources(shape, false)),
            b.getNamedAttr("shape_args", sources(shape, true)),
            b.getNamedAttr("strides", sources(strides, false)),
            b.getNamedAttr("stride_args", sources(strides, true)),
        }));
      }
    }
    if (!recipes.empty())
      module->setAttr(attr::kHostTensorMaps, b.getArrayAttr(recipes));
  }
};

} // namespace
