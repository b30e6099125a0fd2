// RUN: warpforge-opt %s --split-input-file --convert-tilegpu-to-llvm | FileCheck %s

// Every atomic is an `atom`, in Triton's spelling (space, then scope and
// order for read-modify-writes; order, then scope for compare-and-swap),
// its result used or not: unused, ptxas makes the same REDG of it as of a
// `red` (checked in SASS), and `red` has no `exch`.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @histogram
  // CHECK: "mov.b32 $0, 0;\0A\09@$3 atom.global.gpu.relaxed.add.u32 $0, [ $1 + 0 ], $2;"
  // CHECK: "mov.b32 $0, 0;\0A\09@$3 atom.global.gpu.acq_rel.add.f32 $0, [ $1 + 0 ], $2;"
  // CHECK: "mov.b32 $0, 0;\0A\09@$3 atom.global.sys.release.exch.b32 $0, [ $1 + 0 ], $2;"
  // CHECK: atom.global.acq_rel.cta.cas.b32 $0, [ $1 + 0 ], $2, $3;"
  tile.func public @histogram(%p: !tile.ptr<i32>, %q: !tile.ptr<f32>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
    %ps = tile.splat %p : !tile.ptr<i32> -> tensor<32x!tile.ptr<i32>, #b>
    %pp = tile.addptr %ps, %r : tensor<32x!tile.ptr<i32>, #b>, tensor<32xi32, #b>
    %one = arith.constant dense<1> : tensor<32xi32, #b>
    %t = arith.constant dense<true> : tensor<32xi1, #b>
    %a = tile.atomic_rmw add, relaxed, gpu, %pp, %one, %t : tensor<32x!tile.ptr<i32>, #b>
    %qs = tile.splat %q : !tile.ptr<f32> -> tensor<32x!tile.ptr<f32>, #b>
    %qq = tile.addptr %qs, %r : tensor<32x!tile.ptr<f32>, #b>, tensor<32xi32, #b>
    %f = arith.constant dense<2.0> : tensor<32xf32, #b>
    %c = tile.atomic_rmw fadd, acq_rel, gpu, %qq, %f, %t : tensor<32x!tile.ptr<f32>, #b>
    tile.store %qq, %c : tensor<32x!tile.ptr<f32>, #b>
    %e = tile.atomic_rmw xchg, release, sys, %pp, %one, %t : tensor<32x!tile.ptr<i32>, #b>
    %x = tile.atomic_cas acq_rel, cta, %pp, %one, %one : tensor<32x!tile.ptr<i32>, #b>
    tile.store %pp, %x : tensor<32x!tile.ptr<i32>, #b>
    tile.return
  }
}
