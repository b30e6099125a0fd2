"""Memory-bound kernels in Triton's language, shared by Triton and warpforge.

`common.load_kernels` executes this file once per JIT, after setting BACKEND
("triton" or "warpforge") in the module's namespace, so that the very same
source is compiled by both. The kernels are module-level functions: both JITs
read their source with `inspect`.

Each `*_call` function returns what one launch needs, `(kernel, grid, args,
meta)`, for `kernel[grid](*args, **meta)`: the benchmark times only that
call, and the CPU dry run compiles the same specializations with `warmup`.
Arguments are torch tensors on the GPU, or NumPy arrays for the interpreter.
"""

if globals().get("BACKEND", "warpforge") == "triton":
    import triton as jit_backend
    import triton.language as tl
else:
    import warpforge as jit_backend
    import warpforge.language as tl


@jit_backend.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@jit_backend.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    # One program per row; the whole row lives in registers (BLOCK_SIZE >= n_cols).
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    # Padding with -inf leaves the max unchanged and adds exp(-inf) = 0 to the sum.
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    shifted = x - tl.max(x, axis=0)
    numerator = tl.exp(shifted)
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@jit_backend.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, row_stride, n_cols, eps,
                      BLOCK_SIZE: tl.constexpr):
    # One program per row, read once: statistics in fp32, then the affine map.
    row = tl.program_id(axis=0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centered = tl.where(mask, x - mean, 0.0)
    var = tl.sum(centered * centered, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = centered * rstd * w + b
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    tl.store(y_ptr + row * row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def _row_stride(t):
    """Elements between rows: torch's stride(0), or NumPy's in bytes / itemsize."""
    stride = getattr(t, "stride", None)
    return stride(0) if callable(stride) else t.strides[0] // t.itemsize


def _rows(x, out):
    if len(x.shape) != 2 or tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"expected two 2-D arrays of one shape, got {tuple(x.shape)} and "
                         f"{tuple(out.shape)}")
    if _row_stride(x) != _row_stride(out):
        raise ValueError("input and output must have the same row stride")
    return x.shape


def add_call(x, y, out, block_size=1024):
    n = x.shape[0]
    return add_kernel, (jit_backend.cdiv(n, block_size),), (x, y, out, n), {
        "BLOCK_SIZE": block_size}


def softmax_num_warps(block_size):
    # The Triton tutorial's heuristic: more warps as rows get wider.
    if block_size >= 4096:
        return 16
    if block_size >= 2048:
        return 8
    return 4


def softmax_call(x, out):
    n_rows, n_cols = _rows(x, out)
    block = jit_backend.next_power_of_2(n_cols)
    args = (out, x, _row_stride(x), _row_stride(out), n_cols)
    return softmax_kernel, (n_rows,), args, {"BLOCK_SIZE": block,
                                             "num_warps": softmax_num_warps(block)}


def layer_norm_call(x, weight, bias, eps, out, mean, rstd):
    n_rows, n_cols = _rows(x, out)
    # A row is kept in registers: at most 64 KB of it, as in the Triton tutorial.
    max_block = 65536 // x.itemsize
    block = jit_backend.next_power_of_2(n_cols)
    if block > max_block:
        raise ValueError(f"layer norm rows of {n_cols} elements do not fit one block "
                         f"(at most {max_block})")
    num_warps = min(max(block // 256, 1), 8)
    args = (x, out, weight, bias, mean, rstd, _row_stride(x), n_cols, eps)
    return layer_norm_kernel, (n_rows,), args, {"BLOCK_SIZE": block, "num_warps": num_warps}
