//===- CompileOptions.h - The options of one compilation --------*- C++ -*-===//
//
// What the JIT's stages need to know about one compilation, as one plain
// structure.  It is Python's `warpforge.compiler.options.KernelOptions`
// (the home of the options' names, defaults and validation) as it crosses
// into C++: the binding converts one into the other field by field, and a
// test checks that the defaults below agree with Python's.  The pipelines
// derive their pass options from it, and `convert-tile-to-tilegpu` stamps it
// on the module as `tilegpu.*` attributes, which later stages read through
// the accessors of `warpforge/Dialect/TileGPU/IR/ModuleAttrs.h`.
//
// Standard library only: the Python binding and API.h include it.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_COMPILEOPTIONS_H
#define WARPFORGE_COMPILEOPTIONS_H

namespace warpforge {

struct CompileOptions {
  /// Warps per CTA (a power of two, 1 to 32). With warp specialization
  /// (num_consumer_groups > 0) the warps of one group, as in Triton.
  int numWarps = 4;
  /// Buffers of the software pipeline of loops feeding dots (1: none).
  int numStages = 3;
  /// CTAs each program runs on, as a thread-block cluster (1, 2 or 4):
  /// tile-cluster-split divides the rows of the program's products.
  int numCtas = 1;
  /// Consumer groups of a warp-specialized kernel (a TMA or cp.async
  /// producer warpgroup feeds them); 0: no warp specialization.
  int numConsumerGroups = 0;
  /// Shared-memory buffers between producer and consumers of a
  /// warp-specialized kernel.
  int numBuffersWarpSpec = 0;
  /// Warp specialization with two consumer groups of numWarps warps that
  /// each own whole tiles of a persistent loop and take turns at the
  /// tensor cores (ping-pong), instead of splitting every tile.
  bool pingPong = false;
  /// The registers each thread may use (PTX `.maxnreg` on the kernel, as
  /// Triton's maxnreg); 0: as many as ptxas wants.  A warp-specialized
  /// kernel that moves registers (setmaxnreg) keeps its own share.
  int maxnreg = 0;
  /// Compute capability as major * 10 + minor (90: sm_90a).
  int computeCapability = 90;
};

/// The integer fields that pass and pipeline options spell as this
/// structure does (MLIR's generated pass options of
/// convert-tile-to-tilegpu and `CompileOptionsPipelineOptions`): the one
/// list both directions of conversion below walk.  The target differs
/// (`target = "cuda:90"` on the pass, `compute-capability` on pipelines).
#define WARPFORGE_COMPILE_OPTION_FIELDS(X)                                     \
  X(numWarps) X(numStages) X(numCtas) X(numConsumerGroups) X(numBuffersWarpSpec) \
  X(pingPong) X(maxnreg)

/// The CompileOptions of such pass or pipeline options.
template <typename Options>
CompileOptions toCompileOptions(const Options &from, int computeCapability) {
  CompileOptions to;
#define WARPFORGE_COPY_FIELD(field) to.field = from.field;
  WARPFORGE_COMPILE_OPTION_FIELDS(WARPFORGE_COPY_FIELD)
#undef WARPFORGE_COPY_FIELD
  to.computeCapability = computeCapability;
  return to;
}

/// Sets such pass or pipeline options from `from` (all but the target).
template <typename Options>
void setCompileOptionFields(const CompileOptions &from, Options &to) {
#define WARPFORGE_COPY_FIELD(field) to.field = from.field;
  WARPFORGE_COMPILE_OPTION_FIELDS(WARPFORGE_COPY_FIELD)
#undef WARPFORGE_COPY_FIELD
}

} // namespace warpforge

#endif // WARPFORGE_COMPILEOPTIONS_H
