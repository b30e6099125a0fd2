"""fp8 matrix multiplication with scales, in Triton's language, shared by Triton and warpforge.

Two kernels, both persistent (min(SMs, tiles) programs walking the tiles of
C in grouped order, as tutorial 09's matmul_kernel_tma_persistent), both
reading A (M x K) and B given K-major (N x K, as torch._scaled_mm and
tutorial 09 take it) through host TMA descriptors, fp8 e4m3 or e5m2, with
fp32 accumulation and a bf16 (or fp16) output written through a TMA
descriptor:

* `fp8_scaled_matmul_kernel`: C = (A @ B) * a_scale * b_scale with
  per-tensor scales, each a 1-element fp32 tensor (torch._scaled_mm's
  tensor-wise scaling). WARP_SPECIALIZE goes to the tile loop's
  tl.range(..., warp_specialize=...), so that warpforge can specialize it
  (producer warps issuing the TMA loads); warpforge's knobs
  num_consumer_groups, num_buffers_warp_spec and ping_pong apply to it.
* `fp8_block_scaled_matmul_kernel`: DeepSeek-V3's fine-grained scaling,
  what the H100 allows without Blackwell's block-scaled MMA: A scaled per
  1 x 128 block (a_scale, M x cdiv(K, 128) fp32), B per 128 x 128 block
  (b_scale, cdiv(N, 128) x cdiv(K, 128) fp32). BLOCK_SIZE_K is 128, one
  scale block: each K step computes a fresh fp32 partial product
  tl.dot(a, b.T) and adds it to the accumulator scaled by A's scale of each
  row and B's scale of each column's block.

`common.load_kernels` executes this file once per JIT, after setting
BACKEND ("triton" or "warpforge"), so the very same source is compiled by
both. `scaled_call` and `block_scaled_call` return `(kernel, grid, args,
meta)` for one launch; arguments are torch tensors on the GPU, or NumPy
arrays (fp8 ones wrapped by `reinterpret(uint8 array, tl.float8e4nv)`) for
the interpreter.
"""

from collections import namedtuple

if globals().get("BACKEND", "warpforge") == "triton":
    import triton as jit_backend
    import triton.language as tl
    from triton.tools.tensor_descriptor import TensorDescriptor
else:
    import warpforge as jit_backend
    import warpforge.language as tl
    from warpforge.tools.tensor_descriptor import TensorDescriptor

# The scale blocks of the block-scaled kernel: A's 1 x 128, B's 128 x 128.
SCALE_BLOCK = 128


@jit_backend.jit
def _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    # Tile -> (pid_m, pid_n), GROUP_SIZE_M tile rows swept column by column
    # (tutorial 09's _compute_pid).
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@jit_backend.jit
def fp8_scaled_matmul_kernel(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr,
                             M, N, K,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                             NUM_SMS: tl.constexpr, WARP_SPECIALIZE: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    # The per-tensor scales, once per program.
    scale = tl.load(a_scale_ptr) * tl.load(b_scale_ptr)

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        # K past the end: the TMA fills zeros, which add nothing.
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        c = (accumulator * scale).to(c_desc.dtype)
        c_desc.store([offs_am, offs_bn], c)


@jit_backend.jit
def fp8_block_scaled_matmul_kernel(a_desc, b_desc, c_desc, a_scale_ptr, b_scale_ptr,
                                   M, N, K,
                                   stride_as_m, stride_as_k, stride_bs_n, stride_bs_k,
                                   BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                                   BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                                   SCALE_BLOCK_N: tl.constexpr, NUM_SMS: tl.constexpr,
                                   WARP_SPECIALIZE: tl.constexpr):
    # One K step is one scale block of A (1 x BLOCK_SIZE_K) and of B.
    tl.static_assert(BLOCK_SIZE_K == SCALE_BLOCK_N)
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=WARP_SPECIALIZE):
        pid_m, pid_n = _tile_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        # Each row's scales of A and each column's (its block's) of B;
        # rows and columns past the end read none (their results are not
        # stored).
        rows = offs_am + tl.arange(0, BLOCK_SIZE_M)
        cols = offs_bn + tl.arange(0, BLOCK_SIZE_N)
        a_scale_ptrs = a_scale_ptr + rows * stride_as_m
        b_scale_ptrs = b_scale_ptr + (cols // SCALE_BLOCK_N) * stride_bs_n
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            partial = tl.dot(a, b.T)
            a_s = tl.load(a_scale_ptrs + ki * stride_as_k, mask=rows < M, other=0.0)
            b_s = tl.load(b_scale_ptrs + ki * stride_bs_k, mask=cols < N, other=0.0)
            accumulator += partial * a_s[:, None] * b_s[None, :]
        c = accumulator.to(c_desc.dtype)
        c_desc.store([offs_am, offs_bn], c)


# One launch's tiles and resources, independent of the JIT.
Fp8Config = namedtuple("Fp8Config", "block_m block_n block_k group_m num_warps num_stages")

# The benchmark's configs. The per-tensor kernel: tutorial 09's fp8 config,
# 128 x 256 tiles, K steps of 128, 8 warps, 3 stages (its scale multiply
# and cast run in the accumulator's wgmma layout, so the epilogue
# exchanges the bf16 tile: 214 KB of shared memory in all).
# The block-scaled kernel's K step is its scale block (128); 128 x 128
# tiles keep one B scale per tile and leave registers for the partial
# product beside the accumulator; 8 warps (4 spill).
SCALED_CONFIG = Fp8Config(128, 256, 128, 8, 8, 3)
BLOCK_SCALED_CONFIG = Fp8Config(128, 128, 128, 8, 8, 3)


def describe(config) -> str:
    """'128x256x128 g8 w8 s3'."""
    return (f"{config.block_m}x{config.block_n}x{config.block_k} g{config.group_m} "
            f"w{config.num_warps} s{config.num_stages}")


def _cdiv(x: int, y: int) -> int:
    return (x + y - 1) // y


def _strides(t):
    stride = getattr(t, "stride", None)
    if callable(stride):
        return tuple(stride())
    return tuple(s // t.itemsize for s in t.strides)


def _shapes(a, b_t, c):
    M, K = a.shape
    N = b_t.shape[0]
    if len(a.shape) != 2 or tuple(b_t.shape) != (N, K) or tuple(c.shape) != (M, N):
        raise ValueError(f"fp8 matmul shapes do not match: A {tuple(a.shape)}, B^T "
                         f"{tuple(b_t.shape)}, C {tuple(c.shape)}")
    return M, N, K


def _descriptors(a, b_t, c, config):
    return (TensorDescriptor.from_tensor(a, [config.block_m, config.block_k]),
            TensorDescriptor.from_tensor(b_t, [config.block_n, config.block_k]),
            TensorDescriptor.from_tensor(c, [config.block_m, config.block_n]))


def _meta(config, num_sms, warp_specialize, options):
    meta = {"BLOCK_SIZE_M": config.block_m, "BLOCK_SIZE_N": config.block_n,
            "BLOCK_SIZE_K": config.block_k, "GROUP_SIZE_M": config.group_m,
            "NUM_SMS": num_sms, "WARP_SPECIALIZE": warp_specialize,
            "num_warps": config.num_warps, "num_stages": config.num_stages}
    meta.update(options or {})
    return meta


def scaled_call(a, b_t, c, a_scale, b_scale, config=SCALED_CONFIG, num_sms=132,
                warp_specialize=False, options=None):
    """(kernel, grid, args, meta) of C = (A @ B) * a_scale * b_scale: A M x K,
    B^T N x K (both fp8), C M x N (bf16 or fp16), the scales 1-element fp32
    tensors; min(num_sms, tiles) programs. `options` adds launch keywords
    (warpforge's num_consumer_groups, num_buffers_warp_spec, ping_pong)."""
    M, N, K = _shapes(a, b_t, c)
    tiles = _cdiv(M, config.block_m) * _cdiv(N, config.block_n)
    return (fp8_scaled_matmul_kernel, (min(num_sms, tiles),),
            (*_descriptors(a, b_t, c, config), a_scale, b_scale, M, N, K),
            _meta(config, num_sms, warp_specialize, options))


def block_scaled_call(a, b_t, c, a_scale, b_scale, config=BLOCK_SCALED_CONFIG, num_sms=132,
                      warp_specialize=False, options=None):
    """(kernel, grid, args, meta) of the block-scaled product: A M x K, B^T
    N x K (fp8), a_scale M x cdiv(K, 128), b_scale cdiv(N, 128) x
    cdiv(K, 128) (fp32, any strides), C M x N; config.block_k must be 128."""
    M, N, K = _shapes(a, b_t, c)
    k_blocks = _cdiv(K, SCALE_BLOCK)
    if tuple(a_scale.shape) != (M, k_blocks) or \
            tuple(b_scale.shape) != (_cdiv(N, SCALE_BLOCK), k_blocks):
        raise ValueError(f"block scales of A {tuple(a_scale.shape)} and B "
                         f"{tuple(b_scale.shape)}: expected {(M, k_blocks)} and "
                         f"{(_cdiv(N, SCALE_BLOCK), k_blocks)}")
    if config.block_k != SCALE_BLOCK:
        raise ValueError(f"the block-scaled kernel's K step is its scale block, "
                         f"{SCALE_BLOCK}; got BLOCK_SIZE_K {config.block_k}")
    tiles = _cdiv(M, config.block_m) * _cdiv(N, config.block_n)
    meta = _meta(config, num_sms, warp_specialize, options)
    meta["SCALE_BLOCK_N"] = SCALE_BLOCK
    return (fp8_block_scaled_matmul_kernel, (min(num_sms, tiles),),
            (*_descriptors(a, b_t, c, config), a_scale, b_scale, M, N, K,
             *_strides(a_scale), *_strides(b_scale)),
            meta)
