//===- Pipelines.h - Named pass pipelines -----------------------*- C++ -*-===//
//
// Every pipeline the JIT runs is registered here by name, so that
// `warpforge-opt --pass-pipeline='builtin.module(NAME)'` (or `--NAME`)
// reproduces it exactly.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_PIPELINES_PIPELINES_H
#define WARPFORGE_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/ArrayRef.h"

namespace warpforge {

/// `tile-optimize`: checks the kernel rules, inlines device functions and
/// simplifies the tile IR the frontend produced.
void buildTileOptimizePipeline(mlir::OpPassManager &pm);

/// Options of `tile-to-tilegpu`.
struct TileToTileGPUPipelineOptions
    : public mlir::PassPipelineOptions<TileToTileGPUPipelineOptions> {
  Option<int> numWarps{*this, "num-warps",
                       llvm::cl::desc("Warps per CTA (a power of two)"),
                       llvm::cl::init(4)};
  Option<int> numStages{
      *this, "num-stages",
      llvm::cl::desc("Stages of the software pipeline of K loops feeding "
                     "wgmma (1: no pipelining)"),
      llvm::cl::init(3)};
};

/// `tile-to-tilegpu`: gives every tensor a layout for a CTA of `num-warps`
/// warps (convert-tile-to-tilegpu), then removes the layout conversions it
/// can (tilegpu-remove-layout-conversions), with cleanups around.
void buildTileToTileGPUPipeline(mlir::OpPassManager &pm,
                                const TileToTileGPUPipelineOptions &options);

/// `tilegpu-to-llvm`: assigns shared memory and lowers tilegpu IR (with
/// layouts) to the LLVM and NVVM dialects.
void buildTileGPUToLLVMPipeline(mlir::OpPassManager &pm);

/// A pipeline the JIT runs, registered under `name`.
struct NamedPipeline {
  const char *name;
  const char *description;
  /// Builds the pipeline (with its default options, if it has any).
  void (*build)(mlir::OpPassManager &pm);
  /// For a pipeline with options: registers it so that they can be given
  /// (`name{opt=value}`); null for pipelines without options.
  void (*registerWithOptions)(const NamedPipeline &pipeline) = nullptr;
};

/// Every named pipeline of the project.
llvm::ArrayRef<NamedPipeline> getNamedPipelines();

/// Registers the project's passes and named pipelines, and the MLIR passes
/// they use, with the global pass registry.
void registerWarpforgePassesAndPipelines();

/// Adds every dialect warpforge reads or produces, and the translations to
/// LLVM IR of those the NVPTX backend takes (builtin, LLVM, NVVM).
void registerWarpforgeDialects(mlir::DialectRegistry &registry);

} // namespace warpforge

#endif // WARPFORGE_PIPELINES_PIPELINES_H
