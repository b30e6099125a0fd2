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

    Only blocked layouts and slices of them are introduced, and every
    change keeps the layout rules of convert-tile-to-tilegpu: element-wise
    ops have one layout, a reduction's result is the slice of its source's
    layout, and the values a loop carries keep their layout (block
    arguments and the results of scf and cf ops are never re-typed).
  }];
}

#endif // WARPFORGE_TILEGPU_PASSES
