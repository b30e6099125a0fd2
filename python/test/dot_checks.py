"""The check of a product's output shared by the GPU dot tests."""


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
