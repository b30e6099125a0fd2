// RUN: warpforge-opt %s --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// One 8-bit element per access is a b8 access: a b16 one would touch the
// neighbouring byte and fault on odd addresses.
#b = #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @copy_bytes
  // CHECK: "ld.global.b8 $0, [ $1 + 0 ];"
  // CHECK: "st.global.b8 [ $0 + 0 ], $1;"
  tile.func public @copy_bytes(%a: !tile.ptr<i8>, %o: !tile.ptr<i8>) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #b>
    %p = tile.splat %a : !tile.ptr<i8> -> tensor<32x!tile.ptr<i8>, #b>
    %pa = tile.addptr %p, %r : tensor<32x!tile.ptr<i8>, #b>, tensor<32xi32, #b>
    %x = tile.load %pa : tensor<32x!tile.ptr<i8>, #b>
    %q = tile.splat %o : !tile.ptr<i8> -> tensor<32x!tile.ptr<i8>, #b>
    %qa = tile.addptr %q, %r : tensor<32x!tile.ptr<i8>, #b>, tensor<32xi32, #b>
    tile.store %qa, %x : tensor<32x!tile.ptr<i8>, #b>
    tile.return
  }
}
