//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// The `tile` dialect is warpforge's front-end IR: block-level tensor programs
// at the level of Triton's language, before any GPU layout is chosen.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_TILE_DIALECT
#define WARPFORGE_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::warpforge::tile";
  let summary = "Block-level tensor programs for GPU kernels";
  let description = [{
    The `tile` dialect describes what one program instance (one CTA) of a
    kernel computes, on whole tensors: pointer arithmetic over tensors of
    pointers, masked loads and stores, matrix products, reductions, scans,
    atomics and TMA tensor descriptors.  It carries no GPU layout; the
    `tilegpu` dialect adds layouts later in the pipeline.

    Element-wise arithmetic uses the `arith` and `math` dialects on tensors
    and control flow uses `scf`.

    The discardable attributes `tile.divisibility`, `tile.contiguity` and
    `tile.constancy` (`array<i32>`, one positive entry per dimension of the
    op's single integer or pointer result; one for a scalar) are hints for
    the axis analysis, from `tl.multiple_of`, `tl.max_contiguous` and
    `tl.max_constancy`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::cf::ControlFlowDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();

    /// Attribute names the frontend writes and passes read.  On kernel
    /// arguments and on ops (the axis analysis' hints, per dimension):
    static constexpr llvm::StringLiteral kDivisibility = "tile.divisibility";
    static constexpr llvm::StringLiteral kContiguity = "tile.contiguity";
    static constexpr llvm::StringLiteral kConstancy = "tile.constancy";
    /// On scf.for, from tl.range(...):
    static constexpr llvm::StringLiteral kNumStages = "tile.num_stages";
    static constexpr llvm::StringLiteral kLoopUnrollFactor =
        "tile.loop_unroll_factor";
    static constexpr llvm::StringLiteral kWarpSpecialize =
        "tile.warp_specialize";
    /// On the module, from tile-cluster-split: the CTAs each program runs
    /// on (num_ctas), once its tiles are split among them.
    static constexpr llvm::StringLiteral kNumCtas = "tile.num-ctas";
    /// On the module, from tile-cluster-split: an array of {arg, block},
    /// the kernel arguments that are host tensor descriptors whose block
    /// each CTA of a cluster moves a slice of; the launcher encodes their
    /// tensor maps for `block` (the frontend's block stays the one the
    /// descriptor object is checked against).
    static constexpr llvm::StringLiteral kDescriptorBlocks =
        "tile.descriptor-blocks";
    /// On a tile.descriptor_load, from tile-cluster-split: every CTA of the
    /// cluster loads the same block (a multicast candidate).
    static constexpr llvm::StringLiteral kClusterReplicated =
        "tile.cluster_replicated";
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // WARPFORGE_TILE_DIALECT
