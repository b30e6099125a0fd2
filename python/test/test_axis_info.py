"""The axis analysis on IR the frontend generates from real kernels: what the
coalescing pass will read for each load and store (warpforge-opt
-test-print-axis-info), under the specializations the JIT makes."""

import os
import re
import subprocess

import numpy as np
import pytest

import warpforge
import warpforge.language as tl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("WARPFORGE_BUILD_DIR", os.path.join(REPO, "build")),
                   "bin", "warpforge-opt")
ACCESS = re.compile(r"^<stdin>:(\d+):\d+: remark: access: order = \[([\d, ]+)\], "
                    r"alignment = (\d+)(?:, mask alignment = (\d+))?, vector width = (\d+)$")


@pytest.fixture(scope="module", autouse=True)
def built():
    if not os.path.exists(OPT):
        pytest.fail(f"{OPT} is not built: run scripts/build.sh")


def accesses(tile_ir):
    """[(op, order, alignment, mask alignment or None, vector width)] for every
    load and store, in program order."""
    proc = subprocess.run([OPT, "-", "-test-print-axis-info", "-o", "/dev/null"],
                          input=tile_ir, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = tile_ir.splitlines()
    found = []
    for remark in proc.stderr.splitlines():
        m = ACCESS.match(remark)
        if not m:
            continue
        op = re.search(r"tile\.(load|store)", lines[int(m.group(1)) - 1]).group(1)
        order = [int(d) for d in m.group(2).split(", ")]
        mask = int(m.group(4)) if m.group(4) else None
        found.append((int(m.group(1)), op, order, int(m.group(3)), mask, int(m.group(5))))
    return [a[1:] for a in sorted(found)]


@warpforge.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def test_vector_add_aligned_is_16_byte_vectorized():
    x = np.random.rand(4096).astype(np.float32)
    k = add_kernel.warmup(x, x, x, 4096, BLOCK=1024)
    assert accesses(k.asm["tile"]) == [
        ("load", [0], 4, 16, 4), ("load", [0], 4, 16, 4), ("store", [0], 4, 16, 4)]


def test_vector_add_size_not_multiple_of_16_masks_each_element():
    x = np.random.rand(4099).astype(np.float32)
    k = add_kernel.warmup(x, x, x, 4099, BLOCK=1024)
    assert accesses(k.asm["tile"]) == [
        ("load", [0], 4, 1, 1), ("load", [0], 4, 1, 1), ("store", [0], 4, 1, 1)]


def test_vector_add_misaligned_pointer():
    x = np.random.rand(4097).astype(np.float32)
    k = add_kernel.warmup(x[1:], x, x, 4096, BLOCK=1024)
    assert accesses(k.asm["tile"]) == [
        ("load", [0], 1, 16, 1), ("load", [0], 4, 16, 4), ("store", [0], 4, 16, 4)]


@warpforge.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, acc, mask=c_mask)


def test_matmul_row_major_operands(frontend_only):
    a = np.random.rand(128, 96).astype(np.float16)
    b = np.random.rand(96, 64).astype(np.float16)
    c = np.empty((128, 64), np.float32)
    k = matmul_kernel.warmup(a, b, c, 128, 64, 96, 96, 1, 64, 1, 64, 1,
                             BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    # A and B: rows of f16 contiguous along dimension 1, 16-byte aligned
    # (the % M and % N keep runs of 16).  A's K mask changes every 16
    # columns; B's varies along rows only.  C: f32 rows, its mask constant
    # over 16 columns.
    assert accesses(k.asm["tile"]) == [
        ("load", [1, 0], 8, 16, 8), ("load", [1, 0], 8, 64, 8), ("store", [1, 0], 4, 16, 4)]


def test_matmul_transposed_b_is_contiguous_along_k(frontend_only):
    a = np.random.rand(128, 96).astype(np.float16)
    bt = np.random.rand(64, 96).astype(np.float16)  # B = bt.T: stride_bk = 1
    c = np.empty((128, 64), np.float32)
    k = matmul_kernel.warmup(a, bt, c, 128, 64, 96, 96, 1, 1, 96, 64, 1,
                             BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    loads = [x for x in accesses(k.asm["tile"]) if x[0] == "load"]
    # B's pointers run along dimension 0 (k); the K mask is constant over
    # 16 rows there.
    assert loads[1] == ("load", [0, 1], 8, 16, 8)


@warpforge.jit
def hinted_copy(x_ptr, out_ptr, start, BLOCK: tl.constexpr):
    offs = tl.max_contiguous(tl.multiple_of(start + tl.arange(0, BLOCK), BLOCK), BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


@warpforge.jit
def unhinted_copy(x_ptr, out_ptr, start, BLOCK: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs))


def test_hints_enable_vectorization():
    x = np.random.rand(1024).astype(np.float32)
    # 24: specialization knows no divisor of start; only the hint does.
    assert accesses(hinted_copy.warmup(x, x, 24, BLOCK=128).asm["tile"]) == [
        ("load", [0], 4, None, 4), ("store", [0], 4, None, 4)]
    assert accesses(unhinted_copy.warmup(x, x, 24, BLOCK=128).asm["tile"]) == [
        ("load", [0], 1, None, 1), ("store", [0], 1, None, 1)]
