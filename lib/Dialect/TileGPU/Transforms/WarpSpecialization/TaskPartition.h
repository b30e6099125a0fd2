//===- TaskPartition.h - Warp specialization's plan of a loop ---*- C++ -*-===//
//
// Automatic warp specialization runs as three passes (seed 000; seed 004
// gives the code's shape), each printing IR a reader can follow:
//
//   tilegpu-ws-task-partition   chooses the product loops and, for each,
//                               which loads the producer copies and how:
//                               it marks the loop (`tilegpu.ws.loop`) and
//                               each such load (`tilegpu.ws.operand = i`,
//                               `tilegpu.ws.copy = "tma" | "tma-block" |
//                               "cp.async"`), and each block loaded once
//                               a tile (`tilegpu.ws.tile_operand = i`), or
//                               records why it declines.
//   tilegpu-ws-buffer-allocation  gives each marked loop a channel of
//                               num-buffers slots, one ring per operand in
//                               the layout its copy writes
//                               (`tilegpu.create_channel`, marked
//                               `tilegpu.ws.channel` until it is used), and
//                               each block loaded once a tile a one-slot
//                               channel (`tilegpu.ws.tile_channel = i`).
//   tilegpu-ws-code-partition   moves the kernel body into a
//                               `tilegpu.warp_specialize` op: the
//                               consumers keep it and wait/release slots,
//                               the producer partition acquires, copies
//                               and commits; registers are split.
//
// The marks are the interface between them: each later pass recomputes the
// loop's plan (analyze) and checks it against the marks, so IR changed in
// between fails with an error instead of being specialized differently
// from what the earlier pass printed.  tilegpu-warp-specialize runs the
// three in a row.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZATION_TASKPARTITION_H
#define WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZATION_TASKPARTITION_H

#include "../Pipeliner/PipelineAnalysis.h"
#include "PointerBlock.h"

#include "warpforge/Analysis/AxisInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>

namespace warpforge::tilegpu::ws {

/// The producer partition's warps: one warpgroup.
constexpr int kProducerWarps = 4;

/// On the product loop tilegpu-ws-task-partition chose.
inline constexpr llvm::StringLiteral kLoopMark = "tilegpu.ws.loop";
/// On each load the producer copies: the operand's index (its ring's in
/// the channel) and how it is copied.
inline constexpr llvm::StringLiteral kOperandMark = "tilegpu.ws.operand";
inline constexpr llvm::StringLiteral kCopyMark = "tilegpu.ws.copy";
/// On a channel tilegpu-ws-buffer-allocation made and
/// tilegpu-ws-code-partition has not used yet.
inline constexpr llvm::StringLiteral kChannelMark = "tilegpu.ws.channel";
/// On each block the producer copies once per tile (a tile operand): its
/// index among the kernel's tile operands; and on the one-slot channel
/// tilegpu-ws-buffer-allocation makes for it, the same index (or, on a
/// slot two blocks share, both indices in the order of their uses).
inline constexpr llvm::StringLiteral kTileOperandMark =
    "tilegpu.ws.tile_operand";
inline constexpr llvm::StringLiteral kTileChannelMark =
    "tilegpu.ws.tile_channel";

/// A block the products read that is loaded once per tile of a persistent
/// kernel (once per kernel otherwise) outside the loop of products:
/// attention's Q, before its K/V loop, and the rotated attention's last V,
/// after it.  The producer copies it too, through a channel of its own of
/// one slot used once per tile, or shared with another block whose uses
/// it does not overlap (see tilegpu-ws-buffer-allocation and
/// tilegpu-ws-code-partition).
struct TileOperand {
  /// The descriptor load, its allocation and what lies between them.
  PipelinedLoad load;
  /// Whether it is loaded before the loop of products (in the tile loop's
  /// body, or the kernel's): the producer copies it before that loop's
  /// blocks, else after them.
  bool beforeLoop = true;
};

/// What the producer of one loop needs.
struct Plan {
  mlir::scf::ForOp loop;
  /// The persistent tile loop around `loop`, when there is one: the
  /// producer runs it too, counting channel uses across tiles.
  mlir::scf::ForOp tileLoop;
  /// The products' operands, each a descriptor load (TMA) or a pointer
  /// load (cp.async), in order of first use.
  llvm::SmallVector<PipelinedLoad> operands;
  /// For each pointer operand, the 2-D block it provably reads
  /// (PointerBlock.h): the producer copies it with the TMA, through a
  /// tensor map it makes, instead of cp.async.
  llvm::SmallVector<std::optional<PointerBlock>> blocks;
  /// Iter_args of the product loop that only the loads' addresses use
  /// (pointers advanced every iteration): the consumers drop them, the
  /// producer carries those its cp.async copies read.
  llvm::SetVector<unsigned> carried, producerCarried;
  /// Ops to clone into the producer, each in program order: those of the
  /// kernel body (bounds), of the tile loop's body (tile coordinates) and
  /// of the product loop's (per-iteration addresses).
  llvm::SmallVector<mlir::Operation *> outerSlice, tileSlice, innerSlice;
  /// Kernel arguments the producer uses.
  llvm::SetVector<mlir::Value> captures;
  /// The products' waits that retire every read of the slot.
  mlir::Operation *lastWait = nullptr;
  /// The blocks loaded once per tile that the producer copies too (none
  /// in a ping-pong kernel: one slot would serialize the groups' tiles).
  llvm::SmallVector<TileOperand> tileOperands;
};

/// How the producer copies operand `i`: "tma" (a descriptor load),
/// "tma-block" (a pointer load that is a 2-D block) or "cp.async".
llvm::StringRef getCopyKind(const Plan &plan, unsigned i);

/// The type `type` has in the producer partition (tensors re-laid on its
/// warps), or null when it has none.
mlir::Type getProducerType(mlir::Type type);

/// The plan of product loop (or tile loop) `loop`, or the reason it cannot
/// be specialized in `why`.
mlir::FailureOr<Plan> analyze(mlir::scf::ForOp loop,
                              const ModuleAxisInfoAnalysis &axisInfo,
                              std::string &why);

/// The plan of a loop tilegpu-ws-task-partition marked, checked against
/// its marks (an error at the loop when they differ).
mlir::FailureOr<Plan> getMarkedPlan(mlir::scf::ForOp loop,
                                    const ModuleAxisInfoAnalysis &axisInfo);

/// The channel's slots: the `num-buffers` option when positive, else the
/// module's tilegpu.num-buffers-warp-spec when set, else its num-stages.
int getNumBuffers(mlir::ModuleOp module, int option);

/// Appends to the module's tilegpu.warp-specialize-declined what declined
/// at `loc` and why, for the frontend's warning there: by default warp
/// specialization ("compiled without it"); `what` and `instead` name a
/// part of it and what runs instead (ping-pong, one cooperative group).
void recordDecline(mlir::ModuleOp module, mlir::Location loc,
                   llvm::StringRef reason, llvm::StringRef what = "",
                   llvm::StringRef instead = "");
/// The three steps, as their passes run them.
void runTaskPartition(mlir::ModuleOp module);
mlir::LogicalResult runBufferAllocation(mlir::ModuleOp module, int numBuffers);
mlir::LogicalResult runCodePartition(mlir::ModuleOp module, bool remarks);

} // namespace warpforge::tilegpu::ws

#endif
