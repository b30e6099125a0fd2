//===- Passes.td - Passes over the tilegpu dialect ---------*- tablegen -*-===//

#ifndef WARPFORGE_TILEGPU_PASSES
#define WARPFORGE_TILEGPU_PASSES

include "mlir/Pass/PassBase.td"

def TileGPURemoveLayoutConversions
    : Pass<"tilegpu-remove-layout-conversions", "mlir::ModuleOp"> {
  let summary = "Remove layout conversions by computing values in the "
                "layout their users need";
  let description = [{
    Removes `tilegpu.convert_layout` ops, each of which moves data between
    threads through shuffles or shared memory, in three ways:

    * *Rematerialization*: a conversion of a value that is cheap to compute
      (constants, `tile.splat`, `tile.make_range`, and element-wise ops,
      `tile.expand_dims`, `tile.broadcast` and `tile.trans` of them, or of
      values already in the target layout) is replaced by computing the
      value again directly in the target layout.
    * *Forward propagation*: the ops a conversion's result feeds
      (element-wise ops, loads, stores, atomics, reductions, scans, shape
      ops) and the ops they feed in turn are re-typed to the conversion's
      source layout, when that removes more conversions than it adds: a
      value leaving the re-typed ops to a user that cannot change (a loop,
      a branch, a dot, a reshape) is converted back, and an operand coming
      from outside is rematerialized or converted.
    * Folding: a conversion to the same layout disappears, and a
      conversion of a conversion converts from the first one's source.

    Out of a wgmma accumulator layout (or a slice of one), forward
    propagation has no cost model: the ops that can compute in the
    accumulator's registers (element-wise arithmetic, reductions, whose
    result is a slice of the wgmma layout, expand_dims, broadcast, splats
    and ranges) always do, and operands from outside are computed again or
    converted where they are narrowest (a row vector rather than the tile
    broadcast from it).  The conversion ends up before the first op that
    needs a blocked layout (a store, a local_alloc), after casts, so it
    moves fewer bytes.  A loop whose body yields a value converted out of
    such a layout carries it in that layout (converted once before and
    once after the loop), and so does an scf.if whose branches all yield
    one: an attention softmax's running maximum and sum and its rescaled
    accumulator stay in registers across iterations.  The converse
    (re-typing ops from an accumulator layout to a blocked one) is never
    done.  Last, a product whose A operand is stored to shared memory only
    for it, from a 16-bit value in a wgmma layout of the same warps (P in
    attention), reads it from registers instead (the RS form).

    Every other change keeps the layout rules of convert-tile-to-tilegpu:
    element-wise ops have one layout, a reduction's result is the slice of
    its source's layout.
  }];
}

def TileGPUOverlapProducts
    : Pass<"tilegpu-overlap-products", "mlir::ModuleOp"> {
  let summary = "Wait for each wgmma product where its result is first "
                "used, so that a loop's products overlap its other work";
  let description = [{
    In a loop body with two or more `tilegpu.warp_group_dot`s (attention's
    QK^T and PV, a backward's products), each `tilegpu.warp_group_dot_wait`
    that waits for one product moves down from the product to just before
    the first use of its result, past the products issued after it (its
    `pendings` counts them: the wait retires this product and leaves those
    in flight) and past any op that neither writes memory nor synchronizes
    (element-wise arithmetic, reductions within a warp, layout
    conversions, loads into registers, and branches made of those alone:
    the causal softmax's mask chosen per block).  It stops at a use of the
    result, at another wait, at a barrier, a copy or a store, at a branch
    that issues a product, and at other ops with regions.  A product whose
    A operand comes from registers gets that
    operand as one more input of its wait: the lowering ties it to the
    wait instruction, so its registers are not reused while the product
    may still read them.

    A kernel written with its products rotated (FlashAttention-3's
    intra-warpgroup overlap: QK^T of block n issued, then PV of block n-1,
    then the softmax of block n) then runs the softmax while the tensor
    cores compute PV.  Loops with one product (GEMM K loops) are left to
    the software pipeliner.  The last wait of the body keeps `pendings = 0`
    (the loop ends with nothing in flight), as the pipeliner requires.

    Example: `%qk = dot; %w1 = wait %qk {0}; %pv = dot; %w2 = wait %pv {0};
    <softmax of %w1>; <use of %w2>` becomes `%qk = dot; %pv = dot;
    %w1 = wait %qk {1}; <softmax of %w1>; %w2 = wait %pv {0}; <use of %w2>`.

    Warpgroups taking turns at the products (`warp_group_turn_wait` and
    `_pass` around each, from tilegpu-ws-code-partition): products that end
    up issued back to back, with only pure ops between them, share one turn
    (the pass after the first and the wait before the next go), as
    FlashAttention-3 issues both GEMMs of an iteration in one scheduler
    turn. A turn followed by a wait for an earlier product is kept.

    A product of the previous iteration (the body yields its wait's
    result, `pendings = 0`) that the body reads after issuing products of
    its own, other than as a product's accumulator (FlashAttention-3
    rescales O between QK^T and PV), gets a wait of its own before that
    read, whose `pendings` counts the products issued before it in the
    iteration. It finds nothing left to wait for at run time, but without
    it ptxas cannot see O retired after the latest commit and injects a
    full wait there (info C7517), holding PV back until QK^T is done.
  }];
}

def TileGPUSkipUnitScales
    : Pass<"tilegpu-skip-unit-scales", "mlir::ModuleOp"> {
  let summary = "In loops, skip a tile's multiplication by a row or column "
                "vector in the warps where every factor is 1";
  let description = [{
    An online softmax rescales its accumulator every iteration:
    `acc * alpha[:, None]`, 64 multiplications a thread per 64x128 block of
    a warpgroup, after the wait for the product that wrote `acc` and ahead
    of the next one. `alpha = exp2(m_old - m_new)` is exactly 1 in every
    row whose maximum did not move, and a kernel that lets its maximum lag
    (FlashAttention-4: raise it only when the block's exceeds it by more
    than a threshold) has alpha 1 in most rows of most iterations.

    In an `scf.for` body (at any depth), an `arith.mulf` of a tensor by a
    `tile.broadcast` of a vector holding at most 1/8 of its elements per
    thread, with at least `min-elements` elements a thread, becomes

    ```mlir
    %one = arith.constant dense<1.0> : <the vector's type>
    %ones = arith.cmpf oeq, %v, %one
    %all = tilegpu.warp_all %ones
    %r = scf.if %all -> (...) { scf.yield %x } else { %m = arith.mulf %x, %b; scf.yield %m }
    ```

    `tilegpu.warp_all` is uniform within a warp only; the branch holds the
    multiplication alone, so warps may take different sides. The result is
    the same bits: `x * 1.0 == x` for every x, NaNs aside (the
    multiplication quiets a signalling NaN). Not taken, the branch costs
    its compare, vote and branch (about five instructions a thread).
  }];
  let options = [
    Option<"minElements", "min-elements", "int", /*default=*/"32",
           "Rewrite only products of at least this many elements a thread">,
  ];
  let dependentDialects = ["::warpforge::tilegpu::TileGPUDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileGPUCoalesce : Pass<"tilegpu-coalesce", "mlir::ModuleOp"> {
  let summary = "Give each global load and store a layout that runs along "
                "its addresses' contiguous dimension";
  let description = [{
    The default layout runs every tensor's threads along its last
    dimension.  A `tile.load` or `tile.store` whose pointer tensor is more
    contiguous along another dimension (axis analysis: a column-major
    operand, a K-major matmul operand) gets a blocked layout whose fastest
    dimension is that one, with as many elements per thread there as one
    access of up to 16 bytes covers (bounded by contiguity, alignment and
    the mask's constancy); its operands are converted into that layout and
    its result back.  A pointer tensor a `scf.for` carries is re-typed to
    the new layout across the loop, with conversions at the loop's edges
    only.  Run `tilegpu-remove-layout-conversions` after it.

    Example: with `%p` contiguous along dimension 0,

    ```mlir
    %x = tile.load %p : tensor<64x128x!tile.ptr<f16>, #rows>
    ```

    becomes

    ```mlir
    %q = tilegpu.convert_layout %p : ... #rows> -> ... #cols>
    %y = tile.load %q : tensor<64x128x!tile.ptr<f16>, #cols>
    %x = tilegpu.convert_layout %y : tensor<64x128xf16, #cols> -> ... #rows>
    ```
  }];
  let dependentDialects = ["::warpforge::tilegpu::TileGPUDialect"];
}

def TileGPUAccelerateMatmul
    : Pass<"tilegpu-accelerate-matmul", "mlir::ModuleOp"> {
  let summary = "Put tile.dot on Hopper's warpgroup MMA (wgmma), or on "
                "FMA where wgmma cannot take it";
  let description = [{
    On a `cuda:90` module, every `tile.dot` becomes

    * its operands stored into shared memory (`tilegpu.local_alloc`) in an
      NVMMA swizzled layout: the contiguous dimension is the one the
      operand's register layout runs fastest along (so the stores and
      copies are vectors), except that 8- and 32-bit operands are always
      K-major (wgmma reads only 16-bit types MN-major); the swizzle is the
      widest of 128, 64 and 32 bytes that the tile's rows (and, MN-major,
      the instruction's extent) fill;
    * a `tilegpu.warp_group_dot` on an accumulator in a `#tilegpu.wgmma`
      layout: warpgroups split M while the tile has rows for them, then N;
      the instruction is m64nNk16 for 16-bit types, k32 for fp8 and int8
      and k8 for tf32, with N the widest multiple of 8 up to 256 dividing a
      warp's columns (for int8: 8, 16, 24 or a multiple of 16);
    * `tilegpu.warp_group_dot_wait {pendings = 0}` on the result, converted
      back to the dot's layout.

    An accumulator a loop carries from one dot to the next stays in the
    wgmma layout across iterations (the loop is re-typed), and a cast of
    the result (e.g. to f16 for the store) happens before the conversion
    back, which then moves half the bytes.  A dot whose A operand is a cast
    of another dot's result reads A from registers (the RS form).

    A dot wgmma cannot compute (float64, float32 with ieee or tf32x3
    precision, M below a warpgroup's 64 rows per warpgroup, N or K below
    its instructions, fewer than 4 warps, rows under 32 bytes in shared
    memory, batched operands), and every dot of a target without wgmma
    (below `cuda:90`), runs on the CUDA cores instead: it stays a
    `tile.dot` with its accumulator in a blocked layout and its operands
    converted to that layout's FMA forms (`getFmaOperandLayout`: the
    whole K dimension in every thread) and, when they are narrower floats,
    to the accumulator's type; convert-tilegpu-to-llvm multiplies it with
    one FMA per accumulator element and K step.
  }];
}

def TileGPUSoftwarePipeline
    : Pass<"tilegpu-software-pipeline", "mlir::ModuleOp"> {
  let summary = "Software-pipeline the operand loads of warpgroup products "
                "in loops";
  let description = [{
    Turns the global loads that feed a `tilegpu.warp_group_dot` through a
    `tilegpu.local_alloc` in an `scf.for` into asynchronous copies
    (`cp.async`) into a ring of S shared-memory buffers, issued S - 1
    iterations ahead, and keeps one product in flight
    (`warp_group_dot_wait {pendings = 1}`) while the next copies are issued.

    S is the module's `tilegpu.num-stages` (the kernel's `num_stages`,
    stamped by convert-tile-to-tilegpu; 3 when absent); a loop's
    `tile.num_stages` attribute (from `tl.range(..., num_stages=N)`)
    overrides it for that loop.  Loops with one
    stage, or without a load that qualifies, are left unchanged.  A load
    qualifies when its only user is a `local_alloc` read only by products
    of the loop, its `other` is absent or zero, its address and mask are
    computed from the induction variable, loop invariants and pointer
    increment chains carried by the loop, and each thread copies at least
    4 contiguous, aligned bytes (the axis analysis decides).  The header of
    Pipeliner/SoftwarePipeliner.cpp explains the schedule and its
    synchronization.
  }];
}

def TileGPULowerTMA : Pass<"tilegpu-lower-tma", "mlir::ModuleOp"> {
  let summary = "Lower descriptor loads and stores to TMA copies guarded "
                "by mbarriers";
  let description = [{
    Rewrites the `tile.descriptor_load`s the software pipeliner left (those
    outside pipelined loops) and every `tile.descriptor_store` into the
    explicit asynchronous protocol of the Tensor Memory Accelerator:

    * A load allocates a buffer in the descriptor's shared layout
      (`tma::encodingFor`) and an mbarrier, initializes the barrier (then a
      CTA barrier, so every thread sees it initialized), arms it with the
      block's bytes (`barrier_expect`), issues the copy and waits for phase
      0.  When the loaded tile only goes into shared memory for a product
      (a `local_alloc` in the same layout, or in its transpose through
      `tile.trans`), the product reads the TMA buffer in place
      (`memdesc_trans` for the transpose); otherwise a `local_load` brings
      it into the load's register layout.  After the wait, a CTA barrier
      (no thread may still be polling the barrier) and `inval_barrier`.
    * A store writes the tile into a buffer in the descriptor's layout
      (`local_alloc`, which fences the async proxy for swizzled buffers;
      dense ones get a `fence_async_shared` and a CTA barrier here),
      issues the TMA store and waits for it to have read the buffer
      (`async_tma_store_wait`) as late as possible: just before the end of
      the block that holds the store, followed by a CTA barrier and the
      buffer's deallocation.  A store at the top level of an `scf.for`
      body, or in `scf.if`s there (a persistent kernel's epilogue, or one
      of two chosen per tile), keeps one buffer across the loop instead,
      shared by the loop's stores of that block type, and waits just
      before writing it again (`local_store`), so that the store overlaps
      the next iteration's work; the last wait follows the loop.

    Every barrier, phase and byte count is explicit in the output, which
    `convert-tilegpu-to-llvm` lowers op by op.
  }];
  let dependentDialects = ["::warpforge::tilegpu::TileGPUDialect",
                           "::mlir::arith::ArithDialect"];
}


def TileGPUWSTaskPartition
    : Pass<"tilegpu-ws-task-partition", "mlir::ModuleOp"> {
  let summary = "Choose the product loops to warp-specialize and the loads "
                "their producer copies";
  let description = [{
    Step 1 of automatic warp specialization.  The loops chosen are those
    marked `tile.warp_specialize` (from `tl.range(..., warp_specialize=True)`)
    or, when the module's `tilegpu.num-consumer-groups` is positive, every
    loop of the kernel body with products.  For each, the loads that feed
    its `tilegpu.warp_group_dot`s go to a producer and everything else
    stays with the consumers: the product loop gets `tilegpu.ws.loop` and
    each load the producer copies `tilegpu.ws.operand = i` (its ring in the
    channel) and `tilegpu.ws.copy`: `"tma"` for descriptor loads, `"tma-block"`
    for pointer loads that provably read one 2-D block of a row-major
    matrix (unmasked, unit column stride, 16-byte rows), `"cp.async"` for
    other pointer loads.  A block loaded once outside the loop (once per
    tile of a persistent kernel) and read only by products, each retired in
    its own block (attention's Q, and the rotated loop's last V after the
    loop of a persistent kernel), is the producer's too when it can compute
    its address, outside ping-pong kernels: its descriptor load gets
    `tilegpu.ws.tile_operand = i`.  A loop that cannot be specialized is
    left as it is, its reason recorded in the module's
    `tilegpu.warp-specialize-declined` (`{loc, reason}`) for the frontend
    to warn at the Python line.

    Example: seed 000's loop becomes

    ```mlir
    scf.for %k = %c0 to %n step %c1 iter_args(...) {
      %a = tile.load %pa {tilegpu.ws.copy = "tma-block", tilegpu.ws.operand = 0 : i32} : ...
      %b = tile.load %pb {tilegpu.ws.copy = "tma-block", tilegpu.ws.operand = 1 : i32} : ...
      ...
    } {tilegpu.ws.loop}
    ```
  }];
}

def TileGPUWSBufferAllocation
    : Pass<"tilegpu-ws-buffer-allocation", "mlir::ModuleOp"> {
  let summary = "Give each warp-specialized loop a channel of "
                "num-buffers slots";
  let description = [{
    Step 2 of automatic warp specialization.  For each loop marked by
    tilegpu-ws-task-partition (whose marks it checks against the loop), one
    ring of `num-buffers` shared-memory buffers per operand, in the layout
    its copy writes (the TMA's boxes, or the product's own layout for
    cp.async), and a `tilegpu.create_channel` over them, marked
    `tilegpu.ws.channel`, at the start of the kernel; each block the
    producer copies once a tile (`tilegpu.ws.tile_operand = i`) one buffer
    and a one-slot channel marked `tilegpu.ws.tile_channel = i`.  A block
    copied before the loop and read only by products ahead of it (a first
    K block whose product was peeled off the loop) and a block of the same type
    copied after it (the last V) share one: `tilegpu.ws.tile_channel =
    array<i32: k, v>`, used twice a tile in that order.

    Example:

    ```mlir
    %ra = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x128x64xf16, #shared, mutable>
    %rb = tilegpu.local_alloc : () -> !tilegpu.memdesc<3x64x256xf16, #shared1, mutable>
    %ch = tilegpu.create_channel %ra, %rb {tilegpu.ws.channel} : ... -> !tilegpu.channel<3>
    ```
  }];
  let options = [
    Option<"numBuffers", "num-buffers", "int", /*default=*/"0",
           "Channel slots (0: the module's tilegpu.num-buffers-warp-spec, "
           "else its num-stages)">,
  ];
}

def TileGPUWSCodePartition
    : Pass<"tilegpu-ws-code-partition", "mlir::ModuleOp"> {
  let summary = "Split a marked product loop into a producer partition and "
                "consumer warps joined by its channel";
  let description = [{
    Step 3 of automatic warp specialization, on the loops of
    tilegpu-ws-task-partition with the channels of
    tilegpu-ws-buffer-allocation (an error at the loop when its marks no
    longer match it, or it has no channel).  The marked loads, with the
    address computations behind them, go to a producer partition of one
    warpgroup, which acquires a channel slot, fills it and commits
    it; the rest of the kernel (the products, the math, the epilogue) stays
    on the kernel's own warps, the consumers, which wait for each slot,
    read the buffers in place and release the slot once their products
    have retired.  The channel has `num-buffers` slots (the module's
    `tilegpu.num-buffers-warp-spec`); both loops count their uses of it in
    a loop-carried counter, from which tilegpu-lower-channels derives slot
    and phase.  A block copied once a tile goes through its own one-slot
    channel: the producer copies it before or after the loop's blocks, the
    consumers wait where it was loaded and release it once no product reads
    it, both counting one use a tile (the tile's index; 0 without a tile
    loop), or the k-th of n uses of a shared slot (n * tile + k).

    How the producer copies each operand: descriptor loads with the TMA
    (`channel_tma_load`; a descriptor made on the device before the loops
    is made by the producer itself); pointer loads that provably read one
    2-D block of a row-major matrix (unmasked, unit column stride, 16-byte
    rows) with the TMA through a tensor map the producer makes (marked
    `tilegpu.synthesized-map`); other pointer loads with cp.async
    (`channel_async_copy`), their address math redone on the producer's
    warps (the kernel's blocked layouts with fewer warps) and the pointers
    the loop advances carried by the producer's loop and dropped from the
    consumers'.

    The consumers' data partition is the one their layouts already have:
    the wgmma layout spreads the tile's rows over the kernel's warpgroups
    (each warpgroup owns 64-row slices), so `num_consumer_groups`
    warpgroups split the tile along M.  Registers move with `setmaxnreg`
    when the even share of the SM's 64K (the kernel's starting .maxnreg) is
    short of what the consumers should hold and the producer holds no
    addresses (a cp.async producer keeps the even share): producer and
    consumers are given counts whose sum over the CTA's warpgroups stays
    within 64K (40 and 232 for two consumer warpgroups, 32 and 160 for
    three; one consumer warpgroup starts with 248 already, and nothing
    moves).

    When the loop runs more than one product (attention's QK^T and PV) on
    a consumer group of two or more warpgroups, the warpgroups take turns
    issuing each product (`tilegpu.warp_group_turn_wait` before it,
    `tilegpu.warp_group_turn_pass` after it, the first turn given before
    the loop and the last taken back after it), so that one warpgroup's
    products run under the other's softmax.

    With `remarks`, each loop specialized gets a remark with its plan.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark at each loop specialized: how each operand is copied "
           "(tma, tma-block, cp.async), the iter_args the producer "
           "carries, the slots and the registers">,
  ];
}

def TileGPUWarpSpecialize : Pass<"tilegpu-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Automatic warp specialization: task partition, buffer "
                "allocation and code partition in a row";
  let description = [{
    Runs tilegpu-ws-task-partition, tilegpu-ws-buffer-allocation and
    tilegpu-ws-code-partition (see each), with their options; the JIT's
    step.  Each can be run on its own by name to read the IR between
    them.
  }];
  let options = [
    Option<"numBuffers", "num-buffers", "int", /*default=*/"0",
           "Channel slots (0: the module's tilegpu.num-buffers-warp-spec, "
           "else its num-stages)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark at each loop specialized: how each operand is copied "
           "(tma, tma-block, cp.async), the iter_args the producer "
           "carries, the slots and the registers">,
  ];
}

def TileGPUHostTensorMaps
    : Pass<"tilegpu-host-tensor-maps", "mlir::ModuleOp"> {
  let summary = "Encode the compiler's uniform tensor maps at launch";
  let description = [{
    A `tile.make_tensor_descriptor` the compiler made
    (`tilegpu.synthesized-map`: tilegpu-warp-specialize's maps of pointer
    loads) whose base is a kernel argument and whose sizes and strides are
    kernel arguments (possibly sign-extended) or constants is the same map
    in every program: it becomes a new kernel argument of its descriptor
    type, appended after the others (and captured by each enclosing
    `tilegpu.warp_specialize`), which the launcher encodes once per launch
    and passes by value, as it does a host TensorDescriptor.  Programs then
    neither write a map into global scratch nor fence it, and share one
    descriptor in the TMA unit's cache.  The module's
    `tilegpu.host-tensor-maps` records, per such argument, where the
    launcher finds its base, sizes and strides.  Maps the source makes are
    left alone (their values are checked where the kernel makes them).

    Example: the producer's

    ```mlir
    %map = tile.make_tensor_descriptor %a, [%max, %max], [%lda, %c1]
        {tilegpu.synthesized-map} : !tile.ptr<f16>, !tile.tensordesc<tensor<128x64xf16>>
    ```

    with `%a` and `%lda` kernel arguments 0 and 3 becomes kernel argument 6
    and `{param = 6, base = 0, block = [128, 64], shape = [2147483647,
    2147483647], shape_args = [-1, -1], strides = [0, 1], stride_args =
    [3, -1]}`.
  }];
}

def TileGPULowerChannels : Pass<"tilegpu-lower-channels", "mlir::ModuleOp"> {
  let summary = "Lower channels to full and empty mbarrier rings";
  let description = [{
    Each `tilegpu.create_channel` of N slots becomes two rings of N
    mbarriers, initialized before the warp_specialize op: `full[s]` (one
    arrival for the producer's `arrive.expect_tx` of the bytes its TMA
    copies complete, plus one per producer thread when rings are filled
    with cp.async, each made when that thread's copies land) and
    `empty[s]` (one arrival per consumer thread).  For use count `c`, slot `s = c % N` and phase `(c / N) % 2`:
    `channel_acquire` waits `empty[s]` for parity `phase ^ 1` (a fresh
    barrier's preceding phase counts as complete, so the first lap passes);
    `channel_commit` arms `full[s]` with the bytes of the slot's copies,
    issued before them, and `channel_tma_load` becomes a TMA copy into
    buffer `s` signalling `full[s]`, `channel_async_copy` cp.async copies
    into it followed, at the commit, by each thread's
    `async_copy_mbarrier_arrive` on `full[s]`; `channel_wait` waits `full[s]` for
    parity `phase` and indexes the rings; `channel_release` arrives on
    `empty[s]`.
  }];
}

#endif // WARPFORGE_TILEGPU_PASSES
