// REQUIRES: ptxas
// RUN: warpforge-opt --tilegpu-to-llvm --emit=ptx %s -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A kernel that fills a swizzled buffer with vector stores (local_alloc of
// a tensor) and copies into another with masked 16-byte cp.async, waits,
// reads both back and stores their sum: the PTX the lowering emits for
// nvmma buffers, cp.async groups and the async-proxy fence assembles for
// sm_90a.

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry kernel(
// CHECK: st.shared.v4.b32
// CHECK: fence.proxy.async.shared::cta;
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16, {{.*}};
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 0;
// CHECK: ld.shared.v4.b32

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @kernel(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %q: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<64x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<64x1xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x64xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %stride = arith.constant dense<64> : tensor<64x64xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<64x64xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<64x64xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %lim = tile.splat %n : i32 -> tensor<64x64xi32, #blocked>
    %mask = arith.cmpi slt, %rows, %lim : tensor<64x64xi32, #blocked>
    %x = tile.load %ptrs : tensor<64x64x!tile.ptr<f16>, #blocked>
    %a = tilegpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %b mask %mask : tensor<64x64xi1, #blocked> : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %g = tilegpu.async_commit_group tokens %t
    %w = tilegpu.async_wait tokens %g {num = 0 : i32}
    tile.barrier
    tilegpu.fence_async_shared
    %ya = tilegpu.local_load %a : !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf16, #blocked>
    %yb = tilegpu.local_load %b : !tilegpu.memdesc<64x64xf16, #nvmma, mutable> -> tensor<64x64xf16, #blocked>
    %sum = arith.addf %ya, %yb : tensor<64x64xf16, #blocked>
    %qs = tile.splat %q : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>, #blocked>
    %qptrs = tile.addptr %qs, %off : tensor<64x64x!tile.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    tile.store %qptrs, %sum : tensor<64x64x!tile.ptr<f16>, #blocked>
    tile.return
  }
}
