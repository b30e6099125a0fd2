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

#endif // WARPFORGE_TILE_PASSES
