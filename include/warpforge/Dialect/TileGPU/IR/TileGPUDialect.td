//===- TileGPUDialect.td - The tilegpu dialect -------------*- tablegen -*-===//
//
// `tilegpu` is the GPU-aware level of warpforge: the same tensor programs as
// `tile`, with every tensor carrying a layout (which thread holds which
// element) and shared memory made explicit.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_TILEGPU_DIALECT
#define WARPFORGE_TILEGPU_DIALECT

include "mlir/IR/OpBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::warpforge::tilegpu";
  let summary = "Layouts, shared memory and asynchronous copies for tile programs";
  let description = [{
    After `convert-tile-to-tilegpu`, every tensor value has a layout
    attribute as its encoding: a *distributed* layout (`#tilegpu.blocked`,
    `#tilegpu.slice`, `#tilegpu.wgmma`, `#tilegpu.dot_op`) says which thread
    of the CTA holds which elements in registers.  Shared memory is a value of
    type `!tilegpu.memdesc`, whose encoding (`#tilegpu.shared`,
    `#tilegpu.nvmma_shared`) says how elements are placed in it.

    The `tile` ops keep working on encoded tensors; this dialect adds the ops
    that only exist once layouts do: layout conversions, shared-memory
    allocation and access, asynchronous copies and barriers.

    The module records the compile options (`tilegpu.num-warps`,
    `tilegpu.num-stages`, `tilegpu.target`, ...) and what passes compute
    (`tilegpu.shared`); `ModuleAttrs.h` names them and reads them.
  }];
  let dependentDialects = ["::warpforge::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
  // convert_layout folds a constant splat into a constant of the new layout.
  let hasConstantMaterializer = 1;
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // WARPFORGE_TILEGPU_DIALECT
