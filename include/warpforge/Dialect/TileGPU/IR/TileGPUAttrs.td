//===- TileGPUAttrs.td - Layout attributes of tilegpu ------*- tablegen -*-===//
//
// Layouts are tensor encodings.  Distributed layouts map tensor elements to
// the registers of the CTA's threads; shared layouts map them to addresses in
// shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_TILEGPU_ATTRS
#define WARPFORGE_TILEGPU_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"
include "warpforge/Dialect/TileGPU/IR/TileGPUDialect.td"

def TileGPU_DistributedLayout : AttrInterface<"DistributedLayoutAttr"> {
  let cppNamespace = "::warpforge::tilegpu";
  let description = [{
    A layout that distributes a tensor over the registers of the threads of a
    CTA.  `getCTATile` is the shape one pass of all threads covers; a larger
    tensor repeats it (each thread holds several copies), a smaller one
    wraps (several threads hold the same element).
  }];
  let methods = [
    InterfaceMethod<"The rank of the tensors this layout applies to.",
                    "unsigned", "getRank">,
    InterfaceMethod<"Warps along each dimension; their product is the "
                    "number of warps of the CTA.",
                    "::llvm::SmallVector<unsigned>", "getWarpsPerCTAVector">,
  ];
}

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedLayout>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Each thread holds a block of contiguous elements";
  let description = [{
    Along each dimension `d`, a thread holds `sizePerThread[d]` consecutive
    elements, a warp's threads are laid out `threadsPerWarp[d]` along it and
    the CTA's warps `warpsPerCTA[d]`.  `order` lists the dimensions from the
    fastest varying: consecutive lanes (and the elements inside a thread)
    advance along `order[0]` first.  All sizes are powers of two; the
    products of `threadsPerWarp` and of `warpsPerCTA` are the warp size and
    the number of warps.

    Example: a 128x64 tile read row-major with 16-byte (4 x f32) accesses by 4
    warps:

    ```mlir
    #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16],
                     warpsPerCTA = [4, 1], order = [1, 0]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` custom<UnsignedList>($sizePerThread) `,`
        `threadsPerWarp` `=` custom<UnsignedList>($threadsPerWarp) `,`
        `warpsPerCTA` `=` custom<UnsignedList>($warpsPerCTA) `,`
        `order` `=` custom<UnsignedList>($order) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The default layout of a `shape` tensor for `numWarps` warps (a power
    /// of two) of `threadsPerWarp` lanes, dimensions in `order` (fastest
    /// first): `sizePerThreadLast` elements per thread along `order[0]`
    /// (clamped to what the tensor has, rounded down to a power of two),
    /// then lanes and warps along the dimensions from the fastest, as far as
    /// each has room; what is left wraps on the slowest dimension.  `shape`
    /// is static, of rank 1 or more, and `order` a permutation of its dims.
    static BlockedEncodingAttr getDefault(::mlir::MLIRContext *context,
                                          ::llvm::ArrayRef<int64_t> shape,
                                          unsigned sizePerThreadLast,
                                          unsigned threadsPerWarp,
                                          unsigned numWarps,
                                          ::llvm::ArrayRef<unsigned> order);
  }];
}

def TileGPU_SliceEncodingAttr : TileGPU_Attr<"SliceEncoding", "slice",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedLayout>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of the result of reducing a tensor in layout `parent` along
    `dim`: element `i` is held by the threads that held elements `i` with
    any index along `dim` in the parent.  `tile.expand_dims` at `dim` turns
    it back into `parent`.

    Example:

    ```mlir
    #tilegpu.slice<dim = 1, parent = #tilegpu.blocked<sizePerThread = [1, 4],
        threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def TileGPU_WgmmaEncodingAttr : TileGPU_Attr<"WgmmaEncoding", "wgmma",
    [DeclareAttrInterfaceMethods<TileGPU_DistributedLayout>,
     DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "The accumulator layout of Hopper's warpgroup MMA";
  let description = [{
    The registers `wgmma.mma_async` accumulates into.  One instruction of
    shape `instrShape` = [M, N, K] (M = 64) is issued by a warpgroup (4
    consecutive warps); each warp of the group owns 16 rows of the 64.  The
    CTA's warps are split `warpsPerCTA` = [along M, along N]; the number
    along M is a multiple of 4 (a warpgroup's 4 warps stack along M), and
    further warpgroups may split N.

    Example: 8 warps as two warpgroups along M, m64n128k16:

    ```mlir
    #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `warpsPerCTA` `=` custom<UnsignedList>($warpsPerCTA) `,`
        `instrShape` `=` custom<UnsignedList>($instrShape) `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_DotOperandEncodingAttr : TileGPU_Attr<"DotOperandEncoding",
    "dot_op", [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "The register layout of an operand of a matrix product";
  let description = [{
    Operand `opIdx` (0 for A, 1 for B) of a dot whose result has layout
    `parent`, held in registers with `kWidth` consecutive elements along K
    per thread.  With a `#tilegpu.wgmma` parent only A may live in registers
    (the RS form of `wgmma.mma_async`); B is always read from shared memory.

    Example:

    ```mlir
    #tilegpu.dot_op<opIdx = 0, parent = #tilegpu.wgmma<warpsPerCTA = [4, 1],
        instrShape = [64, 128, 16]>, kWidth = 2>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent,
                        "unsigned":$kWidth);
  let assemblyFormat = [{
    `<` `opIdx` `=` $opIdx `,` `parent` `=` $parent `,` `kWidth` `=` $kWidth `>`
  }];
  let genVerifyDecl = 1;
}

def TileGPU_SharedEncodingAttr : TileGPU_Attr<"SharedEncoding", "shared",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Plain shared-memory layout: dense, in the given order";
  let description = [{
    Elements are stored densely, `order[0]` the fastest-varying dimension,
    without swizzling.  Used for scratch tensors and barriers.

    Example:

    ```mlir
    #tilegpu.shared<order = [1, 0]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = "`<` `order` `=` custom<UnsignedList>($order) `>`";
  let genVerifyDecl = 1;
}

def TileGPU_NVMMASharedEncodingAttr : TileGPU_Attr<"NVMMASharedEncoding",
    "nvmma_shared"> {
  let summary = "Swizzled shared-memory layout read by wgmma and TMA";
  let description = [{
    The layout the tensor cores and the TMA engine read: rows of
    `swizzlingByteWidth` bytes (0 for none, 32, 64 or 128), with 16-byte
    chunks XOR-swizzled by the row index within each 8-row (1024-byte for
    128B) atom, so a warp's accesses to a column hit distinct banks.
    Without `transposed` the last dimension is the contiguous one (its
    rows are the swizzled rows); with it, the second to last.  So an A
    operand [M, K] is K-major untransposed and MN-major transposed, a B
    operand [K, N] the other way round.  A contiguous dimension wider than
    the swizzle is stored as consecutive column blocks of
    `swizzlingByteWidth` bytes, each holding all the rows.
    `elementBitWidth` is the width of the elements (8, 16 or 32).

    Example:

    ```mlir
    #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false,
                          elementBitWidth = 16>
    ```
  }];
  let parameters = (ins "unsigned":$swizzlingByteWidth, "bool":$transposed,
                        "unsigned":$elementBitWidth);
  let assemblyFormat = [{
    `<` `swizzlingByteWidth` `=` $swizzlingByteWidth `,`
        `transposed` `=` $transposed `,`
        `elementBitWidth` `=` $elementBitWidth `>`
  }];
  let genVerifyDecl = 1;
}

#endif // WARPFORGE_TILEGPU_ATTRS
