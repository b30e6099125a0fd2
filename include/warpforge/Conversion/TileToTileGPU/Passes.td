//===- Passes.td - tile to tilegpu conversion --------------*- tablegen -*-===//

#ifndef WARPFORGE_CONVERSION_TILETOTILEGPU_PASSES
#define WARPFORGE_CONVERSION_TILETOTILEGPU_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTileToTileGPU : Pass<"convert-tile-to-tilegpu", "mlir::ModuleOp"> {
  let summary = "Give every tensor a layout for a CTA of num-warps warps";
  let description = [{
    Rewrites a module of `tile` IR so that every tensor type carries a
    distributed layout, and stamps the compilation's options on the module
    once, for every later stage to read (`ModuleAttrs.h`):
    `tilegpu.num-warps`, `tilegpu.threads-per-warp`, `tilegpu.num-stages`,
    `tilegpu.num-ctas`, `tilegpu.num-consumer-groups`,
    `tilegpu.num-buffers-warp-spec` and `tilegpu.target`.  The options'
    defaults are those of `warpforge::CompileOptions`; a bad value is an
    error at the module.  `tilegpu.num-ctas` is what tile-cluster-split made
    of the kernel (its `tile.num-ctas`, 1 without it), not the option: a
    program runs on more than one CTA only once its tiles are divided.

    The layout of a tensor is the default blocked layout of its shape
    (row-major; up to 4 elements per thread along the last dimension, fewer
    for tensors with fewer than 4 elements per thread), except where an op
    needs another one:

    * `tile.reduce` along `axis` returns `#tilegpu.slice<dim = axis, parent
      = source layout>`; `tile.expand_dims` takes its source in the slice of
      its result's layout; `tile.broadcast` takes its source in its result's
      layout;
    * `tile.trans` returns its source's layout with the dimensions permuted
      (free in registers); `tile.scan` returns its source's layout;
    * `tile.dot` takes `a` and `b` as `#tilegpu.dot_op` operands of its
      result's layout.

    Element-wise ops (arith, math, pointer arithmetic, loads, stores,
    atomics) have all their tensors in one layout.  Where an operand comes
    in another layout, a `tilegpu.convert_layout` is inserted;
    `tilegpu-remove-layout-conversions` removes those it can.  Control flow
    (`scf`, `cf`) carries the layouts of the values it passes: loop-carried
    tensors have the default layout of their shape.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int",
           /*default=*/"::warpforge::CompileOptions{}.numWarps",
           "Warps per CTA (a power of two, 1 to 32)">,
    Option<"threadsPerWarp", "threads-per-warp", "int", /*default=*/"32",
           "Threads per warp (32 on NVIDIA GPUs)">,
    Option<"numStages", "num-stages", "int",
           /*default=*/"::warpforge::CompileOptions{}.numStages",
           "Buffers of the software pipeline of loops feeding dots (1: none)">,
    Option<"numCtas", "num-ctas", "int",
           /*default=*/"::warpforge::CompileOptions{}.numCtas",
           "CTAs per program, as a cluster (1, 2 or 4; sm_90)">,
    Option<"numConsumerGroups", "num-consumer-groups", "int",
           /*default=*/"::warpforge::CompileOptions{}.numConsumerGroups",
           "Consumer groups of warp specialization (0: none)">,
    Option<"numBuffersWarpSpec", "num-buffers-warp-spec", "int",
           /*default=*/"::warpforge::CompileOptions{}.numBuffersWarpSpec",
           "Buffers between producer and consumers of warp specialization">,
    Option<"pingPong", "ping-pong", "bool",
           /*default=*/"::warpforge::CompileOptions{}.pingPong",
           "Warp specialization with two consumer groups that own whole "
           "tiles and take turns (num-warps: one group's)">,
    Option<"maxnreg", "maxnreg", "int",
           /*default=*/"::warpforge::CompileOptions{}.maxnreg",
           "Registers per thread (PTX .maxnreg; 0: no cap)">,
    Option<"target", "target", "std::string", /*default=*/"\"cuda:90\"",
           "Target, as cuda:<compute capability>">,
  ];
  let dependentDialects = ["::warpforge::tilegpu::TileGPUDialect"];
}

#endif // WARPFORGE_CONVERSION_TILETOTILEGPU_PASSES
