//===- SharedMemory.h - Shared memory an op's lowering needs ----*- C++ -*-===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_SHAREDMEMORY_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_SHAREDMEMORY_H

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/IR/Operation.h"

namespace warpforge {

/// Bytes of scratch shared memory the lowering of `op` uses while it runs
/// (exchanging values between warps or threads), 0 for none.  Scratch is
/// dead once the op is done, so all ops share one region.
int64_t getScratchBytes(mlir::Operation *op);

/// Where a reduction or scan across warps exchanges partial results: one
/// array of `slots` elements per operand, operand `i`'s at byte
/// `offsets[i]` (8-byte aligned) of the op's scratch.
struct OperandScratch {
  llvm::SmallVector<int64_t> offsets;
  int64_t bytes = 0;
};
/// The arrays for the operands `tensors` (their element types) of `slots`
/// elements each.
OperandScratch getOperandScratch(mlir::ValueRange tensors, int64_t slots);

/// The scratch of each kind of op, defined beside its lowering.
int64_t getReduceScratchBytes(tile::ReduceOp op);
int64_t getScanScratchBytes(tile::ScanOp op);
/// Moving a tensor between two blocked-like layouts (convert_layout) or
/// shapes (reshape); 0 when the threads already hold what they need.
int64_t getExchangeScratchBytes(mlir::Operation *op);

/// Scratch one round of an exchange through shared memory may use; larger
/// tensors move in several rounds.  A 128x256 f16 tile (a matmul's output)
/// moves in one: rounds need predicates on every element, which keep the
/// whole tile live in registers across them.
constexpr int64_t kMaxExchangeScratchBytes = 128 * 1024;

/// Alignment of the scratch region and of allocations, in bytes: 1024 keeps
/// 128-byte swizzle atoms aligned for wgmma and TMA.
constexpr int64_t kSharedAllocationAlignment = 1024;

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_SHAREDMEMORY_H
