"""Attention forward (FlashAttention-2's algorithm) in Triton's language, shared by both JITs.

O = softmax(Q K^T * sm_scale) V for Q, K, V, O of shape (Z, H, S, D), any S
(odd lengths included), D of 64, 128 or 256, fp16 or bf16, causal or not.
Each program owns BLOCK_M query rows of one (z, h): Q stays in shared
memory, K and V blocks of BLOCK_N rows stream through TMA (host tensor
descriptors over the (Z*H*S, D) views), and the softmax is online: a running
row maximum m and row sum l in fp32, the accumulator rescaled by
exp2(m_old - m_new) before each P V product. The logarithm of the row sums
(base 2, plus the maximum) goes to LSE for a backward pass.

Why the masks are where they are:
  * no K/V block reads another head's rows through the flattened
    descriptors (P is zero there, but 0 * inf is NaN, so one head's
    infinity would reach its neighbours' outputs): a block that would
    cross S ends at S instead, starting at S - BLOCK_N, and its columns
    before the block's own start (the block before it) get -inf (TAIL);
    the rotated loop's first PV, whose P is zero, reads the head's first V
    block. Only a length below BLOCK_N still reads past its head (the next
    head's first rows, or TMA's zero fill at the end of the tensor);
  * with causal masking, the blocks left of the program's diagonal need no
    mask; the diagonal blocks get `row >= column` (which also excludes
    columns past S for every row below S);
  * the output is stored through its descriptor only when S is a multiple of
    BLOCK_M: a tile that crosses the end of a sequence would write into the
    next head's rows, so then it is a masked pointer store;
  * BLOCK_M is a multiple of BLOCK_N, so that the causal loop over the
    blocks left of the diagonal ends on a block boundary.

`common.load_kernels` executes this file once per JIT, after setting BACKEND
("triton" or "warpforge"); `attention_call(q, k, v, o, lse, causal,
sm_scale, config)` returns `(kernel, grid, args, meta)` for one launch: of
the kernel autotuned over CONFIGS (keyed on S, D and causal; a pre_hook
sets the descriptors' blocks) when `config` is None.
"""

from collections import namedtuple

if globals().get("BACKEND", "warpforge") == "triton":
    import triton as jit_backend
    import triton.language as tl
    import triton.testing
    from triton.tools.tensor_descriptor import TensorDescriptor
else:
    import warpforge as jit_backend
    import warpforge.language as tl
    import warpforge.testing
    from warpforge.tools.tensor_descriptor import TensorDescriptor


@jit_backend.jit
def _load_kv(desc, kv_row, row, PER_HEAD: tl.constexpr):
    """A block of K or V: rows `row`.. of the head whose first row is
    `kv_row` in a descriptor over all heads' rows (Z*H*S, D), or, PER_HEAD,
    of head `kv_row` in a descriptor over (Z*H, S, D) with (1, BLOCK, D)
    blocks, whose rows past S the TMA fills with zeros: a block longer than
    the head then reads nothing of the next head."""
    if PER_HEAD:
        x = desc.load([kv_row, row, 0])
        return tl.reshape(x, [x.shape[1], x.shape[2]])
    else:
        return desc.load([kv_row + row, 0])


@jit_backend.jit
def _softmax_block(qk, m_i, offs_m, offs_n, start_n, S, qk_scale,
                   MASK: tl.constexpr, CAUSAL: tl.constexpr, TAIL: tl.constexpr = False,
                   col_lo=0):
    """The online softmax of one block of scores: (p, the new row maximum,
    alpha = the factor that rescales what was accumulated before).

    The maximum lags (FlashAttention-4's lazy rescaling): a row's moves only
    when the block's exceeds it by more than 8 (log2 units), so p stays
    below 2^8 (fp16, bf16 and the fp32 sums hold that easily) and alpha is
    exactly 1 in most rows of most blocks. O and l are both relative to
    the same maximum, so O / l and the LSE (m + log2 l) come out the same.
    The compiler skips the rescale O * alpha in a warp whose alphas are
    all 1 (tilegpu-skip-unit-scales)."""
    if MASK:
        if TAIL:
            # A block moved back to end at S: its columns before col_lo
            # were the block before it. They get a column past every row
            # and past S, so that one comparison a score still masks (the
            # columns' own select is BLOCK_N wide, not BLOCK_M x BLOCK_N).
            cols = start_n + offs_n
            cols = tl.where(cols >= col_lo, cols, 1 << 30)[None, :]
        else:
            cols = start_n + offs_n[None, :]
        if CAUSAL:
            keep = offs_m[:, None] >= cols
        else:
            keep = cols < S
        qk = tl.where(keep, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        m_ij = tl.where(m_ij > m_i + 8.0, m_ij, m_i)
        qk -= m_ij[:, None]
    else:
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        m_ij = tl.where(m_ij > m_i + 8.0, m_ij, m_i)
        qk = qk * qk_scale - m_ij[:, None]
    return tl.math.exp2(qk), m_ij, tl.math.exp2(m_i - m_ij)


@jit_backend.jit
def _attn_block(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_n, offs_m, offs_n, S, qk_scale,
                MASK: tl.constexpr, CAUSAL: tl.constexpr, TAIL: tl.constexpr = False, end=0,
                PER_HEAD: tl.constexpr = False):
    # The products in order: QK^T, the softmax, then PV. TAIL: the block
    # starts at `end` at the latest (S - BLOCK_N: it ends at S).
    b = tl.minimum(start_n, end) if TAIL else start_n
    k = _load_kv(desc_k, kv_row, b, PER_HEAD).T
    qk = tl.dot(q, k)
    p, m_ij, alpha = _softmax_block(qk, m_i, offs_m, offs_n, b, S, qk_scale, MASK, CAUSAL, TAIL,
                                    start_n)
    acc = acc * alpha[:, None]
    v = _load_kv(desc_v, kv_row, b, PER_HEAD)
    acc = tl.dot(p.to(v.dtype), v, acc)
    l_i = l_i * alpha + tl.sum(p, 1)
    return acc, l_i, m_ij


@jit_backend.jit
def _attn_step(acc, l_i, m_i, p, q, desc_k, desc_v, kv_row, start_n, offs_m, offs_n, S, qk_scale,
               MASK: tl.constexpr, CAUSAL: tl.constexpr, BLOCK_N: tl.constexpr, lo=0,
               MASK_FROM_LO: tl.constexpr = False, TAIL: tl.constexpr = False, end=0,
               PER_HEAD: tl.constexpr = False):
    # The products rotated (FlashAttention-3's intra-warpgroup overlap):
    # QK^T of this block is issued, then PV of the previous block (p, the
    # previous block's probabilities; zero before the first block), and the
    # softmax of this block runs while the tensor cores compute PV (the
    # compiler waits for each product where its result is first used).
    # TAIL: the block starts at `end` at the latest (S - BLOCK_N: it ends
    # at S). Only the last block moves, so the previous block's V is at
    # start_n - BLOCK_N in any case.
    b = tl.minimum(start_n, end) if TAIL else start_n
    k = _load_kv(desc_k, kv_row, b, PER_HEAD).T
    qk = tl.dot(q, k)
    # The previous block's V. Before the first block p is zero and the
    # product adds nothing, but 0 * inf is NaN: the block read then is the
    # head's first (read again at the next step), not the previous head's
    # last rows, so that a non-finite value in one head's V cannot reach
    # another head's output.
    v = _load_kv(desc_v, kv_row, tl.maximum(start_n - BLOCK_N, 0), PER_HEAD)
    acc = tl.dot(p, v, acc)
    if MASK_FROM_LO:
        # Every K/V block of a causal tile in one loop: the diagonal's mask
        # (blocks from `lo` on) chosen per block by a uniform branch around
        # the softmax, the products staying in the loop's body, so that a
        # tile loop holds one loop of products and can be specialized.
        if start_n >= lo:
            p_ij, m_ij, alpha = _softmax_block(qk, m_i, offs_m, offs_n, start_n, S, qk_scale,
                                               True, CAUSAL)
        else:
            p_ij, m_ij, alpha = _softmax_block(qk, m_i, offs_m, offs_n, start_n, S, qk_scale,
                                               False, CAUSAL)
    else:
        p_ij, m_ij, alpha = _softmax_block(qk, m_i, offs_m, offs_n, b, S, qk_scale, MASK,
                                           CAUSAL, TAIL, start_n)
    l_i = l_i * alpha + tl.sum(p_ij, 1)
    acc = acc * alpha[:, None]
    return acc, l_i, m_ij, p_ij.to(v.dtype)


@jit_backend.jit
def _first_block(q, desc_k, kv_row, m_i, offs_m, offs_n, S, qk_scale, lo,
                 CAUSAL: tl.constexpr, PER_HEAD: tl.constexpr):
    """A tile's first K/V block run before its loop (the peel): QK^T and
    the softmax of block 0, (P in Q's type, the row sums, the row maximum).
    Causal, it is on the diagonal in a head's first tile only (lo, the
    tile's first row, 0), so the mask is chosen at run time."""
    qk = tl.dot(q, _load_kv(desc_k, kv_row, 0, PER_HEAD).T)
    if CAUSAL:
        if lo == 0:
            p_ij, m_i, alpha = _softmax_block(qk, m_i, offs_m, offs_n, 0, S, qk_scale, True,
                                              CAUSAL)
        else:
            p_ij, m_i, alpha = _softmax_block(qk, m_i, offs_m, offs_n, 0, S, qk_scale, False,
                                              CAUSAL)
    else:
        p_ij, m_i, alpha = _softmax_block(qk, m_i, offs_m, offs_n, 0, S, qk_scale, False,
                                          CAUSAL)
    l_i = tl.sum(p_ij, 1)
    return p_ij.to(q.dtype), l_i, m_i


@jit_backend.jit
def _attn_tile(desc_q, desc_k, desc_v, desc_o, o_ptr, lse_ptr, qk_scale, S, off_hz, start_m,
               HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               CAUSAL: tl.constexpr, OVERLAP: tl.constexpr, WS: tl.constexpr,
               EVEN: tl.constexpr, RAGGED: tl.constexpr, PER_HEAD: tl.constexpr = False,
               PEEL: tl.constexpr = True):
    """One program's tile: BLOCK_M query rows of head `off_hz`, from the
    load of Q to the store of O and LSE. WS marks its K/V loops
    warp-specialized (False in the persistent kernel, whose tile loop is).
    EVEN: S is a multiple of BLOCK_M (the caller checks), so no K/V block
    needs a mask and O goes out through its descriptor: the persistent
    kernel's, whose buffers for the masked block and the masked store would
    not fit beside the producer's slots. RAGGED: S may not be a multiple of
    BLOCK_N, so the block that would cross S is moved back to end at S
    (TAIL); without it that code is left out. PER_HEAD: desc_k and desc_v
    are per head (_load_kv), for heads shorter than a block. PEEL: EVEN (and
    causal, D above 64), the first block's QK^T and softmax before the loop (off on
    clusters, whose producers multicast K's blocks in halves: a whole first
    block through the same descriptor would take that away)."""
    q_row = off_hz * S + start_m * BLOCK_M
    kv_row = off_hz if PER_HEAD else off_hz * S
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    # The columns of a block, for the masks only: causal, or a block that
    # may cross S (RAGGED; without it S is a multiple of BLOCK_N). A block
    # that is not a power of 2 (experimental) makes no 1-D range then.
    if CAUSAL or RAGGED:
        offs_n = tl.arange(0, BLOCK_N)
    else:
        offs_n = 0
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    q = desc_q.load([q_row, 0])
    if OVERLAP:
        p = tl.zeros([BLOCK_M, BLOCK_N], dtype=desc_q.dtype)
        if CAUSAL and EVEN:
            # One loop over the tile's K/V blocks (_attn_step's MASK_FROM_LO).
            lo = start_m * BLOCK_M
            hi = lo + BLOCK_M
            first = 0
            if PEEL and HEAD_DIM > 64:
                # Block 0 before the loop, as when not causal (below), with
                # the loop's choice of mask: the diagonal's in a head's
                # first tile (lo 0), none in the others. At D128 this ran
                # 404 against 388 TFLOP/s at S1024 and 605 against 598 at
                # S4096 (level at S16384); at D64 1-7% slower, so not
                # there (H200, 2026-11-28, attention_ceiling --causal
                # --files).
                p, l_i, m_i = _first_block(q, desc_k, kv_row, m_i, offs_m, offs_n, S, qk_scale,
                                           lo, CAUSAL, PER_HEAD)
                first = BLOCK_N
            for start_n in tl.range(first, hi, BLOCK_N, warp_specialize=WS):
                acc, l_i, m_i, p = _attn_step(acc, l_i, m_i, p, q, desc_k, desc_v, kv_row,
                                              start_n, offs_m, offs_n, S, qk_scale, False,
                                              CAUSAL, BLOCK_N, lo, True, PER_HEAD=PER_HEAD)
            last = hi - BLOCK_N
        elif CAUSAL:
            lo = start_m * BLOCK_M
            for start_n in tl.range(0, lo, BLOCK_N, warp_specialize=WS):
                acc, l_i, m_i, p = _attn_step(acc, l_i, m_i, p, q, desc_k, desc_v, kv_row,
                                              start_n, offs_m, offs_n, S, qk_scale, False,
                                              CAUSAL, BLOCK_N, PER_HEAD=PER_HEAD)
            hi = tl.minimum(lo + BLOCK_M, S)
            end = tl.maximum(S - BLOCK_N, 0)
            for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WS):
                acc, l_i, m_i, p = _attn_step(acc, l_i, m_i, p, q, desc_k, desc_v, kv_row,
                                              start_n, offs_m, offs_n, S, qk_scale, True,
                                              CAUSAL, BLOCK_N, TAIL=RAGGED, end=end,
                                              PER_HEAD=PER_HEAD)
            last = ((hi - 1) // BLOCK_N) * BLOCK_N
            if RAGGED:
                last = tl.minimum(last, end)
        else:
            full = (S // BLOCK_N) * BLOCK_N
            first = 0
            if EVEN and PEEL:
                # The persistent kernel's first block before the loop
                # (FlashAttention-3's prologue): no PV multiplies the zero P
                # of "block -1". The producer copies that K block through
                # the slot of the tile's last V (tilegpu-ws-buffer-allocation),
                # used up before the loop starts.
                p, l_i, m_i = _first_block(q, desc_k, kv_row, m_i, offs_m, offs_n, S, qk_scale,
                                           0, CAUSAL, PER_HEAD)
                first = BLOCK_N
            for start_n in tl.range(first, full, BLOCK_N, warp_specialize=WS):
                acc, l_i, m_i, p = _attn_step(acc, l_i, m_i, p, q, desc_k, desc_v, kv_row,
                                              start_n, offs_m, offs_n, S, qk_scale, False,
                                              CAUSAL, BLOCK_N, PER_HEAD=PER_HEAD)
            end = tl.maximum(S - BLOCK_N, 0)
            if not EVEN and RAGGED:
                if full < S:
                    acc, l_i, m_i, p = _attn_step(acc, l_i, m_i, p, q, desc_k, desc_v,
                                                  kv_row, full, offs_m, offs_n, S, qk_scale,
                                                  True, CAUSAL, BLOCK_N, TAIL=RAGGED,
                                                  end=end, PER_HEAD=PER_HEAD)
            last = ((S - 1) // BLOCK_N) * BLOCK_N
            if RAGGED:
                last = tl.minimum(last, end)
        # The last block's PV.
        v = _load_kv(desc_v, kv_row, last, PER_HEAD)
        acc = tl.dot(p, v, acc)
    elif CAUSAL:
        # Unmasked blocks left of the diagonal, then the diagonal's blocks.
        lo = start_m * BLOCK_M
        for start_n in tl.range(0, lo, BLOCK_N, warp_specialize=WS):
            acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_n,
                                        offs_m, offs_n, S, qk_scale, False, CAUSAL,
                                        PER_HEAD=PER_HEAD)
        hi = tl.minimum(lo + BLOCK_M, S)
        end = tl.maximum(S - BLOCK_N, 0)
        for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WS):
            acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_n,
                                        offs_m, offs_n, S, qk_scale, True, CAUSAL, TAIL=RAGGED,
                                        end=end, PER_HEAD=PER_HEAD)
    else:
        # Whole blocks, then the block that crosses S (if any).
        full = (S // BLOCK_N) * BLOCK_N
        for start_n in tl.range(0, full, BLOCK_N, warp_specialize=WS):
            acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, desc_k, desc_v, kv_row, start_n,
                                        offs_m, offs_n, S, qk_scale, False, CAUSAL,
                                        PER_HEAD=PER_HEAD)
        if not EVEN and RAGGED:
            if full < S:
                acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, desc_k, desc_v, kv_row, full,
                                            offs_m, offs_n, S, qk_scale, True, CAUSAL,
                                            TAIL=RAGGED, end=tl.maximum(S - BLOCK_N, 0),
                                            PER_HEAD=PER_HEAD)
    lse = m_i + tl.math.log2(l_i)
    # One division per row, then products (FlashAttention-3's finalize): an
    # IEEE division per element of the accumulator was 64 divisions a
    # thread, each with its slow-path check.
    out = (acc * (1.0 / l_i)[:, None]).to(desc_o.dtype)
    row_ok = offs_m < S
    tl.store(lse_ptr + off_hz * S + offs_m, lse, mask=row_ok)
    if EVEN:
        desc_o.store([q_row, 0], out)
    elif S % BLOCK_M == 0:
        desc_o.store([q_row, 0], out)
    else:
        offs_d = tl.arange(0, HEAD_DIM)
        o_ptrs = o_ptr + (q_row + tl.arange(0, BLOCK_M))[:, None] * HEAD_DIM + offs_d[None, :]
        tl.store(o_ptrs, out, mask=row_ok[:, None])


@jit_backend.jit
def _tile_coords(tile, programs, tiles, tiles_m, CAUSAL: tl.constexpr):
    """(head, query block) of the persistent kernel's `tile`-th tile, where
    program p runs tiles p, p + programs, p + 2 programs, ...: a head's
    query blocks in a row, so that the programs running together share K
    and V in L2. Causal, a head's longest first, and every other wave of
    `programs` tiles reversed (the last, partial wave within itself): a
    causal tile's work grows with its row, and handed out in order a
    program's tiles were all long or all short (at 128 tiles a head and 132
    programs, program p ran rows p % 8 and p % 8 + 4 of every 8, 1.34x the
    mean work for the busiest program at S 1024, 1.12x at S 4096). Reversed
    waves pair a long tile with a short one: on 132 programs the busiest is
    within 3.1% of the mean from S 1k to 16k, which at S 1k and 4k is what
    31.03 waves of whole tiles allow. Longest first across all heads
    balances too but takes K and V out of L2 (237/369/410 TFLOP/s at D128
    S 1k/4k/16k against 284/451/487 a head at a time, H100, 2026-11-27)."""
    if CAUSAL:
        wave_start = tile - tile % programs
        wave = tile // programs
        in_wave = tl.minimum(programs, tiles - wave_start)
        mirrored = 2 * wave_start + in_wave - 1 - tile
        tile = tl.where(wave % 2 == 1, mirrored, tile)
        return tile // tiles_m, tiles_m - 1 - tile % tiles_m
    else:
        return tile // tiles_m, tile % tiles_m


@jit_backend.jit
def attn_fwd_kernel(desc_q, desc_k, desc_v, desc_o, o_ptr, lse_ptr, sm_scale, Z, H, S,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    CAUSAL: tl.constexpr, OVERLAP: tl.constexpr = True,
                    WS: tl.constexpr = False, PERSISTENT: tl.constexpr = False,
                    LONGEST_FIRST: tl.constexpr = True, RAGGED: tl.constexpr = True,
                    PER_HEAD: tl.constexpr = False, PEEL: tl.constexpr = True):
    # RAGGED (attention_call: S not a multiple of 128, every BLOCK_N's
    # multiple): a K/V block may cross S; see _attn_tile. PER_HEAD
    # (attention_call: S below 128): K and V through (Z*H, S, D)
    # descriptors, so that a block longer than the head reads zeros past
    # it, not the next head's rows (which P's zeros would cancel, but
    # 0 * inf is NaN). The warp-specialized kernels take 2-D blocks only.
    # A BLOCK_N that is not a power of 2 (experimental, 176 as in
    # FlashAttention-3) divides no power of 2: attention_call then sets
    # RAGGED unless S is a multiple of it.
    tl.static_assert(RAGGED or 128 % BLOCK_N == 0 or (BLOCK_N & (BLOCK_N - 1)) != 0)
    # The causal off-band loop ends at the diagonal block's first row: it
    # must end on a K/V block boundary.
    # (A BLOCK_N that is not a power of 2, experimental, is for the
    # non-causal kernel only.)
    tl.static_assert(BLOCK_M % BLOCK_N == 0 or (not CAUSAL and ((BLOCK_N & (BLOCK_N - 1)) != 0
                                                           or (BLOCK_M & (BLOCK_M - 1)) != 0)))
    qk_scale = sm_scale * 1.44269504  # exp(x) = exp2(x / ln 2)
    if PERSISTENT:
        # FlashAttention-3's schedule: a program per SM walks the tiles, a
        # head's query blocks in a row, so that the programs running
        # together share K and V in L2 (causal: a head's longest first). Warp-specialized, the tile
        # loop is: the producer runs ahead into the next tile's K/V blocks
        # while the consumers finish a tile's epilogue, and the consumer
        # warpgroups' turns go on from tile to tile.
        tiles_m = tl.cdiv(S, BLOCK_M)
        for tile in tl.range(tl.program_id(0), tiles_m * Z * H, tl.num_programs(0),
                             warp_specialize=WS):
            off_hz, start_m = _tile_coords(tile, tl.num_programs(0), tiles_m * Z * H, tiles_m,
                                           CAUSAL)
            _attn_tile(desc_q, desc_k, desc_v, desc_o, o_ptr, lse_ptr, qk_scale, S, off_hz,
                       start_m, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL, OVERLAP, False, True,
                       RAGGED, PER_HEAD=PER_HEAD, PEEL=PEEL)
    else:
        start_m = tl.program_id(0)
        if CAUSAL and LONGEST_FIRST:
            # The longest tiles first (FlashAttention-2's order): a causal
            # tile's work grows with its row, and the programs start in
            # order, so the short tiles fill the last wave's gaps.
            start_m = tl.num_programs(0) - 1 - start_m
        _attn_tile(desc_q, desc_k, desc_v, desc_o, o_ptr, lse_ptr, qk_scale, S,
                   tl.program_id(1), start_m, HEAD_DIM, BLOCK_M, BLOCK_N, CAUSAL,
                   OVERLAP, WS, False, RAGGED, PER_HEAD=PER_HEAD)


# One point of the tuning space, independent of the JIT.
# overlap: the products rotated (_attn_step) or in order (_attn_block);
# persistent: a program per SM walking the tiles (S a multiple of BLOCK_M).
# ctas: CTAs per program (num_ctas, a thread-block cluster): each takes
# block_m / ctas query rows. Persistent, the producers multicast K's blocks
# to all of them (V's not: the tile's last V is a whole block, copied
# through a one-slot channel of its own). On the H100 this gained nothing: 590/626 TFLOP/s at D128
# S 4096/16384 against 598/633 for 128x128 persistent on one CTA, cuDNN
# 585/597 (2026-11-27 20:52 UTC, bench/results/attention-2026-11-27-205205.md),
# so no cluster config is autotuned; `--configs 256x128w8s2wspersistc2`.
# groups: consumer groups of num_warps warps (num_consumer_groups, their
# slots num_stages); 0: the warp-specialized loops' own (num_warps warps
# taking turns by warpgroups). 3 (experimental): THREE_GROUP_CONFIGS.
AttnConfig = namedtuple("AttnConfig",
                        "block_m block_n num_warps num_stages overlap ws persistent ctas groups",
                        defaults=(True, False, False, 1, 0))

# What the H100 favoured (bench/attention.py --configs, 2026-11-26, D 128,
# S 4096): 128 query rows on two warpgroups with 64-column K/V blocks, in
# order (484 TFLOP/s; 322 with the products rotated), 64 rows on one
# warpgroup with the products rotated (463 against 452 in order; causal
# 440 against 416), 128-column blocks for D 64.  Both orders are kept: the
# autotuner picks per length, head dimension and mask.
CONFIGS = [
    AttnConfig(128, 64, 8, 2, False),
    AttnConfig(128, 64, 8, 2, True),
    AttnConfig(64, 64, 4, 3, True),
    AttnConfig(64, 64, 4, 3, False),
    AttnConfig(128, 64, 4, 2, True),
    AttnConfig(128, 128, 8, 3, False),
    AttnConfig(128, 128, 8, 2, True),
    AttnConfig(64, 32, 4, 3, True),
]
# Warp-specialized (a TMA producer warpgroup, two consumer warpgroups taking
# turns at the products). In order: 128-column K/V blocks at D 128 (their
# slots are reused by the epilogue) ran 521 and 565 TFLOP/s at S 4096 and
# 16384, against 491 and 515 for the set above; 64-column blocks at D 256
# causal 532 and 583 against 395 and 399 (H100, 2026-11-27,
# `bench/attention.py --configs 128x128w8s2seqws,128x64w8s2seqws`).
# Rotated (QK^T of block n and PV of block n-1 in one turn, the softmax of
# block n under PV): once ptxas kept the exponentials ahead of the PV wait
# (tilegpu.schedule_after) and stopped injecting warpgroup.arrive, 128x128
# ran 566 and 590 with two slots and 562 and 624 with three, against 515 and
# 527 in order (bench/results/attention-2026-11-27-140808.md). All are
# kept: the autotuner picks per length, head dimension and mask. racecheck's
# reports on these kernels are the tool's (bench/tools/racecheck_turns: a
# correct turn protocol reports the same hazards once more than one CTA
# runs).
WS_CONFIGS = [AttnConfig(128, 64, 8, 2, False, True), AttnConfig(128, 128, 8, 2, False, True),
              AttnConfig(128, 64, 8, 2, True, True), AttnConfig(128, 128, 8, 2, True, True),
              AttnConfig(128, 128, 8, 3, True, True)]
# Persistent and warp-specialized (the tile loop specialized: the producer
# copies the next tile's K/V blocks during a tile's epilogue); causal tiles
# a head's longest first, their K/V blocks in one loop (_attn_step's MASK_FROM_LO).
# 128x128 at D128 fits in 230912 of the 232448 bytes: Q and the last V
# (after the K/V loop) are copied by the producer once a tile, each through
# a one-slot channel of its own (the first K block, peeled off the loop
# when not causal, through the last V's), and the O buffer of the TMA store
# is the consumers' own. The peel ran 571/558 and 694/672 TFLOP/s at S 1k
# and 4k against 555/542 and 682/660 without it, cuDNN 566/551 and 641/620
# (H100, 2026-11-28 08:04 UTC, attention-experiment-peel-2026-11-28.json).
# Before (Q and the last V the consumers' own loads,
# issued early by tilegpu-issue-tma-loads-early): 128x128 ran 546/621/661
# TFLOP/s at D128 S 1k/4k/16k against cuDNN's 557/591/618, and the four-warpgroup
# 256x64 config (D 64, three slots) 395/468/482 against 395/448/462 and
# 361/451/476 unpersisted (H100, 2026-11-27 23:20 UTC,
# bench/results/attention-2026-11-27-232012.md, -232048.md). With the
# producer's copies: 549/625/660 against cuDNN's 557/585/606 (2026-11-28
# 01:43 UTC, bench/results/attention-2026-11-28-014318.md).
PERSISTENT_CONFIGS = [AttnConfig(128, 128, 8, 2, True, True, True),
                      AttnConfig(256, 64, 16, 3, True, True, True)]
# Four consumer warpgroups (16 warps) on 256x64 blocks, D 64 only: each
# consumer thread gets 112 registers (640 threads start with 96), enough
# for 64x64 scores, P and a 64x64 O but not a 64x128 O. With four
# warpgroups taking turns, three run products while one runs its softmax:
# D 64 went from 422/444 to 469/484 TFLOP/s at S 4096/16384, cuDNN 466/484
# (H100, 2026-11-27 19:52 UTC, bench/results/attention-2026-11-27-195212.md).
FOUR_GROUP_CONFIGS = [AttnConfig(256, 64, 16, 2, True, True)]
# Three consumer warpgroups (num_consumer_groups=3 of 4 warps) on 192-row
# tiles, FlashAttention-3's D 64 shape; experimental (192 is no power of 2:
# WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1), D 64 and not causal only. On the
# H200 (2026-11-28 13:48-13:53 UTC) 517-528 TFLOP/s persistent at S
# 4608/9216 against 475-486 for 256x64 w16, 512 against 477 unpersisted at
# S16384, level at S4096, 330 against 403 at S1024; at D128 192x128
# rotated spills (160 registers) and nothing beat two warpgroups.
THREE_GROUP_CONFIGS = [AttnConfig(192, 128, 4, 2, True, True, False, 1, 3),
                       AttnConfig(192, 128, 4, 2, True, True, True, 1, 3)]
# 80-column K/V blocks at D 256, FlashAttention-3's shape there;
# experimental (80 is no power of 2: WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1),
# not causal only (BLOCK_M is no multiple of 80). On the H200 (2026-11-28
# 16:09 UTC, attention-2026-11-28-160901.md) 732 TFLOP/s at S16384 and 706
# at S4096 against 710 and 700 for 128x64 (cuDNN 649 and 656), 547 against
# 571 at S1024 (13 blocks cover 1040 columns, the last masked).
NPOT_COLUMN_CONFIGS = [AttnConfig(128, 80, 8, 2, True, True)]
CONFIGS += (WS_CONFIGS + PERSISTENT_CONFIGS + FOUR_GROUP_CONFIGS + THREE_GROUP_CONFIGS
            + NPOT_COLUMN_CONFIGS)


def config_fits(config: AttnConfig, head_dim: int, causal: bool = False,
                seqlen: int = 0) -> bool:
    """Whether `config` fits the registers and shared memory at `head_dim`:
    128-column K/V blocks only for D 64, or D 128 when warp-specialized (the
    epilogue then reuses the K/V slots), and no more than two stages of K/V
    at D 256; 16 warps only at D 64. Persistent configs: warp-specialized,
    rotated, D 64 and 128, S a multiple of BLOCK_M."""
    if config.groups == 3:
        # Experimental (THREE_GROUP_CONFIGS): 192-row tiles at D 64, not causal.
        from warpforge.language.core import npot_blocks_enabled
        return (npot_blocks_enabled() and head_dim == 64 and not causal
                and not (config.persistent and seqlen % config.block_m))
    if config.block_n & (config.block_n - 1):
        # Experimental (NPOT_COLUMN_CONFIGS): 80 K/V columns at D 256, not causal.
        from warpforge.language.core import npot_blocks_enabled
        return (npot_blocks_enabled() and head_dim == 256 and not causal
                and not config.persistent)
    if config.block_m % config.block_n:
        return False
    if config.persistent and (not config.ws or not config.overlap or head_dim > 128
                              or seqlen % config.block_m):
        return False
    if head_dim > 64 and config.block_n > 64 and not (config.ws and head_dim <= 128):
        return False
    if head_dim > 128 and (config.num_stages > 2 or config.num_warps < 8):
        return False
    # 16 warps: at most 128 registers a thread (112 for the consumers of a
    # warp-specialized kernel), too few for a 64x128 O.
    if config.num_warps > 8 and head_dim > 64:
        return False
    return True


def describe(config) -> str:
    if not isinstance(config, AttnConfig):
        kw = config.kwargs
        config = AttnConfig(kw["BLOCK_M"], kw["BLOCK_N"], config.num_warps, config.num_stages,
                            kw.get("OVERLAP", True), kw.get("WS", False),
                            kw.get("PERSISTENT", False), config.num_ctas or 1,
                            config.num_consumer_groups or 0)
    return (f"{config.block_m}x{config.block_n} w{config.num_warps} s{config.num_stages}"
            f"{'' if config.overlap else ' in order'}{' ws' if config.ws else ''}"
            f"{' persistent' if config.persistent else ''}"
            f"{f' c{config.ctas}' if config.ctas > 1 else ''}"
            f"{f' g{config.groups}' if config.groups else ''}")


def _set_blocks(nargs):
    """pre_hook: the descriptors' blocks for the config being run."""
    bm, bn, d = nargs["BLOCK_M"], nargs["BLOCK_N"], nargs["HEAD_DIM"]
    nargs["desc_q"].block_shape = [bm, d]
    nargs["desc_o"].block_shape = [bm, d]
    for name in ("desc_k", "desc_v"):
        # Per head (PER_HEAD): (1, BLOCK_N, D) blocks of (Z*H, S, D).
        desc = nargs[name]
        desc.block_shape = [1, bn, d] if len(desc.shape) == 3 else [bn, d]


def _prune(configs, named_args, **kwargs):
    d = kwargs["HEAD_DIM"]
    # The causal persistent kernel is in the set too: it was slower with the
    # consumers loading Q (284/451/487 TFLOP/s at D128 S 1k/4k/16k against
    # 318/506/578 unpersisted, H100, 2026-11-27 17:45 UTC,
    # bench/results/attention-causal-persistent-2026-11-27.md), and with the
    # producer copying Q it ran 318/478/519 against 265/529/611 (2026-11-28
    # 02:04 UTC, bench/results/attention-2026-11-28-020424.md). With every
    # other wave of tiles reversed (_tile_coords) it ran 379/581/564 against
    # 321/588/640 unpersisted and cuDNN's 374/585/588 (2026-11-28 07:02 UTC,
    # attention-2026-11-28-070221.md): fastest at S 1024, level at 4096,
    # behind at 16384 (where the unpersisted kernel's tiles, longest first,
    # are balanced by the hardware's scheduler), so the autotuner decides.
    # K and V read per head (PER_HEAD, attention_call's default below 128
    # rows) are what the warp-specialized kernels do not take: those configs
    # would fall back to unspecialized ones with a warning.
    per_head = kwargs.get("PER_HEAD", named_args["S"] < 128)
    return [c for c in configs
            if not (per_head and c.kwargs["WS"])
            and config_fits(AttnConfig(c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.num_warps,
                                       c.num_stages, c.kwargs["OVERLAP"], c.kwargs["WS"],
                                       c.kwargs["PERSISTENT"], c.num_ctas,
                                       c.num_consumer_groups or 0), d,
                            kwargs["CAUSAL"], named_args["S"])]


def _do_bench(fn):
    """The autotuner's timing: longer than the default (25 ms of warmup,
    100 of timing), which is three launches at S 16384 and picked configs
    5% slower than the best (128x128 s2 unpersisted, 614 TFLOP/s, over
    persistent, 653, H100 2026-11-28 02:04 UTC)."""
    return jit_backend.testing.do_bench(fn, warmup=100, rep=400)


attn_fwd_autotuned = jit_backend.autotune(
    configs=[jit_backend.Config({"BLOCK_M": c.block_m, "BLOCK_N": c.block_n,
                                 "OVERLAP": c.overlap, "WS": c.ws,
                                 "PERSISTENT": c.persistent},
                                num_warps=c.num_warps, num_stages=c.num_stages,
                                num_ctas=c.ctas, num_consumer_groups=c.groups,
                                num_buffers_warp_spec=c.num_stages if c.groups else 0,
                                pre_hook=_set_blocks) for c in CONFIGS],
    key=["S", "HEAD_DIM", "CAUSAL", "PER_HEAD"],
    prune_configs_by={"early_config_prune": _prune}, do_bench=_do_bench)(attn_fwd_kernel)


def attention_call(q, k, v, o, lse, causal: bool, sm_scale: float, config=None,
                   programs=None, per_head=None):
    """(kernel, grid, args, meta) for O = attention(Q, K, V); q, k, v, o are
    contiguous (Z, H, S, D) torch tensors of one dtype, lse a (Z, H, S) fp32
    tensor. Autotuned over CONFIGS when `config` is None. A persistent
    config runs min(tiles, `programs`) programs (default: the SMs).
    `per_head`: K and V read per head (PER_HEAD); None: when S < 128, where
    a K/V block can be longer than a head. A warp-specialized config then
    falls back to an unspecialized kernel with a WarpSpecializationWarning
    (the specialized loop takes 2-D blocks only); the autotuner leaves those
    configs out then, and only then (it is keyed on PER_HEAD too)."""
    Z, H, S, D = q.shape
    for name, t in (("k", k), ("v", v), ("o", o)):
        if tuple(t.shape) != (Z, H, S, D) or t.dtype != q.dtype:
            raise ValueError(f"{name}: expected {(Z, H, S, D)} {q.dtype}, got "
                             f"{tuple(t.shape)} {t.dtype}")
    if D not in (64, 128, 256):
        raise ValueError(f"head dimension {D}: supported are 64, 128 and 256")
    for name, t in (("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse)):
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")
    # A BLOCK_N that is not a power of 2 (experimental,
    # WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1: FlashAttention-3's 128x176) is
    # for the non-causal kernel only.
    npot = config is not None and (config.block_n & (config.block_n - 1) != 0
                                   or config.block_m & (config.block_m - 1) != 0)
    if config is not None and config.block_m % config.block_n and (causal or not npot):
        raise ValueError(f"{describe(config)}: BLOCK_M must be a multiple of BLOCK_N")
    if config is not None and config.persistent and S % config.block_m:
        raise ValueError(f"{describe(config)}: the persistent kernel needs S a multiple of "
                         f"its {config.block_m} rows (S {S})")
    rows = Z * H * S
    # The blocks are set per config (by the pre_hook when autotuned).
    bm, bn = (config.block_m, config.block_n) if config else (1, 1)
    desc = [TensorDescriptor.from_tensor(t.view(rows, D), [bm, D]) for t in (q, o)]
    # Below 128 rows a K/V block can be longer than a head: K and V are then
    # read per head (PER_HEAD).
    if per_head is None:
        per_head = S < 128
    if per_head:
        kv = [TensorDescriptor.from_tensor(t.view(Z * H, S, D), [1, bn, D]) for t in (k, v)]
    else:
        kv = [TensorDescriptor.from_tensor(t.view(rows, D), [bn, D]) for t in (k, v)]
    args = (desc[0], kv[0], kv[1], desc[1], o, lse, sm_scale, Z, H, S)
    # A multiple of 128 is one of every BLOCK_N: no K/V block crosses S.
    # A BLOCK_N that is not a power of 2 (experimental) needs S a multiple
    # of it as well.
    ragged = S % 128 != 0 or (config is not None and S % config.block_n != 0)
    meta = {"HEAD_DIM": D, "CAUSAL": bool(causal), "RAGGED": ragged,
            "PER_HEAD": per_head}
    sms = programs if programs is not None else _sm_count(q)

    def grid_of(block_m, persistent, ctas=1):
        # Programs are clusters of `ctas` CTAs: a persistent kernel runs one
        # per `ctas` SMs.
        tiles = jit_backend.cdiv(S, block_m)
        return (min(tiles * Z * H, max(sms // ctas, 1)),) if persistent else (tiles, Z * H)

    if config is None:
        grid = lambda meta: grid_of(meta["BLOCK_M"], meta["PERSISTENT"],  # noqa: E731
                                    meta.get("num_ctas") or 1)
        return attn_fwd_autotuned, grid, args, meta
    meta.update({"BLOCK_M": config.block_m, "BLOCK_N": config.block_n,
                 "OVERLAP": bool(config.overlap), "WS": bool(config.ws),
                 "PERSISTENT": bool(config.persistent),
                 "num_warps": config.num_warps, "num_stages": config.num_stages})
    if config.groups:
        meta["num_consumer_groups"] = config.groups
        meta["num_buffers_warp_spec"] = config.num_stages
    if config.ctas > 1:
        meta["num_ctas"] = config.ctas
        meta["PEEL"] = False
    return attn_fwd_kernel, grid_of(config.block_m, config.persistent, config.ctas), args, meta


def _sm_count(t) -> int:
    """The SMs of the device holding `t` (a persistent kernel's programs)."""
    import torch
    return torch.cuda.get_device_properties(t.device).multi_processor_count
