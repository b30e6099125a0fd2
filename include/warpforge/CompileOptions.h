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
  /// CTAs per cluster. Only 1 is supported yet.
  int numCtas = 1;
  /// Consumer warpgroups of a warp-specialized kernel; 0: no warp
  /// specialization. Not supported yet: the stages reject a non-zero value.
  int numConsumerGroups = 0;
  /// Shared-memory buffers between producer and consumers of a
  /// warp-specialized kernel.
  int numBuffersWarpSpec = 0;
  /// Compute capability as major * 10 + minor (90: sm_90a).
  int computeCapability = 90;
};

} // namespace warpforge

#endif // WARPFORGE_COMPILEOPTIONS_H
