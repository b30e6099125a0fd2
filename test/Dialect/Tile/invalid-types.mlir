// RUN: warpforge-opt %s -split-input-file -verify-diagnostics

// Errors of the tile dialect's type verifiers (PointerType::verify and
// TensorDescType::verify in lib/Dialect/Tile/IR/TileDialect.cpp), one case
// each.

//===----------------------------------------------------------------------===//
// !tile.ptr
//===----------------------------------------------------------------------===//

// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got 'tensor<128xf32>'}}
tile.func public @ptr_to_tensor(%p: !tile.ptr<tensor<128xf32>>) {
  tile.return
}

// -----

// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got 'index'}}
tile.func public @ptr_to_index(%p: !tile.ptr<index>) {
  tile.return
}

// -----

// expected-error @+1 {{pointee type must be an integer, a float or a pointer, got '!tile.tensordesc<tensor<64xf16>>'}}
tile.func public @ptr_to_tensordesc(%p: !tile.ptr<!tile.tensordesc<tensor<64xf16>>>) {
  tile.return
}

// -----

// expected-error @+1 {{address space must be non-negative, got -1}}
tile.func public @ptr_negative_address_space(%p: !tile.ptr<f32, -1>) {
  tile.return
}

// -----

// The error also fires inside a tensor of pointers.
// expected-error @+1 {{address space must be non-negative, got -3}}
tile.func public @ptr_tensor_negative_address_space(%p: tensor<128x!tile.ptr<f16, -3>>) {
  tile.return
}

//===----------------------------------------------------------------------===//
// !tile.tensordesc
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{block rank must be 1 to 5 (TMA's limit), got 6}}
tile.func public @tensordesc_rank6(%d: !tile.tensordesc<tensor<2x2x2x2x2x16xf16>>) {
  tile.return
}

// -----

// expected-error @+1 {{block rank must be 1 to 5 (TMA's limit), got 0}}
tile.func public @tensordesc_rank0(%d: !tile.tensordesc<tensor<f16>>) {
  tile.return
}

// -----

// expected-error @+1 {{block elements must be integers or floats, got '!tile.ptr<f16>'}}
tile.func public @tensordesc_of_pointers(%d: !tile.tensordesc<tensor<64x!tile.ptr<f16>>>) {
  tile.return
}

// -----

// expected-error @+1 {{block elements must be integers or floats, got 'index'}}
tile.func public @tensordesc_of_index(%d: !tile.tensordesc<tensor<64xindex>>) {
  tile.return
}

// -----

// expected-error @+1 {{block dimensions must be static and positive, got 'tensor<?x64xf16>'}}
tile.func public @tensordesc_dynamic_dim(%d: !tile.tensordesc<tensor<?x64xf16>>) {
  tile.return
}

// -----

// expected-error @+1 {{block dimensions must be static and positive, got 'tensor<64x0xf16>'}}
tile.func public @tensordesc_zero_dim(%d: !tile.tensordesc<tensor<64x0xf16>>) {
  tile.return
}

// -----

// Not a verifier error: the parameter is a RankedTensorType, so the parser
// rejects an unranked tensor before the verifier runs.
// expected-error @+2 {{invalid kind of type specified}}
// expected-error @+1 {{failed to parse Tile_TensorDescType parameter 'blockType' which is to be a `::mlir::RankedTensorType`}}
tile.func public @tensordesc_unranked(%d: !tile.tensordesc<tensor<*xf16>>) {
  tile.return
}
