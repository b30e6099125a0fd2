// RUN: warpforge-opt %s -test-print-axis-info -split-input-file -verify-diagnostics=only-expected -o /dev/null

// The axis analysis across control flow: loop induction variables, values
// carried around loops, branches joined, dead code, calls.

// The induction variable is lb + k * step: a multiple of both divisors.
tile.func public @for_induction_variable(%lb: i32 {tile.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c4 = arith.constant 4 : i32
  %c32 = arith.constant 32 : i32
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [4], constancy = [1], constant_value = <none>}}
  scf.for %i = %c0 to %n step %c4 : i32 {
  }
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  scf.for %j = %lb to %n step %c32 : i32 {
  }
  tile.return
}

// -----

// Induction variables of index type, with constant bounds.
tile.func public @for_index_induction_variable(%n: index) {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  scf.for %i = %c8 to %n step %c16 {
  }
  tile.return
}

// -----

// A pointer advanced by a whole block each iteration keeps its contiguity
// and alignment, in the loop and after it.
tile.func public @for_pointer_iter_arg(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %step = arith.constant dense<128> : tensor<128xi32>
  // expected-remark @below {{argument #1: contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{contiguity = [128], divisibility = [16], constancy = [1], constant_value = <none>}}
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %q) -> (tensor<128x!tile.ptr<f32>>) : i32 {
    // expected-remark @below {{access: order = [0], alignment = 4, vector width = 4}}
    %v = tile.load %ptrs : tensor<128x!tile.ptr<f32>>
    %next = tile.addptr %ptrs, %step : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    scf.yield %next : tensor<128x!tile.ptr<f32>>
  }
  tile.return
}

// -----

// A counter starting at 0 and stepping by 16: a multiple of 16, no longer a
// constant.
tile.func public @for_counter_iter_arg(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c16 = arith.constant 16 : i32
  // expected-remark @below {{argument #1: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i32) : i32 {
    %next = arith.addi %acc, %c16 : i32
    scf.yield %next : i32
  }
  tile.return
}

// -----

// A value contiguous on entry but not after one iteration: joined, nothing
// contiguous is left.
tile.func public @for_iter_arg_loses_contiguity(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %c2 = arith.constant dense<2> : tensor<128xi32>
  // expected-remark @below {{argument #1: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%x = %r) -> (tensor<128xi32>) : i32 {
    %y = arith.muli %x, %c2 : tensor<128xi32>
    scf.yield %y : tensor<128xi32>
  }
  tile.return
}

// -----

// scf.if: what holds for both branches.
tile.func public @if_join(%b: i1) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %c64 = arith.constant dense<64> : tensor<128xi32>
  // expected-remark @below {{contiguity = [128], divisibility = [64], constancy = [1], constant_value = <none>}}
  %res = scf.if %b -> (tensor<128xi32>) {
    %r64 = arith.addi %r, %c64 : tensor<128xi32>
    scf.yield %r64 : tensor<128xi32>
  } else {
    scf.yield %r : tensor<128xi32>
  }
  tile.return
}

// -----

// scf.if on a constant: the dead branch does not count, and the values in it
// are unknown.
tile.func public @if_constant_condition() {
  %true = arith.constant true
  %c64 = arith.constant 64 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [64], constancy = [1], constant_value = 64}}
  %res = scf.if %true -> (i32) {
    scf.yield %c64 : i32
  } else {
    // expected-remark @below {{contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
    %c3 = arith.constant 3 : i32
    scf.yield %c3 : i32
  }
  tile.return
}

// -----

// scf.while: the values carried into both regions and out are joined.
tile.func public @while_loop(%n: i32) {
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  %res = scf.while (%x = %c0) : (i32) -> i32 {
    %cond = arith.cmpi slt, %x, %n : i32
    scf.condition(%cond) %x : i32
  } do {
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  ^bb0(%y: i32):
    %next = arith.addi %y, %c16 : i32
    scf.yield %next : i32
  }
  tile.return
}

// -----

// Branch arguments: what holds for every predecessor.
tile.func public @branch_arguments(%b: i1) {
  %c32 = arith.constant 32 : i32
  %c48 = arith.constant 48 : i32
  cf.cond_br %b, ^bb1(%c32 : i32), ^bb1(%c48 : i32)
// expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
^bb1(%x: i32):
  tile.return
}

// -----

// A device function's arguments come from its call sites, and its results
// reach the calls.
tile.func private @scale(%x: i32) -> i32 {
  %c4 = arith.constant 4 : i32
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
  %y = arith.muli %x, %c4 : i32
  tile.return %y : i32
}

tile.func public @calls(%a: i32 {tile.divisibility = 16 : i32}, %b: i32 {tile.divisibility = 8 : i32}) {
  // expected-remark @below {{contiguity = [1], divisibility = [32], constancy = [1], constant_value = <none>}}
  %ra = tile.call @scale(%a) : (i32) -> i32
  %rb = tile.call @scale(%b) : (i32) -> i32
  tile.return
}

// -----

// The regions of tilegpu.warp_specialize are isolated from above: their
// arguments are the captures and keep what the analysis knows of them (a
// kernel argument's divisibility hint), so a partition's addresses stay
// as aligned as the kernel's.
tile.func public @warp_specialize_captures(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 8 : i32}, %m: i32) {
  tilegpu.warp_specialize(%p, %n, %m)
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{argument #1: contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{argument #2: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  default(%dp: !tile.ptr<f16>, %dn: i32, %dm: i32) {
    tilegpu.warp_yield
  }
  // expected-remark @below {{argument #0: contiguity = [1], divisibility = [16], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{argument #1: contiguity = [1], divisibility = [8], constancy = [1], constant_value = <none>}}
  // expected-remark @below {{argument #2: contiguity = [1], divisibility = [1], constancy = [1], constant_value = <none>}}
  partition0(%pp: !tile.ptr<f16>, %pn: i32, %pm: i32) num_warps(4) {
    tilegpu.warp_return
  }
  tile.return
}
