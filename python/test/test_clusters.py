"""num_ctas (thread-block clusters) through the compiler, without a GPU:
what tile-cluster-split makes of real kernels, what reaches the PTX and the
launcher, and the warnings when a kernel's tiles cannot be divided.
test_gpu_clusters.py runs the same kernels on the H100."""

import warnings

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge.tools.tensor_descriptor import TensorDescriptor

import tutorial09_kernels as tut
from test_tma_frontend import aligned


@pytest.fixture(autouse=True)
def compile_every_time(monkeypatch):
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")


def tutorial_warmup(kernel=tut.matmul_kernel_tma, block_m=256, **options):
    """Tutorial 09's kernel for 1024^3 fp16 with block_m x 128 program
    tiles (the persistent one on 132 / num_ctas programs)."""
    descs = [TensorDescriptor.from_tensor(aligned((1024, 1024), np.float16), [1, 1])
             for _ in range(3)]
    meta = {"BLOCK_SIZE_M": block_m, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
            "GROUP_SIZE_M": 8, "FP8_OUTPUT": False,
            "WARP_SPECIALIZE": options.pop("warp_specialize", False)}
    if kernel is tut.matmul_kernel_tma_persistent:
        meta.update(EPILOGUE_SUBTILE=False, NUM_SMS=132 // options.get("num_ctas", 1))
    tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                        "c_desc": descs[2], **meta})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", warpforge.UnsupportedOptionWarning)
        warnings.simplefilter("error", warpforge.ClusterWarning)
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        return kernel.fn.warmup(*descs, 1024, 1024, 1024, grid=(1,), num_stages=3, **meta,
                                **options)


def test_tutorial_kernel_splits_its_rows():
    """Each CTA computes 128 of the program's 256 rows: A's and C's tensor
    maps are encoded for 128-row blocks (the descriptors keep their
    256-row block_shape), B's whole block is loaded by both and marked for
    multicast; program ids are cluster ids."""
    k = tutorial_warmup(num_warps=4, num_ctas=2)
    assert k.metadata["num_ctas"] == 2
    assert k.metadata["descriptor_blocks"] == {"a_desc": [128, 64], "c_desc": [128, 128]}
    tilegpu = k.asm["tilegpu-converted"]
    assert "tile.cluster_cta_rank" in tilegpu
    assert "tensor<128x128xf32" in tilegpu and "tensor<256x128xf32" not in tilegpu
    assert "{tile.cluster_replicated}" in tilegpu
    ptx = k.asm["ptx"]
    assert ".reqnctapercluster 2, 1, 1" in ptx
    assert "%clusterid.x" in ptx and "%cluster_ctarank" in ptx
    assert "%ctaid.x" not in ptx


def test_one_cta_per_program_is_unchanged():
    k = tutorial_warmup(num_warps=4)
    assert k.metadata["num_ctas"] == 1 and not k.metadata["descriptor_blocks"]
    assert ".reqnctapercluster" not in k.asm["ptx"]
    assert "%clusterid" not in k.asm["ptx"]


@pytest.mark.parametrize("knob", ["num_consumer_groups", "warp_specialize"])
def test_warp_specialized_kernel_on_clusters(knob):
    """The split kernel is an ordinary one to warp specialization: a TMA
    producer and consumer warpgroups on each CTA's 128 rows."""
    options = {"num_warps": 4, "num_consumer_groups": 2, "num_buffers_warp_spec": 3} \
        if knob == "num_consumer_groups" else {"num_warps": 8, "warp_specialize": True}
    k = tutorial_warmup(tut.matmul_kernel_tma_persistent, num_ctas=2, **options)
    assert k.metadata["num_ctas"] == 2 and k.metadata["partition_warps"] == 4
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"]
    ptx = k.asm["ptx"]
    assert ".reqnctapercluster 2, 1, 1" in ptx
    # B (N x K, the same in both CTAs) is multicast: each CTA's producer
    # copies 64 of its 128 rows to both, through a map encoded for 64 rows.
    assert k.metadata["descriptor_blocks"] == {"a_desc": [128, 64], "c_desc": [128, 128],
                                               "b_desc": [64, 64]}
    copies = [line for line in ptx.splitlines() if "cp.async.bulk.tensor" in line]
    assert any(".multicast::cluster" in c for c in copies)
    # Consumers free each slot in both CTAs; the barriers are shared with
    # the cluster before the first copy and the CTAs leave together.
    assert "mapa.shared::cluster.u32" in ptx
    assert "mbarrier.arrive.shared::cluster.b64" in ptx
    assert ptx.count("barrier.cluster.wait") == 2
    assert "fence.mbarrier_init.release.cluster" in ptx


@warpforge.jit
def column_sums(a_ptr, out_ptr, BM: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, 16)
    a = tl.load(a_ptr + rows[:, None] * 16 + cols[None, :])
    b = tl.load(a_ptr + cols[:, None] * 16 + cols[None, :])
    acc = tl.dot(a, b)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0))  # the sum down the columns


def test_declined_split_warns_at_the_line_and_runs_one_cta():
    f16 = aligned((128, 16), np.float16)
    out = aligned((16,), np.float32)
    with pytest.warns(warpforge.ClusterWarning) as record:
        k = column_sums.warmup(f16, out, BM=128, num_ctas=2, grid=(1,))
    w = record[0]
    assert "num_ctas=2 declined: a reduction along the rows of a product would need the " \
           "partial results of every CTA of the cluster; each program runs on one CTA " \
           "instead" in str(w.message)
    assert w.filename == __file__
    assert "tl.sum(acc, axis=0)" in open(__file__).read().splitlines()[w.lineno - 1]
    assert k.metadata["num_ctas"] == 1
    assert ".reqnctapercluster" not in k.asm["ptx"]


@warpforge.jit
def no_product(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_kernel_without_products_warns_and_runs_one_cta():
    x = aligned((64,), np.float32)
    with pytest.warns(warpforge.ClusterWarning, match="no 2-D tl.dot"):
        k = no_product.warmup(x, BLOCK=64, num_ctas=4, grid=(1,))
    assert k.metadata["num_ctas"] == 1


def test_clusters_need_sm90():
    x = aligned((64,), np.float32)
    with pytest.raises(ValueError, match="num_ctas > 1 requires NVIDIA SM90"):
        no_product.warmup(x, BLOCK=64, num_ctas=2, arch="sm80", grid=(1,))


def test_clusters_of_four_multicast_a_quarter_each():
    """num_ctas=4 with 512-row program tiles: each CTA's 128 rows, B's 128
    rows multicast in quarters of 32 to all four CTAs (mask 0b1111)."""
    k = tutorial_warmup(tut.matmul_kernel_tma_persistent, block_m=512, num_warps=4,
                        num_ctas=4, num_consumer_groups=2, num_buffers_warp_spec=3)
    assert k.metadata["num_ctas"] == 4
    assert k.metadata["descriptor_blocks"] == {"a_desc": [128, 64], "c_desc": [128, 128],
                                               "b_desc": [32, 64]}
    ptx = k.asm["ptx"]
    assert ".reqnctapercluster 4, 1, 1" in ptx
    copies = [line for line in ptx.splitlines() if ".multicast::cluster" in line]
    assert copies and all(line.rstrip().endswith(", 15;") for line in copies), copies
