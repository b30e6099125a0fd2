// REQUIRES: ptxas
// RUN: warpforge-opt %s --tilegpu-software-pipeline --tilegpu-lower-tma --canonicalize --cse --tilegpu-to-llvm --emit=ptx -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// A TMA matmul from tilegpu IR to PTX, as the JIT's passes take it (the
// software pipeliner, tilegpu-lower-tma, the LLVM lowering): A through a
// host descriptor (a byval, 64-byte aligned, grid-constant parameter whose
// address the copies use), B ([N, K], transposed into the product) and C
// through descriptors made on the device (tensormap.replace into global
// scratch, the last parameter), a 3-stage ring of TMA loads on mbarriers,
// wgmma reading the TMA buffers, and the epilogue's TMA store.  NVIDIA's
// assembler accepts every mbarrier, bulk-tensor, tensormap and proxy-fence
// instruction the lowering emits.

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry matmul(
// CHECK-NEXT: .param .align 64 .b8 matmul_param_0[128],
// CHECK: .param .u64 .ptr .global .align 1 matmul_param_9
// CHECK: cvta.param.u64 %{{.*}}, %{{.*}};
// The two device descriptors: written, released, acquired.
// CHECK-COUNT-2: tensormap.replace.tile.elemtype.global.b1024.b32 [%{{.*}} + 0], 6;
// CHECK: fence.proxy.tensormap::generic.release.gpu;
// CHECK: fence.proxy.tensormap::generic.acquire.gpu [%{{.*}}], 128;
// The ring's barriers, fenced for the async proxy.
// CHECK-COUNT-3: mbarrier.init.shared.b64 [%{{.*}}], 1;
// CHECK: fence.proxy.async.shared::cta;
// Prologue: two iterations of 32 KiB, two boxes each.
// CHECK: mbarrier.arrive.expect_tx.shared.b64 _, [%{{.*}}], 32768;
// CHECK-COUNT-2: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.arrive.expect_tx.shared.b64 _, [%{{.*}}], 32768;
// The loop: wait for the phase, multiply, refill.
// CHECK: mbarrier.try_wait.parity.shared.b64 P1, [%{{.*}}], %{{.*}}, 10000000;
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: mbarrier.arrive.expect_tx.shared.b64 _, [%{{.*}}], 32768;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// After the loop.
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK-COUNT-3: mbarrier.inval.shared::cta.b64
// The store: 128x128 f16 is two 64-column boxes, one bulk group, waited
// for (read) before the buffer is freed.
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%{{.*}}, {%{{.*}}, %{{.*}}}{{ ?}}], [%{{.*}}];
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 0;

#b = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#bt = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#nv = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32, "tilegpu.num-stages" = 3 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @matmul(%da: !tile.tensordesc<tensor<128x64xf16>>, %pb: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %pc: !tile.ptr<f16> {tile.divisibility = 16 : i32},
                           %M: i32, %N: i32, %K: i32, %sb: i64, %sc: i64, %n: i32) {
    %c1_64 = arith.constant 1 : i64
    %db = tile.make_tensor_descriptor %pb, [%N, %K], [%sb, %c1_64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x64xf16>>
    %dc = tile.make_tensor_descriptor %pc, [%M, %N], [%sc, %c1_64] : !tile.ptr<f16>, !tile.tensordesc<tensor<128x128xf16>>
    %pm = tile.get_program_id x : i32
    %pn = tile.get_program_id y : i32
    %c128 = arith.constant 128 : i32
    %i = arith.muli %pm, %c128 : i32
    %j = arith.muli %pn, %c128 : i32
    %acc = arith.constant dense<0.0> : tensor<128x128xf32, #w>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %r = scf.for %k = %c0 to %n step %c1 iter_args(%c = %acc) -> (tensor<128x128xf32, #w>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %a = tile.descriptor_load %da[%i, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bb = tile.descriptor_load %db[%j, %kk] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #b>
      %bt = tile.trans %bb {order = array<i32: 1, 0>} : tensor<128x64xf16, #b> -> tensor<64x128xf16, #bt>
      %sa = tilegpu.local_alloc %a : (tensor<128x64xf16, #b>) -> !tilegpu.memdesc<128x64xf16, #nv>
      %sbt = tilegpu.local_alloc %bt : (tensor<64x128xf16, #bt>) -> !tilegpu.memdesc<64x128xf16, #nvt>
      %d = tilegpu.warp_group_dot %sa, %sbt, %c : !tilegpu.memdesc<128x64xf16, #nv> * !tilegpu.memdesc<64x128xf16, #nvt> -> tensor<128x128xf32, #w>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<128x128xf32, #w>
      scf.yield %w : tensor<128x128xf32, #w>
    }
    %h = arith.truncf %r : tensor<128x128xf32, #w> to tensor<128x128xf16, #w>
    %hc = tilegpu.convert_layout %h : tensor<128x128xf16, #w> -> tensor<128x128xf16, #b>
    tile.descriptor_store %dc[%i, %j], %hc : !tile.tensordesc<tensor<128x128xf16>>, tensor<128x128xf16, #b>
    tile.return
  }
}
