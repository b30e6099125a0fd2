// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // 16-byte-aligned rows of 8 f16 per thread: one 16-byte cp.async.cg per
  // thread and repetition of the [32, 32] layout tile (4 in all), to the
  // swizzled address (the xor of the nvmma placement); tokens are i32
  // zeros; the wait has no barrier of its own.  The repetition 32 columns
  // on moves the 16-byte chunk by 4 within a swizzled line, which the
  // swizzle turns into +64 or -64 bytes depending on the row: the same xor
  // (64) in every thread, not the same difference.  So each repetition's
  // address is the first one's offset xor a constant (32 rows on: 4096;
  // both: 4160).
  // CHECK-LABEL: llvm.func @copy_16_bytes_into_nvmma
  // CHECK: %[[OFF:.*]] = llvm.xor
  // CHECK-NEXT: %[[DST:.*]] = llvm.getelementptr %[[BASE:.*]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[X64:.*]] = llvm.xor %[[OFF]], %[[C64]] : i32
  // CHECK-NEXT: %[[DST1:.*]] = llvm.getelementptr %[[BASE]][%[[X64]]]
  // CHECK-NEXT: %[[C4096:.*]] = llvm.mlir.constant(4096 : i32) : i32
  // CHECK-NEXT: llvm.xor %[[OFF]], %[[C4096]] : i32
  // CHECK-NEXT: llvm.getelementptr %[[BASE]]
  // CHECK-NEXT: %[[C4160:.*]] = llvm.mlir.constant(4160 : i32) : i32
  // CHECK-NEXT: llvm.xor %[[OFF]], %[[C4160]] : i32
  // CHECK-NEXT: llvm.getelementptr %[[BASE]]
  // CHECK: llvm.inline_asm has_side_effects "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l" %[[DST]], %{{.*}} : (!llvm.ptr<3>, !llvm.ptr<1>) -> ()
  // CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l" %[[DST1]]
  // CHECK-COUNT-2: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;"
  // CHECK-NOT: cp.async.cg
  // CHECK: nvvm.cp.async.commit.group
  // CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: nvvm.cp.async.wait.group 1
  // CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK-NEXT: llvm.return
  tile.func public @copy_16_bytes_into_nvmma(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
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
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %g = tilegpu.async_commit_group tokens %t
    %w = tilegpu.async_wait tokens %g {num = 1 : i32}
    tilegpu.fence_async_shared
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#shared = #tilegpu.shared<order = [1, 0]>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Four f16 per thread into a plain buffer: 8-byte cp.async.ca, to the
  // dense address r * 16 + c.
  // CHECK-LABEL: llvm.func @copy_8_bytes_into_plain
  // CHECK: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f16
  // CHECK: llvm.inline_asm has_side_effects "cp.async.ca.shared.global [ $0 + 0 ], [ $1 + 0 ], 8;", "r,l" %[[DST]]
  tile.func public @copy_8_bytes_into_plain(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<32x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<32x1xi32, #blocked> -> tensor<32x16xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x16xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x16xi32, #blocked> -> tensor<32x16xi32, #blocked>
    %stride = arith.constant dense<16> : tensor<32x16xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<32x16xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<32x16xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<32x16x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<32x16x!tile.ptr<f16>, #blocked>, tensor<32x16xi32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x16xf16, #shared, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m : tensor<32x16x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<32x16xf16, #shared, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 32>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // Without an alignment hint each f32 is its own 4-byte copy; a mask
  // selects the source size (0: zero fill) per copy.
  // CHECK-LABEL: llvm.func @copy_4_bytes_masked
  // CHECK: %[[SIZE:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.ca.shared.global [ $0 + 0 ], [ $1 + 0 ], 4, $2;", "r,l,r" %{{.*}}, %{{.*}}, %[[SIZE]] : (!llvm.ptr<3>, !llvm.ptr<1>, i32) -> ()
  // CHECK-COUNT-3: cp.async.ca.shared.global [ $0 + 0 ], [ $1 + 0 ], 4, $2;
  tile.func public @copy_4_bytes_masked(%p: !tile.ptr<f32>, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<32x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<32x1xi32, #blocked> -> tensor<32x16xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x16xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x16xi32, #blocked> -> tensor<32x16xi32, #blocked>
    %stride = arith.constant dense<16> : tensor<32x16xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<32x16xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<32x16xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f32> -> tensor<32x16x!tile.ptr<f32>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<32x16x!tile.ptr<f32>, #blocked>, tensor<32x16xi32, #blocked>
    %lim = tile.splat %n : i32 -> tensor<32x16xi32, #blocked>
    %mask = arith.cmpi slt, %cols, %lim : tensor<32x16xi32, #blocked>
    %zero = arith.constant dense<0.0> : tensor<32x16xf32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x16xf32, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m mask %mask : tensor<32x16xi1, #blocked> other %zero : tensor<32x16xf32, #blocked> : tensor<32x16x!tile.ptr<f32>, #blocked> -> !tilegpu.memdesc<32x16xf32, #nvmma, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // A [16, 32] tile is smaller than the layout's [32, 32]: the threads
  // holding replicas are predicated off by their ownership.
  // CHECK-LABEL: llvm.func @copy_replicated
  // CHECK: %[[OWNER:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.inline_asm has_side_effects "@$2 cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l,b" %{{.*}}, %{{.*}}, %[[OWNER]]
  tile.func public @copy_replicated(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<16xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<16x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<16x1xi32, #blocked> -> tensor<16x32xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x32xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x32xi32, #blocked> -> tensor<16x32xi32, #blocked>
    %stride = arith.constant dense<32> : tensor<16x32xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<16x32xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<16x32xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<16x32x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<16x32x!tile.ptr<f16>, #blocked>, tensor<16x32xi32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<16x32xf16, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m : tensor<16x32x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<16x32xf16, #nvmma, mutable>
    %g = tilegpu.async_commit_group
    %w = tilegpu.async_wait {num = 0 : i32}
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // The [16, 64] layout tile repeats 4 times along the rows of a 64x64 f16
  // tile.  16 rows on, a row keeps its place in the 8-row swizzle atom, so
  // every thread's repetitions are 2048, 4096 and 6144 bytes after its
  // first copy: one swizzled address, then constant offsets (which ptxas
  // folds into the instructions).
  // CHECK-LABEL: llvm.func @copy_rows_at_constant_offsets
  // CHECK: %[[OFF:.*]] = llvm.xor
  // CHECK-NEXT: %[[DST:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[C1:.*]] = llvm.mlir.constant(2048 : i32) : i32
  // CHECK-NEXT: %[[DST1:.*]] = llvm.getelementptr %[[DST]][%[[C1]]]
  // CHECK-NEXT: %[[C2:.*]] = llvm.mlir.constant(4096 : i32) : i32
  // CHECK-NEXT: %[[DST2:.*]] = llvm.getelementptr %[[DST]][%[[C2]]]
  // CHECK-NEXT: %[[C3:.*]] = llvm.mlir.constant(6144 : i32) : i32
  // CHECK-NEXT: %[[DST3:.*]] = llvm.getelementptr %[[DST]][%[[C3]]]
  // CHECK-NOT: llvm.xor
  // CHECK: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l" %[[DST]]
  // CHECK-NEXT: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l" %[[DST1]]
  // CHECK-NEXT: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l" %[[DST2]]
  // CHECK-NEXT: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16;", "r,l" %[[DST3]]
  tile.func public @copy_rows_at_constant_offsets(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}) {
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
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m : tensor<64x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<64x64xf16, #nvmma, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // A K-tail mask, rows < n with n a multiple of 32: a thread's rows r and
  // r + 16 (r < 16) fall in one aligned run of 32 rows, so both copies use
  // the first row's predicate.
  // CHECK-LABEL: llvm.func @copy_mask_shared_by_constancy
  // CHECK: %[[SIZE:.*]] = llvm.select %[[P:.*]], %{{.*}}, %{{.*}} : i1, i32
  // CHECK-NEXT: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16, $2;", "r,l,r" %{{.*}}, %{{.*}}, %[[SIZE]]
  // CHECK-NEXT: %[[SIZE1:.*]] = llvm.select %[[P]], %{{.*}}, %{{.*}} : i1, i32
  // CHECK-NEXT: "cp.async.cg.shared.global [ $0 + 0 ], [ $1 + 0 ], 16, $2;", "r,l,r" %{{.*}}, %{{.*}}, %[[SIZE1]]
  tile.func public @copy_mask_shared_by_constancy(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 32 : i32}) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<32x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x64xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %stride = arith.constant dense<64> : tensor<32x64xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<32x64xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<32x64xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %lim = tile.splat %n : i32 -> tensor<32x64xi32, #blocked>
    %mask = arith.cmpi slt, %rows, %lim : tensor<32x64xi32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m mask %mask : tensor<32x64xi1, #blocked> : tensor<32x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<32x64xf16, #nvmma, mutable>
    tile.return
  }
}

// -----

#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
module attributes {"tilegpu.num-warps" = 4 : i32} {
  // The same mask with n of unknown alignment: each row has its own
  // predicate.
  // CHECK-LABEL: llvm.func @copy_mask_per_row
  // CHECK: llvm.select %[[P:.*]], %{{.*}}, %{{.*}} : i1, i32
  // CHECK-NOT: llvm.select %[[P]],
  // CHECK: llvm.return
  tile.func public @copy_mask_per_row(%p: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>>
    %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32, #tilegpu.slice<dim = 1, parent = #blocked>> -> tensor<32x1xi32, #blocked>
    %rows = tile.broadcast %r1 : tensor<32x1xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>>
    %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #tilegpu.slice<dim = 0, parent = #blocked>> -> tensor<1x64xi32, #blocked>
    %cols = tile.broadcast %c1 : tensor<1x64xi32, #blocked> -> tensor<32x64xi32, #blocked>
    %stride = arith.constant dense<64> : tensor<32x64xi32, #blocked>
    %rs = arith.muli %rows, %stride : tensor<32x64xi32, #blocked>
    %off = arith.addi %rs, %cols : tensor<32x64xi32, #blocked>
    %ps = tile.splat %p : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>, #blocked>
    %ptrs = tile.addptr %ps, %off : tensor<32x64x!tile.ptr<f16>, #blocked>, tensor<32x64xi32, #blocked>
    %lim = tile.splat %n : i32 -> tensor<32x64xi32, #blocked>
    %mask = arith.cmpi slt, %rows, %lim : tensor<32x64xi32, #blocked>
    %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #nvmma, mutable>
    %t = tilegpu.async_copy_global_to_local %ptrs, %m mask %mask : tensor<32x64xi1, #blocked> : tensor<32x64x!tile.ptr<f16>, #blocked> -> !tilegpu.memdesc<32x64xf16, #nvmma, mutable>
    tile.return
  }
}
