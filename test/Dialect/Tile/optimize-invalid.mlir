// RUN: warpforge-opt %s --tile-optimize -split-input-file -verify-diagnostics

// A device function with several blocks cannot be inlined into an scf
// region; the pipeline fails at the call instead of leaving it behind.
tile.func private @pick(%c: i1, %a: f32, %b: f32) -> f32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  tile.return %a : f32
^bb2:
  tile.return %b : f32
}
tile.func public @calls_multi_block_in_loop(%p: !tile.ptr<f32>, %c: i1, %a: f32, %b: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error@+1 {{call to @pick was not inlined; device functions with several blocks (unstructured control flow) cannot be inlined into scf regions: use scf.if instead of branches}}
    %r = tile.call @pick(%c, %a, %b) : (i1, f32, f32) -> f32
    tile.store %p, %r : !tile.ptr<f32>
  }
  tile.return
}

// -----

// Errors of the kernel rules stop the pipeline before inlining.
// expected-error@+1 {{module has no kernel (a public tile.func)}}
module {
  tile.func private @helper(%a: f32) -> f32 {
    tile.return %a : f32
  }
}
