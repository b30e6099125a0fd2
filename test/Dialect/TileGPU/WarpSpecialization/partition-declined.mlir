// RUN: warpforge-opt %s --split-input-file --tilegpu-warp-specialize | FileCheck %s

// Loops that cannot be specialized stay as they are (their
// tile.warp_specialize marker dropped), and the module records each with
// its location and why, for the frontend to warn at the Python line.

// The loop's own location.
// CHECK: #[[LOC:loc[0-9]*]] = loc("{{.*}}partition-declined.mlir":[[@LINE+19]]:5)
// CHECK-NOT: "tilegpu.warp-specialized"
// CHECK: "tilegpu.warp-specialize-declined" = [{loc = #[[LOC]], reason = "the loop has no tl.dot on wgmma"}]
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tile.func public @no_dot
  // CHECK-NOT: tilegpu.warp_specialize
  // CHECK: scf.for
  // CHECK-NOT: tile.warp_specialize
  // CHECK: tile.return
  tile.func public @no_dot(%n: i32, %p: !tile.ptr<f32>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %f = arith.constant 1.0 : f32
    scf.for %i = %c0 to %n step %c1 : i32 {
      tile.store %p, %f : !tile.ptr<f32>
    } {tile.warp_specialize}
    tile.return
  }
}

// -----

// CHECK: "tilegpu.warp-specialize-declined" = [{loc = {{.*}}, reason = "a value the loop advances for the loads' addresses is used after the loop"}]
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tile.func public @carried_offset_used_after_the_loop
  // CHECK-NOT: tilegpu.warp_specialize
  // CHECK: tile.descriptor_load
  // CHECK: tile.return
  tile.func public @carried_offset_used_after_the_loop(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<256x64xf16>>, %dc: !tile.tensordesc<tensor<128x256xf16>>, %M: i32, %N: i32, %K: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %8 = arith.addi %N, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %11 = arith.addi %K, %c63_i32 : i32
    %12 = arith.divsi %11, %c64_i32 : i32
    %13 = arith.divsi %pid, %9 : i32
    %14 = arith.remsi %pid, %9 : i32
    %15 = arith.muli %13, %c128_i32 : i32
    %16 = arith.muli %14, %c256_i32 : i32
    %17:2 = scf.for %k = %c0_i32 to %12 step %c1_i32 iter_args(%acc = %cst, %off = %c0_i32) -> (tensor<128x256xf32, #wgmma>, i32)  : i32 {
      %20 = arith.addi %off, %c64_i32 : i32
      %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blockedT>
      %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %25 = tilegpu.local_alloc %23 : (tensor<64x256xf16, #blockedT>) -> !tilegpu.memdesc<64x256xf16, #nvmmaT>
      %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmmaT> -> tensor<128x256xf32, #wgmma>
      %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      scf.yield %27, %20 : tensor<128x256xf32, #wgmma>, i32
    }
    %18 = arith.truncf %17#0 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #out>
    %last = arith.addi %15, %17#1 : i32
    tile.descriptor_store %dc[%last, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #out>
    tile.return
  }
}

// -----

// CHECK: "tilegpu.warp-specialize-declined" = [{loc = {{.*}}, reason = "a value the loop advances for the loads' addresses is also used by 'tile.store'"}]
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tile.func public @carried_offset_stored
  // CHECK-NOT: tilegpu.warp_specialize
  // CHECK: tile.descriptor_load
  // CHECK: tile.return
  tile.func public @carried_offset_stored(%p: !tile.ptr<i32>, %da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<256x64xf16>>, %dc: !tile.tensordesc<tensor<128x256xf16>>, %M: i32, %N: i32, %K: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %8 = arith.addi %N, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %11 = arith.addi %K, %c63_i32 : i32
    %12 = arith.divsi %11, %c64_i32 : i32
    %13 = arith.divsi %pid, %9 : i32
    %14 = arith.remsi %pid, %9 : i32
    %15 = arith.muli %13, %c128_i32 : i32
    %16 = arith.muli %14, %c256_i32 : i32
    %17:2 = scf.for %k = %c0_i32 to %12 step %c1_i32 iter_args(%acc = %cst, %off = %c0_i32) -> (tensor<128x256xf32, #wgmma>, i32)  : i32 {
      %20 = arith.addi %off, %c64_i32 : i32
      tile.store %p, %20 : !tile.ptr<i32>
      %21 = tile.descriptor_load %da[%15, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blockedT>
      %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %25 = tilegpu.local_alloc %23 : (tensor<64x256xf16, #blockedT>) -> !tilegpu.memdesc<64x256xf16, #nvmmaT>
      %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmmaT> -> tensor<128x256xf32, #wgmma>
      %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      scf.yield %27, %20 : tensor<128x256xf32, #wgmma>, i32
    }
    %18 = arith.truncf %17#0 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #out>
    tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #out>
    tile.return
  }
}

// -----

// CHECK: "tilegpu.warp-specialize-declined" = [{loc = {{.*}}, reason = "the loads' addresses depend on a value the tile loop carries"}]
#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blockedT = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#out = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmmaT = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  // CHECK-LABEL: tile.func public @nested
  // CHECK-NOT: tilegpu.warp_specialize
  // CHECK: tile.return
  tile.func public @nested(%da: !tile.tensordesc<tensor<128x64xf16>>, %db: !tile.tensordesc<tensor<256x64xf16>>, %dc: !tile.tensordesc<tensor<128x256xf16>>, %M: i32, %N: i32, %K: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %pid = tile.get_program_id x : i32
    %8 = arith.addi %N, %c255_i32 : i32
    %9 = arith.divsi %8, %c256_i32 : i32
    %11 = arith.addi %K, %c63_i32 : i32
    %12 = arith.divsi %11, %c64_i32 : i32
    %13 = arith.divsi %pid, %9 : i32
    %14 = arith.remsi %pid, %9 : i32
    %15 = arith.muli %13, %c128_i32 : i32
    %16 = arith.muli %14, %c256_i32 : i32
    %tl = scf.for %t = %c0_i32 to %M step %c1_i32 iter_args(%row = %15) -> (i32) : i32 {
    %17 = scf.for %k = %c0_i32 to %12 step %c1_i32 iter_args(%acc = %cst) -> (tensor<128x256xf32, #wgmma>)  : i32 {
      %20 = arith.muli %k, %c64_i32 : i32
      %21 = tile.descriptor_load %da[%row, %20] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %22 = tile.descriptor_load %db[%16, %20] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %23 = tile.trans %22 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blockedT>
      %24 = tilegpu.local_alloc %21 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %25 = tilegpu.local_alloc %23 : (tensor<64x256xf16, #blockedT>) -> !tilegpu.memdesc<64x256xf16, #nvmmaT>
      %26 = tilegpu.warp_group_dot %24, %25, %acc : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmmaT> -> tensor<128x256xf32, #wgmma>
      %27 = tilegpu.warp_group_dot_wait %26 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      scf.yield %27 : tensor<128x256xf32, #wgmma>
    }
    %18 = arith.truncf %17 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %19 = tilegpu.convert_layout %18 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #out>
    tile.descriptor_store %dc[%15, %16], %19 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #out>
    %next = arith.addi %row, %c128_i32 : i32
    scf.yield %next : i32
    }
    tile.return
  }
}

// -----

// Warp specialization asked for the whole kernel (num-consumer-groups), and
// its only tl.dot is on the FMA pipes (twelve warps, 128 rows: no wgmma):
// the decline is said at the dot, with accelerate-matmul's reason.
// CHECK: #[[DOT:loc[0-9]*]] = loc("{{.*}}partition-declined.mlir":[[@LINE+10]]:12)
// CHECK: "tilegpu.warp-specialize-declined" = [{loc = #[[DOT]], reason = "the kernel's tl.dot runs on the FMA pipes, not wgmma (M must be a multiple of 192), so no loop of products can be specialized"}]
#bl = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [4, 3], order = [1, 0]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #bl, kWidth = 1>
#opB = #tilegpu.dot_op<opIdx = 1, parent = #bl, kWidth = 1>
module attributes {"tilegpu.num-buffers-warp-spec" = 2 : i32, "tilegpu.num-consumer-groups" = 3 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 12 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @fma_dot(%a: tensor<128x64xf16, #opA>, %b: tensor<64x128xf16, #opB>, %c: tensor<128x128xf32, #bl>, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<128x128xf32, #bl>) : i32 {
      %d = tile.dot %a, %b, %acc {tilegpu.fma = "M must be a multiple of 192"} : tensor<128x64xf16, #opA> * tensor<64x128xf16, #opB> -> tensor<128x128xf32, #bl>
      scf.yield %d : tensor<128x128xf32, #bl>
    }
    tile.return
  }
}
