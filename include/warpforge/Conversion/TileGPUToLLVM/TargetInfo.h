//===- TargetInfo.h - What the lowering knows about the GPU -----*- C++ -*-===//
//
// The facts about the target the lowering to LLVM and NVVM depends on, in
// one place.  The module's `tilegpu.target` attribute (`cuda:<cc>`, set by
// convert-tile-to-tilegpu) is their one source: convert-tilegpu-to-llvm
// reads it once and hands the result to every pattern.  Facts that are the
// same on every NVIDIA GPU warpforge supports (warp size, the shared
// address space) are constants, so that helpers called without a
// TargetInfo use the same names.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_CONVERSION_TILEGPUTOLLVM_TARGETINFO_H
#define WARPFORGE_CONVERSION_TILEGPUTOLLVM_TARGETINFO_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace warpforge {

class TargetInfo {
public:
  /// Threads per warp.
  static constexpr unsigned kWarpSize = 32;
  /// NVPTX address spaces of global and shared memory.
  static constexpr unsigned kGlobalAddressSpace = 1;
  static constexpr unsigned kSharedAddressSpace = 3;
  /// Bits of a shared-memory address: the NVPTX data layout warpforge uses
  /// (nvptx-short-ptr) makes them 32-bit, so inline PTX passes them in `r`
  /// registers and no 64-bit copy of the address is made.
  static constexpr unsigned kSharedPointerBits = 32;
  explicit TargetInfo(int computeCapability)
      : computeCapability(computeCapability) {}

  /// The target `module` is compiled for (CompileOptions' default when it
  /// has no `tilegpu.target`); an error at the module's location
  /// when its `tilegpu.target` is not `cuda:<compute capability>`.
  static mlir::FailureOr<TargetInfo> fromModule(mlir::ModuleOp module);

  /// E.g. 90 for sm_90.
  int getComputeCapability() const { return computeCapability; }
  /// `cuda:<cc>`, as the attribute spells it.
  std::string getTargetName() const;

  /// Hopper's warpgroup MMA (wgmma.*), part of the architecture-specific
  /// sm_90a feature set, which warpforge compiles sm_90 code for; later
  /// architectures do not carry sm_90a features.
  bool supportsWgmma() const { return computeCapability == 90; }
  /// Warp-level tensor-core products `mma.sync.aligned.m16n8k*` for f16,
  /// bf16, tf32 and s8 (sm_80 and later).
  bool supportsMmaSync() const { return computeCapability >= 80; }
  /// `fence.proxy.async` (sm_90 and later).
  bool supportsAsyncProxy() const { return computeCapability >= 90; }
  /// The Tensor Memory Accelerator (cp.async.bulk.tensor, mbarrier
  /// transaction counts, tensormap.replace: sm_90a).
  bool supportsTMA() const { return computeCapability >= 90; }
  /// `cp.async` (sm_80 and later).
  bool supportsCpAsync() const { return computeCapability >= 80; }
  /// cvt between fp8 (e4m3, e5m2) and f16/f32 (sm_89, Ada).
  bool supportsFp8Conversions() const { return computeCapability >= 89; }
  /// `griddepcontrol` for programmatic dependent launch (sm_90 and later).
  bool supportsGridDependencyControl() const { return computeCapability >= 90; }

private:
  int computeCapability;
};

} // namespace warpforge

#endif // WARPFORGE_CONVERSION_TILEGPUTOLLVM_TARGETINFO_H
