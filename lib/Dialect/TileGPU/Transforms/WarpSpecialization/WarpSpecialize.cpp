//===- WarpSpecialize.cpp - The three steps of warp specialization -------===//
//
// tilegpu-warp-specialize: tilegpu-ws-task-partition,
// tilegpu-ws-buffer-allocation and tilegpu-ws-code-partition in a row (see
// TaskPartition.h), with their options; what the JIT runs.
//
//===----------------------------------------------------------------------===//

#include "TaskPartition.h"

#include "warpforge/Dialect/TileGPU/IR/ModuleAttrs.h"
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h"

namespace warpforge::tilegpu {
#define GEN_PASS_DEF_TILEGPUWARPSPECIALIZE
#include "warpforge/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace warpforge::tilegpu

using namespace mlir;
using namespace warpforge;
using namespace warpforge::tilegpu;

namespace {

struct WarpSpecializePass
    : public tilegpu::impl::TileGPUWarpSpecializeBase<WarpSpecializePass> {
  using TileGPUWarpSpecializeBase::TileGPUWarpSpecializeBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int buffers = ws::getNumBuffers(module, numBuffers);
    ws::runTaskPartition(module);
    if (failed(ws::runBufferAllocation(module, buffers)) ||
        failed(ws::runCodePartition(module, remarks)))
      signalPassFailure();
  }
};

} // namespace
