//===- TargetInfo.cpp - What the lowering knows about the GPU -------------===//

#include "warpforge/Conversion/TileGPUToLLVM/TargetInfo.h"

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

using namespace mlir;

namespace warpforge {

FailureOr<TargetInfo> TargetInfo::fromModule(ModuleOp module) {
  Attribute attr = module->getAttr(tilegpu::attr::kTarget);
  if (!attr)
    return TargetInfo(CompileOptions{}.computeCapability);
  auto text = dyn_cast<StringAttr>(attr);
  std::optional<int> cc =
      text ? tilegpu::parseCudaTarget(text.getValue()) : std::nullopt;
  if (!cc || *cc == 0)
    return module.emitError("module attribute ")
           << tilegpu::attr::kTarget << " = " << attr
           << " is not a target: expected \"cuda:<compute capability>\", "
              "e.g. \"cuda:90\"";
  return TargetInfo(*cc);
}

std::string TargetInfo::getTargetName() const {
  return tilegpu::formatCudaTarget(computeCapability);
}

} // namespace warpforge
