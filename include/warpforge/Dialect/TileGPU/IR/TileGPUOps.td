//===- TileGPUOps.td - Operations of the tilegpu dialect ---*- tablegen -*-===//

#ifndef WARPFORGE_TILEGPU_OPS
#define WARPFORGE_TILEGPU_OPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "warpforge/Dialect/Tile/IR/TileTypes.td"
include "warpforge/Dialect/Tile/IR/TileEnums.td"
include "warpforge/Dialect/TileGPU/IR/TileGPUDialect.td"
include "warpforge/Dialect/TileGPU/IR/TileGPUAttrs.td"
include "warpforge/Dialect/TileGPU/IR/TileGPUTypes.td"

// Shared memory is one resource: allocations, reads and writes of it are
// ordered against each other, not against global memory or arithmetic.
def TileGPU_SharedMemory : Resource<"::warpforge::tilegpu::SharedMemory">;
def GlobalMemory : Resource<"::warpforge::tile::GlobalMemory">;

def TileGPU_MemDesc : DialectType<TileGPU_Dialect,
    CPred<"::llvm::isa<::warpforge::tilegpu::MemDescType>($_self)">,
    "shared memory descriptor", "::warpforge::tilegpu::MemDescType">;
def TileGPU_AsyncToken : DialectType<TileGPU_Dialect,
    CPred<"::llvm::isa<::warpforge::tilegpu::AsyncTokenType>($_self)">,
    "async token", "::warpforge::tilegpu::AsyncTokenType">,
    BuildableType<"::warpforge::tilegpu::AsyncTokenType::get($_builder.getContext())">;
def TileGPU_Channel : DialectType<TileGPU_Dialect,
    CPred<"::llvm::isa<::warpforge::tilegpu::ChannelType>($_self)">,
    "channel", "::warpforge::tilegpu::ChannelType">;

//===----------------------------------------------------------------------===//
// Layout conversion
//===----------------------------------------------------------------------===//

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure,
    SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Redistribute a tensor to another layout";
  let description = [{
    Returns `src` with the layout of the result type.  Elements move between
    threads through warp shuffles or shared memory, so conversions cost
    time: `tilegpu-remove-layout-conversions` removes those it can.

    Example:

    ```mlir
    %y = tilegpu.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc",
    [MemoryEffects<[MemAlloc<TileGPU_SharedMemory>]>]> {
  let summary = "Allocate shared memory, optionally initialized from a tensor";
  let description = [{
    Allocates the shared memory described by the result type for the rest of
    the kernel (or until `tilegpu.local_dealloc`).  With `src`, the memory
    holds `src` (then it need not be mutable); without, it is uninitialized
    and must be mutable.  A `src` for N buffers has a leading dimension of
    N, one buffer per index (a batched product's operand, one 2-D buffer
    per batch).

    Example:

    ```mlir
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #s, mutable, buffers = 2>
    %c = tilegpu.local_alloc %x : (tensor<64x64xf16, #b>) -> !tilegpu.memdesc<64x64xf16, #s>
    %q = tilegpu.local_alloc %y : (tensor<4x32x64xf16, #b3>) -> !tilegpu.memdesc<32x64xf16, #s, buffers = 4>
    ```
  }];
  let arguments = (ins Optional<AnyRankedTensor>:$src);
  let results = (outs TileGPU_MemDesc:$result);
  let assemblyFormat = [{
    ($src^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TileGPU_LocalDeallocOp : TileGPU_Op<"local_dealloc",
    [MemoryEffects<[MemFree<TileGPU_SharedMemory>]>]> {
  let summary = "End the lifetime of a shared-memory allocation";
  let description = [{
    Its memory may be reused by later allocations.

    Example:

    ```mlir
    tilegpu.local_dealloc %m : !tilegpu.memdesc<64x64xf16, #s, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src))";
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load",
    [MemoryEffects<[MemRead<TileGPU_SharedMemory>]>]> {
  let summary = "Read a shared-memory buffer into a distributed tensor";
  let description = [{
    Every thread reads the elements the result's layout gives it.  From
    N buffers, the result has a leading dimension of N, one per buffer.

    Example:

    ```mlir
    %x = tilegpu.local_load %m : !tilegpu.memdesc<64x64xf16, #s> -> tensor<64x64xf16, #b>
    %y = tilegpu.local_load %n : !tilegpu.memdesc<32x32xf32, #s, buffers = 4> -> tensor<4x32x32xf32, #b3>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store",
    [MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Write a distributed tensor into a shared-memory buffer";
  let description = [{
    Every thread writes the elements it holds; `dst` must be mutable.  Into
    N buffers, `src` has a leading dimension of N, one per buffer.

    Example:

    ```mlir
    tilegpu.local_store %x, %m : tensor<64x64xf16, #b> -> !tilegpu.memdesc<64x64xf16, #s, mutable>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$src, TileGPU_MemDesc:$dst);
  let assemblyFormat = [{
    $src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescIndexOp : TileGPU_Op<"memdesc_index", [Pure]> {
  let summary = "One buffer of a multi-buffered allocation";
  let description = [{
    Selects buffer `index` (0 to N-1, taken modulo nothing: the caller keeps
    it in range) of a memdesc with `buffers = N`; the result is that single
    buffer with the same shape, layout and mutability.

    Example:

    ```mlir
    %b = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<64x64xf16, #s, mutable, buffers = 3> -> !tilegpu.memdesc<64x64xf16, #s, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src, I32:$index);
  let results = (outs TileGPU_MemDesc:$result);
  let assemblyFormat = [{
    $src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescSubsliceOp : TileGPU_Op<"memdesc_subslice", [Pure]> {
  let summary = "A statically offset sub-tile of a shared-memory buffer";
  let description = [{
    The sub-tile of `src` starting at `offsets` with the result's shape,
    e.g. one K-slice of an operand tile.  Offsets are multiples of the
    result's shape along each dimension.

    Example:

    ```mlir
    %k1 = tilegpu.memdesc_subslice %m [0, 16] : !tilegpu.memdesc<64x64xf16, #s> -> !tilegpu.memdesc<64x16xf16, #s>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src, DenseI64ArrayAttr:$offsets);
  let results = (outs TileGPU_MemDesc:$result);
  let assemblyFormat = [{
    $src $offsets attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileGPU_MemDescTransOp : TileGPU_Op<"memdesc_trans", [Pure]> {
  let summary = "The same 2-D shared-memory buffer, read transposed";
  let description = [{
    A view of `src` with its two dimensions swapped: no data moves.  An
    NVMMA buffer's `transposed` flag flips with it (its contiguous dimension
    is now the other one), so a `[N, K]` tile a TMA copy wrote K-contiguous
    is the `[K, N]` B operand of a product, read K-major.

    Example:

    ```mlir
    %bt = tilegpu.memdesc_trans %b : !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>> -> !tilegpu.memdesc<64x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$src);
  let results = (outs TileGPU_MemDesc:$result);
  let assemblyFormat = [{
    $src attr-dict `:` qualified(type($src)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies (cp.async) and fences
//===----------------------------------------------------------------------===//

def TileGPU_AsyncCopyGlobalToLocalOp : TileGPU_Op<"async_copy_global_to_local",
    [MemoryEffects<[MemRead<GlobalMemory>, MemWrite<TileGPU_SharedMemory>]>,
     AttrSizedOperandSegments]> {
  let summary = "Start copying a tensor of global addresses into shared memory";
  let description = [{
    Each thread issues `cp.async` copies of the elements at `ptrs` (in the
    pointer tensor's layout) into the single, mutable buffer `dst`; masked-off
    elements are filled with `other` (zero when absent).  The copy completes
    asynchronously: commit it into a group with `tilegpu.async_commit_group`
    and wait for the group with `tilegpu.async_wait` before reading `dst`.

    Example:

    ```mlir
    %t = tilegpu.async_copy_global_to_local %p, %b mask %m : tensor<64x64xi1, #b> : tensor<64x64x!tile.ptr<f16>, #b> -> !tilegpu.memdesc<64x64xf16, #s, mutable>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$ptrs, TileGPU_MemDesc:$dst,
                       Optional<AnyRankedTensor>:$mask,
                       Optional<AnyRankedTensor>:$other);
  let results = (outs TileGPU_AsyncToken:$token);
  let assemblyFormat = [{
    $ptrs `,` $dst (`mask` $mask^ `:` type($mask))?
    (`other` $other^ `:` type($other))? attr-dict `:`
    type($ptrs) `->` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group"> {
  let summary = "Close the current group of asynchronous copies";
  let description = [{
    Groups every asynchronous copy the thread issued since the previous
    commit (`cp.async.commit_group`); the result stands for the group.

    Example:

    ```mlir
    %g = tilegpu.async_commit_group tokens %t0, %t1
    %e = tilegpu.async_commit_group
    ```
  }];
  let arguments = (ins Variadic<TileGPU_AsyncToken>:$tokens);
  let results = (outs TileGPU_AsyncToken:$result);
  // The `tokens` keyword ends the op when there are none: a bare optional
  // operand list would swallow the `%x` that starts the next line.
  let assemblyFormat = "(`tokens` $tokens^)? attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait"> {
  let summary = "Wait until at most `num` groups of copies are in flight";
  let description = [{
    Blocks the thread until all but the `num` most recent committed groups
    have completed (`cp.async.wait_group num`).  Other threads' copies are
    visible only after a barrier.

    Example:

    ```mlir
    %w = tilegpu.async_wait tokens %g {num = 1 : i32}
    ```
  }];
  let arguments = (ins Variadic<TileGPU_AsyncToken>:$tokens,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$num);
  let results = (outs TileGPU_AsyncToken:$result);
  let assemblyFormat = "(`tokens` $tokens^)? attr-dict";
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared"> {
  let summary = "Order generic shared-memory writes before async-proxy reads";
  let description = [{
    `fence.proxy.async.shared::cta`: shared memory written by ordinary
    stores becomes visible to the tensor cores and the TMA engine, which
    read through the async proxy.  Each writing thread fences, then the CTA
    synchronizes.

    Example:

    ```mlir
    tilegpu.fence_async_shared
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Warpgroup matrix products (wgmma)
//===----------------------------------------------------------------------===//

def TileGPU_WarpGroupDotOp : TileGPU_Op<"warp_group_dot", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>,
    AllTypesMatch<["c", "d"]>]> {
  let summary = "Asynchronous warpgroup matrix product: d = a * b + c";
  let description = [{
    Issues Hopper's `wgmma.mma_async` for an M x N x K product: `wgmma.fence`,
    then one instruction per (M/64-per-warpgroup, K/instrK) step, then
    `wgmma.commit_group`.  The accumulator `c` and the result `d` are in a
    `#tilegpu.wgmma` layout whose `instrShape` = [64, n, k] sets the
    instruction; warpgroups split M (and N) as its `warpsPerCTA` says.

    `b` is always read from shared memory in a `#tilegpu.nvmma_shared`
    layout, through matrix descriptors (start address, leading and stride
    byte offsets, swizzle).  `a` is either such a buffer (the SS form) or a
    register tensor in `#tilegpu.dot_op<opIdx = 0, parent = <d's layout>>`
    (the RS form).  A buffer is K-major unless its layout is `transposed`
    (MN-major), which only 16-bit types allow.

    The product is asynchronous: `d` may be read only after a
    `tilegpu.warp_group_dot_wait` that covers it.  Shared memory written by
    ordinary stores must be fenced (`tilegpu.fence_async_shared`) first.

    Operand and accumulator types: f16 x f16 -> f32 or f16; bf16 x bf16 ->
    f32; f8E4M3FN / f8E5M2 (any mix) -> f32 or f16 (K-major only); i8 x i8
    -> i32, signed (K-major only); f32 x f32 -> f32 as tf32
    (`inputPrecision = tf32`).

    Example:

    ```mlir
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<128x64xf16, #sa> * !tilegpu.memdesc<64x128xf16, #sb> -> tensor<128x128xf32, #wgmma>
    ```
  }];
  let arguments = (ins
    AnyTypeOf<[TileGPU_MemDesc, AnyRankedTensor]>:$a,
    TileGPU_MemDesc:$b,
    AnyRankedTensor:$c,
    DefaultValuedAttr<Tile_InputPrecisionAttr, "::warpforge::tile::InputPrecision::IEEE">:$inputPrecision,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`inputPrecision` `=` $inputPrecision^)?
    (`maxNumImpreciseAcc` `=` $maxNumImpreciseAcc^)? attr-dict
    `:` qualified(type($a)) `*` qualified(type($b)) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The accumulator's layout.
    WgmmaEncodingAttr getAccLayout() {
      return ::llvm::cast<WgmmaEncodingAttr>(getD().getType().getEncoding());
    }
  }];
}

def TileGPU_WarpGroupDotWaitOp : TileGPU_Op<"warp_group_dot_wait", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>]>,
    AllTypesMatch<["inputs", "outputs"]>]> {
  let summary = "Wait until at most `pendings` wgmma groups are in flight";
  let description = [{
    `wgmma.wait_group pendings`: blocks the warpgroup until all but the
    `pendings` most recent committed `tilegpu.warp_group_dot`s have
    completed.  The accumulators `inputs` pass through to `outputs`, so that
    nothing reads them before the wait (the lowering ties them to the
    instruction).  With `pendings = 1` a software pipeline keeps one product
    in flight while it loads the next operands.

    Example:

    ```mlir
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #wgmma>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
  let hasVerifier = 1;
}

def TileGPU_ScheduleAfterOp : TileGPU_Op<"schedule_after", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Keep the computation of values ahead of what follows";
  let description = [{
    A scheduling fence for ptxas: what computes `values` runs before the
    ops after this one. ptxas moves a `wgmma.wait_group` up past independent
    arithmetic: in a loop with its products rotated (QK^T of block n and PV
    of block n-1 issued, then the softmax of block n, then the wait for PV),
    it issued the wait for PV before the softmax's exponentials, so the
    softmax ran after PV instead of under it. tilegpu-overlap-products puts
    this op before a wait that it moved past reductions, on their results.

    Lowered to a branch that depends on every element of `values` (their
    bits xor-ed, compared with -1) around a `membar.cta`: ptxas schedules
    within a block, so nothing after the branch is issued before the values
    exist. Taken or not, the branch changes nothing but timing.

    Example:

    ```mlir
    tilegpu.schedule_after %sum, %max : tensor<128xf32, #slice>, tensor<128xf32, #slice>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
  let hasVerifier = 1;
}

def TileGPU_WarpAllOp : TileGPU_Op<"warp_all", [Pure]> {
  let summary = "Whether a condition holds at every element a warp holds";
  let description = [{
    True in every thread of a warp when every element of `condition` held
    by the threads of that warp is true (`vote.sync.all` over each thread's
    own elements combined), false otherwise. The result is the same in all
    threads of a warp and may differ from warp to warp, so it may only
    guard work that each warp does on its own: no barrier, no layout
    conversion through shared memory.

    tilegpu-skip-unit-scales uses it to skip a loop's rescale of a
    tile by a row vector (attention's `O * alpha[:, None]`) in the warps
    where every factor is exactly 1.

    Example:

    ```mlir
    %all = tilegpu.warp_all %ones : tensor<128x1xi1, #tilegpu.wgmma<...>>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$condition);
  let results = (outs I1:$result);
  let assemblyFormat = "$condition attr-dict `:` type($condition)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

class TileGPU_BarrierOp<string mnemonic, list<Trait> traits = []>
    : TileGPU_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                       MemWrite<TileGPU_SharedMemory>]>])> {
  let hasVerifier = 1;
}

def TileGPU_InitBarrierOp : TileGPU_BarrierOp<"init_barrier"> {
  let summary = "Initialize an mbarrier with its expected arrival count";
  let description = [{
    `barrier` is a mutable `1xi64` shared buffer; the barrier completes a
    phase when `count` threads have arrived (and every expected transaction
    byte has landed).

    Example:

    ```mlir
    tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier,
                       ConfinedAttr<I32Attr, [IntPositive]>:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` qualified(type($barrier))";
}

def TileGPU_BarrierExpectOp : TileGPU_BarrierOp<"barrier_expect"> {
  let summary = "Announce the bytes asynchronous copies will deliver";
  let description = [{
    Adds `bytes` to the transaction count the current phase of `barrier`
    waits for (`mbarrier.arrive.expect_tx`), when `pred` is true.

    Example:

    ```mlir
    tilegpu.barrier_expect %bar, 16384, %true : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$bytes, I1:$pred);
  let assemblyFormat = [{
    $barrier `,` $bytes `,` $pred attr-dict `:` qualified(type($barrier))
  }];
}

def TileGPU_ArriveBarrierOp : TileGPU_BarrierOp<"arrive_barrier"> {
  let summary = "Arrive on an mbarrier";
  let description = [{
    The thread arrives `count` times on the current phase of `barrier`.
    With `cta`, on the barrier at the same offset in the shared memory of
    CTA `cta` of the thread's cluster (`mapa`, then
    `mbarrier.arrive.shared::cluster`): how a consumer tells the producers of every CTA that multicast
    into its slot that the slot is free.  With `per_warp`, each warp
    arrives once, by its first lane after all its lanes have reached the
    op (`bar.warp.sync`): a barrier counting warps, and one remote arrival
    per warp rather than per thread.

    Example:

    ```mlir
    tilegpu.arrive_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    tilegpu.arrive_barrier %bar, 1 cta %c1 {per_warp} : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier,
                       ConfinedAttr<I32Attr, [IntPositive]>:$count,
                       Optional<I32>:$cta, UnitAttr:$per_warp);
  let assemblyFormat = [{
    $barrier `,` $count (`cta` $cta^)? attr-dict `:` qualified(type($barrier))
  }];
}

def TileGPU_ClusterBarrierOp : TileGPU_Op<"cluster_barrier", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                   MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Wait for every thread of every CTA of the cluster";
  let description = [{
    Every thread of the CTA executes it; it completes when all threads of
    all the cluster's CTAs have (`barrier.cluster.arrive.release` and
    `barrier.cluster.wait.acquire`), after making the CTA's mbarrier
    initializations visible to the cluster (`fence.mbarrier_init`).  Before
    the first remote arrival or multicast copy, so that no CTA touches a
    barrier another has not initialized, and before the kernel ends, so
    that no CTA exits while another may still write into its shared
    memory.

    Example:

    ```mlir
    tilegpu.cluster_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncCopyMBarrierArriveOp
    : TileGPU_BarrierOp<"async_copy_mbarrier_arrive"> {
  let summary = "Arrive on an mbarrier when the thread's copies complete";
  let description = [{
    The barrier counts one arrival of this thread once every `cp.async` the
    thread issued before has completed
    (`cp.async.mbarrier.arrive.noinc.shared::cta.b64`).  `noinc`: the
    arrival is one of those the barrier was initialized to expect, so a
    barrier that a partition of T threads fills this way is initialized
    with count T.

    Example:

    ```mlir
    tilegpu.async_copy_mbarrier_arrive %bar : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
}

def TileGPU_WaitBarrierOp : TileGPU_BarrierOp<"wait_barrier"> {
  let summary = "Wait for an mbarrier phase to complete";
  let description = [{
    Blocks until the phase of `barrier` with parity `phase` (0 or 1) has
    completed.

    Example:

    ```mlir
    tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier, I32:$phase);
  let assemblyFormat = "$barrier `,` $phase attr-dict `:` qualified(type($barrier))";
}

def TileGPU_InvalBarrierOp : TileGPU_BarrierOp<"inval_barrier"> {
  let summary = "Invalidate an mbarrier before its memory is reused";
  let description = [{
    `mbarrier.inval`: after it, the 8 bytes of `barrier` may hold anything
    else (or another barrier, after a new `init_barrier`).

    Example:

    ```mlir
    tilegpu.inval_barrier %bar : !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable>
    ```
  }];
  let arguments = (ins TileGPU_MemDesc:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
}

//===----------------------------------------------------------------------===//
// TMA: bulk tensor copies through tensor descriptors
//===----------------------------------------------------------------------===//

def TileGPU_AsyncTMACopyGlobalToLocalOp : TileGPU_Op<"async_tma_copy_global_to_local", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Start a TMA copy of one descriptor block into shared memory";
  let description = [{
    One thread of the CTA, when `pred` holds, issues
    `cp.async.bulk.tensor` copies of the block of `desc` at `indices` (one
    i32 per dimension, in elements, outermost first) into the single,
    mutable buffer `result`, whose layout is the descriptor's
    (`tilegpu::tma::encodingFor`: NVMMA-swizzled for 2-D blocks with rows of
    32 bytes or more, one copy per column block of the swizzle's width; else
    dense).  Each copy signals its bytes on `barrier`: the issuing thread
    must have announced them with `tilegpu.barrier_expect` in the same phase,
    and readers wait for the phase with `tilegpu.wait_barrier`.  Elements
    outside the tensor are filled with zeros (or NaN, by the descriptor).

    With `multicast = C` the block is the same in the C CTAs of the
    cluster, which share the work: CTA r copies rows [r * R / C, (r + 1) *
    R / C) of its R rows (the tensor map's box is that slice: the
    launcher encodes it so) to the same offset of every CTA's buffer, and
    its bytes complete on the barrier at the same offset in each CTA
    (`.multicast::cluster`).  Each CTA's barrier thus counts the whole
    block's bytes, as without multicast.

    Example:

    ```mlir
    tilegpu.async_tma_copy_global_to_local %desc[%i, %k] %buf, %bar, %true : !tile.tensordesc<tensor<128x64xf16>>, !tilegpu.memdesc<1xi64, #tilegpu.shared<order = [0]>, mutable> -> !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>, mutable>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                       TileGPU_MemDesc:$result, TileGPU_MemDesc:$barrier,
                       I1:$pred,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$multicast);
  let assemblyFormat = [{
    $desc `[` $indices `]` $result `,` $barrier `,` $pred attr-dict `:`
    qualified(type($desc)) `,` qualified(type($barrier)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncTMACopyLocalToGlobalOp : TileGPU_Op<"async_tma_copy_local_to_global", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<GlobalMemory>]>]> {
  let summary = "Start a TMA store of a shared-memory buffer as one descriptor block";
  let description = [{
    One thread of the CTA issues `cp.async.bulk.tensor` stores of `src`
    (in the descriptor's layout, see `async_tma_copy_global_to_local`) to the
    block of `desc` at `indices`, and commits them as one bulk group
    (`cp.async.bulk.commit_group`).  Elements outside the tensor are not
    written.  What the threads stored into `src` must be ordered before
    the copy: each writer fences (`tilegpu.fence_async_shared`) and the CTA
    synchronizes.  `src` may be rewritten or freed only after
    `tilegpu.async_tma_store_wait`.  With `reduce`, the block is combined
    into global memory with that reduction instead of overwriting it
    (`cp.reduce.async.bulk.tensor`).

    Example:

    ```mlir
    tilegpu.async_tma_copy_local_to_global %desc[%i, %j] %buf : !tile.tensordesc<tensor<128x128xf16>>, !tilegpu.memdesc<128x128xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                       TileGPU_MemDesc:$src,
                       OptionalAttr<Tile_DescriptorReduceKindAttr>:$reduce);
  let assemblyFormat = [{
    $desc `[` $indices `]` $src (`reduce` $reduce^)? attr-dict `:`
    qualified(type($desc)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncTMAStoreWaitOp : TileGPU_Op<"async_tma_store_wait", [
    MemoryEffects<[MemRead<TileGPU_SharedMemory>, MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Wait until the TMA stores have read their shared memory";
  let description = [{
    `cp.async.bulk.wait_group.read pendings` in the thread that issued the
    stores: all but the `pendings` most recent groups of TMA stores have
    finished reading shared memory, so their buffers may be reused.  (Their
    global writes may still be in flight; the kernel's end or a later
    kernel sees them.)

    Example:

    ```mlir
    tilegpu.async_tma_store_wait {pendings = 0 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$pendings);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Warp specialization: partitions and the channels between them
//===----------------------------------------------------------------------===//

def TileGPU_WarpSpecializeOp : TileGPU_Op<"warp_specialize", [
    RecursiveMemoryEffects, IsolatedFromAbove]> {
  let summary = "Run regions of code on disjoint groups of warps at once";
  let description = [{
    The CTA's warps split: the kernel's own warps (the module's
    `tilegpu.num-warps`) run the `default` region, and each further region,
    a partition, runs on `partitionNumWarps[i]` more warps of its own,
    numbered after the default warps and the earlier partitions.  All
    regions start together and the op completes when every region has
    finished; they communicate only through shared memory, with
    `tilegpu.channel_*` ops (or mbarriers once those are lowered).

    Every region is isolated from above: what it uses from outside arrives
    as the op's operands (`explicitCaptures`), which become the block
    arguments of every region, so that no rewrite (CSE, hoisting) can make
    one group of warps read a value another computed.  Inside a partition,
    a CTA-wide barrier, thread indices and layouts refer to the
    partition's own warps.

    `requestedRegisters`, when present, gives each partition's per-thread
    register count (`setmaxnreg` on entry: `.dec` below the kernel's even
    share, `.inc` above it, as a second group of consumers asks) and
    `defaultRegisters` the default region's (`setmaxnreg.inc`): registers
    move from producers that need few to consumers that hold
    accumulators.  Both need whole
    warpgroups (warp counts multiples of 4), multiples of 8 from 24 to 256,
    and must not together exceed the 64K registers of an SM's CTA.

    Example:

    ```mlir
    tilegpu.warp_specialize(%desc, %k) attributes {defaultRegisters = 232 : i32, requestedRegisters = array<i32: 40>}
    default(%d0: !tile.tensordesc<tensor<128x64xf16>>, %n0: i32) {
      // consumers: wait, multiply, release; the epilogue
      tilegpu.warp_yield
    }
    partition0(%d: !tile.tensordesc<tensor<128x64xf16>>, %n: i32) num_warps(4) {
      // producer: acquire, copy, commit
      tilegpu.warp_return
    }
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$explicitCaptures,
                       DenseI32ArrayAttr:$partitionNumWarps,
                       OptionalAttr<DenseI32ArrayAttr>:$requestedRegisters,
                       OptionalAttr<I32Attr>:$defaultRegisters);
  // Regions of one block until control flow is lowered (scf to cf), of
  // several after.
  let regions = (region MinSizedRegion<1>:$defaultRegion,
                        VariadicRegion<MinSizedRegion<1>>:$partitionRegions);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Warps of all partitions (not the default region's).
    int32_t getTotalPartitionWarps();
    /// The lowest named barrier id free for the code inside: 0 is the
    /// CTA's, 1 the default region's own, 2 + i partition i's.
    int32_t getFirstFreeBarrierId() {
      return 2 + static_cast<int32_t>(getPartitionRegions().size());
    }
  }];
}

def TileGPU_WarpYieldOp : TileGPU_Op<"warp_yield", [
    Pure, Terminator, HasParent<"WarpSpecializeOp">]> {
  let summary = "End of a warp_specialize op's default region";
  let description = [{
    The default warps have finished their region; they continue after the
    `tilegpu.warp_specialize` op once every partition has finished too.

    Example:

    ```mlir
    tilegpu.warp_yield
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_WarpReturnOp : TileGPU_Op<"warp_return", [
    Pure, Terminator, HasParent<"WarpSpecializeOp">]> {
  let summary = "End of a warp_specialize op's partition";
  let description = [{
    The partition's warps have finished.

    Example:

    ```mlir
    tilegpu.warp_return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

class TileGPU_NamedBarrierOp<string mnemonic>
    : TileGPU_Op<mnemonic, [
        MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                       MemWrite<TileGPU_SharedMemory>]>]> {
  let arguments = (ins I32Attr:$barrierId, I32Attr:$numThreads);
  let assemblyFormat = "$barrierId `,` $numThreads attr-dict";
  let hasVerifier = 1;
}

def TileGPU_NamedBarrierArriveOp
    : TileGPU_NamedBarrierOp<"named_barrier_arrive"> {
  let summary = "Count the executing warps at a named barrier and go on";
  let description = [{
    `bar.arrive barrierId, numThreads`: the executing threads count towards
    the `numThreads` the named barrier waits for, without waiting
    themselves.  Paired with `tilegpu.named_barrier_wait` on the same id in
    other warps, it orders groups of warps: the waiting group goes on once
    the arriving group has passed this point.  Ping-pong consumers take
    turns at the tensor cores this way; the first turn must be primed by
    an arrival with no wait before it, or the first wait never completes.

    Barrier 0 is the CTA's (`tile.barrier`); inside a
    `tilegpu.warp_specialize` the default region and each partition
    synchronize their own warps on barriers 1, 2, ..., so a named barrier
    there takes an id above those (the op's first free id).  Ids stop at
    15; `numThreads` is a multiple of the warp size.

    Example:

    ```mlir
    tilegpu.named_barrier_arrive 4, 256
    ```
  }];
}

def TileGPU_NamedBarrierWaitOp : TileGPU_NamedBarrierOp<"named_barrier_wait"> {
  let summary = "Wait at a named barrier for its thread count";
  let description = [{
    `bar.sync barrierId, numThreads`: the executing threads arrive at the
    named barrier and wait until `numThreads` threads have arrived there,
    these and those of `tilegpu.named_barrier_arrive` on the same id.
    Memory accesses of the arriving threads before the barrier are visible
    to the waiting ones after it.  Ids as for `named_barrier_arrive`.

    Example:

    ```mlir
    tilegpu.named_barrier_wait 4, 256
    ```
  }];
}

class TileGPU_WarpGroupTurnOp<string mnemonic>
    : TileGPU_Op<mnemonic, [
        MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                       MemWrite<TileGPU_SharedMemory>]>]> {
  let arguments = (ins I32Attr:$firstBarrierId, I32Attr:$numGroups,
                       OptionalAttr<I32Attr>:$onlyGroup);
  let assemblyFormat = [{
    $firstBarrierId `,` $numGroups (`only` $onlyGroup^)? attr-dict
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpGroupTurnWaitOp
    : TileGPU_WarpGroupTurnOp<"warp_group_turn_wait"> {
  let summary = "Wait for this warpgroup's turn (ping-pong consumers)";
  let description = [{
    The warpgroups of a region of `numGroups` warpgroups (a cooperative
    consumer group of a `tilegpu.warp_specialize`) take turns at something,
    in order 0, 1, ..., numGroups - 1, 0, ...: warpgroup `g` waits on named
    barrier `firstBarrierId + g` (`bar.sync`, 256 threads: its own 128 and
    the 128 of the warpgroup before it, which `warp_group_turn_pass`
    arrives with).  With `only g`, only warpgroup `g` executes it: the wait
    after the loop that takes the last turn back, so that every barrier is
    left as it was found.

    Attention's consumers take turns issuing their products: one
    warpgroup's products run on the tensor cores under the other's
    softmax (FlashAttention-3's ping-pong), instead of all of them
    reaching the tensor cores, then the softmax, at the same time.

    Barriers `firstBarrierId` to `firstBarrierId + numGroups - 1` must be
    free (above the enclosing `tilegpu.warp_specialize`'s own).

    Example:

    ```mlir
    tilegpu.warp_group_turn_wait 3, 2
    tilegpu.warp_group_turn_wait 3, 2 only 0
    ```
  }];
}

def TileGPU_WarpGroupTurnPassOp
    : TileGPU_WarpGroupTurnOp<"warp_group_turn_pass"> {
  let summary = "Give the turn to the next warpgroup (ping-pong consumers)";
  let description = [{
    Warpgroup `g` of a region of `numGroups` warpgroups arrives
    (`bar.arrive`, 256 threads) on named barrier `firstBarrierId + (g + 1)
    % numGroups`, where the next warpgroup waits for its turn
    (`warp_group_turn_wait`), and goes on.  With `only g`, only warpgroup
    `g` executes it: before the loop, the last warpgroup gives the first
    turn to warpgroup 0 (without it the first wait never completes).

    Example:

    ```mlir
    tilegpu.warp_group_turn_pass 3, 2 only 1
    tilegpu.warp_group_turn_pass 3, 2
    ```
  }];
}

def TileGPU_CreateChannelOp : TileGPU_Op<"create_channel", [
    MemoryEffects<[MemWrite<TileGPU_SharedMemory>]>]> {
  let summary = "Group ring buffers into a producer-consumer channel";
  let description = [{
    One slot of the channel is buffer `i` of every ring in `buffers` (each
    mutable, with the channel's number of buffers): the producer fills all
    of them before it commits the slot, and the consumer reads them all
    before it releases it.  Every slot starts empty.

    Example:

    ```mlir
    %ch = tilegpu.create_channel %a, %b : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
    ```
  }];
  let arguments = (ins Variadic<TileGPU_MemDesc>:$buffers);
  let results = (outs TileGPU_Channel:$result);
  let assemblyFormat = [{
    $buffers attr-dict `:` qualified(type($buffers)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

class TileGPU_ChannelOp<string mnemonic, list<Trait> traits = []>
    : TileGPU_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead<TileGPU_SharedMemory>,
                       MemWrite<TileGPU_SharedMemory>]>])>;

def TileGPU_ChannelAcquireOp : TileGPU_ChannelOp<"channel_acquire"> {
  let summary = "Producer: wait until a channel slot is empty";
  let description = [{
    Blocks until every consumer has released slot `count % N` from its
    previous lap (immediately on the first lap).

    Example:

    ```mlir
    tilegpu.channel_acquire %ch, %count : !tilegpu.channel<3>
    ```
  }];
  let arguments = (ins TileGPU_Channel:$channel, I32:$count);
  let assemblyFormat = "$channel `,` $count attr-dict `:` qualified(type($channel))";
}

def TileGPU_ChannelTMALoadOp : TileGPU_ChannelOp<"channel_tma_load"> {
  let summary = "Producer: fill one buffer of a channel slot with a TMA copy";
  let description = [{
    Copies the block of `desc` at `indices` into buffer `count % N` of the
    channel's ring number `buffer`, asynchronously: the slot becomes full
    for consumers once the copies of its commit have landed (the TMA counts
    their bytes), so the producer need not wait for them.  With
    `multicast = C`, the cluster's C producers each copy a slice of the
    block to every CTA (see `async_tma_copy_global_to_local`), and the slot
    is empty only once the consumers of every CTA have released it.

    Example:

    ```mlir
    tilegpu.channel_tma_load %ch[%count] %desc[%m, %k] -> 0 : !tilegpu.channel<3>, !tile.tensordesc<tensor<128x64xf16>>
    ```
  }];
  let arguments = (ins TileGPU_Channel:$channel, I32:$count,
                       Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$buffer,
                       OptionalAttr<ConfinedAttr<I32Attr, [IntMinValue<2>]>>:$multicast);
  let assemblyFormat = [{
    $channel `[` $count `]` $desc `[` $indices `]` `->` $buffer attr-dict `:`
    qualified(type($channel)) `,` qualified(type($desc))
  }];
  let hasVerifier = 1;
}

def TileGPU_ChannelAsyncCopyOp : TileGPU_ChannelOp<"channel_async_copy",
    [AttrSizedOperandSegments]> {
  let summary = "Producer: fill one buffer of a channel slot with cp.async";
  let description = [{
    Copies the elements at `ptrs` (in the pointer tensor's layout, over the
    producer partition's threads) into buffer `count % N` of the channel's
    ring number `buffer` with `cp.async`; masked-off elements are filled with
    `other` (zero when absent).  What `tl.load` of pointers becomes in a
    warp-specialized producer when the operand is not a descriptor load.
    The slot becomes full for consumers once every producer thread's copies
    of its commit have landed: each thread's `channel_commit` arrives on the
    slot's full barrier when its own copies complete
    (`cp.async.mbarrier.arrive.noinc`), so the producer need not wait.

    Example:

    ```mlir
    tilegpu.channel_async_copy %ch[%count] %ptrs mask %m : tensor<128x64xi1, #b> -> 0 : !tilegpu.channel<3>, tensor<128x64x!tile.ptr<f16>, #b>
    ```
  }];
  let arguments = (ins TileGPU_Channel:$channel, I32:$count,
                       AnyRankedTensor:$ptrs,
                       Optional<AnyRankedTensor>:$mask,
                       Optional<AnyRankedTensor>:$other,
                       ConfinedAttr<I32Attr, [IntNonNegative]>:$buffer);
  let assemblyFormat = [{
    $channel `[` $count `]` $ptrs (`mask` $mask^ `:` type($mask))?
    (`other` $other^ `:` type($other))? `->` $buffer attr-dict `:`
    qualified(type($channel)) `,` type($ptrs)
  }];
  let hasVerifier = 1;
}

def TileGPU_ChannelCommitOp : TileGPU_ChannelOp<"channel_commit"> {
  let summary = "Producer: hand a filled channel slot to the consumers";
  let description = [{
    Ends the producer's work on slot `count % N` for this lap: the
    `tilegpu.channel_tma_load`s of the same count before it, in the same
    block, are all the slot's copies, and the slot is full when they land.

    Example:

    ```mlir
    tilegpu.channel_commit %ch, %count : !tilegpu.channel<3>
    ```
  }];
  let arguments = (ins TileGPU_Channel:$channel, I32:$count);
  let assemblyFormat = "$channel `,` $count attr-dict `:` qualified(type($channel))";
}

def TileGPU_ChannelWaitOp : TileGPU_ChannelOp<"channel_wait"> {
  let summary = "Consumer: wait until a channel slot is full";
  let description = [{
    Blocks until slot `count % N` holds the producer's data of lap
    `count / N`, and gives the slot's buffer of each of the channel's
    rings, in order.

    Example:

    ```mlir
    %a, %b = tilegpu.channel_wait %ch, %count : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable>
    ```
  }];
  let arguments = (ins TileGPU_Channel:$channel, I32:$count);
  let results = (outs Variadic<TileGPU_MemDesc>:$buffers);
  let assemblyFormat = [{
    $channel `,` $count attr-dict `:` qualified(type($channel)) `->`
    qualified(type($buffers))
  }];
  let hasVerifier = 1;
}

def TileGPU_ChannelReleaseOp : TileGPU_ChannelOp<"channel_release"> {
  let summary = "Consumer: give a channel slot back to the producer";
  let description = [{
    The consumer is done with slot `count % N`: every read of its buffers,
    asynchronous ones (wgmma) included, has completed.  Each consumer
    thread releases; the slot is empty once all have.

    Example:

    ```mlir
    tilegpu.channel_release %ch, %count : !tilegpu.channel<3>
    ```
  }];
  let arguments = (ins TileGPU_Channel:$channel, I32:$count);
  let assemblyFormat = "$channel `,` $count attr-dict `:` qualified(type($channel))";
}

#endif // WARPFORGE_TILEGPU_OPS
