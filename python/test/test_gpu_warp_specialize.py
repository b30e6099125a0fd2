"""Warp-specialized kernels on the GPU: a producer warpgroup issuing TMA
loads into a ring of num_buffers_warp_spec slots, consumer warpgroups
running wgmma and the epilogue, full/empty mbarriers between them.

Tutorial 09's non-persistent TMA matmul (python/test/tutorial09_kernels.py)
as Triton users tune it, two ways:

* seed 000's knobs, `num_consumer_groups` (1 or 2 groups of num_warps=4)
  and `num_buffers_warp_spec` (2 to 4 slots);
* Triton 3.6's spelling, `tl.range(..., warp_specialize=True)` (the
  tutorial's WARP_SPECIALIZE=True), on num_warps=8 consumer warps with
  num_stages slots.

Each checked against a float64 reference on odd sizes (partial tiles in
every dimension; K loops of 1, 3 and 6 iterations against rings of 2 to 4
slots, so the ring wraps at every phase), NaN-poisoned outputs with poison
around them; fp16, bf16 and fp8.  The SASS shows the producer's UTMALDG
and the register moves (USETMAXREG).  The hang test launches every
configuration many times in a child process under a timeout: a phase or
arrival count that is off deadlocks, and must fail the test rather than
hang the suite.

Ping-pong (ping_pong=True, PING_PONG_CONFIGS): the persistent kernel with
two consumer groups of 4 warps, each computing whole 128x128 tiles (every
other tile of its program) and taking turns at the tensor cores on named
barriers; programs with an odd number of tiles, one tile and none.
"""

import os
import re
import textwrap
import warnings

import pytest

import warpforge

from sass_helpers import check_sass, needs_disassembler

torch = pytest.importorskip("torch")
import tutorial09_kernels as tut  # noqa: E402
from test_gpu_tma import (DTYPES, TOLERANCE, Padded, check_output, f64,  # noqa: E402
                          generator, operands)

pytestmark = [pytest.mark.gpu,
              pytest.mark.filterwarnings(
                  "ignore::warpforge.compiler.options.UnsupportedOptionWarning")]

SHAPES = [(999, 517, 371), (77, 300, 136), (257, 129, 64)]
# (num_consumer_groups, num_buffers_warp_spec, num_warps): seed 000's knobs;
# None: tl.range(warp_specialize=True) on 8 warps, num_stages slots.
WS_CONFIGS = [(1, 2, 4), (2, 3, 4), (2, 4, 4), (1, 3, 4), (None, None, 8)]
# Ping-pong, persistent kernels only: a 4th element, "pp" (seed 000's knobs
# and ping_pong=True) or "range-pp" (the same with tutorial 09's
# WARP_SPECIALIZE=True spelling); each group of 4 warps computes whole
# 128x128 tiles, so 2 to 4 slots of 32 KiB and two 32 KiB epilogue buffers.
PING_PONG_CONFIGS = [(2, 2, 4, "pp"), (2, 3, 4, "pp"), (2, 4, 4, "pp"), (2, 3, 4, "range-pp")]


def ping_pong(ws):
    """Whether `ws` (a WS_CONFIGS or PING_PONG_CONFIGS entry) asks for ping-pong."""
    return len(ws) > 3 and ws[3] in ("pp", "range-pp")


def range_spelling(ws):
    """Whether `ws` launches with WARP_SPECIALIZE=True (tl.range(...,
    warp_specialize=True)): no knobs, or "range-pp"."""
    return ws[0] is None or (len(ws) > 3 and ws[3] == "range-pp")


def ws_id(c):
    groups, buffers, warps = c[:3]
    if groups is None:
        return f"range-w{warps}"
    name = f"g{groups}b{buffers}w{warps}"
    if ping_pong(c):
        name = ("range-" if range_spelling(c) else "") + name + "-pp"
    return name


def config_for(dtype_name, ws):
    """One tutorial config: 128x128 tiles (128x256 with two consumer
    groups, each 64 rows), K steps of 64 (128 for fp8), 3 stages; with
    ping-pong 128x128 tiles, each group computing whole ones."""
    groups, buffers, warps = ws[:3]
    block_k = 128 if dtype_name == "fp8" else 64
    # Two groups of 64 rows on a 128x256 tile with 3 slots: 144 KiB of ring
    # and 64 KiB of epilogue buffer; with 4 slots 128 columns fit.
    block_n = 256 if (groups, buffers) == (2, 3) and dtype_name != "fp8" \
        and not ping_pong(ws) else 128
    kwargs = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": block_n, "BLOCK_SIZE_K": block_k,
              "GROUP_SIZE_M": 8}
    extra = {} if groups is None else {"num_consumer_groups": groups,
                                       "num_buffers_warp_spec": buffers}
    if ping_pong(ws):
        extra["ping_pong"] = True
    return warpforge.Config(kwargs, num_warps=warps, num_stages=3,
                            pre_hook=tut.matmul_tma_set_block_size_hook, **extra)


# Programs of the persistent kernel: few, so that each walks several tiles
# (the producer running ahead into the next while the consumers store).
FEW_PROGRAMS = 3


def run_ws(a, b, c, config, ws, monkeypatch, kernel="tma", programs=FEW_PROGRAMS):
    """One launch of tutorial 09's `kernel` with `config` alone; the
    persistent kernel on min(tiles, programs) programs, or on `programs`
    exactly when `programs` is negative (programs without tiles)."""
    M, K = a.shape
    N = b.shape[0]
    tuner = tut.matmul_kernel_tma if kernel == "tma" else tut.matmul_kernel_tma_persistent
    monkeypatch.setattr(tuner, "configs", [config])
    descs = [tut.TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c)]

    def grid(META):
        tiles = warpforge.cdiv(M, META["BLOCK_SIZE_M"]) * warpforge.cdiv(N, META["BLOCK_SIZE_N"])
        if kernel == "tma":
            return (tiles,)
        return (-programs if programs < 0 else min(tiles, programs),)

    extra = {} if kernel == "tma" else {"NUM_SMS": abs(programs)}
    launch = lambda: tuner[grid](*descs, M, N, K,  # noqa: E731
                                 FP8_OUTPUT=c.dtype == torch.float8_e4m3fn,
                                 WARP_SPECIALIZE=range_spelling(ws), **extra)
    if ping_pong(ws) and kernel != "tma":
        # Ping-pong on the persistent kernel must not decline.
        with warnings.catch_warnings():
            warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
            launch()
    else:
        launch()


def check_ws_kernel(kernel, ws, dtype_name, shape, monkeypatch, programs=FEW_PROGRAMS):
    dtype = DTYPES[dtype_name]
    m, n, k = shape
    gen = generator("ws", kernel, ws, dtype_name, shape,
                    *(() if programs == FEW_PROGRAMS else (programs,)))
    a, b = operands(dtype, m, n, k, gen, padded=True)
    c = Padded(m, n, dtype)
    config = config_for(dtype_name, ws)
    if kernel == "tma_persistent":
        config.kwargs["EPILOGUE_SUBTILE"] = False
    run_ws(a, b, c.view, config, ws, monkeypatch, kernel=kernel, programs=programs)
    torch.cuda.synchronize()
    check_output(c.view, f64(a) @ f64(b).T, TOLERANCE[dtype_name],
                 f"warp-specialized {kernel} {ws_id(ws)} {dtype_name} "
                 f"{'x'.join(map(str, shape))}, {abs(programs)} programs",
                 c.untouched_outside())


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("ws", WS_CONFIGS, ids=ws_id)
def test_tutorial_tma_matmul_warp_specialized(ws, dtype_name, shape, monkeypatch):
    check_ws_kernel("tma", ws, dtype_name, shape, monkeypatch)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("ws", WS_CONFIGS, ids=ws_id)
def test_tutorial_persistent_matmul_warp_specialized(ws, dtype_name, shape, monkeypatch):
    """matmul_kernel_tma_persistent: one producer loop over tiles x K steps
    with one use count, consumers storing each tile (TMA store) while the
    producer fills the next tile's slots; 3 programs, so each walks several
    tiles and the counts cross tile boundaries mid-ring."""
    check_ws_kernel("tma_persistent", ws, dtype_name, shape, monkeypatch)


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("ws", PING_PONG_CONFIGS, ids=ws_id)
def test_tutorial_persistent_matmul_ping_pong(ws, dtype_name, shape, monkeypatch):
    """matmul_kernel_tma_persistent with ping_pong: two groups of 4 warps,
    each computing whole 128x128 tiles, every other tile of its program,
    taking turns at the tensor cores; the producer's count runs over both
    groups' tiles and each group skips the other's.  3 programs: 40 tiles
    of 999x517 (14, 13 and 13: an odd count per program, one group a tile
    ahead), 3 tiles of 77x300 (one each: the second group has none), 6 of
    257x129 (two each).  Seed 000's knobs and tutorial 09's
    WARP_SPECIALIZE=True spelling; 2 to 4 slots."""
    check_ws_kernel("tma_persistent", ws, dtype_name, shape, monkeypatch)


@pytest.mark.parametrize("programs", [1, 2, 4, 9, -12],
                         ids=lambda p: f"{p}programs" if p > 0 else f"{-p}programs-3idle")
@pytest.mark.parametrize("ws", [PING_PONG_CONFIGS[0], PING_PONG_CONFIGS[3]], ids=ws_id)
def test_ping_pong_tiles_per_program(ws, programs, monkeypatch):
    """9 tiles (257x300, 3 K steps) on 1, 2, 4, 9 and 12 programs: 9 tiles
    on one program (5 for the first group, 4 for the second), 5 and 4, 3
    and 2, one each (the second group idle), and 3 programs with none
    (both groups idle: the turn handed over before the loop is never
    taken); fp16."""
    check_ws_kernel("tma_persistent", ws, "fp16", (257, 300, 136), monkeypatch,
                    programs=programs)


def test_ping_pong_without_a_persistent_loop_runs_one_group(monkeypatch):
    """The non-persistent kernel has no tile loop to share out: ping-pong
    declines (a warning at the kernel's loop) to one cooperative group of
    4 warps beside the producer, which computes the right answer."""
    dtype = torch.float16
    m, n, k = 257, 129, 200
    a, b = operands(dtype, m, n, k, generator("ws-pp-tma"), padded=True)
    c = Padded(m, n, dtype)
    with pytest.warns(warpforge.WarpSpecializationWarning,
                      match="ping-pong declined: the kernel has no persistent tile loop"):
        run_ws(a, b, c.view, config_for("fp16", PING_PONG_CONFIGS[1]), PING_PONG_CONFIGS[1],
               monkeypatch, kernel="tma")
        torch.cuda.synchronize()
    check_output(c.view, f64(a) @ f64(b).T, TOLERANCE["fp16"],
                 "non-persistent kernel with ping_pong", c.untouched_outside())


@pytest.mark.parametrize("ws", [(2, 3, 4), (None, None, 8), (2, 3, 4, "pp")], ids=ws_id)
def test_persistent_programs_without_tiles(ws, monkeypatch):
    """More programs than tiles (one 100x100 tile, 5 programs): four
    programs' tile loops run zero times, in the producer and the consumers
    alike, and must neither hang nor write; the fifth computes the tile."""
    dtype = torch.float16
    m, n, k = 100, 100, 136
    a, b = operands(dtype, m, n, k, generator("ws-empty", ws), padded=True)
    c = Padded(m, n, dtype)
    config = config_for("fp16", ws)
    config.kwargs["EPILOGUE_SUBTILE"] = False
    monkeypatch.setattr(tut.matmul_kernel_tma_persistent, "configs", [config])
    descs = [tut.TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c.view)]
    tut.matmul_kernel_tma_persistent[(5,)](*descs, m, n, k, FP8_OUTPUT=False,
                                           WARP_SPECIALIZE=range_spelling(ws), NUM_SMS=5)
    torch.cuda.synchronize()
    check_output(c.view, f64(a) @ f64(b).T, TOLERANCE["fp16"],
                 f"persistent {ws_id(ws)}, 5 programs for 1 tile", c.untouched_outside())


@needs_disassembler
@pytest.mark.parametrize("ws", [(2, 3, 4), (None, None, 8)], ids=ws_id)
def test_sass_warp_specialized(ws, tmp_path):
    """A producer that issues the TMA copies (UTMALDG) and registers moved
    between the warpgroups (USETMAXREG); HGMMA, no spills; one consumer
    group more than the kernel's num_warps: (4 x 2 + 4) x 32 threads."""
    groups, buffers, warps = ws
    a = torch.empty((4096, 4096), device="cuda", dtype=torch.float16)
    descs = [tut.TensorDescriptor.from_tensor(a, [1, 1]) for _ in range(3)]
    meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
            "FP8_OUTPUT": False, "WARP_SPECIALIZE": groups is None}
    tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                        "c_desc": descs[2], **meta})
    extra = {} if groups is None else {"num_consumer_groups": groups,
                                       "num_buffers_warp_spec": buffers}
    k = tut.matmul_kernel_tma.fn.warmup(*descs, 4096, 4096, 4096, grid=(1,), num_warps=warps,
                                        num_stages=3, **meta, **extra)
    assert k.metadata["partition_warps"] == 4
    consumer_warps = warps * (groups or 1)
    assert k.metadata["num_threads"] == (consumer_warps + 4) * 32
    sass = check_sass(k, f"ws {ws_id(ws)}", "HGMMA", tmp_path)
    for opcode in ("UTMALDG", "USETMAXREG", "UTMASTG"):
        assert opcode in sass, f"ws {ws_id(ws)}: no {opcode} in the SASS"


@needs_disassembler
@pytest.mark.parametrize("dtype_name", ["fp16", "bf16"])
def test_sass_ping_pong(dtype_name, tmp_path):
    """The persistent kernel with ping-pong: HGMMA, the producer's UTMALDG,
    each group's UTMASTG, the register moves (USETMAXREG), and the turns on
    named barriers: ptxas's BAR.SYNC (sm_90 prints bar.sync as
    BAR.SYNC.DEFER_BLOCKING) and BAR.ARV on the ids the tilegpu IR names,
    for both groups' 256 threads (0x100, or a register); no spills."""
    dtype = DTYPES[dtype_name]
    a = torch.empty((4096, 4096), device="cuda", dtype=dtype)
    descs = [tut.TensorDescriptor.from_tensor(a, [1, 1]) for _ in range(3)]
    meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
            "FP8_OUTPUT": False, "WARP_SPECIALIZE": False, "EPILOGUE_SUBTILE": False,
            "NUM_SMS": 132}
    tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                        "c_desc": descs[2], **meta})
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        k = tut.matmul_kernel_tma_persistent.fn.warmup(
            *descs, 4096, 4096, 4096, grid=(1,), num_warps=4, num_stages=3,
            num_consumer_groups=2, num_buffers_warp_spec=4, ping_pong=True, **meta)
    assert (k.metadata["num_warps"], k.metadata["partition_warps"],
            k.metadata["num_threads"]) == (4, 8, 384)
    what = f"ping-pong {dtype_name}"
    sass = check_sass(k, what, "HGMMA", tmp_path)
    for opcode in ("UTMALDG", "UTMASTG", "USETMAXREG"):
        assert opcode in sass, f"{what}: no {opcode} in the SASS"
    ids = {int(i) for i in re.findall(r"tilegpu\.named_barrier_(?:wait|arrive) (\d+), 256",
                                      k.asm["tilegpu"])}
    assert len(ids) == 2, k.asm["tilegpu"]
    bars = re.findall(r"\bBAR\.[A-Z_.]+\s+[^;]*;", sass)
    for i in sorted(ids):
        operand = rf"0x{i:x},\s*(?:0x100|R\d+|UR\d+)\s*;"
        assert any(re.fullmatch(rf"BAR\.SYNC(?:\.DEFER_BLOCKING)?\s+{operand}", b)
                   for b in bars), f"{what}: no BAR.SYNC on barrier {i}: {bars}"
        assert any(re.fullmatch(rf"BAR\.ARV\s+{operand}", b) for b in bars), \
            f"{what}: no BAR.ARV on barrier {i}: {bars}"


HANG_SCRIPT = textwrap.dedent("""
    import sys, torch, warpforge
    sys.path.insert(0, {test_dir!r})
    import tutorial09_kernels as tut
    from test_gpu_warp_specialize import WS_CONFIGS, config_for
    warpforge.set_allocator(lambda size, alignment, stream: torch.empty(
        size, dtype=torch.int8, device="cuda"))
    for ws in WS_CONFIGS:
        # Contiguous operands: rows of 16-byte multiples, as the TMA needs.
        for (m, n, k) in [(999, 520, 376), (128, 128, 64), (300, 256, 1000)]:
            a = torch.randn((m, k), device="cuda").half()
            b = torch.randn((n, k), device="cuda").half()
            c = torch.empty((m, n), device="cuda", dtype=torch.float16)
            descs = [tut.TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c)]
            tut.matmul_kernel_tma.configs = [config_for("fp16", ws)]
            persistent = config_for("fp16", ws)
            persistent.kwargs["EPILOGUE_SUBTILE"] = False
            tut.matmul_kernel_tma_persistent.configs = [persistent]
            tut.matmul_kernel_descriptor_persistent.configs = [warpforge.Config(
                dict(persistent.kwargs), num_warps=persistent.num_warps,
                num_stages=persistent.num_stages,
                num_consumer_groups=persistent.num_consumer_groups,
                num_buffers_warp_spec=persistent.num_buffers_warp_spec)]
            tiles = lambda META: (warpforge.cdiv(m, META["BLOCK_SIZE_M"])
                                  * warpforge.cdiv(n, META["BLOCK_SIZE_N"]))
            for _ in range({repeats}):
                tut.matmul_kernel_tma[lambda META: (tiles(META),)](
                    *descs, m, n, k, FP8_OUTPUT=False, WARP_SPECIALIZE=ws[0] is None)
                tut.matmul_kernel_tma_persistent[lambda META: (min(tiles(META), 3),)](
                    *descs, m, n, k, FP8_OUTPUT=False, WARP_SPECIALIZE=ws[0] is None,
                    NUM_SMS=3)
                # Device-side descriptors: the producer makes its maps.
                tut.matmul_kernel_descriptor_persistent[lambda META: (min(tiles(META), 3),)](
                    a, b, c, m, n, k, NUM_SMS=3, WARP_SPECIALIZE=ws[0] is None, FLATTEN=True)
            torch.cuda.synchronize()
    # Ping-pong on the persistent kernel: 3 programs (odd tile counts, one
    # tile, two groups' turns wrapping), and 5 (programs without tiles).
    from test_gpu_warp_specialize import PING_PONG_CONFIGS, range_spelling
    for ws in PING_PONG_CONFIGS:
        for (m, n, k) in [(999, 520, 376), (128, 128, 64), (300, 256, 1000)]:
            a = torch.randn((m, k), device="cuda").half()
            b = torch.randn((n, k), device="cuda").half()
            c = torch.empty((m, n), device="cuda", dtype=torch.float16)
            descs = [tut.TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c)]
            persistent = config_for("fp16", ws)
            persistent.kwargs["EPILOGUE_SUBTILE"] = False
            tut.matmul_kernel_tma_persistent.configs = [persistent]
            tiles = lambda META: (warpforge.cdiv(m, META["BLOCK_SIZE_M"])
                                  * warpforge.cdiv(n, META["BLOCK_SIZE_N"]))
            for _ in range({repeats}):
                for programs in (3, 5):
                    tut.matmul_kernel_tma_persistent[
                        lambda META: (programs if programs == 5 else min(tiles(META), 3),)](
                        *descs, m, n, k, FP8_OUTPUT=False,
                        WARP_SPECIALIZE=range_spelling(ws), NUM_SMS=programs)
            torch.cuda.synchronize()
    # cp.async producers: the masked and persistent pointer kernels.
    import pointer_matmul_kernels as pk
    from test_gpu_warp_specialize import POINTER_WS, ws_launch_options
    for ws in POINTER_WS:
        for (m, n, k) in [(999, 528, 400), (128, 128, 64), (300, 256, 1008)]:
            a = torch.randn((m, k), device="cuda").half()
            b = torch.randn((k, n), device="cuda").half()
            c = torch.empty((m, n), device="cuda", dtype=torch.float16)
            meta = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=ws[3], BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
                        WARP_SPECIALIZE=ws[0] is None, **ws_launch_options(ws))
            tiles = warpforge.cdiv(m, 128) * warpforge.cdiv(n, ws[3])
            args = (a, b, c, m, n, k, k, 1, n, 1, n, 1)
            for _ in range({repeats}):
                pk.masked_matmul[(tiles,)](*args, **meta)
                pk.persistent_matmul[(min(tiles, 3),)](*args, NUM_SMS=3, **meta)
            torch.cuda.synchronize()
    # TMA producers of pointer blocks (seed 000: maps the launcher encodes;
    # batched: maps made in the kernel).
    for ws in [w for w in POINTER_WS if w[0] is not None]:
        for side, k in [(3, 192), (1, 64), (2, 1024)]:
            m, n = 128 * side, ws[3] * side
            a = torch.randn((m, k), device="cuda").half()
            b = torch.randn((k, n), device="cuda").half()
            c = torch.empty((m, n), device="cuda", dtype=torch.float16)
            for _ in range({repeats}):
                pk.seed000_matmul[(side * side,)](a, b, c, m, n, k, k, 1, n, 1, n, 1, BLOCK_M=128,
                                                  BLOCK_N=ws[3], BLOCK_K=64,
                                                  **ws_launch_options(ws))
                pk.batched_seed000_matmul[(side * side, 1)](
                    a, b, c, m, n, k, 0, k, 1, 0, n, 1, 0, n, 1, BLOCK_M=128, BLOCK_N=ws[3],
                    BLOCK_K=64, **ws_launch_options(ws))
            torch.cuda.synchronize()
    print("no hang")
""")


def test_no_hang_under_repeated_launches():
    """Every configuration, 100 launches each of the non-persistent and the
    persistent kernels (host and device descriptors, pointer producers;
    ping-pong on 3 and 5 programs) on three shapes (one K iteration; ring laps ending
    mid-ring and mid-tile), in a child process that must
    finish within the timeout: a deadlocked mbarrier protocol fails here
    instead of hanging the suite."""
    from launch_helpers import run_without_hang
    run_without_hang(HANG_SCRIPT.format(test_dir=os.path.dirname(__file__), repeats=100), 360,
                     "a warp-specialized kernel")


# -- Pointer loads: a cp.async producer ------------------------------------------------
#
# Seed 000's kernel as written and Triton's pointer matmuls
# (pointer_matmul_kernels.py): the producer warpgroup redoes the address
# math on its own warps and copies each operand with cp.async, each thread
# arriving on the slot's full barrier when its copies land.  cp.async needs
# rows of 16-byte multiples known from the arguments (strides divisible by
# 16 elements), so the operands are windows of NaN buffers whose row
# stride is a multiple of 16 elements; M, N and K stay odd where the kernel
# masks them.


import pointer_matmul_kernels as pk  # noqa: E402
from warpforge import WarpSpecializationWarning  # noqa: E402
from test_gpu_tma import nans, poisoned_mask  # noqa: E402


class Window:
    """rows x cols of a NaN buffer with 3 more rows and a row stride that is
    a multiple of 16 elements, 16 past the window."""

    def __init__(self, rows, cols, dtype):
        width = (cols + 15) // 16 * 16 + 16
        self.buf = nans((rows + 3, width), dtype)
        self.view = self.buf[:rows, :cols]

    def fill_random(self, gen, scale):
        values = torch.randn(self.view.shape, device="cuda", generator=gen) * scale
        self.view.copy_(values.to(self.view.dtype))
        return self.view

    def untouched_outside(self):
        inside = torch.zeros(self.buf.shape, dtype=torch.bool, device="cuda")
        inside[:self.view.shape[0], :self.view.shape[1]] = True
        return int((~poisoned_mask(self.buf) & ~inside).sum().item())


def pointer_operands(dtype_name, m, n, k, gen):
    """A (M x K) and B as the K x N matrix the kernels multiply: row-major
    for 16-bit types; for fp8 the transpose of an N x K buffer (wgmma takes
    fp8 operands K-major only)."""
    dtype = DTYPES[dtype_name]
    scale = k ** -0.25
    a = Window(m, k, dtype).fill_random(gen, scale)
    if dtype_name == "fp8":
        b = Window(n, k, dtype).fill_random(gen, scale).T
    else:
        b = Window(k, n, dtype).fill_random(gen, scale)
    return a, b


# (num_consumer_groups, num_buffers_warp_spec, num_warps, BLOCK_N); None:
# tl.range(warp_specialize=True) on 8 warps with num_stages slots.
POINTER_WS = [(2, 3, 4, 256), (1, 2, 4, 128), (2, 4, 4, 128), (None, None, 8, 128)]


def pointer_ws_id(c):
    groups, buffers, warps, block_n = c
    return (f"range-w{warps}" if groups is None else f"g{groups}b{buffers}w{warps}") + f"-n{block_n}"


def ws_launch_options(ws):
    groups, buffers, warps, _ = ws
    extra = {} if groups is None else {"num_consumer_groups": groups,
                                       "num_buffers_warp_spec": buffers}
    return {"num_warps": warps, "num_stages": 3, **extra}


def run_specialized(launch):
    """Runs `launch` with any WarpSpecializationWarning an error: these
    kernels must be specialized, not fall back."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        launch()
    torch.cuda.synchronize()


# Square grids of tiles (seed 000's program-id mapping), K loops of 1, 3
# and 5 iterations (rings of 2 to 4 slots wrap mid-ring).
SEED_TILES = [(2, 1), (3, 3), (5, 5)]


@pytest.mark.parametrize("tiles", SEED_TILES, ids=lambda t: f"{t[0]}x{t[0]}tiles-k{t[1]}")
@pytest.mark.parametrize("dtype_name", ["fp16", "bf16"])
@pytest.mark.parametrize("ws", [c for c in POINTER_WS if c[0] is not None], ids=pointer_ws_id)
def test_seed000_kernel_warp_specialized(ws, dtype_name, tiles):
    """Seed 000's kernel exactly as written, with its knobs."""
    side, k_iters = tiles
    block_n = ws[3]
    m, n, k = 128 * side, block_n * side, 64 * k_iters
    gen = generator("seed000", ws, dtype_name, tiles)
    a, b = pointer_operands(dtype_name, m, n, k, gen)
    c = Window(m, n, torch.float16)
    run_specialized(lambda: pk.seed000_matmul[(side * side,)](
        a, b, c.view, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.view.stride(0), c.view.stride(1), BLOCK_M=128, BLOCK_N=block_n, BLOCK_K=64,
        **ws_launch_options(ws)))
    check_output(c.view, f64(a) @ f64(b), TOLERANCE[dtype_name],
                 f"seed 000 {pointer_ws_id(ws)} {dtype_name} {m}x{n}x{k}", c.untouched_outside())


# Odd M; N and K multiples of 16 (row strides cp.async can take) but not
# of the tiles (partial tiles, a masked last K step); K of one step.
POINTER_SHAPES = [(999, 528, 400), (77, 272, 64), (257, 144, 208)]


def check_pointer_kernel(kernel, ws, dtype_name, shape):
    m, n, k = shape
    gen = generator("pointer-ws", kernel, ws, dtype_name, shape)
    a, b = pointer_operands(dtype_name, m, n, k, gen)
    c = Window(m, n, torch.float16)
    block_k = 128 if dtype_name == "fp8" else 64
    meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": ws[3], "BLOCK_SIZE_K": block_k,
            "GROUP_SIZE_M": 8, "WARP_SPECIALIZE": ws[0] is None}
    tiles = warpforge.cdiv(m, 128) * warpforge.cdiv(n, ws[3])
    args = (a, b, c.view, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.view.stride(0), c.view.stride(1))
    if kernel == "masked":
        launch = lambda: pk.masked_matmul[(tiles,)](*args, **meta, **ws_launch_options(ws))  # noqa: E731
    else:
        launch = lambda: pk.persistent_matmul[(min(tiles, FEW_PROGRAMS),)](  # noqa: E731
            *args, NUM_SMS=FEW_PROGRAMS, **meta, **ws_launch_options(ws))
    run_specialized(launch)
    check_output(c.view, f64(a) @ f64(b), TOLERANCE[dtype_name],
                 f"{kernel} pointer matmul {pointer_ws_id(ws)} {dtype_name} "
                 f"{'x'.join(map(str, shape))}", c.untouched_outside())


@pytest.mark.parametrize("shape", POINTER_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("ws", POINTER_WS, ids=pointer_ws_id)
def test_masked_pointer_matmul_warp_specialized(ws, dtype_name, shape):
    """Triton's tutorial 03 kernel: masked K, wrapped rows and columns."""
    check_pointer_kernel("masked", ws, dtype_name, shape)


@pytest.mark.parametrize("shape", POINTER_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("ws", POINTER_WS, ids=pointer_ws_id)
def test_persistent_pointer_matmul_warp_specialized(ws, dtype_name, shape):
    """Triton 3.2's pointer-based persistent kernel: the producer walks
    tiles x K with one count, the addresses recomputed from each tile's
    clamped rows and columns; few programs, so each walks several tiles."""
    check_pointer_kernel("persistent", ws, dtype_name, shape)


@needs_disassembler
def test_sass_pointer_producers(tmp_path):
    """Seed 000's kernel: its loads are 2-D blocks, copied with the TMA
    (UTMALDG) through maps the producer makes, registers moved
    (USETMAXREG).  Tutorial 03's masked kernel: cp.async (LDGSTS) arriving
    on the mbarrier (ARRIVES.LDGSTSBAR), no register moves.  HGMMA, no
    spills."""
    a = torch.empty((4096, 4096), device="cuda", dtype=torch.float16)
    options = dict(grid=(1,), num_warps=4, num_stages=2, num_consumer_groups=2,
                   num_buffers_warp_spec=3)
    seed = pk.seed000_matmul.warmup(a, a, a, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1,
                                    BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, **options)
    sass = check_sass(seed, "seed 000 ws", "HGMMA", tmp_path)
    assert "UTMALDG" in sass and "USETMAXREG" in sass and "LDGSTS" not in sass
    masked = pk.masked_matmul.warmup(a, a, a, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1,
                                     BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64,
                                     GROUP_SIZE_M=8, WARP_SPECIALIZE=False, **options)
    assert masked.metadata["num_threads"] == 384
    sass = check_sass(masked, "tutorial 03 ws", "HGMMA", tmp_path)
    assert "LDGSTS" in sass and "ARRIVES.LDGSTSBAR" in sass, "no cp.async arrival in the SASS"
    assert "USETMAXREG" not in sass


def test_seed000_maps_follow_the_arguments():
    """Seed 000's maps are the launcher's (tilegpu-host-tensor-maps), keyed
    by base and row stride: one compiled kernel launched on new tensors
    and on a column window of a wider matrix (another row stride) reads
    what each launch passes, and needs no global scratch."""
    m, n, k = 256, 512, 192
    gen = generator("seed000-maps")
    a, b = pointer_operands("fp16", m, n, k, gen)
    # Windows of wider matrices: other row strides, bases 32 and 64 bytes in.
    a2 = Window(m, k + 48, torch.float16).fill_random(gen, k ** -0.25)[:, 16:16 + k]
    b2 = Window(k, n + 96, torch.float16).fill_random(gen, k ** -0.25)[:, 32:32 + n]
    assert a2.stride(0) != a.stride(0) and b2.stride(0) != b.stride(0)
    options = dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4, num_stages=2,
                   num_consumer_groups=2, num_buffers_warp_spec=3)
    outputs = []
    for x, y in [(a, b), (a2, b2), (a, b2), (a2, b)]:
        c = Window(m, n, torch.float16)
        run_specialized(lambda: pk.seed000_matmul[(4,)](
            x, y, c.view, m, n, k, x.stride(0), x.stride(1), y.stride(0), y.stride(1),
            c.view.stride(0), c.view.stride(1), **options))
        outputs.append((c, x, y))
    for i, (c, x, y) in enumerate(outputs):
        check_output(c.view, f64(x) @ f64(y), TOLERANCE["fp16"], f"seed 000, launch {i}",
                     c.untouched_outside())
    kernel = pk.seed000_matmul.warmup(a, b, a, m, n, k, k, 1, n, 1, n, 1, grid=(4,),
                                      **options)
    assert len(kernel.metadata["host_tensor_maps"]) == 2
    assert kernel.metadata["global_scratch_size"] == 0


@pytest.mark.parametrize("dtype_name", ["fp16", "bf16"])
def test_batched_seed000_maps_made_on_the_device(dtype_name):
    """Seed 000's kernel over a batch: each program's bases depend on its
    batch, so the producer makes its maps in global scratch (the runtime's,
    no allocator set)."""
    batch, (m, n, k) = 3, (256, 512, 320)
    gen = generator("seed000-batched", dtype_name)
    dtype = DTYPES[dtype_name]
    a = torch.randn((batch, m, k), device="cuda", generator=gen).to(dtype)
    b = torch.randn((batch, k, n), device="cuda", generator=gen).to(dtype)
    c = torch.full((batch, m, n), float("nan"), device="cuda", dtype=torch.float16)
    run_specialized(lambda: pk.batched_seed000_matmul[(4, batch)](
        a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=128, BLOCK_N=256,
        BLOCK_K=64, num_warps=4, num_stages=2, num_consumer_groups=2,
        num_buffers_warp_spec=3))
    for z in range(batch):
        check_output(c[z], f64(a[z]) @ f64(b[z]), TOLERANCE[dtype_name],
                     f"batched seed 000 {dtype_name}, batch {z}")


def test_device_maps_scratch_from_the_allocator_when_set():
    """The maps the producer makes live in global scratch: the runtime's own
    when no allocator is set (test_batched_seed000_maps_made_on_the_device),
    the user's when one is (warpforge.set_allocator), which this launch
    must call."""
    import contextvars
    calls = []

    def allocator(size, alignment, stream):
        calls.append((size, alignment))
        return torch.empty(size, dtype=torch.int8, device="cuda")

    batch, (m, n, k) = 2, (384, 768, 192)
    gen = generator("seed000-allocator")
    a = torch.randn((batch, m, k), device="cuda", generator=gen).half()
    b = torch.randn((batch, k, n), device="cuda", generator=gen).half()
    c = torch.full((batch, m, n), float("nan"), device="cuda", dtype=torch.float16)

    def launch():
        warpforge.set_allocator(allocator)
        pk.batched_seed000_matmul[(9, batch)](
            a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride(), BLOCK_M=128,
            BLOCK_N=256, BLOCK_K=64, num_warps=4, num_stages=2, num_consumer_groups=2,
            num_buffers_warp_spec=3)
    run_specialized(lambda: contextvars.copy_context().run(launch))
    assert calls == [(9 * batch * 256, 128)]
    for z in range(batch):
        check_output(c[z], f64(a[z]) @ f64(b[z]), TOLERANCE["fp16"],
                     f"batched seed 000, user allocator, batch {z}")


# -- Device-side descriptors -------------------------------------------------------------

from test_gpu_tma import with_allocator  # noqa: E402


@pytest.mark.parametrize("shape", [(999, 528, 368), (77, 304, 144)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("ws", WS_CONFIGS + PING_PONG_CONFIGS[1:2], ids=ws_id)
def test_tutorial_descriptor_persistent_warp_specialized(ws, dtype_name, shape, monkeypatch):
    """Tutorial 09's matmul_kernel_descriptor_persistent: descriptors made
    on the device (tl.make_tensor_descriptor) before the tile loop.  The
    producer makes the operands' maps itself (its thread 0 writes them and
    issues every copy), the consumers make the output's (with ping-pong,
    each group its own); contiguous operands (the kernel's strides are
    [K, 1] and [N, 1]), so C is all NaN before the launch; 3 programs
    walking several tiles."""
    m, n, k = shape
    dtype = DTYPES[dtype_name]
    gen = generator("ws-device-desc", ws, dtype_name, shape)
    scale = k ** -0.25
    a = (torch.randn((m, k), device="cuda", generator=gen) * scale).to(dtype)
    b = (torch.randn((n, k), device="cuda", generator=gen) * scale).to(dtype)
    c = nans((m, n), dtype)
    base = config_for(dtype_name, ws)
    config = warpforge.Config(dict(base.kwargs, EPILOGUE_SUBTILE=False),
                              num_warps=base.num_warps, num_stages=base.num_stages,
                              num_consumer_groups=base.num_consumer_groups,
                              num_buffers_warp_spec=base.num_buffers_warp_spec,
                              ping_pong=base.ping_pong)
    tuner = tut.matmul_kernel_descriptor_persistent
    monkeypatch.setattr(tuner, "configs", [config])
    grid = lambda META: (min(FEW_PROGRAMS, warpforge.cdiv(m, META["BLOCK_SIZE_M"])  # noqa: E731
                             * warpforge.cdiv(n, META["BLOCK_SIZE_N"])),)
    run_specialized(lambda: with_allocator(lambda: tuner[grid](
        a, b, c, m, n, k, NUM_SMS=FEW_PROGRAMS, WARP_SPECIALIZE=ws[0] is None, FLATTEN=True)))
    check_output(c, f64(a) @ f64(b).T, TOLERANCE[dtype_name],
                 f"device-descriptor persistent {ws_id(ws)} {dtype_name} "
                 f"{'x'.join(map(str, shape))}")


@pytest.mark.parametrize("kernel", ["tma", "tma_persistent"])
def test_three_consumer_groups_run_unspecialized(kernel, monkeypatch):
    """num_consumer_groups=3: no power-of-2 tile splits in three, so the
    kernel runs unspecialized on num_warps=4 with one warning, and computes
    the right answer (partial tiles, fp16)."""
    dtype = torch.float16
    m, n, k = 257, 129, 64
    a, b = operands(dtype, m, n, k, generator("ws-three", kernel), padded=True)
    c = Padded(m, n, dtype)
    base = config_for("fp16", (1, 3, 4))
    kwargs = dict(base.kwargs, **({"EPILOGUE_SUBTILE": False} if kernel == "tma_persistent"
                                  else {}))
    config = warpforge.Config(kwargs, num_warps=4, num_stages=3, num_consumer_groups=3,
                              num_buffers_warp_spec=3, pre_hook=base.pre_hook)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        run_ws(a, b, c.view, config, (3, 3, 4), monkeypatch, kernel=kernel)
        torch.cuda.synchronize()
    assert any(issubclass(r.category, WarpSpecializationWarning) and
               "num_consumer_groups=3" in str(r.message) for r in record)
    check_output(c.view, f64(a) @ f64(b).T, TOLERANCE["fp16"],
                 f"{kernel}, three consumer groups", c.untouched_outside())


@pytest.mark.parametrize("ws", [c for c in POINTER_WS if c[0] is not None], ids=pointer_ws_id)
def test_tma_and_cp_async_operands_in_one_channel(ws):
    """A by the TMA (an unmasked block), B by cp.async (masked): one slot
    filled both ways, its full barrier armed with the TMA's bytes and
    counting every producer thread's cp.async arrival; K loops of 3."""
    side, k = 3, 192
    m, n = 128 * side, ws[3] * side
    a, b = pointer_operands("fp16", m, n, k, generator("mixed", ws))
    c = Window(m, n, torch.float16)
    kernel = pk.seed000_masked_b
    run_specialized(lambda: kernel[(side * side,)](
        a, b, c.view, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
        c.view.stride(0), c.view.stride(1), BLOCK_M=128, BLOCK_N=ws[3], BLOCK_K=64,
        **ws_launch_options(ws)))
    check_output(c.view, f64(a) @ f64(b), TOLERANCE["fp16"], f"mixed {pointer_ws_id(ws)}",
                 c.untouched_outside())
