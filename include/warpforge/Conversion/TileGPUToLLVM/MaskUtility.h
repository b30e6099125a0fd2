//===- MaskUtility.h - Masks and predicates ---------------------*- C++ -*-===//
//
// The predicates of masked and replicated accesses.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_MASKUTILITY_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_MASKUTILITY_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

namespace warpforge {

/// i1 that is true when the running thread is the first holder of its
/// elements (layouts that wrap or slices hold each element in several
/// threads; stores and atomics must happen once).  Null when every thread
/// is (no predicate needed).
mlir::Value emitOwnerPredicate(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::RankedTensorType type);

/// The per-element predicates of the lowered mask `llMask` of a `type`
/// tensor (a blocked-like or wgmma layout; empty for a null mask), each
/// element's replaced by that of the first element of the thread's list
/// whose mask is equal to it in every thread of the CTA, as the mask's
/// `constancy` (per dimension, aligned runs of equal values, from the axis
/// analysis) proves.  Only the representatives' comparisons stay live: with
/// a K-tail mask `k < K - k0` and K a multiple of 16, rows k and k + 8 of a
/// thread share one predicate.
llvm::SmallVector<mlir::Value>
unpackMaskElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value llMask,
                   mlir::RankedTensorType type,
                   llvm::ArrayRef<int64_t> constancy);

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_MASKUTILITY_H
