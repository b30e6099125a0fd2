//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//

#ifndef WARPFORGE_TILE_TYPES
#define WARPFORGE_TILE_TYPES

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "warpforge/Dialect/Tile/IR/TileDialect.td"

class Tile_TypeDef<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_TypeDef<"Pointer", "ptr"> {
  let summary = "Pointer to an element in an address space";
  let description = [{
    A pointer to a scalar of `pointeeType` in address space `addressSpace`
    (1, global memory, unless written otherwise; 3 is shared memory).
    Tensors of pointers are builtin tensors with this element type.

    Example:

    ```mlir
    !tile.ptr<f16>          // global memory
    !tile.ptr<i64, 3>       // shared memory
    tensor<128x!tile.ptr<f32>>
    ```
  }];
  let parameters = (ins "::mlir::Type":$pointeeType,
                        DefaultValuedParameter<"int", "1">:$addressSpace);
  let assemblyFormat = "`<` $pointeeType (`,` $addressSpace^)? `>`";
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::mlir::Type":$pointeeType,
                                        CArg<"int", "1">:$addressSpace), [{
      return $_get(pointeeType.getContext(), pointeeType, addressSpace);
    }]>
  ];
}

def Tile_TensorDescType : Tile_TypeDef<"TensorDesc", "tensordesc"> {
  let summary = "Descriptor of a global tensor, loaded and stored in blocks";
  let description = [{
    A tensor descriptor names a strided tensor in global memory together with
    the block shape moved by one `descriptor_load` or `descriptor_store`.  It
    lowers to a TMA tensor map on Hopper.

    Example:

    ```mlir
    !tile.tensordesc<tensor<64x64xf16>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$blockType);
  let assemblyFormat = "`<` $blockType `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64],
                           "floating-point">;
def Tile_FloatTensor : RankedTensorOf<[Tile_Float]>;
def Tile_FloatLike : AnyTypeOf<[Tile_Float, Tile_FloatTensor]>;

def Tile_Int : AnyTypeOf<[I1, I8, I16, I32, I64], "integer">;
def Tile_IntTensor : RankedTensorOf<[Tile_Int]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, Tile_IntTensor]>;

def Tile_I32Like : AnyTypeOf<[I32, RankedTensorOf<[I32]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;

def Tile_Ptr : DialectType<Tile_Dialect,
    CPred<"::llvm::isa<::warpforge::tile::PointerType>($_self)">, "pointer",
    "::warpforge::tile::PointerType">;
def Tile_PtrTensor : RankedTensorOf<[Tile_Ptr]>;
def Tile_PtrLike : AnyTypeOf<[Tile_Ptr, Tile_PtrTensor]>;

def Tile_TensorDesc : DialectType<Tile_Dialect,
    CPred<"::llvm::isa<::warpforge::tile::TensorDescType>($_self)">,
    "tensor descriptor", "::warpforge::tile::TensorDescType">;

def Tile_Scalar : AnyTypeOf<[Tile_Float, Tile_Int, Tile_Ptr]>;
def Tile_Tensor : RankedTensorOf<[Tile_Float, Tile_Int, Tile_Ptr]>;
def Tile_Type : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;

#endif // WARPFORGE_TILE_TYPES
