//===- TMA.h - How a tensor descriptor's blocks sit in shared memory -*- C++ -*-===//
//
// One rule, used by the compiler (the shared layout a descriptor's loads
// land in and its stores read from) and by the launcher (the box and
// swizzle `cuTensorMapEncodeTiled` gets for a host descriptor argument), so
// that the two always agree:
//
//  * A 2-D block of 8-, 16- or 32-bit elements whose rows span 32 or 64
//    bytes or a multiple of 128 lands in the NVMMA layout wgmma reads,
//    swizzled by min(128, row bytes).  A row wider than
//    the swizzle is stored as consecutive column blocks of `swizzle` bytes,
//    each holding all the rows, which is what a TMA box of `swizzle` bytes
//    wide writes, one copy per column block.  So the box is the block with
//    its inner dimension cut to `swizzle` bytes.
//  * Any other block (1-D, 3- to 5-D, 64-bit elements, rows of 16, 48, 96
//    or 192 bytes...) lands densely in row-major order, unswizzled, in one
//    copy of the whole block.
//  * Either way, an outermost dimension longer than the 256 elements a box
//    may span is moved in pieces of 256 (dimensions are powers of 2):
//    piece k covers outer indices [256 k, 256 (k+1)) and lands right after
//    piece k-1 within each column block, since the outermost dimension is
//    the slowest in both layouts (the swizzle repeats every 8 rows, so a
//    piece of 256 rows starts on a repeat).  Inner dimensions stay within
//    one box: the compiler rejects longer ones.
//
// The element type, shapes and strides of the tensor map itself come from
// the descriptor; only the box and the swizzle are the compiler's choice.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_DIALECT_TILEGPU_IR_TMA_H
#define WARPFORGE_DIALECT_TILEGPU_IR_TMA_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace warpforge::tilegpu::tma {

/// What the TMA engine moves per dimension at most.
inline constexpr int64_t kMaxBoxDim = 256;
/// A tensor map's size and the alignment of one in memory.
inline constexpr int64_t kTensorMapBytes = 128;
inline constexpr int64_t kTensorMapAlign = 64;
/// Global addresses and strides must be multiples of this.
inline constexpr int64_t kGlobalAlign = 16;
/// The smallest inner box (bytes).
inline constexpr int64_t kMinInnerBoxBytes = 16;

struct Encoding {
  /// 0 (none), 32, 64 or 128 bytes.
  int swizzleBytes = 0;
  /// The box of one copy, outermost dimension first.
  std::vector<int64_t> box;
  /// Copies per block: the inner dimension's column blocks times the
  /// outermost dimension's pieces.
  int64_t copies() const { return copiesPerBlock * outerPieces; }
  int64_t copiesPerBlock = 1;
  int64_t outerPieces = 1;
};

/// The encoding of blocks of `blockShape` (outermost first) of
/// `elementBits`-bit elements.
inline Encoding encodingFor(unsigned elementBits,
                            const std::vector<int64_t> &blockShape) {
  Encoding e;
  e.box = blockShape;
  if (blockShape.empty())
    return e;
  int64_t rowBytes = blockShape.back() * elementBits / 8;
  bool swizzles = rowBytes == 32 || rowBytes == 64 ||
                  (rowBytes >= 128 && rowBytes % 128 == 0);
  if (blockShape.size() == 2 && elementBits <= 32 && swizzles) {
    e.swizzleBytes = static_cast<int>(std::min<int64_t>(128, rowBytes));
    e.box.back() = e.swizzleBytes * 8 / elementBits;
    e.copiesPerBlock = blockShape.back() / e.box.back();
  }
  if (e.box.front() > kMaxBoxDim && e.box.front() % kMaxBoxDim == 0) {
    e.outerPieces = e.box.front() / kMaxBoxDim;
    e.box.front() = kMaxBoxDim;
  }
  return e;
}

} // namespace warpforge::tilegpu::tma

#endif // WARPFORGE_DIALECT_TILEGPU_IR_TMA_H
