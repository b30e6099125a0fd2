//===- PipelineAnalysis.h - Which loads of a loop to pipeline ---*- C++ -*-===//
//
// The analysis half of tilegpu-software-pipeline: for one scf.for, the
// loads that can become asynchronous copies issued ahead of their
// iteration, and the "stage 0" computation (their addresses and masks) that
// must be cloned to run ahead with them.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_PIPELINEANALYSIS_H
#define WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_PIPELINEANALYSIS_H

#include "warpforge/Analysis/AxisInfo.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace warpforge::tilegpu {

/// A load whose only user is a shared-memory allocation read by products:
/// a load of a pointer tensor (copied with cp.async) or a descriptor load
/// (copied by the TMA, whose buffer the products read in place, through a
/// transposed view when the tile is transposed on its way).
struct PipelinedLoad {
  tile::LoadOp load;
  LocalAllocOp alloc;
  tile::DescriptorLoadOp descLoad;
  bool transposed = false;
  /// Conversions (and the transpose) between a descriptor load and its
  /// allocation: they disappear with both.
  llvm::SmallVector<mlir::Operation *> chain;

  bool isTMA() const { return static_cast<bool>(descLoad); }
  mlir::Operation *getLoadOp() const {
    return isTMA() ? static_cast<mlir::Operation *>(descLoad)
                   : static_cast<mlir::Operation *>(load);
  }
  /// Whether `op` goes away with this load (the load, its allocation, the
  /// chain between them).
  bool replaces(mlir::Operation *op) const {
    return op == getLoadOp() || op == static_cast<mlir::Operation *>(alloc) ||
           llvm::is_contained(chain, op);
  }
};

/// How to pipeline one loop.
struct LoopPipelinePlan {
  mlir::scf::ForOp loop;
  int numStages = 0;
  llvm::SmallVector<PipelinedLoad> loads;
  /// The ops of the loop body computing the loads' addresses and masks and
  /// the carried chains they read, in body order.
  llvm::SmallVector<mlir::Operation *> stage0;
  /// The subset of `stage0` that reads a stage-0 iter_arg: the new loop
  /// carries those chains ahead, so these ops exist only ahead.
  llvm::SmallPtrSet<mlir::Operation *, 16> carried;
  /// Indices (among the loop's iter_args) of the chains stage 0 carries.
  llvm::SmallVector<unsigned> stage0Args;
  /// The last warp_group_dot_wait of the body (wgmma products), or the
  /// last mma.sync product reading a pipelined buffer (through local_loads
  /// into its register operands): after it
  /// every read of the buffers is done or waited for, and the copies for a
  /// later iteration are issued there, behind a CTA barrier.
  mlir::Operation *anchor = nullptr;
  /// When set, the index of the accumulator iter_arg whose product may stay
  /// in flight across iterations (its wait gets pendings = 1).
  std::optional<unsigned> inFlightAcc;
};

/// The plan for `loop` with `numStages` stages, or std::nullopt when the
/// loop is left as it is (no qualifying load, fewer than two stages, or a
/// body the schedule does not handle).  `axisInfo` must describe the IR
/// before any transformation.
/// The load behind operand `operand` of a product in loop body `body`,
/// when it can be copied asynchronously into the buffer the product reads:
/// a descriptor load (TMA), or a pointer load whose every thread's share
/// moves in cp.async copies of at least 4 bytes (axis analysis), masked
/// elements filled with +0; only products of `body` read the buffer.
std::optional<PipelinedLoad>
matchPipelinableLoad(mlir::Value operand, mlir::Block *body,
                     const ModuleAxisInfoAnalysis &axisInfo);

std::optional<LoopPipelinePlan>
planLoopPipeline(mlir::scf::ForOp loop, int numStages,
                 const ModuleAxisInfoAnalysis &axisInfo);

} // namespace warpforge::tilegpu

#endif // WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_PIPELINEANALYSIS_H
