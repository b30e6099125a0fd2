//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//

#ifndef WARPFORGE_TILE_OPS
#define WARPFORGE_TILE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "warpforge/Dialect/Tile/IR/TileDialect.td"
include "warpforge/Dialect/Tile/IR/TileTypes.td"
include "warpforge/Dialect/Tile/IR/TileEnums.td"

// Global memory is modelled as one resource so that loads, stores and atomics
// are ordered against each other but not against pure arithmetic.
def GlobalMemory : Resource<"::warpforge::tile::GlobalMemory">;

//===----------------------------------------------------------------------===//
// Program identity
//===----------------------------------------------------------------------===//

def Tile_GetProgramIdOp : Tile_Op<"get_program_id", [Pure]> {
  let summary = "Index of this program instance along a grid axis";
  let description = [{
    Returns the index of the running program instance (the CTA) along grid
    axis `x`, `y` or `z`, as `tl.program_id(axis)` does.

    Example:

    ```mlir
    %pid = tile.get_program_id x : i32
    ```
  }];
  let arguments = (ins Tile_ProgramDimAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_GetNumProgramsOp : Tile_Op<"get_num_programs", [Pure]> {
  let summary = "Number of program instances along a grid axis";
  let description = [{
    Returns the size of the launch grid along axis `x`, `y` or `z`.

    Example:

    ```mlir
    %n = tile.get_num_programs y : i32
    ```
  }];
  let arguments = (ins Tile_ProgramDimAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
}

def Tile_ClusterCtaRankOp : Tile_Op<"cluster_cta_rank", [Pure]> {
  let summary = "Rank of this CTA in its thread-block cluster";
  let description = [{
    With `num_ctas` = C > 1 each program runs on a cluster of C CTAs, and
    `tile-cluster-split` gives each CTA a slice of the program's tiles: the
    rank (0 to C - 1, `%cluster_ctarank`) says which.  Program ids stay the
    cluster's (`tl.program_id` is the same in every CTA of a cluster).  With
    one CTA per program the rank is 0.

    Example:

    ```mlir
    %r = tile.cluster_cta_rank : i32
    ```
  }];
  let results = (outs I32:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Tensor construction and shape manipulation
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "1-D tensor of consecutive integers";
  let description = [{
    Produces the tensor `[start, start + 1, ..., end - 1]` of i32, as
    `tl.arange(start, end)` does.  The result has exactly `end - start`
    elements.

    Example:

    ```mlir
    %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "Tensor whose elements all equal one scalar";
  let description = [{
    Creates a tensor of the given type with every element equal to `src`.
    The tensor's element type must be the scalar's type.

    Example:

    ```mlir
    %t = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Broadcast a tensor along its dimensions of size 1";
  let description = [{
    Repeats `src` along every dimension where it has size 1 and the result
    is larger.  Ranks and element types are equal; every other dimension is
    the same in both.

    Example:

    ```mlir
    %b = tile.broadcast %x : tensor<1x128xf32> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Insert a dimension of size 1";
  let description = [{
    Inserts a dimension of size 1 at position `axis` (0 to the source's
    rank), as `x[:, None]` does in the language.

    Example:

    ```mlir
    %e = tile.expand_dims %x {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "Reinterpret a tensor with another shape";
  let description = [{
    Returns the elements of `src`, in row-major order, in a tensor of
    another shape with the same number of elements.  With `allow_reorder`
    the compiler may return the elements in any order (`tl.view`).

    Example:

    ```mlir
    %r = tile.reshape %x : tensor<64x32xf16> -> tensor<2048xf16>
    %v = tile.reshape %x allow_reorder : tensor<64x32xf16> -> tensor<32x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, UnitAttr:$allow_reorder);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src (`allow_reorder` $allow_reorder^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "Permute the dimensions of a tensor";
  let description = [{
    Result dimension `i` is source dimension `order[i]`; `order` is a
    permutation of `0 .. rank-1`.

    Example:

    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Pointers
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure,
    AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    Adds `offset` elements (not bytes) to each pointer.  `ptr` and `offset`
    are both scalars or both tensors of one shape.

    Example:

    ```mlir
    %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($result) `,` type($offset)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure]> {
  let summary = "Reinterpret 64-bit integers as pointers";
  let description = [{
    Example:

    ```mlir
    %p = tile.int_to_ptr %i : i64 -> !tile.ptr<f32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I64, RankedTensorOf<[I64]>]>:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure]> {
  let summary = "Reinterpret pointers as 64-bit integers";
  let description = [{
    Example:

    ```mlir
    %i = tile.ptr_to_int %p : !tile.ptr<f32> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs AnyTypeOf<[I64, RankedTensorOf<[I64]>]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BitcastOp : Tile_Op<"bitcast", [Pure]> {
  let summary = "Reinterpret the bits of values as another type";
  let description = [{
    Reinterprets each element as another type of the same bit width, or a
    pointer as a pointer to another element type (`x.to(ty, bitcast=True)`).
    Integer and float reinterpretation of equal width may also use
    `arith.bitcast`; this op also covers pointers.

    Example:

    ```mlir
    %q = tile.bitcast %p : tensor<64x!tile.ptr<f16>> -> tensor<64x!tile.ptr<i16>>
    ```
  }];
  let arguments = (ins Tile_Type:$src);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [
    MemoryEffects<[MemRead<GlobalMemory>]>,
    AttrSizedOperandSegments,
    TypesMatchWith<"result is the pointee type of ptr", "ptr", "result",
                   "::warpforge::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask has ptr's shape", "ptr", "mask",
                   "::warpforge::tile::getI1SameShape($_self)">,
    OptionalTypesMatchWith<"other has the result's type", "ptr", "other",
                   "::warpforge::tile::getPointeeType($_self)">]> {
  let summary = "Load from global memory through pointers";
  let description = [{
    Loads the element each pointer points to.  Where the optional `mask` is
    false nothing is read and the result is `other` (undefined when `other`
    is absent; `other` needs a mask).  `cacheModifier` and `evictionPolicy`
    are hints for the cache hierarchy; `volatile` forbids caching and
    reordering.

    Example:

    ```mlir
    %x = tile.load %ptrs, %mask, %zero cacheModifier = cg : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_PtrLike:$ptr,
    Optional<Tile_BoolLike>:$mask,
    Optional<Tile_Type>:$other,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::warpforge::tile::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::warpforge::tile::EvictionPolicy::NORMAL">:$evict,
    UnitAttr:$isVolatile);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $ptr (`,` $mask^)? (`,` $other^)?
    (`cacheModifier` `=` $cache^)? (`evictionPolicy` `=` $evict^)?
    (`volatile` $isVolatile^)? attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite<GlobalMemory>]>,
    TypesMatchWith<"value is the pointee type of ptr", "ptr", "value",
                   "::warpforge::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask has ptr's shape", "ptr", "mask",
                   "::warpforge::tile::getI1SameShape($_self)">]> {
  let summary = "Store to global memory through pointers";
  let description = [{
    Stores each element of `value` where its pointer points, except where
    the optional `mask` is false.

    Example:

    ```mlir
    tile.store %ptrs, %x, %mask evictionPolicy = evict_first : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_PtrLike:$ptr,
    Tile_Type:$value,
    Optional<Tile_BoolLike>:$mask,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::warpforge::tile::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::warpforge::tile::EvictionPolicy::NORMAL">:$evict);
  let assemblyFormat = [{
    $ptr `,` $value (`,` $mask^)?
    (`cacheModifier` `=` $cache^)? (`evictionPolicy` `=` $evict^)?
    attr-dict `:` type($ptr)
  }];
  let hasCanonicalizer = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>,
    TypesMatchWith<"value is the pointee type of ptr", "ptr", "val",
                   "::warpforge::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee type of ptr", "ptr", "result",
                   "::warpforge::tile::getPointeeType($_self)">,
    OptionalTypesMatchWith<"mask has ptr's shape", "ptr", "mask",
                   "::warpforge::tile::getI1SameShape($_self)">]> {
  let summary = "Atomic read-modify-write through pointers";
  let description = [{
    Atomically applies `atomic_rmw_op` to the memory each pointer points to
    and `val`, where `mask` is true, and returns the old values.  `sem` is
    the memory ordering and `scope` the threads it synchronizes with.
    `fadd` takes f16, bf16, f32 or f64; `add`, `and`, `or`, `xor`, `max`,
    `min`, `umax` and `umin` take 32- or 64-bit integers (the frontend builds
    float max and min from integer atomics); `xchg` takes 32- or 64-bit
    integers or floats.

    Example:

    ```mlir
    %old = tile.atomic_rmw fadd, acq_rel, gpu, %ptrs, %vals, %mask : tensor<128x!tile.ptr<f32>>
    ```
  }];
  let arguments = (ins
    Tile_RMWOpAttr:$atomic_rmw_op,
    Tile_MemSemanticAttr:$sem,
    Tile_MemSyncScopeAttr:$scope,
    Tile_PtrLike:$ptr,
    Tile_Type:$val,
    Optional<Tile_BoolLike>:$mask);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $atomic_rmw_op `,` $sem `,` $scope `,` $ptr `,` $val (`,` $mask^)?
    attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>,
    TypesMatchWith<"cmp is the pointee type of ptr", "ptr", "cmp",
                   "::warpforge::tile::getPointeeType($_self)">,
    TypesMatchWith<"val is the pointee type of ptr", "ptr", "val",
                   "::warpforge::tile::getPointeeType($_self)">,
    TypesMatchWith<"result is the pointee type of ptr", "ptr", "result",
                   "::warpforge::tile::getPointeeType($_self)">]> {
  let summary = "Atomic compare-and-swap through pointers";
  let description = [{
    Atomically replaces the value at each pointer by `val` where it equals
    `cmp`, and returns the old values.  Elements are 16, 32 or 64 bits wide.

    Example:

    ```mlir
    %old = tile.atomic_cas acq_rel, gpu, %lock, %c0, %c1 : !tile.ptr<i32>
    ```
  }];
  let arguments = (ins
    Tile_MemSemanticAttr:$sem,
    Tile_MemSyncScopeAttr:$scope,
    Tile_PtrLike:$ptr,
    Tile_Type:$cmp,
    Tile_Type:$val);
  let results = (outs Tile_Type:$result);
  let assemblyFormat = [{
    $sem `,` $scope `,` $ptr `,` $cmp `,` $val attr-dict `:` type($ptr)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors (TMA)
//===----------------------------------------------------------------------===//

def Tile_MakeTensorDescriptorOp : Tile_Op<"make_tensor_descriptor", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "Describe a strided global tensor for block loads and stores";
  let description = [{
    Builds a descriptor of the tensor at `base` with the given `shape`
    (i32, in elements) and `strides` (i64, in elements; the last one is 1).
    The result type fixes the block shape moved by each access.

    Example:

    ```mlir
    %d = tile.make_tensor_descriptor %base, [%m, %k], [%sm, %c1]
        : !tile.ptr<f16>, !tile.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let arguments = (ins Tile_Ptr:$base, Variadic<I32>:$shape,
                       Variadic<I64>:$strides);
  let results = (outs Tile_TensorDesc:$result);
  let assemblyFormat = [{
    $base `,` `[` $shape `]` `,` `[` $strides `]` attr-dict
    `:` qualified(type($base)) `,` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [
    MemoryEffects<[MemRead<GlobalMemory>]>]> {
  let summary = "Load one block through a tensor descriptor";
  let description = [{
    Loads the block whose first element is at `indices` (one i32 per
    dimension, in elements).  Elements outside the tensor read as zero.

    Example:

    ```mlir
    %a = tile.descriptor_load %d[%i, %j] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$indices,
    DefaultValuedAttr<Tile_CacheModifierAttr, "::warpforge::tile::CacheModifier::NONE">:$cache,
    DefaultValuedAttr<Tile_EvictionPolicyAttr, "::warpforge::tile::EvictionPolicy::NORMAL">:$evict);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $desc `[` $indices `]`
    (`cacheModifier` `=` $cache^)? (`evictionPolicy` `=` $evict^)?
    attr-dict `:` qualified(type($desc)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>]> {
  let summary = "Store one block through a tensor descriptor";
  let description = [{
    Stores `src` as the block whose first element is at `indices`.
    Elements outside the tensor are not written.

    Example:

    ```mlir
    tile.descriptor_store %d[%i, %j], %c : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                       Tile_Tensor:$src);
  let assemblyFormat = [{
    $desc `[` $indices `]` `,` $src attr-dict
    `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorReduceOp : Tile_Op<"descriptor_reduce", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>]> {
  let summary = "Reduce a block into global memory through a tensor descriptor";
  let description = [{
    Combines `src` element-wise into the block whose first element is at
    `indices` with the reduction `kind` (`desc.atomic_add` and friends:
    each element is updated atomically, relative to other reductions).
    Elements outside the tensor are not touched.  `add` takes f32, f16,
    bf16 and 32- or 64-bit integers; `min` and `max` f16, bf16 and signed
    32- or 64-bit integers; `and`, `or` and `xor` 32- or 64-bit integers.

    Example:

    ```mlir
    tile.descriptor_reduce add, %d[%i, %j], %c : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
    ```
  }];
  let arguments = (ins Tile_DescriptorReduceKindAttr:$kind,
                       Tile_TensorDesc:$desc, Variadic<I32>:$indices,
                       Tile_Tensor:$src);
  let assemblyFormat = [{
    $kind `,` $desc `[` $indices `]` `,` $src attr-dict
    `:` qualified(type($desc)) `,` type($src)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["c", "d"]>]> {
  let summary = "Matrix product with accumulation: d = a * b + c";
  let description = [{
    `a` is M x K, `b` is K x N, `c` and `d` are M x N (a leading batch
    dimension is allowed on all four).  Supported operand element types and
    accumulators:

    | a, b                    | c, d          |
    |-------------------------|---------------|
    | f16                     | f32 or f16    |
    | bf16                    | f32           |
    | f8E4M3FN, f8E5M2 (mixed)| f32 or f16    |
    | f32                     | f32           |
    | f64                     | f64           |
    | i8                      | i32           |

    Any M, N and K: on Hopper, what wgmma cannot take (f64, f32 at `ieee`
    precision, small tiles, fewer than 4 warps, batched operands) is
    computed on the CUDA cores (see tilegpu-accelerate-matmul).

    `inputPrecision` applies to f32 operands only: `tf32` rounds them to
    tf32 for the tensor cores, `tf32x3` recovers most of the precision with
    three tf32 products, `ieee` computes in full f32.
    `maxNumImpreciseAcc` (fp8 only) bounds how many products are summed in
    the tensor core's reduced-precision accumulator before promotion.

    Example:

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
    %e = tile.dot %x, %y, %z inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x64xf32> -> tensor<64x64xf32>
    ```
  }];
  let arguments = (ins
    Tile_Tensor:$a,
    Tile_Tensor:$b,
    Tile_Tensor:$c,
    DefaultValuedAttr<Tile_InputPrecisionAttr, "::warpforge::tile::InputPrecision::IEEE">:$inputPrecision,
    DefaultValuedAttr<I32Attr, "0">:$maxNumImpreciseAcc);
  let results = (outs Tile_Tensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`inputPrecision` `=` $inputPrecision^)?
    (`maxNumImpreciseAcc` `=` $maxNumImpreciseAcc^)? attr-dict
    `:` type($a) `*` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
}

def Tile_FpToFpOp : Tile_Op<"fp_to_fp", [Pure, SameOperandsAndResultShape]> {
  let summary = "Conversion to or from an fp8 type with explicit rounding";
  let description = [{
    Converts between floating-point types where one side is fp8
    (`f8E4M3FN`, `f8E5M2`).  Narrowing conversions need a `rounding` mode
    (`rtne` to nearest even, `rtz` toward zero); widening ones are exact and
    take none.  Other float conversions use `arith.extf` / `arith.truncf`.

    Example:

    ```mlir
    %q = tile.fp_to_fp %x, rounding = rtne : tensor<128xf32> -> tensor<128xf8E4M3FN>
    %y = tile.fp_to_fp %q : tensor<128xf8E4M3FN> -> tensor<128xf16>
    ```
  }];
  let arguments = (ins Tile_FloatLike:$src,
                       OptionalAttr<Tile_RoundingModeAttr>:$rounding);
  let results = (outs Tile_FloatLike:$result);
  let assemblyFormat = [{
    $src (`,` `rounding` `=` $rounding^)? attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ElementwiseInlineAsmOp : Tile_Op<"elementwise_inline_asm", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Inline PTX applied element by element";
  let description = [{
    Runs the PTX in `asm_string` for every element of its tensor operands,
    `packed_element` elements per invocation (`tl.inline_asm_elementwise`,
    Triton's).  Operands and results share one shape (or are all scalars:
    one invocation per thread).  `$0`, `$1`, ... name the results'
    registers, then the operands', in `constraints`' order (LLVM's inline
    assembly constraints: `=r` an output, `r` a 32-bit, `l` a 64-bit, `h` a
    16-bit register, `f`/`d` float ones).  Per invocation, an operand or
    result of 32 bits or more takes `packed_element` registers, one per
    element; a narrower one is packed, 32 bits to a register.  A `pure` op
    has no effect but its results; another may read and write memory and
    is neither moved nor removed.

    Example:

    ```mlir
    %z = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, 17;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %x, %y : tensor<128xi32>, tensor<128xi32> -> tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, BoolAttr:$pure,
                       I32Attr:$packed_element, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $asm_string attr-dict ($args^ `:` type($args))? `->` type($results)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Pure, SingleBlock]> {
  let summary = "Reduce tensors along one axis with a combiner region";
  let description = [{
    Reduces each of `srcs` (all of one shape) along `axis`.  The region
    combines two partial results: its block takes the element types of
    `srcs` twice (the left then the right partial results) and returns one
    value per source with `tile.reduce.return`.  Results drop `axis` from the
    shape; reducing a 1-D tensor yields scalars.  The combiner must be
    associative and commutative: the compiler reorders it.

    Example:

    ```mlir
    %s = tile.reduce %x axis = 0 : tensor<128xf32> -> f32 {
    ^bb0(%l: f32, %r: f32):
      %a = arith.addf %l, %r : f32
      tile.reduce.return %a : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Type>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis attr-dict `:` type($srcs) `->` type($result) $combineOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return", [Pure, Terminator,
    HasParent<"ReduceOp">, ReturnLike]> {
  let summary = "Terminator of a reduce combiner";
  let description = [{
    Returns the combined values from a `tile.reduce` region.

    Example:

    ```mlir
    tile.reduce.return %a : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

def Tile_ScanOp : Tile_Op<"scan", [Pure, SingleBlock]> {
  let summary = "Inclusive scan of tensors along one axis";
  let description = [{
    Computes the inclusive prefix combination of `srcs` along `axis` (from
    the end with `reverse`), with the same combiner region as `tile.reduce`.
    Results have the shapes and types of the sources.  The combiner must be
    associative.

    Example:

    ```mlir
    %c = tile.scan %x axis = 0 : tensor<128xi32> -> tensor<128xi32> {
    ^bb0(%l: i32, %r: i32):
      %a = arith.addi %l, %r : i32
      tile.scan.return %a : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis,
                       UnitAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$result);
  let regions = (region SizedRegion<1>:$combineOp);
  let assemblyFormat = [{
    $srcs `axis` `=` $axis (`reverse` $reverse^)? attr-dict
    `:` type($srcs) `->` type($result) $combineOp
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ScanReturnOp : Tile_Op<"scan.return", [Pure, Terminator,
    HasParent<"ScanOp">, ReturnLike]> {
  let summary = "Terminator of a scan combiner";
  let description = [{
    Returns the combined values from a `tile.scan` region.

    Example:

    ```mlir
    tile.scan.return %a : i32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$result);
  let assemblyFormat = "attr-dict ($result^ `:` type($result))?";
}

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

def Tile_AssertOp : Tile_Op<"assert", [
    MemoryEffects<[MemWrite<GlobalMemory>]>]> {
  let summary = "Device-side assertion";
  let description = [{
    Stops the kernel with `message` when any element of `condition` is
    false (`tl.device_assert`).

    Example:

    ```mlir
    tile.assert %ok, "index out of range" : tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition `,` $message attr-dict `:` type($condition)";
}

def Tile_PrintOp : Tile_Op<"print", [
    MemoryEffects<[MemWrite<GlobalMemory>]>]> {
  let summary = "Device-side print";
  let description = [{
    Prints `prefix` and every element of `args` from each thread holding
    them (`tl.device_print`).  `hex` prints integers in hexadecimal;
    `isSigned` says, per argument, whether an integer is signed.

    Example:

    ```mlir
    tile.print " x: " {hex = false, isSigned = array<i32: 1>} : %x : tensor<128xi32>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, DefaultValuedAttr<BoolAttr, "false">:$hex,
                       Variadic<Tile_Type>:$args,
                       DenseI32ArrayAttr:$isSigned);
  let assemblyFormat = [{
    $prefix attr-dict (`:` $args^ `:` type($args))?
  }];
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>]> {
  let summary = "Synchronize the threads of the program";
  let description = [{
    Every thread of the program (the CTA) waits here until all have arrived,
    and their earlier memory accesses are visible to each other afterwards
    (`tl.debug_barrier`). Memory operations are not moved across it.

    Example:

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_GridDependencyOp : Tile_Op<"grid_dependency", [
    MemoryEffects<[MemRead<GlobalMemory>, MemWrite<GlobalMemory>]>]> {
  let summary = "Programmatic dependent launch: wait for the grid before, or "
                "let the grid after start";
  let description = [{
    For kernels launched with programmatic dependent launch (`launch_pdl=True`),
    which may start while the kernel before them on the stream still runs.
    `wait` (`tl.extra.cuda.gdc_wait()`): the thread waits until the grids
    this one depends on have completed and their memory is visible; code
    before it may overlap them, so it must not read what they write.
    `launch_dependents` (`tl.extra.cuda.gdc_launch_dependents()`): the next
    grid may be scheduled once every program of this one has issued it (or
    finished); it still waits for this grid's completion at its own `wait`.
    Without PDL both are no-ops. PTX `griddepcontrol`, sm_90 and later.
    Memory operations are not moved across it.

    Example:

    ```mlir
    tile.grid_dependency "wait"
    tile.grid_dependency "launch_dependents"
    ```
  }];
  let arguments = (ins StrAttr:$action);
  let assemblyFormat = "$action attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

def Tile_FuncOp : Tile_Op<"func", [AutomaticAllocationScope,
    FunctionOpInterface, IsolatedFromAbove]> {
  let summary = "A kernel or device function";
  let description = [{
    A function with one body region.  Public functions are kernels, launched
    from the host; private ones are device functions, called with
    `tile.call`.  Kernel arguments may carry `tile.divisibility` (the value
    or address is a multiple of it) as specialization hints.

    Example:

    ```mlir
    tile.func public @add(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
      tile.return
    }
    tile.func private @helper(%a: f32) -> f32 {
      tile.return %a : f32
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region AnyRegion:$body);
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name,
                                 "::mlir::FunctionType":$type)>];
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    bool isKernel() { return isPublic(); }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_CallOp : Tile_Op<"call", [CallOpInterface,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Call a device function";
  let description = [{
    Calls the `tile.func` named `callee` in the enclosing module.  Operand
    and result types must match the callee's signature.

    Example:

    ```mlir
    %r = tile.call @helper(%a) : (f32) -> f32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let extraClassDeclaration = [{
    operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() {
      return getOperandsMutable();
    }
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return (*this)->getAttrOfType<::mlir::SymbolRefAttr>("callee");
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(callee));
    }
  }];
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, HasParent<"FuncOp">,
    ReturnLike, Terminator]> {
  let summary = "Return from a function";
  let description = [{
    Returns `srcs` from the enclosing `tile.func`; their types are the
    function's result types.

    Example:

    ```mlir
    tile.return %a : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$srcs);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($srcs^ `:` type($srcs))?";
  let hasVerifier = 1;
}

#endif // WARPFORGE_TILE_OPS
