//===- Pipelines.h - Named pass pipelines -----------------------*- C++ -*-===//
//
// Every pipeline the JIT runs is registered here by name, in the order the
// JIT runs them, so that `warpforge-opt --NAME` (or
// `--pass-pipeline='builtin.module(NAME{options})'`) reproduces each stage
// exactly.  The JIT builds the same pipelines from a `CompileOptions`
// structure (through the API); on the command line its fields are the
// pipeline's options.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_PIPELINES_PIPELINES_H
#define WARPFORGE_PIPELINES_PIPELINES_H

#include "warpforge/CompileOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/ArrayRef.h"

namespace warpforge {

/// `CompileOptions` as pipeline options (`tile-to-tilegpu{num-warps=8}`),
/// with its defaults.
struct CompileOptionsPipelineOptions
    : public mlir::PassPipelineOptions<CompileOptionsPipelineOptions> {
  Option<int> numWarps{*this, "num-warps",
                       llvm::cl::desc("Warps per CTA (a power of two)"),
                       llvm::cl::init(CompileOptions{}.numWarps)};
  Option<int> numStages{
      *this, "num-stages",
      llvm::cl::desc("Buffers of the software pipeline of loops feeding "
                     "dots (1: no pipelining)"),
      llvm::cl::init(CompileOptions{}.numStages)};
  Option<int> numCtas{*this, "num-ctas",
                      llvm::cl::desc("CTAs per program, as a cluster (1, 2 or 4)"),
                      llvm::cl::init(CompileOptions{}.numCtas)};
  Option<int> numConsumerGroups{
      *this, "num-consumer-groups",
      llvm::cl::desc("Consumer groups of warp specialization (0: none)"),
      llvm::cl::init(CompileOptions{}.numConsumerGroups)};
  Option<int> numBuffersWarpSpec{
      *this, "num-buffers-warp-spec",
      llvm::cl::desc("Buffers between the producer and the consumers of "
                     "warp specialization"),
      llvm::cl::init(CompileOptions{}.numBuffersWarpSpec)};
  Option<bool> pingPong{
      *this, "ping-pong",
      llvm::cl::desc("Two consumer groups that own whole tiles and take "
                     "turns (num-warps: one group's)"),
      llvm::cl::init(CompileOptions{}.pingPong)};
  Option<int> maxnreg{
      *this, "maxnreg",
      llvm::cl::desc("Registers per thread (PTX .maxnreg; 0: no cap)"),
      llvm::cl::init(CompileOptions{}.maxnreg)};
  Option<int> computeCapability{
      *this, "compute-capability",
      llvm::cl::desc("Target compute capability (90: sm_90a)"),
      llvm::cl::init(CompileOptions{}.computeCapability)};

  CompileOptions toCompileOptions() const;
};

/// `tile-optimize`: checks the kernel rules, inlines device functions and
/// simplifies the tile IR the frontend produced.
void buildTileOptimizePipeline(mlir::OpPassManager &pm);

/// `tile-to-tilegpu`: gives every tensor a layout for a CTA of
/// `options.numWarps` warps and stamps `options` on the module
/// (convert-tile-to-tilegpu), then folds the conversion chains it leaves.
/// A conversion only: the optimizations are `tilegpu-optimize`.
void buildTileToTileGPUPipeline(mlir::OpPassManager &pm,
                                const CompileOptions &options);

/// `tilegpu-optimize`: coalescing, removal of layout conversions, dots on
/// wgmma and the software pipeliner, each reading the options the module
/// carries.
void buildTileGPUOptimizePipeline(mlir::OpPassManager &pm);

/// `tilegpu-to-llvm`: assigns shared memory and lowers tilegpu IR (with
/// layouts) to the LLVM and NVVM dialects.
void buildTileGPUToLLVMPipeline(mlir::OpPassManager &pm);

/// A pipeline the JIT runs, registered under `name`.
struct NamedPipeline {
  const char *name;
  const char *description;
  /// The JIT stage it produces: its key in `CompiledKernel.asm`.
  const char *stage;
  /// Builds the pipeline; only those with `takesOptions` read `options`.
  void (*build)(mlir::OpPassManager &pm, const CompileOptions &options);
  /// Registered with `CompileOptionsPipelineOptions` on the command line.
  bool takesOptions = false;
};

/// Every named pipeline of the project, in the order the JIT runs them.
llvm::ArrayRef<NamedPipeline> getNamedPipelines();

/// The named pipeline called `name`, or null.
const NamedPipeline *lookupNamedPipeline(llvm::StringRef name);

/// Registers the project's passes and named pipelines, and the MLIR passes
/// they use, with the global pass registry.
void registerWarpforgePassesAndPipelines();

/// Adds every dialect warpforge reads or produces, and the translations to
/// LLVM IR of those the NVPTX backend takes (builtin, LLVM, NVVM).
void registerWarpforgeDialects(mlir::DialectRegistry &registry);

} // namespace warpforge

#endif // WARPFORGE_PIPELINES_PIPELINES_H
