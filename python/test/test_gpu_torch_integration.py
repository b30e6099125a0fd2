"""warpforge kernels inside torch's machinery (issue 18): a warm
`kernel[grid](...)` captured into a CUDA graph and replayed with new
inputs, launched on a side stream under capture, and called from a
function compiled by `torch.compile` (dynamo breaks its graph at the
launch, the kernel runs eagerly between the two halves)."""

import os

import pytest

import warpforge
import warpforge.language as tl

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu

BLOCK = 1024


@warpforge.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, alpha * x + y, mask=mask)


def _inputs(n, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.randn(n, device="cuda", generator=g)
    out = torch.full((n,), float("nan"), device="cuda")
    return x, y, out


def test_cuda_graph_capture_and_replay():
    """Warmed up on a side stream (as torch's graph docs ask), captured,
    then replayed after the inputs change in place: the replay reads the
    new values, and the scalar is the captured one."""
    n = 98_433
    x, y, out = _inputs(n, 1)
    grid = (warpforge.cdiv(n, BLOCK),)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        axpy_kernel[grid](x, y, out, n, 0.5, BLOCK=BLOCK)
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, 0.5 * x + y)

    graph = torch.cuda.CUDAGraph()
    out.fill_(float("nan"))
    with torch.cuda.graph(graph):
        axpy_kernel[grid](x, y, out, n, 0.5, BLOCK=BLOCK)
    # Captured, not run: out is still NaN.
    torch.cuda.synchronize()
    assert torch.isnan(out).all()
    for seed in (2, 3):
        x2, y2, _ = _inputs(n, seed)
        x.copy_(x2)
        y.copy_(y2)
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, 0.5 * x2 + y2)


def test_graph_of_several_launches_keeps_their_order():
    """Two launches in one graph, the second reading the first's output."""
    n = 4097
    x, y, tmp = _inputs(n, 4)
    out = torch.full_like(tmp, float("nan"))
    grid = (warpforge.cdiv(n, BLOCK),)
    axpy_kernel[grid](x, y, tmp, n, 2.0, BLOCK=BLOCK)
    axpy_kernel[grid](tmp, y, out, n, -1.0, BLOCK=BLOCK)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    tmp.fill_(float("nan"))
    out.fill_(float("nan"))
    with torch.cuda.graph(graph):
        axpy_kernel[grid](x, y, tmp, n, 2.0, BLOCK=BLOCK)
        axpy_kernel[grid](tmp, y, out, n, -1.0, BLOCK=BLOCK)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, -(2.0 * x + y) + y)


def test_call_inside_torch_compile():
    """A launch inside a torch.compile'd function: dynamo breaks the graph
    there and the kernel runs; the result matches eager."""
    torch._dynamo.reset()
    n = 1000

    def f(x, y):
        out = torch.empty_like(x)
        axpy_kernel[(warpforge.cdiv(n, BLOCK),)](x, y, out, n, 3.0, BLOCK=BLOCK)
        return out.sin() + 1

    compiled = torch.compile(f, backend="aot_eager")
    for seed in (5, 6, 7):
        x, y, _ = _inputs(n, seed)
        got = compiled(x, y)
        torch.cuda.synchronize()
        torch.testing.assert_close(got, (3.0 * x + y).sin() + 1)
    # Dynamo skips warpforge's files (warpforge.runtime.dynamo): it breaks
    # the graph at the launch instead of tracing the launch path.
    from torch._dynamo import trace_rules
    from warpforge.runtime import dynamo
    assert dynamo.registered()
    package = os.path.dirname(warpforge.__file__)
    assert any(package.startswith(d.rstrip("/")) for d in trace_rules.SKIP_DIRS)
