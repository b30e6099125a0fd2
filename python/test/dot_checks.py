"""What the GPU dot tests share: random operands, a poisoned output buffer
and the check of a product against float64."""


def make(shape, dtype, gen):
    """Random operands: int8 over its whole range, floats from N(0, 1)."""
    import torch
    if dtype == torch.int8:
        return torch.randint(-128, 128, shape, device="cuda", dtype=torch.int8, generator=gen)
    return torch.randn(shape, device="cuda", dtype=torch.float64, generator=gen).to(dtype)


def poisoned_output(shape, dtype):
    """(output, tail, poison): an output of `shape` at the start of a larger
    buffer filled with NaN (INT32_MIN for int32), and the 64 elements after
    it, which a kernel must leave poisoned."""
    import math
    import torch
    poison = torch.iinfo(torch.int32).min if dtype == torch.int32 else float("nan")
    size = math.prod(shape)
    buf = torch.full((size + 64,), poison, device="cuda", dtype=dtype)
    return buf[:size].view(*shape), buf[size:], poison


def check_product(a, b, c, tail, poison, tol, what):
    """`c` against a @ b in float64 (relative to its largest element);
    every element written, and the poisoned `tail` after it untouched."""
    import torch
    ref = a.to(torch.float64) @ b.to(torch.float64)
    is_int = c.dtype == torch.int32
    assert (tail == poison).all() if is_int else tail.isnan().all()
    out = c.to(torch.float64)
    assert not out.isnan().any(), "elements left unwritten"
    if is_int:
        assert (out != poison).all()
    err = (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)
    assert err <= tol, f"{what}: relative error {err}"
