"""Blocked matrix multiplication in Triton's language, shared by Triton and warpforge.

The kernel of Triton's matrix-multiplication tutorial: each program computes
one BLOCK_SIZE_M x BLOCK_SIZE_N tile of C = A @ B, walking K in steps of
BLOCK_SIZE_K with an fp32 accumulator; programs are ordered in groups of
GROUP_SIZE_M tile rows so that neighbouring programs share tiles of A and B
in the L2 cache. The result is rounded to C's element type.

`common.load_kernels` executes this file once per JIT, after setting BACKEND
("triton" or "warpforge"), so the very same source is compiled by both, and
the very same configs (CONFIGS) are autotuned by both, keyed on M, N, K.

`matmul_call(a, b, c)` returns `(kernel, grid, args, meta)` for one launch of
the autotuned kernel; `matmul_call(a, b, c, config)` the plain kernel with
one config. Arguments are torch tensors on the GPU, or NumPy arrays for the
interpreter; A is M x K, B is K x N and C is M x N, of any strides.
"""

from collections import namedtuple

if globals().get("BACKEND", "warpforge") == "triton":
    import triton as jit_backend
    import triton.language as tl
else:
    import warpforge as jit_backend
    import warpforge.language as tl


@jit_backend.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    # Program pid -> tile (pid_m, pid_n): GROUP_SIZE_M tile rows are swept
    # column by column, so a group reuses its rows of A and its columns of B.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # Rows and columns past the edge wrap around (% M, % N): they load valid
    # data whose results the masked store below discards.
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        # The last step of K may be partial: zeros past K add nothing.
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


# One point of the tuning space, independent of the JIT.
MatmulConfig = namedtuple("MatmulConfig", "block_m block_n block_k group_m num_warps num_stages")

GROUP_SIZE_M = 8

# Hopper-sized tiles, the same for both JITs. A config whose shared memory
# (num_stages buffers of A and B tiles) exceeds the device's is skipped by
# the autotuner: both JITs raise OutOfResources for it.
CONFIGS = [
    MatmulConfig(128, 256, 64, GROUP_SIZE_M, 8, 3),
    MatmulConfig(256, 128, 64, GROUP_SIZE_M, 8, 3),
    MatmulConfig(128, 256, 64, GROUP_SIZE_M, 8, 4),
    MatmulConfig(128, 128, 64, GROUP_SIZE_M, 4, 4),
    MatmulConfig(128, 128, 64, GROUP_SIZE_M, 8, 4),
    MatmulConfig(64, 256, 32, GROUP_SIZE_M, 4, 4),
    MatmulConfig(128, 128, 32, GROUP_SIZE_M, 4, 4),
    MatmulConfig(128, 64, 32, GROUP_SIZE_M, 4, 4),
    MatmulConfig(64, 128, 32, GROUP_SIZE_M, 4, 4),
]


# Small-M tiles (decoding: M of 1 to 64 against large N and K), the same
# for both JITs: rows of 16 and 32 run on mma.sync (fewer than a
# warpgroup's 64), 64 on wgmma; narrow N and deep K keep the programs many
# and the B stream long.
SMALL_M_CONFIGS = [
    MatmulConfig(16, 32, 128, GROUP_SIZE_M, 4, 5),
    MatmulConfig(16, 32, 256, GROUP_SIZE_M, 4, 4),
    MatmulConfig(16, 64, 128, GROUP_SIZE_M, 4, 4),
    MatmulConfig(16, 64, 256, GROUP_SIZE_M, 4, 3),
    MatmulConfig(16, 128, 128, GROUP_SIZE_M, 4, 4),
    MatmulConfig(32, 64, 128, GROUP_SIZE_M, 4, 4),
    MatmulConfig(32, 128, 128, GROUP_SIZE_M, 4, 3),
    MatmulConfig(64, 64, 128, GROUP_SIZE_M, 4, 4),
    MatmulConfig(64, 128, 64, GROUP_SIZE_M, 4, 4),
]


def meta_parameters(config: MatmulConfig):
    """The kernel's constexprs for `config`."""
    return {"BLOCK_SIZE_M": config.block_m, "BLOCK_SIZE_N": config.block_n,
            "BLOCK_SIZE_K": config.block_k, "GROUP_SIZE_M": config.group_m}


def launch_options(config: MatmulConfig):
    """meta_parameters plus num_warps and num_stages: a launch's keywords."""
    return {**meta_parameters(config), "num_warps": config.num_warps,
            "num_stages": config.num_stages}


def backend_config(config: MatmulConfig):
    """`config` as this JIT's Config object."""
    return jit_backend.Config(meta_parameters(config), num_warps=config.num_warps,
                              num_stages=config.num_stages)


def describe(config) -> str:
    """'128x256x64 g8 w8 s3' for a MatmulConfig or either JIT's Config."""
    if not isinstance(config, MatmulConfig):
        kw = config.kwargs
        config = MatmulConfig(kw["BLOCK_SIZE_M"], kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"],
                              kw["GROUP_SIZE_M"], config.num_warps, config.num_stages)
    return (f"{config.block_m}x{config.block_n}x{config.block_k} g{config.group_m} "
            f"w{config.num_warps} s{config.num_stages}")


matmul_autotuned = jit_backend.autotune(configs=[backend_config(c) for c in CONFIGS],
                                        key=["M", "N", "K"])(matmul_kernel)
matmul_small_m_autotuned = jit_backend.autotune(
    configs=[backend_config(c) for c in SMALL_M_CONFIGS], key=["M", "N", "K"])(matmul_kernel)


def _strides(t):
    """Elements between neighbours along each axis: torch's stride(), or
    NumPy's byte strides / itemsize."""
    stride = getattr(t, "stride", None)
    if callable(stride):
        return tuple(stride())
    return tuple(s // t.itemsize for s in t.strides)


def matmul_args(a, b, c):
    """The kernel's run-time arguments for C = A @ B (shapes checked)."""
    if len(a.shape) != 2 or len(b.shape) != 2 or len(c.shape) != 2:
        raise ValueError(f"matmul needs 2-D arrays, got shapes {tuple(a.shape)}, "
                         f"{tuple(b.shape)}, {tuple(c.shape)}")
    (M, K), (K2, N) = a.shape, b.shape
    if K != K2 or tuple(c.shape) != (M, N):
        raise ValueError(f"matmul shapes do not match: A {tuple(a.shape)} @ B {tuple(b.shape)} "
                         f"-> C {tuple(c.shape)}")
    return (a, b, c, M, N, K, *_strides(a), *_strides(b), *_strides(c))


def matmul_grid(M, N):
    """One program per tile of C, for whichever block sizes a launch uses."""
    return lambda meta: (jit_backend.cdiv(M, meta["BLOCK_SIZE_M"])
                         * jit_backend.cdiv(N, meta["BLOCK_SIZE_N"]),)


def matmul_call(a, b, c, config=None, small_m=False):
    """(kernel, grid, args, meta): the autotuned kernel when `config` is None
    (over SMALL_M_CONFIGS with `small_m`), else the plain kernel with that
    MatmulConfig (or either JIT's Config)."""
    args = matmul_args(a, b, c)
    grid = matmul_grid(args[3], args[4])
    if config is None:
        return (matmul_small_m_autotuned if small_m else matmul_autotuned), grid, args, {}
    meta = launch_options(config) if isinstance(config, MatmulConfig) else \
        {**config.kwargs, "num_warps": config.num_warps, "num_stages": config.num_stages}
    return matmul_kernel, grid, args, meta
