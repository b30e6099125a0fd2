"""The IR attribute names Python writes or reads, in one place.

They mirror the C++ declarations: the tile dialect's (`TileDialect.td`:
`TileDialect::kDivisibility`, ...) and the facts a tilegpu module carries
(`warpforge/Dialect/TileGPU/IR/ModuleAttrs.h`: `tilegpu::attr::kNumWarps`,
...). `python/test/test_options.py` checks the module attributes against
what the stages actually record.
"""

# On kernel arguments (and, as hints, on ops).
DIVISIBILITY = "tile.divisibility"
# On scf.for, from tl.range(...).
NUM_STAGES = "tile.num_stages"
LOOP_UNROLL_FACTOR = "tile.loop_unroll_factor"
WARP_SPECIALIZE = "tile.warp_specialize"
# On scf.for and scf.while, from tl.range(disable_licm=True) and
# tl.condition(c, disable_licm=True): LLVM's loop metadata, which the
# lowering carries to the loop's back edge (`llvm.licm.disable`).
DISABLE_LICM = "loop_annotation = #llvm.loop_annotation<licm = <disable = true>>"

# On a tilegpu module: the compile options convert-tile-to-tilegpu stamps...
NUM_WARPS = "tilegpu.num-warps"
THREADS_PER_WARP = "tilegpu.threads-per-warp"
NUM_STAGES_MODULE = "tilegpu.num-stages"
NUM_CTAS = "tilegpu.num-ctas"
NUM_CONSUMER_GROUPS = "tilegpu.num-consumer-groups"
NUM_BUFFERS_WARP_SPEC = "tilegpu.num-buffers-warp-spec"
TARGET = "tilegpu.target"
# ...and what tilegpu-allocate-shared-memory computes.
SHARED_BYTES = "tilegpu.shared"
SHARED_LIMIT = "tilegpu.shared-limit"
SHARED_PIPELINED = "tilegpu.shared-pipelined"
# Global scratch per program for tensor maps made on the device.
GLOBAL_SCRATCH_BYTES = "tilegpu.global-scratch-bytes"
GLOBAL_SCRATCH_ALIGN = "tilegpu.global-scratch-align"
# Set when only tensor maps the compiler made use it (pointer loads the
# warp-specialized producer copies with the TMA).
GLOBAL_SCRATCH_IMPLICIT = "tilegpu.global-scratch-implicit"
HOST_TENSOR_MAPS = "tilegpu.host-tensor-maps"
# From tile-cluster-split (num_ctas): the kernel arguments that are host
# descriptors whose tensor maps are encoded for a CTA's slice of the block,
# [{arg, block}] (arg: the kernel parameter's index).
DESCRIPTOR_BLOCKS = "tile.descriptor-blocks"
# Warps warp_specialize partitions add to num-warps (convert-tilegpu-to-llvm).
PARTITION_WARPS = "tilegpu.partition-warps"
# Kernels tilegpu-warp-specialize specialized (absent: none).
WARP_SPECIALIZED = "tilegpu.warp-specialized"

MODULE_OPTIONS = (NUM_WARPS, THREADS_PER_WARP, NUM_STAGES_MODULE, NUM_CTAS,
                  NUM_CONSUMER_GROUPS, NUM_BUFFERS_WARP_SPEC, TARGET)
