//===- ModuleAttrs.cpp - Facts a tilegpu module carries -------------------===//

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace warpforge::tilegpu {
namespace {
int getInt(ModuleOp module, StringRef name, int fallback) {
  if (auto value = module->getAttrOfType<IntegerAttr>(name))
    return value.getInt();
  return fallback;
}
} // namespace

void setCompileOptions(ModuleOp module, const CompileOptions &options,
                       int threadsPerWarp) {
  Builder b(module.getContext());
  // With warp specialization, num_warps is one consumer group's warps (as
  // in Triton): the kernel's own warps, which run everything but the
  // producer partition, are all the groups'.  Ping-pong groups each own
  // whole tiles: the kernel's layouts are one group's, and
  // tilegpu-ws-code-partition adds the second group as a partition.
  int consumerWarps =
      options.pingPong ? options.numWarps
                       : options.numWarps * std::max(1, options.numConsumerGroups);
  module->setAttr(attr::kNumWarps, b.getI32IntegerAttr(consumerWarps));
  module->setAttr(attr::kThreadsPerWarp, b.getI32IntegerAttr(threadsPerWarp));
  module->setAttr(attr::kNumStages, b.getI32IntegerAttr(options.numStages));
  module->setAttr(attr::kNumCtas, b.getI32IntegerAttr(options.numCtas));
  module->setAttr(attr::kNumConsumerGroups,
                  b.getI32IntegerAttr(options.numConsumerGroups));
  module->setAttr(attr::kNumBuffersWarpSpec,
                  b.getI32IntegerAttr(options.numBuffersWarpSpec));
  if (options.pingPong)
    module->setAttr(attr::kPingPong, b.getBoolAttr(true));
  if (options.maxnreg > 0)
    module->setAttr(attr::kMaxnreg, b.getI32IntegerAttr(options.maxnreg));
  module->setAttr(attr::kTarget, b.getStringAttr(formatCudaTarget(
                                     options.computeCapability)));
}

bool hasCompileOptions(ModuleOp module) {
  return module->hasAttr(attr::kNumWarps);
}

int getNumWarps(ModuleOp module) {
  return getInt(module, attr::kNumWarps, CompileOptions{}.numWarps);
}

int getThreadsPerWarp(ModuleOp module) {
  return getInt(module, attr::kThreadsPerWarp, 32);
}

int getNumThreads(ModuleOp module) {
  return getNumWarps(module) * getThreadsPerWarp(module);
}

int getNumStages(ModuleOp module) {
  return getInt(module, attr::kNumStages, CompileOptions{}.numStages);
}

int getMaxnreg(ModuleOp module) {
  return getInt(module, attr::kMaxnreg, CompileOptions{}.maxnreg);
}

int getNumCtas(ModuleOp module) {
  return getInt(module, attr::kNumCtas, CompileOptions{}.numCtas);
}

int getNumConsumerGroups(ModuleOp module) {
  return getInt(module, attr::kNumConsumerGroups,
                CompileOptions{}.numConsumerGroups);
}

int getNumBuffersWarpSpec(ModuleOp module) {
  return getInt(module, attr::kNumBuffersWarpSpec,
                CompileOptions{}.numBuffersWarpSpec);
}

bool getPingPong(ModuleOp module) {
  auto value = module->getAttrOfType<BoolAttr>(attr::kPingPong);
  return value && value.getValue();
}

std::string getTarget(ModuleOp module) {
  if (auto target = module->getAttrOfType<StringAttr>(attr::kTarget))
    return target.str();
  return formatCudaTarget(CompileOptions{}.computeCapability);
}

std::optional<int> parseCudaTarget(StringRef target) {
  unsigned capability;
  if (!target.consume_front("cuda:") || target.getAsInteger(10, capability))
    return std::nullopt;
  return static_cast<int>(capability);
}

std::string formatCudaTarget(int computeCapability) {
  return "cuda:" + std::to_string(computeCapability);
}

std::optional<int64_t> getSharedBytes(ModuleOp module) {
  if (auto bytes = module->getAttrOfType<IntegerAttr>(attr::kSharedBytes))
    return bytes.getInt();
  return std::nullopt;
}

std::optional<int64_t> getGlobalScratchBytes(ModuleOp module) {
  if (auto bytes =
          module->getAttrOfType<IntegerAttr>(attr::kGlobalScratchBytes))
    if (bytes.getInt() > 0)
      return bytes.getInt();
  return std::nullopt;
}

} // namespace warpforge::tilegpu
