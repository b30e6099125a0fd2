//===- Passes.h - tile to tilegpu conversion --------------------*- C++ -*-===//

#ifndef WARPFORGE_CONVERSION_TILETOTILEGPU_PASSES_H
#define WARPFORGE_CONVERSION_TILETOTILEGPU_PASSES_H

#include "warpforge/CompileOptions.h"
#include "warpforge/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace warpforge {

#define GEN_PASS_DECL
#include "warpforge/Conversion/TileToTileGPU/Passes.h.inc"

/// The pass options that stamp `options` on the module.
ConvertTileToTileGPUOptions
getConvertTileToTileGPUOptions(const CompileOptions &options);

/// The default layout of a `shape` tensor in a CTA of `numWarps` warps of
/// `threadsPerWarp` threads: row-major blocked, with
/// clamp(elements / threads, 1, maxSizePerThread) elements per thread along
/// the last dimension.  It depends only on the shape, so the operands of an
/// element-wise op agree.  A 1-D shape whose length is not a power of two
/// (experimental) gets the slice of a 2-D blocked layout instead, which
/// spreads its length over whole CTA tiles.
mlir::Attribute getDefaultLayout(mlir::MLIRContext *context,
                                 llvm::ArrayRef<int64_t> shape,
                                 unsigned numWarps,
                                 unsigned threadsPerWarp = 32,
                                 unsigned maxSizePerThread = 4);

/// Gives tensor types without an encoding the default layout of their
/// shape; every other type is legal as it is.  A value in another layout is
/// handed to an op that needs the default one through a
/// `tilegpu.convert_layout`.
class TileGPUTypeConverter : public mlir::TypeConverter {
public:
  TileGPUTypeConverter(mlir::MLIRContext *context, unsigned numWarps,
                       unsigned threadsPerWarp, unsigned maxSizePerThread = 4);

  unsigned getNumWarps() const { return numWarps; }
  unsigned getThreadsPerWarp() const { return threadsPerWarp; }

private:
  mlir::MLIRContext *context;
  unsigned numWarps;
  unsigned threadsPerWarp;
  unsigned maxSizePerThread;
};

/// Patterns and legality of convert-tile-to-tilegpu: tile, arith and math
/// ops on tensors, tile.func signatures, and the structural conversion of
/// scf and cf.
void populateTileToTileGPUPatterns(TileGPUTypeConverter &typeConverter,
                                   mlir::RewritePatternSet &patterns,
                                   mlir::ConversionTarget &target);

#define GEN_PASS_REGISTRATION
#include "warpforge/Conversion/TileToTileGPU/Passes.h.inc"

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILETOTILEGPU_PASSES_H
