//===- TileGPUTypes.td - Types of the tilegpu dialect ------*- tablegen -*-===//

#ifndef WARPFORGE_TILEGPU_TYPES
#define WARPFORGE_TILEGPU_TYPES

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "warpforge/Dialect/TileGPU/IR/TileGPUDialect.td"

class TileGPU_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TileGPU_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def TileGPU_MemDescType : TileGPU_TypeDef<"MemDesc", "memdesc"> {
  let summary = "A tensor held in shared memory";
  let description = [{
    A `shape` tensor of `elementType` in shared memory, placed by the shared
    layout `encoding`.  `mutable` buffers may be written (`local_store`,
    asynchronous copies); others were initialized at allocation.

    `buffers = N` makes it N equally shaped buffers in one allocation, the
    ring of a software pipeline: `tilegpu.memdesc_index` selects one.

    Example:

    ```mlir
    !tilegpu.memdesc<128x64xf16, #tilegpu.nvmma_shared<swizzlingByteWidth = 128,
        transposed = false, elementBitWidth = 16>, mutable, buffers = 3>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding,
                        DefaultValuedParameter<"bool", "false">:$isMutable,
                        DefaultValuedParameter<"int64_t", "1">:$numBuffers);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one buffer (elements times their width, rounded up to
    /// bytes).
    int64_t getBufferBytes() const;
    /// Bytes of the whole allocation.
    int64_t getAllocBytes() const { return getBufferBytes() * getNumBuffers(); }
    /// The same memory, one buffer of it.
    MemDescType getSingleBuffer() const;
  }];
}

def TileGPU_AsyncTokenType : TileGPU_TypeDef<"AsyncToken", "async.token"> {
  let summary = "Completion of a group of asynchronous copies";
  let description = [{
    Produced by asynchronous copies and `tilegpu.async_commit_group`, and
    consumed by `tilegpu.async_wait`, so that the order in which groups of
    copies complete is visible in the IR.

    Example:

    ```mlir
    !tilegpu.async.token
    ```
  }];
}

def TileGPU_ChannelType : TileGPU_TypeDef<"Channel", "channel"> {
  let summary = "Slots of shared memory passed between warp partitions";
  let description = [{
    A ring of `numBuffers` slots through which a producer partition hands
    data to consumers (`tilegpu.create_channel` groups the shared buffers
    one slot spans).  The protocol is abstract until
    `tilegpu-lower-channels`: the producer acquires a slot, fills it and
    commits it; the consumer waits for it, reads it and releases it.  Each
    use names the slot by a running use count: slot `count % numBuffers`,
    lap `count / numBuffers`.

    Example:

    ```mlir
    !tilegpu.channel<3>
    ```
  }];
  let parameters = (ins "int64_t":$numBuffers);
  let assemblyFormat = "`<` $numBuffers `>`";
  let genVerifyDecl = 1;
}

#endif // WARPFORGE_TILEGPU_TYPES
