//===- Passes.td - Passes over the tile dialect ------------*- tablegen -*-===//

#ifndef WARPFORGE_TILE_PASSES
#define WARPFORGE_TILE_PASSES

include "mlir/Pass/PassBase.td"

def TileCombine : Pass<"tile-combine", "mlir::ModuleOp"> {
  let summary = "Algebraic combinations of tile ops";
  let description = [{
    Rewrites patterns the frontend produces into cheaper equivalents:

    * `dot(a, b, 0) + d` becomes `dot(a, b, d)` (the accumulator is free on
      the tensor cores);
    * `addptr(addptr(p, x), y)` becomes `addptr(p, x + y)`;
    * `select(m, load(p, m), other)` becomes `load(p, m, other)`;
    * `broadcast(splat(x))` and friends are left to canonicalization.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileVerifyKernels : Pass<"tile-verify-kernels", "mlir::ModuleOp"> {
  let summary = "Check the rules a module must meet to be compiled as kernels";
  let description = [{
    A module handed to code generation must hold at least one public
    `tile.func` (a kernel); kernels return no values; every `tile.call`
    resolves to a private `tile.func` with a body; and no function calls
    itself, directly or indirectly, since device functions are inlined.

    With `require-inlined`, run after inlining, any `tile.call` left is an
    error: code generation has no calls.
  }];
  let options = [
    Option<"requireInlined", "require-inlined", "bool", /*default=*/"false",
           "Fail on any tile.call (run after inlining)">
  ];
}

def TileLoopUnroll : Pass<"tile-loop-unroll", "mlir::ModuleOp"> {
  let summary = "Unroll the loops that ask for it (tl.range(..., "
                "loop_unroll_factor=N))";
  let description = [{
    Unrolls every `scf.for` carrying `tile.loop_unroll_factor = N` (N > 1)
    by N: the body is repeated N times per iteration of a loop with N times
    the step, and an epilogue loop runs the iterations left over when the
    trip count is not a multiple of N (bounds known only at run time are
    handled too).  The attribute is removed; a factor of 1 only removes it.
    A factor below 1 is an error at the loop.  As Triton's loop unroller,
    this runs on tile IR, before layouts and software pipelining.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileClusterSplit : Pass<"tile-cluster-split", "mlir::ModuleOp"> {
  let summary = "Split each program's tiles among the CTAs of a cluster "
                "(num_ctas)";
  let description = [{
    Triton's `num_ctas`: each program runs on a cluster of C CTAs (sm_90),
    and the program's tiles are divided among them.  This pass divides the
    rows of the kernel's products: the accumulator and the left operand of
    every `tile.dot` are split along their first dimension, CTA r taking
    rows [r * M / C, (r + 1) * M / C), and the right operand is replicated
    (every CTA loads the same block, which is marked
    `tile.cluster_replicated` so that later passes may multicast it).

    The split follows the data: which dimension of each tensor holds the
    product's rows is propagated through element-wise ops, loads and
    stores, broadcasts, `expand_dims`, `trans`, reductions along other
    dimensions, descriptor accesses and `scf` loops and ifs (forwards and
    backwards).  Then every split tensor's type is divided along that
    dimension: `make_range` starts at the CTA's offset (`tile.cluster_cta_rank`
    times the slice), descriptor accesses move their index by it, and
    descriptors get the sliced block (for kernel arguments, recorded in the
    module's `tile.descriptor-blocks` for the launcher).  The module gets
    `tile.num-ctas = C`.

    A kernel whose tiles cannot be split that way is left as it is, with a
    warning at the op that prevents it (a reduction or scan along the rows,
    a reshape of split values, a non-splat constant, an atomic every CTA
    would repeat, ...): its programs then run on one CTA each (no
    `tile.num-ctas`), which computes the same result.

    Example (C = 2): `tile.make_range {start = 0, end = 128}` feeding the
    rows of a 128x128 accumulator becomes a 64-element range plus
    `64 * tile.cluster_cta_rank`.
  }];
  let options = [
    Option<"numCtas", "num-ctas", "int", /*default=*/"1",
           "CTAs per program (1, 2 or 4); 1 leaves the module as it is">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // WARPFORGE_TILE_PASSES
