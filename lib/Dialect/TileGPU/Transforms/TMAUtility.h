//===- TMAUtility.h - Descriptor loads feeding products ---------*- C++ -*-===//
//
// What the software pipeliner and tilegpu-lower-tma both need to know about
// a descriptor load: whether the tile it loads only goes into shared memory
// for a product, in the layout the TMA writes (or its transpose), so that
// the product can read the TMA's buffer in place.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_TMAUTILITY_H
#define WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_TMAUTILITY_H

#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include <optional>

namespace warpforge::tilegpu {

/// A `local_alloc` whose tile comes from a descriptor load, through layout
/// conversions and at most one `tile.trans`.
struct TMAOperand {
  tile::DescriptorLoadOp load;
  LocalAllocOp alloc;
  /// The tile is transposed on its way: the product reads the TMA buffer
  /// through `memdesc_trans`.
  bool transposed = false;
  /// The ops between the load and the allocation, which go with them.
  llvm::SmallVector<mlir::Operation *> chain;
};

/// The descriptor load behind `alloc` when nothing else reads the loaded
/// tile, only products read the allocation, and its layout is the TMA's
/// (transposed when the tile is): the allocation can then be the TMA's
/// buffer.  With `sharedLoad`, the load itself may have other users and sit
/// in another block (the caller checks that they all are such allocations,
/// and places the buffer at the load).
std::optional<TMAOperand> matchTMAOperand(LocalAllocOp alloc,
                                          bool sharedLoad = false);

/// The bytes one copy of a block of `desc` delivers to its barrier (the
/// whole box, zero fill included).
int64_t getTMABlockBytes(tile::TensorDescType desc);

/// The memdesc of an mbarrier (`numBuffers` of them in one allocation).
MemDescType getBarrierType(mlir::MLIRContext *context, int64_t numBuffers = 1);

} // namespace warpforge::tilegpu

#endif
