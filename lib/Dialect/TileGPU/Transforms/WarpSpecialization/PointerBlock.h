//===- PointerBlock.h - Pointer loads that are TMA blocks -------*- C++ -*-===//
//
// A warp-specialized producer copies a pointer load with the TMA, instead
// of cp.async, when the load provably reads one 2-D block of a row-major
// matrix: seed 000's
//
//   a_ptrs = a_ptr + (offs_m[:, None] * stride_am + offs_k[None, :])
//   for k in ...:
//     a = tl.load(a_ptrs)            # no mask
//     a_ptrs += BLOCK_K * stride_ak  # stride_ak == 1, specialized
//
// reads, at iteration t, the elements
//
//   base + (row + i + t * rowStep) * stride + (col + j + t * colStep)
//
// for i < BM, j < BK: the block at (row + t * rowStep, col + t * colStep)
// of a matrix at `base` with row stride `stride`, which a tensor map of
// that base and stride copies.  The load has no mask, so every element it
// reads is one the program may read; the map's dimensions are the largest
// the TMA takes, so its bounds never cut the block (the addresses are the
// load's: base + row * stride + col, linear in both coordinates).
//
// Only what is proven is taken: each term is matched on its ops (splats,
// make_range from 0, expand_dims, broadcast, muli, addi, addptr), the
// column stride must be the constant 1 and the row stride a scalar, the
// base 16-byte aligned and the row stride a multiple of 16 bytes by the
// axis analysis (the TMA's rules), and the buffer the TMA writes must be
// the one the product reads.  Anything else stays a cp.async copy.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZATION_POINTERBLOCK_H
#define WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WARPSPECIALIZATION_POINTERBLOCK_H

#include "warpforge/Analysis/AxisInfo.h"
#include "warpforge/Dialect/Tile/IR/Tile.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace warpforge::tilegpu {

/// One scalar term of a block's address: a value, or a constant.
struct ScalarTerm {
  mlir::Value value;
  int64_t constant = 0;
  bool isConstant() const { return !value; }
};

/// The block a pointer load reads at each iteration of its loop.
struct PointerBlock {
  /// The matrix: a scalar pointer and its row stride in elements.
  mlir::Value base;
  ScalarTerm stride;
  /// The block's first row and column, before the loop.
  ScalarTerm row, col;
  /// How far the block moves every iteration.
  int64_t rowStep = 0, colStep = 0;
  /// The index (among the loop's iter_args) of the pointers the loop
  /// advances.
  unsigned iterArg = 0;
  /// The block's shape and element type (no layout).
  mlir::RankedTensorType blockType;
};

/// The block behind `load` (a pointer load of loop `loop` feeding a
/// product through `alloc`), when it is proven one; see the file comment.
std::optional<PointerBlock>
matchPointerBlock(tile::LoadOp load, LocalAllocOp alloc, mlir::scf::ForOp loop,
                  const ModuleAxisInfoAnalysis &axisInfo);

} // namespace warpforge::tilegpu

#endif
