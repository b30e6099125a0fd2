//===- ModuleAttrs.h - Facts a tilegpu module carries -----------*- C++ -*-===//
//
// `convert-tile-to-tilegpu` stamps the compilation's options on the module
// once (`tilegpu.num-warps`, `tilegpu.num-stages`, `tilegpu.target`, ...);
// `tilegpu-allocate-shared-memory` adds what it computes
// (`tilegpu.shared`).  Every later pass and the Python side read them here,
// by name, never as bare strings.  A module without an attribute (IR written
// by hand, as lit tests do) reads the default of `CompileOptions`.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_DIALECT_TILEGPU_IR_MODULEATTRS_H
#define WARPFORGE_DIALECT_TILEGPU_IR_MODULEATTRS_H

#include "warpforge/CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace warpforge::tilegpu {

/// The module attributes' names.
namespace attr {
inline constexpr llvm::StringLiteral kNumWarps = "tilegpu.num-warps";
inline constexpr llvm::StringLiteral kThreadsPerWarp =
    "tilegpu.threads-per-warp";
inline constexpr llvm::StringLiteral kNumStages = "tilegpu.num-stages";
/// Registers per thread the kernel may use (PTX .maxnreg); absent: no cap.
inline constexpr llvm::StringLiteral kMaxnreg = "tilegpu.maxnreg";
inline constexpr llvm::StringLiteral kNumCtas = "tilegpu.num-ctas";
inline constexpr llvm::StringLiteral kNumConsumerGroups =
    "tilegpu.num-consumer-groups";
inline constexpr llvm::StringLiteral kNumBuffersWarpSpec =
    "tilegpu.num-buffers-warp-spec";
/// Whether warp specialization runs two consumer groups that each own
/// whole tiles and take turns (ping-pong) instead of splitting each tile
/// (cooperative); num-warps is then one group's warps.
inline constexpr llvm::StringLiteral kPingPong = "tilegpu.ping-pong";
inline constexpr llvm::StringLiteral kTarget = "tilegpu.target";
inline constexpr llvm::StringLiteral kSharedBytes = "tilegpu.shared";
inline constexpr llvm::StringLiteral kSharedLimit = "tilegpu.shared-limit";
/// On overflow: the bytes of multi-buffered (pipelined) allocations.
inline constexpr llvm::StringLiteral kSharedPipelined =
    "tilegpu.shared-pipelined";
/// Global scratch each program needs (bytes, and their alignment): the
/// tensor maps of the descriptors it makes (`tile.make_tensor_descriptor`).
/// The launcher allocates this times the number of programs with the
/// allocator of `warpforge.set_allocator` and passes it as the kernel's
/// last parameter.
inline constexpr llvm::StringLiteral kGlobalScratchBytes =
    "tilegpu.global-scratch-bytes";
inline constexpr llvm::StringLiteral kGlobalScratchAlign =
    "tilegpu.global-scratch-align";
/// Set when every tensor map of the global scratch is one the compiler
/// made (tilegpu-warp-specialize's maps of pointer loads, marked with
/// kSynthesizedMap): the kernel's source asked for none, so with no
/// allocator set the runtime provides the scratch itself.
inline constexpr llvm::StringLiteral kGlobalScratchImplicit =
    "tilegpu.global-scratch-implicit";
/// On a `tile.make_tensor_descriptor` the compiler made.
inline constexpr llvm::StringLiteral kSynthesizedMap =
    "tilegpu.synthesized-map";
/// The tensor maps the launcher encodes (tilegpu-host-tensor-maps): an
/// array of {param, base, block, shape, shape_args, strides, stride_args},
/// one per kernel argument that is such a map.  `param` is that argument,
/// `base` the pointer argument; each dimension's size and stride is the
/// argument of `*_args` (sign-extended), or the constant when that is -1.
inline constexpr llvm::StringLiteral kHostTensorMaps =
    "tilegpu.host-tensor-maps";
/// Warps the kernel's tilegpu.warp_specialize partitions add to its
/// num-warps (set by convert-tilegpu-to-llvm): the launch runs
/// (num-warps + partition-warps) * 32 threads.
inline constexpr llvm::StringLiteral kPartitionWarps =
    "tilegpu.partition-warps";
/// How many kernels tilegpu-warp-specialize specialized (an i32, absent
/// when none): the frontend's cue that a kernel too large for the GPU can
/// be compiled again without warp specialization.
inline constexpr llvm::StringLiteral kWarpSpecialized =
    "tilegpu.warp-specialized";
/// Loops tilegpu-warp-specialize could not specialize: an array of
/// {loc, reason} for the frontend's warnings.
inline constexpr llvm::StringLiteral kWarpSpecializeDeclined =
    "tilegpu.warp-specialize-declined";
} // namespace attr

/// Records `options` (and a warp of `threadsPerWarp` lanes) on `module`.
void setCompileOptions(mlir::ModuleOp module, const CompileOptions &options,
                       int threadsPerWarp = 32);

/// Whether `convert-tile-to-tilegpu` has stamped the module.
bool hasCompileOptions(mlir::ModuleOp module);

int getNumWarps(mlir::ModuleOp module);
int getThreadsPerWarp(mlir::ModuleOp module);
/// Threads per CTA: warps times lanes.
int getNumThreads(mlir::ModuleOp module);
int getNumStages(mlir::ModuleOp module);
int getNumCtas(mlir::ModuleOp module);
/// tilegpu.maxnreg: the registers per thread the kernel may use (0: no cap).
int getMaxnreg(mlir::ModuleOp module);
int getNumConsumerGroups(mlir::ModuleOp module);
int getNumBuffersWarpSpec(mlir::ModuleOp module);
bool getPingPong(mlir::ModuleOp module);
/// The target, as `cuda:<compute capability>` (default `cuda:90`).
std::string getTarget(mlir::ModuleOp module);
/// The compute capability of a `cuda:<cc>` target, or nothing when the
/// text is not of that form.
std::optional<int> parseCudaTarget(llvm::StringRef target);
/// The target's string for a compute capability: `cuda:90`.
std::string formatCudaTarget(int computeCapability);

/// Global scratch per program in bytes, once assigned (nothing when the
/// kernel needs none).
std::optional<int64_t> getGlobalScratchBytes(mlir::ModuleOp module);

/// Dynamic shared memory of one CTA in bytes, once assigned.
std::optional<int64_t> getSharedBytes(mlir::ModuleOp module);

} // namespace warpforge::tilegpu

#endif // WARPFORGE_DIALECT_TILEGPU_IR_MODULEATTRS_H
