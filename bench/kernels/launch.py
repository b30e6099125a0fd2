"""Kernels for the launch-overhead benchmark, in Triton's language, shared
by Triton and warpforge (`common.load_kernels` sets BACKEND).

Each is small enough that a launch is all host work: what is timed is the
path from `kernel[grid](...)` to the driver, with the argument mixes users
launch millions of times (decode steps, fused element-wise ops).
"""

if globals().get("BACKEND", "warpforge") == "triton":
    import triton as jit_backend
    import triton.language as tl
else:
    import warpforge as jit_backend
    import warpforge.language as tl


@jit_backend.jit
def empty(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    """Four arguments, no work."""
    pass


@jit_backend.jit
def empty_axpy_args(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    """axpy's arguments, no work: what axpy's launch costs beyond the empty
    kernel's is the float argument's (host) or its work's (GPU)."""
    pass


@jit_backend.jit
def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    """out = alpha * x + y: three tensors, an int and a float."""
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


@jit_backend.jit
def fused_bias_act(x_ptr, bias_ptr, residual_ptr, out_ptr, rows, cols, stride_x,
                   stride_out, scale, eps, HAS_RESIDUAL: tl.constexpr,
                   BLOCK_SIZE: tl.constexpr):
    """A typical fused epilogue: 12 arguments mixing tensors, None (no
    residual), ints, floats and constexprs."""
    row = tl.program_id(0)
    cols_ = tl.arange(0, BLOCK_SIZE)
    mask = cols_ < cols
    x = tl.load(x_ptr + row * stride_x + cols_, mask=mask, other=0.0)
    x = x * scale + tl.load(bias_ptr + cols_, mask=mask, other=0.0)
    if HAS_RESIDUAL:
        x += tl.load(residual_ptr + row * stride_x + cols_, mask=mask, other=0.0)
    x = tl.where(x > eps, x, 0.0)
    tl.store(out_ptr + row * stride_out + cols_, x, mask=mask)


def cases(torch):
    """name -> (kernel name, grid, args, meta, torch equivalent or None)."""
    x, y, out = (torch.randn(4096, device="cuda") for _ in range(3))
    m = torch.randn((64, 1024), device="cuda")
    bias, o = torch.randn(1024, device="cuda"), torch.empty((64, 1024), device="cuda")
    return {
        "empty (4 args)": ("empty", (4,), (x, y, out, 4000), {"BLOCK_SIZE": 1024}, None),
        "empty (axpy's 5 args)": ("empty_axpy_args", (4,), (x, y, out, 4000, 0.5),
                                  {"BLOCK_SIZE": 1024}, None),
        "axpy (5 args, float)": ("axpy", (4,), (x, y, out, 4000, 0.5), {"BLOCK_SIZE": 1024},
                                 lambda: torch.add(y, x, alpha=0.5, out=out)),
        "fused epilogue (12 args, None)": (
            "fused_bias_act", (64,), (m, bias, None, o, 64, 1024, 1024, 1024, 0.5, 1e-6),
            {"HAS_RESIDUAL": False, "BLOCK_SIZE": 1024}, None),
    }
