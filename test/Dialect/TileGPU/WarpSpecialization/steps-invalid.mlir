// RUN: warpforge-opt %s --split-input-file --tilegpu-ws-code-partition -verify-diagnostics

// The later steps check the earlier ones' marks: a marked loop needs the
// channel of tilegpu-ws-buffer-allocation, and marks that no longer match
// what task partition would choose, or a loop that can no longer be
// specialized, are errors at the loop rather than a different
// specialization from the one the IR printed.

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#blocked2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>

// No channel: buffer allocation did not run.
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @no_channel(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: !tile.tensordesc<tensor<256x64xf16>>, %arg2: !tile.tensordesc<tensor<128x256xf16>>, %arg3: i32, %arg4: i32, %arg5: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.get_program_id x : i32
    %1 = arith.addi %arg4, %c255_i32 : i32
    %2 = arith.divsi %1, %c256_i32 : i32
    %3 = arith.addi %arg5, %c63_i32 : i32
    %4 = arith.divsi %3, %c64_i32 : i32
    %5 = arith.divsi %0, %2 : i32
    %6 = arith.remsi %0, %2 : i32
    %7 = arith.muli %5, %c128_i32 : i32
    %8 = arith.muli %6, %c256_i32 : i32
    // expected-error @+1 {{no channel for this loop's producer: run tilegpu-ws-buffer-allocation first}}
    %9 = scf.for %arg6 = %c0_i32 to %4 step %c1_i32 iter_args(%arg7 = %cst) -> (tensor<128x256xf32, #wgmma>)  : i32 {
      %12 = arith.muli %arg6, %c64_i32 : i32
      %13 = tile.descriptor_load %arg0[%7, %12] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 0 : i32} : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %14 = tile.descriptor_load %arg1[%8, %12] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 1 : i32} : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %15 = tile.trans %14 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blocked1>
      %16 = tilegpu.local_alloc %13 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %17 = tilegpu.local_alloc %15 : (tensor<64x256xf16, #blocked1>) -> !tilegpu.memdesc<64x256xf16, #nvmma1>
      %18 = tilegpu.warp_group_dot %16, %17, %arg7 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmma1> -> tensor<128x256xf32, #wgmma>
      %19 = tilegpu.warp_group_dot_wait %18 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      scf.yield %19 : tensor<128x256xf32, #wgmma>
    } {tilegpu.ws.loop}
    %10 = arith.truncf %9 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %11 = tilegpu.convert_layout %10 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked2>
    tile.descriptor_store %arg2[%7, %8], %11 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #blocked2>
    tile.return
  }
}


// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#blocked2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>

// Operand 1 lost its mark.
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @marks_differ(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: !tile.tensordesc<tensor<256x64xf16>>, %arg2: !tile.tensordesc<tensor<128x256xf16>>, %arg3: i32, %arg4: i32, %arg5: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.get_program_id x : i32
    %1 = arith.addi %arg4, %c255_i32 : i32
    %2 = arith.divsi %1, %c256_i32 : i32
    %3 = arith.addi %arg5, %c63_i32 : i32
    %4 = arith.divsi %3, %c64_i32 : i32
    %5 = arith.divsi %0, %2 : i32
    %6 = arith.remsi %0, %2 : i32
    %7 = arith.muli %5, %c128_i32 : i32
    %8 = arith.muli %6, %c256_i32 : i32
    // expected-error @+1 {{the loads tilegpu-ws-task-partition marked for the producer are no longer the ones it would choose (was the loop changed since?)}}
    %9 = scf.for %arg6 = %c0_i32 to %4 step %c1_i32 iter_args(%arg7 = %cst) -> (tensor<128x256xf32, #wgmma>)  : i32 {
      %12 = arith.muli %arg6, %c64_i32 : i32
      %13 = tile.descriptor_load %arg0[%7, %12] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 0 : i32} : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %14 = tile.descriptor_load %arg1[%8, %12] : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %15 = tile.trans %14 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blocked1>
      %16 = tilegpu.local_alloc %13 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %17 = tilegpu.local_alloc %15 : (tensor<64x256xf16, #blocked1>) -> !tilegpu.memdesc<64x256xf16, #nvmma1>
      %18 = tilegpu.warp_group_dot %16, %17, %arg7 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmma1> -> tensor<128x256xf32, #wgmma>
      %19 = tilegpu.warp_group_dot_wait %18 {pendings = 0 : i32} : tensor<128x256xf32, #wgmma>
      scf.yield %19 : tensor<128x256xf32, #wgmma>
    } {tilegpu.ws.loop}
    %10 = arith.truncf %9 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %11 = tilegpu.convert_layout %10 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked2>
    tile.descriptor_store %arg2[%7, %8], %11 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #blocked2>
    tile.return
  }
}


// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [8, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 8], order = [0, 1]>
#blocked2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 16]>

// The products' wait was removed after task partition.
module attributes {"tilegpu.num-buffers-warp-spec" = 3 : i32, "tilegpu.num-consumer-groups" = 2 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 8 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @no_wait(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: !tile.tensordesc<tensor<256x64xf16>>, %arg2: !tile.tensordesc<tensor<128x256xf16>>, %arg3: i32, %arg4: i32, %arg5: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<128x256xf32, #wgmma>
    %c63_i32 = arith.constant 63 : i32
    %c255_i32 = arith.constant 255 : i32
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %c256_i32 = arith.constant 256 : i32
    %c128_i32 = arith.constant 128 : i32
    %c1_i32 = arith.constant 1 : i32
    %0 = tile.get_program_id x : i32
    %1 = arith.addi %arg4, %c255_i32 : i32
    %2 = arith.divsi %1, %c256_i32 : i32
    %3 = arith.addi %arg5, %c63_i32 : i32
    %4 = arith.divsi %3, %c64_i32 : i32
    %5 = arith.divsi %0, %2 : i32
    %6 = arith.remsi %0, %2 : i32
    %7 = arith.muli %5, %c128_i32 : i32
    %8 = arith.muli %6, %c256_i32 : i32
    // expected-error @+1 {{tilegpu-ws-task-partition chose this loop, but it can no longer be specialized: a product is not waited for in the loop}}
    %9 = scf.for %arg6 = %c0_i32 to %4 step %c1_i32 iter_args(%arg7 = %cst) -> (tensor<128x256xf32, #wgmma>)  : i32 {
      %12 = arith.muli %arg6, %c64_i32 : i32
      %13 = tile.descriptor_load %arg0[%7, %12] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 0 : i32} : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16, #blocked>
      %14 = tile.descriptor_load %arg1[%8, %12] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 1 : i32} : !tile.tensordesc<tensor<256x64xf16>> -> tensor<256x64xf16, #blocked>
      %15 = tile.trans %14 {order = array<i32: 1, 0>} : tensor<256x64xf16, #blocked> -> tensor<64x256xf16, #blocked1>
      %16 = tilegpu.local_alloc %13 : (tensor<128x64xf16, #blocked>) -> !tilegpu.memdesc<128x64xf16, #nvmma>
      %17 = tilegpu.local_alloc %15 : (tensor<64x256xf16, #blocked1>) -> !tilegpu.memdesc<64x256xf16, #nvmma1>
      %18 = tilegpu.warp_group_dot %16, %17, %arg7 : !tilegpu.memdesc<128x64xf16, #nvmma> * !tilegpu.memdesc<64x256xf16, #nvmma1> -> tensor<128x256xf32, #wgmma>
      scf.yield %18 : tensor<128x256xf32, #wgmma>
    } {tilegpu.ws.loop}
    %10 = arith.truncf %9 : tensor<128x256xf32, #wgmma> to tensor<128x256xf16, #wgmma>
    %11 = tilegpu.convert_layout %10 : tensor<128x256xf16, #wgmma> -> tensor<128x256xf16, #blocked2>
    tile.descriptor_store %arg2[%7, %8], %11 : !tile.tensordesc<tensor<128x256xf16>>, tensor<128x256xf16, #blocked2>
    tile.return
  }
}

// -----

// A block the producer copies once a tile (W, loaded before the loop and
// read by its products) needs its one-slot channel.
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
module attributes {"tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @no_tile_channel(%arg0: !tile.tensordesc<tensor<64x64xf16>>, %arg1: !tile.tensordesc<tensor<64x64xf16>>, %arg2: !tile.tensordesc<tensor<64x64xf16>>, %arg3: i32) {
    %2 = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2>
    %3 = tilegpu.create_channel %2 {tilegpu.ws.channel} : !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2> -> !tilegpu.channel<2>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %4 = tile.get_program_id x : i32
    %5 = arith.muli %4, %c64_i32 : i32
    // expected-error @+1 {{no one-slot channel for this block the producer copies once a tile: run tilegpu-ws-buffer-allocation first}}
    %6 = tile.descriptor_load %arg1[%5, %c0_i32] {tilegpu.ws.tile_operand = 0 : i32} : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %7 = tile.trans %6 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
    %8 = tilegpu.local_alloc %7 : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
    %9 = scf.for %arg4 = %c0_i32 to %arg3 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #wgmma>)  : i32 {
      %12 = tile.descriptor_load %arg0[%arg4, %c0_i32] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 0 : i32} : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %13 = tilegpu.local_alloc %12 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %14 = tilegpu.warp_group_dot %13, %8, %arg5 : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<64x64xf32, #wgmma>
      %15 = tilegpu.warp_group_dot_wait %14 {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
      scf.yield %15 : tensor<64x64xf32, #wgmma>
    } {tilegpu.ws.loop}
    %10 = arith.truncf %9 : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %11 = tilegpu.convert_layout %10 : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
    tile.descriptor_store %arg2[%5, %c0_i32], %11 : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    tile.return
  }
}


// -----

// ... and its mark: a block task partition would give the producer but did
// not mark means the IR changed since.
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#blocked1 = #tilegpu.blocked<sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvmma1 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#wgmma = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
module attributes {"tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 2 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32} {
  tile.func public @tile_operand_unmarked(%arg0: !tile.tensordesc<tensor<64x64xf16>>, %arg1: !tile.tensordesc<tensor<64x64xf16>>, %arg2: !tile.tensordesc<tensor<64x64xf16>>, %arg3: i32) {
    %0 = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %1 = tilegpu.create_channel %0 {tilegpu.ws.tile_channel = 0 : i32} : !tilegpu.memdesc<64x64xf16, #nvmma, mutable> -> !tilegpu.channel<1>
    %2 = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2>
    %3 = tilegpu.create_channel %2 {tilegpu.ws.channel} : !tilegpu.memdesc<64x64xf16, #nvmma, mutable, buffers = 2> -> !tilegpu.channel<2>
    %cst = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #wgmma>
    %c0_i32 = arith.constant 0 : i32
    %c64_i32 = arith.constant 64 : i32
    %4 = tile.get_program_id x : i32
    %5 = arith.muli %4, %c64_i32 : i32
    %6 = tile.descriptor_load %arg1[%5, %c0_i32] : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
    %7 = tile.trans %6 {order = array<i32: 1, 0>} : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1>
    %8 = tilegpu.local_alloc %7 : (tensor<64x64xf16, #blocked1>) -> !tilegpu.memdesc<64x64xf16, #nvmma1>
    // expected-error @+1 {{the loads tilegpu-ws-task-partition marked for the producer are no longer the ones it would choose (was the loop changed since?)}}
    %9 = scf.for %arg4 = %c0_i32 to %arg3 step %c64_i32 iter_args(%arg5 = %cst) -> (tensor<64x64xf32, #wgmma>)  : i32 {
      %12 = tile.descriptor_load %arg0[%arg4, %c0_i32] {tilegpu.ws.copy = "tma", tilegpu.ws.operand = 0 : i32} : !tile.tensordesc<tensor<64x64xf16>> -> tensor<64x64xf16, #blocked>
      %13 = tilegpu.local_alloc %12 : (tensor<64x64xf16, #blocked>) -> !tilegpu.memdesc<64x64xf16, #nvmma>
      %14 = tilegpu.warp_group_dot %13, %8, %arg5 : !tilegpu.memdesc<64x64xf16, #nvmma> * !tilegpu.memdesc<64x64xf16, #nvmma1> -> tensor<64x64xf32, #wgmma>
      %15 = tilegpu.warp_group_dot_wait %14 {pendings = 0 : i32} : tensor<64x64xf32, #wgmma>
      scf.yield %15 : tensor<64x64xf32, #wgmma>
    } {tilegpu.ws.loop}
    %10 = arith.truncf %9 : tensor<64x64xf32, #wgmma> to tensor<64x64xf16, #wgmma>
    %11 = tilegpu.convert_layout %10 : tensor<64x64xf16, #wgmma> -> tensor<64x64xf16, #blocked>
    tile.descriptor_store %arg2[%5, %c0_i32], %11 : !tile.tensordesc<tensor<64x64xf16>>, tensor<64x64xf16, #blocked>
    tile.return
  }
}

