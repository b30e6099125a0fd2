"""Thread-block clusters (num_ctas) on the GPU.

With num_ctas=2 each program runs on a cluster of two CTAs, and
tile-cluster-split gives each CTA half of the rows of the program's
products (Triton's num_ctas semantics: the program's tile is the same,
only where it runs changes). Checked here, against float64 on odd sizes
with NaN-poisoned outputs:

* tutorial 09's three TMA matmuls with 256-row tiles (128 per CTA): host
  descriptors whose tensor maps the launcher encodes for a CTA's half
  (`descriptor_blocks`), and descriptors made on the device, whose block
  the split halves;
* the same under warp specialization (the tutorial's
  `tl.range(warp_specialize=True)` and `num_consumer_groups`);
* tutorial 03's masked pointer matmul;
* program ids and counts: the cluster's, as many as the grid says;
* a kernel whose tiles cannot be divided (a sum down the product's
  columns): a ClusterWarning at that line, one CTA per program, right.
"""

import warnings

import pytest

import warpforge
import warpforge.language as tl

torch = pytest.importorskip("torch")
import pointer_matmul_kernels as pmk  # noqa: E402
from sass_helpers import check_sass, needs_disassembler  # noqa: E402
import tutorial09_kernels as tut  # noqa: E402
from test_clusters import column_sums  # noqa: E402  (the kernel its CPU twin compiles)
from test_gpu_tma import (FEW_PROGRAMS, cdiv, check_output, check_tutorial,  # noqa: E402
                          f64, generator, nans, one_config, poisoned_mask)

pytestmark = [pytest.mark.gpu,
              pytest.mark.filterwarnings(
                  "ignore::warpforge.compiler.options.UnsupportedOptionWarning"),
              pytest.mark.filterwarnings("error::warpforge.ClusterWarning")]

__all__ = ["one_config"]  # the fixture, imported for the tests below

SHAPES = [(999, 517, 371), (77, 300, 136), (1024, 1024, 1024)]


def cluster_config(kernel, dtype_name, warps=4, ctas=2, **options):
    """Program tiles of 128 rows per CTA (256 x 128 for two CTAs, 512 x 128
    for four), K steps of 64 (128 for fp8), 3 stages."""
    kwargs = {"BLOCK_SIZE_M": 128 * ctas, "BLOCK_SIZE_N": 128,
              "BLOCK_SIZE_K": 128 if dtype_name == "fp8" else 64, "GROUP_SIZE_M": 8}
    if kernel != "tma":
        kwargs["EPILOGUE_SUBTILE"] = False
    hook = None if kernel == "descriptor_persistent" else tut.matmul_tma_set_block_size_hook
    return tut.triton.Config(kwargs, num_warps=warps, num_stages=3, num_ctas=ctas,
                             pre_hook=hook, **options)


def run_tutorial(kernel, dtype_name, shape, one_config, config, ctas=2):
    """test_gpu_tma's check of one launch, with the cluster config; the
    device-descriptor kernel on K and N rounded up to 16 elements (its
    strides are the contiguous tensors' own)."""
    if kernel == "descriptor_persistent":
        shape = (shape[0], cdiv(shape[1], 16) * 16, cdiv(shape[2], 16) * 16)
    programs = FEW_PROGRAMS if shape[0] != 1024 else 132 // ctas
    check_tutorial(kernel, dtype_name, shape, config, programs, one_config,
                   generator("clusters", kernel, dtype_name, shape, ctas),
                   f"{kernel} {dtype_name} {'x'.join(map(str, shape))} num_ctas={ctas}")


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", ["fp16", "bf16", "fp8"])
@pytest.mark.parametrize("kernel", ["tma", "tma_persistent", "descriptor_persistent"])
def test_tutorial_matmul_on_clusters(kernel, dtype_name, shape, one_config):
    run_tutorial(kernel, dtype_name, shape, one_config, cluster_config(kernel, dtype_name))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kernel", ["tma", "tma_persistent", "descriptor_persistent"])
def test_clusters_of_four(kernel, shape, one_config):
    """num_ctas=4: 512-row program tiles, 128 rows per CTA; with warp
    specialization each producer multicasts a quarter of B's rows."""
    run_tutorial(kernel, "fp16", shape, one_config, cluster_config(kernel, "fp16", ctas=4), 4)
    if kernel != "descriptor_persistent":
        config = cluster_config(kernel, "fp16", warps=4, ctas=4, num_consumer_groups=2,
                                num_buffers_warp_spec=3)
        with warnings.catch_warnings():
            warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
            run_tutorial(kernel, "fp16", shape, one_config, config, 4)


@pytest.mark.parametrize("shape", SHAPES[:2], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("knob", ["num_consumer_groups", "warp_specialize"])
@pytest.mark.parametrize("kernel", ["tma", "tma_persistent"])
def test_warp_specialized_matmul_on_clusters(kernel, knob, shape, one_config):
    """Each CTA's half tile, 128 x 128, on two consumer warpgroups of 64
    rows and a TMA producer."""
    if knob == "num_consumer_groups":
        config = cluster_config(kernel, "fp16", warps=4, num_consumer_groups=2,
                                num_buffers_warp_spec=3)
    else:
        # The tutorial's WARP_SPECIALIZE=True: tl.range(warp_specialize=True),
        # its num_warps warps the consumers.
        config = cluster_config(kernel, "fp16", warps=8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        if knob == "warp_specialize":
            _run_ws_spelling(kernel, shape, one_config, config)
        else:
            run_tutorial(kernel, "fp16", shape, one_config, config)


def _run_ws_spelling(kernel, shape, one_config, config):
    """The tutorial's WARP_SPECIALIZE=True, fp16, on FEW_PROGRAMS programs."""
    check_tutorial(kernel, "fp16", shape, config, FEW_PROGRAMS, one_config,
                   generator("clusters-ws", kernel, shape),
                   f"{kernel} warp_specialize=True num_ctas=2", warp_specialize=True)


@pytest.mark.parametrize("shape", [(999, 517, 371), (77, 300, 136), (512, 512, 512)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
def test_masked_pointer_matmul_on_clusters(shape, dtype):
    m, n, k = shape
    gen = generator("clusters-pointer", shape, str(dtype))
    a = (torch.randn((m, k), device="cuda", generator=gen) * k ** -0.25).to(dtype)
    b = (torch.randn((k, n), device="cuda", generator=gen) * k ** -0.25).to(dtype)
    buf = nans((m * n + 256,), dtype)
    c = buf[:m * n].view(m, n)
    grid = (cdiv(m, 128) * cdiv(n, 128),)
    pmk.masked_matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                            b.stride(1), c.stride(0), c.stride(1), BLOCK_SIZE_M=128,
                            BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
                            WARP_SPECIALIZE=False, num_warps=4, num_stages=3, num_ctas=2)
    torch.cuda.synchronize()
    guard = int((~poisoned_mask(buf[m * n:])).sum().item())
    check_output(c, f64(a) @ f64(b), 1e-2, f"masked_matmul {shape} num_ctas=2", guard)


@warpforge.jit
def ids_and_product(a_ptr, out_ptr, ids_ptr, BM: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.arange(0, BM)
    cols = tl.arange(0, 16)
    a = tl.load(a_ptr + pid * BM * 16 + rows[:, None] * 16 + cols[None, :])
    b = tl.load(a_ptr + cols[:, None] * 16 + cols[None, :])
    acc = tl.dot(a, b)
    tl.store(out_ptr + pid * BM * 16 + rows[:, None] * 16 + cols[None, :], acc)
    # Per row of the product: the program id and the program count.
    tl.store(ids_ptr + 2 * (pid * BM + rows), pid + 0 * rows)
    tl.store(ids_ptr + 2 * (pid * BM + rows) + 1, tl.num_programs(0) + 0 * rows)


def test_program_ids_are_the_clusters():
    """tl.program_id and tl.num_programs count programs (clusters), not
    CTAs: every row of every program's product gets its program's id and
    the grid's size."""
    programs, bm = 7, 128
    gen = generator("clusters-ids")
    a = torch.randn((programs * bm, 16), device="cuda", generator=gen).to(torch.float16)
    out = nans((programs * bm, 16), torch.float32)
    ids = torch.full((programs * bm, 2), -1, dtype=torch.int32, device="cuda")
    k = ids_and_product[(programs,)](a, out, ids, BM=bm, num_ctas=2)
    torch.cuda.synchronize()
    assert k.metadata["num_ctas"] == 2
    expect = torch.arange(programs, device="cuda", dtype=torch.int32).repeat_interleave(bm)
    assert torch.equal(ids[:, 0], expect)
    assert (ids[:, 1] == programs).all()
    ref = torch.cat([f64(a[p * bm:(p + 1) * bm]) @ f64(a[:16]) for p in range(programs)])
    check_output(out, ref, 1e-3, "ids_and_product num_ctas=2")


def test_declined_kernel_runs_on_one_cta_per_program():
    bm = 128
    gen = generator("clusters-declined")
    a = torch.randn((bm, 16), device="cuda", generator=gen).to(torch.float16)
    out = nans((16,), torch.float32)
    with pytest.warns(warpforge.ClusterWarning,
                      match="num_ctas=2 declined: a reduction along the rows of a product"):
        k = column_sums[(1,)](a, out, BM=bm, num_ctas=2)
    torch.cuda.synchronize()
    assert k.metadata["num_ctas"] == 1
    ref = (f64(a) @ f64(a[:16])).sum(dim=0)
    check_output(out, ref, 1e-3, "column_sums num_ctas=2 declined")


HANG_SCRIPT = """
import sys
sys.path.insert(0, {test_dir!r})
import torch, warpforge
import tutorial09_kernels as tut
torch.manual_seed(0)
# Warp-specialized persistent kernels on clusters of 2 with B multicast:
# a ring of 3 or 2 slots whose empty barriers both CTAs' consumers
# release; programs that walk several tiles, one K step, and a K loop that
# ends mid-ring.
for groups, warps, buffers in [(2, 4, 3), (2, 4, 2), (0, 8, 0)]:
    for (m, n, k) in [(999, 520, 376), (256, 128, 64), (300, 256, 1000)]:
        a = torch.randn((m, k), device="cuda").half()
        b = torch.randn((n, k), device="cuda").half()
        c = torch.empty((m, n), device="cuda", dtype=torch.float16)
        descs = [tut.TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c)]
        options = dict(num_consumer_groups=groups, num_buffers_warp_spec=buffers) if groups else {{}}
        config = tut.triton.Config(dict(BLOCK_SIZE_M=256, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                                        GROUP_SIZE_M=8, EPILOGUE_SUBTILE=False),
                                   num_warps=warps, num_stages=3, num_ctas=2,
                                   pre_hook=tut.matmul_tma_set_block_size_hook, **options)
        tut.matmul_kernel_tma_persistent.configs = [config]
        for _ in range({repeats}):
            for programs in (3, 5):
                tut.matmul_kernel_tma_persistent[(programs,)](
                    *descs, m, n, k, FP8_OUTPUT=False, WARP_SPECIALIZE=not groups,
                    NUM_SMS=programs)
        torch.cuda.synchronize()
        ref = a.float() @ b.float().T
        assert (c.float() - ref).abs().max().item() <= 1e-2 * ref.abs().max().item()
print("no hang")
"""


def test_no_hang_under_repeated_launches():
    """100 launches of each multicast configuration on 3 and 5 programs, in
    a child process that must finish within the timeout: a deadlocked
    cluster protocol (an empty barrier one CTA's consumers never release, a
    CTA gone before the other's last arrival) fails here instead of hanging
    the suite."""
    import os
    from launch_helpers import run_without_hang
    run_without_hang(HANG_SCRIPT.format(test_dir=os.path.dirname(__file__), repeats=100), 300,
                     "a multicast kernel")


@needs_disassembler
def test_multicast_in_the_sass(tmp_path):
    """The producer's copies of B are multicast TMA loads (UTMALDG ...
    MULTICAST), the kernel synchronizes the cluster (UCGABAR), and nothing
    spills or serializes the wgmma pipeline."""
    descs = [tut.TensorDescriptor.from_tensor(
        torch.empty((1024, 1024), device="cuda", dtype=torch.float16), [1, 1]) for _ in range(3)]
    meta = {"BLOCK_SIZE_M": 256, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
            "FP8_OUTPUT": False, "WARP_SPECIALIZE": False, "EPILOGUE_SUBTILE": False,
            "NUM_SMS": 66}
    tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                        "c_desc": descs[2], **meta})
    k = tut.matmul_kernel_tma_persistent.fn.warmup(
        *descs, 1024, 1024, 1024, grid=(1,), num_warps=4, num_stages=3, num_ctas=2,
        num_consumer_groups=2, num_buffers_warp_spec=3, **meta)
    sass = check_sass(k, "persistent matmul, num_ctas=2", "UTMALDG", tmp_path)
    loads = [line for line in sass.splitlines() if "UTMALDG" in line]
    assert any("MULTICAST" in line for line in loads), "\n".join(loads)
    assert "UCGABAR" in sass
