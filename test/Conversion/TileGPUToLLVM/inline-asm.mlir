// RUN: warpforge-opt %s --split-input-file --convert-tilegpu-to-llvm -verify-diagnostics | FileCheck %s

// One inline asm per element: two i32 operands, one result; side effects
// only when the op is not pure.
#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @one_per_element
  // CHECK: llvm.inline_asm "shf.l.wrap.b32 $0, $1, $2, 17;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
  // CHECK: llvm.inline_asm "shf.l.wrap.b32 $0, $1, $2, 17;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
  // CHECK-NOT: llvm.inline_asm "shf
  // CHECK: llvm.inline_asm has_side_effects "st.global.b32 [$1], $2; mov.b32 $0, 0;", "=r,l,r"
  tile.func public @one_per_element(%x: tensor<64xi32, #b>, %y: tensor<64xi32, #b>, %p: tensor<64x!tile.ptr<i32>, #b>) {
    %z = tile.elementwise_inline_asm "shf.l.wrap.b32 $0, $1, $2, 17;" {constraints = "=r,r,r", packed_element = 1 : i32, pure = true} %x, %y : tensor<64xi32, #b>, tensor<64xi32, #b> -> tensor<64xi32, #b>
    %d = tile.elementwise_inline_asm "st.global.b32 [$1], $2; mov.b32 $0, 0;" {constraints = "=r,l,r", packed_element = 1 : i32, pure = false} %p, %z : tensor<64x!tile.ptr<i32>, #b>, tensor<64xi32, #b> -> tensor<64xi32, #b>
    tile.return
  }
}

// -----

// pack = 4 on i8: the four elements go in one 32-bit register (a vector
// of 4 x i8), and the result comes back the same way; f32 elements take a
// register each.
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  // CHECK-LABEL: llvm.func @packed
  // CHECK: %[[V0:.*]] = llvm.mlir.undef : vector<4xi8>
  // CHECK-COUNT-4: llvm.insertelement
  // CHECK: %[[R:.*]] = llvm.inline_asm "op $0, $1, $2, $3, $4, $5, $6, $7, $8, $9;", "=r,=r,=r,=r,=r,r,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (vector<4xi8>, f32, f32, f32, f32) -> !llvm.struct<(vector<4xi8>, f32, f32, f32, f32)>
  // CHECK: llvm.extractvalue %[[R]][0]
  // CHECK-COUNT-4: llvm.extractelement
  // CHECK-NOT: llvm.inline_asm
  tile.func public @packed(%a: tensor<128xi8, #b>, %f: tensor<128xf32, #b>) {
    %c:2 = tile.elementwise_inline_asm "op $0, $1, $2, $3, $4, $5, $6, $7, $8, $9;" {constraints = "=r,=r,=r,=r,=r,r,r,r,r,r", packed_element = 4 : i32, pure = true} %a, %f : tensor<128xi8, #b>, tensor<128xf32, #b> -> tensor<128xi8, #b>, tensor<128xf32, #b>
    tile.return
  }
}

// -----

// Constraints that do not name the registers the packing gives are an
// error at the op, not an LLVM failure.
#b = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  tile.func public @wrong_constraints(%a: tensor<128xi8, #b>) {
    // expected-error @+2 {{inline asm constraints "=r,r,r" name 1 output and 2 input registers; with 4 element(s) per invocation it takes 1 and 1}}
    // expected-error @+1 {{failed to legalize operation 'tile.elementwise_inline_asm'}}
    %c = tile.elementwise_inline_asm "op $0, $1, $2;" {constraints = "=r,r,r", packed_element = 4 : i32, pure = true} %a : tensor<128xi8, #b> -> tensor<128xi8, #b>
    tile.return
  }
}

// -----

#b = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
module attributes {"tilegpu.num-warps" = 1 : i32} {
  tile.func public @pack_too_large(%a: tensor<64xi32, #b>) {
    // expected-error @+2 {{inline asm packs 4 elements per invocation but a thread holds 2 elements of 'tensor<64xi32, #tilegpu.blocked}}
    // expected-error @+1 {{failed to legalize operation 'tile.elementwise_inline_asm'}}
    %c = tile.elementwise_inline_asm "op $0, $1;" {constraints = "=r,r", packed_element = 4 : i32, pure = true} %a : tensor<64xi32, #b> -> tensor<64xi32, #b>
    tile.return
  }
}
