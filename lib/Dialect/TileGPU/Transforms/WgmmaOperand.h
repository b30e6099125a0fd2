//===- WgmmaOperand.h - A operands read from registers -----------*- C++ -*-===//
//
// What tilegpu-accelerate-matmul (when it makes a product) and
// tilegpu-remove-layout-conversions (once P of an attention has stayed in
// the first product's registers) both decide: whether a product's A operand
// can be read from registers, the RS form of wgmma.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WGMMAOPERAND_H
#define WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WGMMAOPERAND_H

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

namespace warpforge::tilegpu {

/// The value a chain of layout conversions starts from.
mlir::Value skipConversions(mlir::Value v);

/// `a` as the A operand in registers of a product accumulating in `acc`,
/// when it is (behind conversions) a 16-bit value in a wgmma layout with
/// acc's warp arrangement: a conversion to the dot_op layout, made at `b`,
/// which costs no exchange.  Null otherwise.
mlir::Value registerOperand(mlir::OpBuilder &b, mlir::Value a,
                            WgmmaEncodingAttr acc);

} // namespace warpforge::tilegpu

#endif // WARPFORGE_LIB_DIALECT_TILEGPU_TRANSFORMS_WGMMAOPERAND_H
