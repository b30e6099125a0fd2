//===- TargetInfo.cpp - What the lowering knows about the GPU -------------===//

#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

using namespace mlir;

namespace warpforge {

FailureOr<TargetInfo> TargetInfo::fromModule(ModuleOp module) {
  Attribute attr = module->getAttr(tilegpu::TileGPUDialect::kTarget);
  if (!attr)
    return TargetInfo(kDefaultComputeCapability);
  auto text = dyn_cast<StringAttr>(attr);
  StringRef rest = text ? text.getValue() : StringRef();
  unsigned cc = 0;
  if (!text || !rest.consume_front("cuda:") || rest.getAsInteger(10, cc) ||
      cc == 0)
    return module.emitError("module attribute ")
           << tilegpu::TileGPUDialect::kTarget << " = " << attr
           << " is not a target: expected \"cuda:<compute capability>\", "
              "e.g. \"cuda:90\"";
  return TargetInfo(cc);
}

std::string TargetInfo::getTargetName() const {
  return "cuda:" + std::to_string(computeCapability);
}

} // namespace warpforge
