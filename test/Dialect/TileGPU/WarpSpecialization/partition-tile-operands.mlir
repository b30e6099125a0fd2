// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize | FileCheck %s

// Blocks loaded once outside the loop of products and read only by products
// (tile operands: attention's Q and last V).  The producer copies each
// through a one-slot channel of its own, unless a case below keeps it the
// consumers' own load; either way the loop is specialized.

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#dot_op = #tilegpu.dot_op<opIdx = 0, parent = #wgmma, kWidth = 2>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
!desc = !tile.tensordesc<tensor<64x64xf16>>

// Without a tile loop, a block loaded after the loop (here V) stays the
// consumers' own load: it takes the bytes of the slots the consumers are
// done with, where the producer's copy would need bytes of its own for the
// whole kernel.  Q, before the loop, is the producer's.
// CHECK-LABEL: tile.func public @after_loop_stays
// CHECK: tilegpu.create_channel %{{.*}} -> !tilegpu.channel<1>
// CHECK-NOT: tilegpu.create_channel %{{.*}} -> !tilegpu.channel<1>
// CHECK: default(
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release %{{.*}} : !tilegpu.channel<1>
// CHECK: tile.descriptor_load
// CHECK-NEXT: tilegpu.local_alloc
// CHECK: partition0(
// CHECK: tilegpu.channel_tma_load %{{.*}} -> 0 : !tilegpu.channel<1>
// CHECK: } {tilegpu.partition = "producer"}
// CHECK-NOT: tilegpu.channel_tma_load
// CHECK: tilegpu.warp_return
module attributes {"tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @after_loop_stays(%dq: !desc, %dk: !desc, %dv: !desc, %do: !desc, %n: i32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %pid = tile.get_program_id x : i32
    %row = arith.muli %pid, %c64 : i32
    %q = tile.descriptor_load %dq[%row, %c0] : !desc -> tensor<64x64xf16, #blocked>
    %sq = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %acc = scf.for %k = %c0 to %n step %c64 iter_args(%a = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
      %kb = tile.descriptor_load %dk[%k, %c0] : !desc -> tensor<64x64xf16, #blocked>
      %kt = tile.trans %kb {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blockedT>
      %sk = tilegpu.local_alloc %kt : (tensor<64x64xf16, #blockedT>) -> !tilegpu.memdesc<64x64xf16, #nvmmaT>
      %d = tilegpu.warp_group_dot %sq, %sk, %a : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmmaT> -> tensor<64x64xf32, #wgmma>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
      scf.yield %w : tensor<64x64xf32, #wgmma>
    } {tile.warp_specialize}
    %v = tile.descriptor_load %dv[%row, %c0] : !desc -> tensor<64x64xf16, #blocked>
    %sv = tilegpu.local_alloc %v : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %p = arith.truncf %acc : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %pa = tilegpu.convert_layout %p : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #dot_op>
    %o = tilegpu.warp_group_dot %pa, %sv, %zero : tensor<64x64xf16, #dot_op> * !tilegpu.memdesc<64x64xf16, #nvmma> -> tensor<64x64xf32, #wgmma>
    %ow = tilegpu.warp_group_dot_wait %o {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
    %t = arith.truncf %ow : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %tc = tilegpu.convert_layout %t : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
    tile.descriptor_store %do[%row, %c0], %tc : !desc, tensor<64x64xf16, #blocked>
    tile.return
  }
}

// -----

// A block whose address the producer cannot compute (its row is read from
// memory) stays the consumers' own load; the loop is still specialized.
// CHECK-LABEL: tile.func public @address_from_memory
// CHECK-NOT: -> !tilegpu.channel<1>
// CHECK: default(
// CHECK: tile.load
// CHECK: tile.descriptor_load
// CHECK-NEXT: tilegpu.local_alloc
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK: partition0(
// CHECK: tilegpu.channel_tma_load %{{.*}} -> 0 : !tilegpu.channel<2>
// CHECK-NOT: tilegpu.channel_tma_load
// CHECK: tilegpu.warp_return
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
!desc = !tile.tensordesc<tensor<64x64xf16>>
module attributes {"tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @address_from_memory(%dq: !desc, %dk: !desc, %do: !desc, %rows: !tile.ptr<i32>, %n: i32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %pid = tile.get_program_id x : i32
    %rp = tile.addptr %rows, %pid : !tile.ptr<i32>, i32
    %row = tile.load %rp : !tile.ptr<i32>
    %q = tile.descriptor_load %dq[%row, %c0] : !desc -> tensor<64x64xf16, #blocked>
    %sq = tilegpu.local_alloc %q : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
    %acc = scf.for %k = %c0 to %n step %c64 iter_args(%a = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
      %kb = tile.descriptor_load %dk[%k, %c0] : !desc -> tensor<64x64xf16, #blocked>
      %kt = tile.trans %kb {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blockedT>
      %sk = tilegpu.local_alloc %kt : (tensor<64x64xf16, #blockedT>) -> !tilegpu.memdesc<64x64xf16, #nvmmaT>
      %d = tilegpu.warp_group_dot %sq, %sk, %a : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmmaT> -> tensor<64x64xf32, #wgmma>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
      scf.yield %w : tensor<64x64xf32, #wgmma>
    } {tile.warp_specialize}
    %t = arith.truncf %acc : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %tc = tilegpu.convert_layout %t : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
    tile.descriptor_store %do[%pid, %c0], %tc : !desc, tensor<64x64xf16, #blocked>
    tile.return
  }
}

// -----

// A transposed block (the right operand, W^T, loaded once): the consumers
// read the channel's buffer through memdesc_trans.  The loop's one product
// stays in flight across iterations (deferRelease), so W is released after
// the full wait that drains the loop, not right after the loop.
// CHECK-LABEL: tile.func public @transposed_once
// CHECK: default(%{{[^:]*}}: !tilegpu.channel<2>, %[[CW:[^:]*]]: !tilegpu.channel<1>
// CHECK: %[[W:.*]] = tilegpu.channel_wait %[[CW]], %[[ZERO:[^ ]*]] : !tilegpu.channel<1>
// CHECK-NEXT: %[[WT:.*]] = tilegpu.memdesc_trans %[[W]]
// CHECK: scf.for
// CHECK: tilegpu.warp_group_dot %{{.*}}, %[[WT]], %{{.*}}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 1 : i32}
// CHECK: } {tilegpu.partition = "consumer"}
// CHECK-NEXT: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
// CHECK-NEXT: tilegpu.channel_release %[[CW]], %[[ZERO]] : !tilegpu.channel<1>
// CHECK: partition0(%{{[^:]*}}: !tilegpu.channel<2>, %[[PW:[^:]*]]: !tilegpu.channel<1>
// CHECK: tilegpu.channel_acquire %[[PW]]
// CHECK-NEXT: tilegpu.channel_tma_load %[[PW]]{{.*}} -> 0 : !tilegpu.channel<1>
// CHECK-NEXT: tilegpu.channel_commit %[[PW]]
// CHECK-NEXT: scf.for
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
!desc = !tile.tensordesc<tensor<64x64xf16>>
module attributes {"tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @transposed_once(%da: !desc, %dw: !desc, %do: !desc, %n: i32) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %pid = tile.get_program_id x : i32
    %col = arith.muli %pid, %c64 : i32
    %wb = tile.descriptor_load %dw[%col, %c0] : !desc -> tensor<64x64xf16, #blocked>
    %wt = tile.trans %wb {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blockedT>
    %sw = tilegpu.local_alloc %wt : (tensor<64x64xf16, #blockedT>) -> !tilegpu.memdesc<64x64xf16, #nvmmaT>
    %acc = scf.for %k = %c0 to %n step %c64 iter_args(%a = %zero) -> (tensor<64x64xf32, #wgmma>) : i32 {
      %ab = tile.descriptor_load %da[%k, %c0] : !desc -> tensor<64x64xf16, #blocked>
      %sa = tilegpu.local_alloc %ab : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %d = tilegpu.warp_group_dot %sa, %sw, %a : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmmaT> -> tensor<64x64xf32, #wgmma>
      %w = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
      scf.yield %w : tensor<64x64xf32, #wgmma>
    } {tile.warp_specialize}
    %t = arith.truncf %acc : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %tc = tilegpu.convert_layout %t : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
    tile.descriptor_store %do[%col, %c0], %tc : !desc, tensor<64x64xf16, #blocked>
    tile.return
  }
}
