// RUN: warpforge-opt %s | FileCheck %s
// RUN: warpforge-opt %s | warpforge-opt | FileCheck %s
// RUN: warpforge-opt %s --mlir-print-op-generic | warpforge-opt | FileCheck %s

// Round trip of every tilegpu attribute, type and op.  Layouts print as
// aliases (#blocked, #slice, #wgmma, #dot_op, #shared, #nvmma), numbered
// when there are several of a kind.

// CHECK-DAG: #[[B1:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// CHECK-DAG: #[[B2:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
// CHECK-DAG: #[[B3:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 1, 2], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 0, 1]>
// CHECK-DAG: #[[S1:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[B2]]>
// CHECK-DAG: #[[S0:slice[0-9]*]] = #tilegpu.slice<dim = 0, parent = #[[B3]]>
// CHECK-DAG: #[[SS:slice[0-9]*]] = #tilegpu.slice<dim = 1, parent = #[[S0]]>
// CHECK-DAG: #[[W:wgmma[0-9]*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
// CHECK-DAG: #[[W8:wgmma[0-9]*]] = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 32]>
// CHECK-DAG: #[[DA:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[W]], kWidth = 2>
// CHECK-DAG: #[[DFA:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 0, parent = #[[B2]], kWidth = 1>
// CHECK-DAG: #[[DFB:dot_op[0-9]*]] = #tilegpu.dot_op<opIdx = 1, parent = #[[B2]], kWidth = 1>
// CHECK-DAG: #[[SH1:shared[0-9]*]] = #tilegpu.shared<order = [0]>
// CHECK-DAG: #[[SH2:shared[0-9]*]] = #tilegpu.shared<order = [1, 0]>
// CHECK-DAG: #[[NV128:nvmma[0-9]*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
// CHECK-DAG: #[[NVT:nvmma[0-9]*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>
// CHECK-DAG: #[[NV0:nvmma[0-9]*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 0, transposed = false, elementBitWidth = 8>

#b1 = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
#b2 = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#b3 = #tilegpu.blocked<sizePerThread = [1, 1, 2], threadsPerWarp = [1, 4, 8], warpsPerCTA = [2, 2, 1], order = [2, 0, 1]>
#s1 = #tilegpu.slice<dim = 1, parent = #b2>
#s0 = #tilegpu.slice<dim = 0, parent = #b3>
#ss = #tilegpu.slice<dim = 1, parent = #s0>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
#w8 = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 256, 32]>
#da = #tilegpu.dot_op<opIdx = 0, parent = #w, kWidth = 2>
#dfa = #tilegpu.dot_op<opIdx = 0, parent = #b2, kWidth = 1>
#dfb = #tilegpu.dot_op<opIdx = 1, parent = #b2, kWidth = 1>
#sh1 = #tilegpu.shared<order = [0]>
#sh2 = #tilegpu.shared<order = [1, 0]>
#nv128 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#nvt = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>
#nv0 = #tilegpu.nvmma_shared<swizzlingByteWidth = 0, transposed = false, elementBitWidth = 8>

//===----------------------------------------------------------------------===//
// Layout attributes as tensor encodings
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @distributed_layouts(
// CHECK-SAME: %{{.*}}: tensor<1024xf32, #[[B1]]>,
// CHECK-SAME: %{{.*}}: tensor<64x64xf16, #[[B2]]>,
// CHECK-SAME: %{{.*}}: tensor<2x8x16xi8, #[[B3]]>,
// CHECK-SAME: %{{.*}}: tensor<64xf32, #[[S1]]>,
// CHECK-SAME: %{{.*}}: tensor<8x16xi32, #[[S0]]>,
// CHECK-SAME: %{{.*}}: tensor<16x!tile.ptr<f32>, #[[SS]]>,
// CHECK-SAME: %{{.*}}: tensor<128x128xf32, #[[W]]>,
// CHECK-SAME: %{{.*}}: tensor<128x256xf32, #[[W8]]>,
// CHECK-SAME: %{{.*}}: tensor<64x64xf16, #[[DA]]>,
// CHECK-SAME: %{{.*}}: tensor<64x32xf32, #[[DFA]]>,
// CHECK-SAME: %{{.*}}: tensor<32x64xf32, #[[DFB]]>)
tile.func public @distributed_layouts(
    %a: tensor<1024xf32, #b1>, %b: tensor<64x64xf16, #b2>,
    %c: tensor<2x8x16xi8, #b3>, %d: tensor<64xf32, #s1>,
    %e: tensor<8x16xi32, #s0>, %f: tensor<16x!tile.ptr<f32>, #ss>,
    %g: tensor<128x128xf32, #w>, %h: tensor<128x256xf32, #w8>,
    %i: tensor<64x64xf16, #da>, %j: tensor<64x32xf32, #dfa>,
    %k: tensor<32x64xf32, #dfb>) {
  tile.return
}

// A dimension that is not a power of two is fine in whole CTA tiles: 64
// rows in tiles of 8, 176 columns in eleven tiles of 16 (the verifier's
// rule in TileGPUAttrs.cpp).
// CHECK-LABEL: tile.func public @npot_dims_in_whole_tiles(
// CHECK-SAME: tensor<64x176xf32, #{{blocked[0-9]*}}>
tile.func public @npot_dims_in_whole_tiles(
    %a: tensor<64x176xf32, #tilegpu.blocked<sizePerThread = [1, 2], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]>>) {
  tile.return
}

// Three consumer warpgroups: 12 warps. A wgmma layout stacks them along
// M (192 rows, three m64 warpgroups); a blocked layout may take 12 (or 3)
// along a dimension that holds whole tiles, or that divides the tile and
// is repeated (192 elements under 32 lanes x 12 warps: each held twice).
// CHECK-LABEL: tile.func public @twelve_warps(
// CHECK-SAME: tensor<192x128xf32, #{{wgmma[0-9]*}}>
// CHECK-SAME: tensor<192x128xf16, #{{blocked[0-9]*}}>
// CHECK-SAME: tensor<192xf32, #{{blocked[0-9]*}}>
tile.func public @twelve_warps(
    %a: tensor<192x128xf32, #tilegpu.wgmma<warpsPerCTA = [12, 1], instrShape = [64, 128, 16]>>,
    %b: tensor<192x128xf16, #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 3], order = [1, 0]>>,
    %c: tensor<192xf32, #tilegpu.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [12], order = [0]>>) {
  tile.return
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @memdesc_types(
// CHECK-SAME: %{{.*}}: !tilegpu.memdesc<128xf32, #[[SH1]]>,
// CHECK-SAME: %{{.*}}: !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>,
// CHECK-SAME: %{{.*}}: !tilegpu.memdesc<128x64xf16, #[[NV128]], mutable, buffers = 3>,
// CHECK-SAME: %{{.*}}: !tilegpu.memdesc<32x64xf16, #[[NVT]], buffers = 2>,
// CHECK-SAME: %{{.*}}: !tilegpu.memdesc<2x64x8xf8E4M3FN, #[[NV0]]>,
// CHECK-SAME: %{{.*}}: !tilegpu.async.token)
tile.func public @memdesc_types(
    %a: !tilegpu.memdesc<128xf32, #sh1>,
    %b: !tilegpu.memdesc<64x32xf16, #sh2, mutable>,
    %c: !tilegpu.memdesc<128x64xf16, #nv128, mutable, buffers = 3>,
    %d: !tilegpu.memdesc<32x64xf16, #nvt, buffers = 2>,
    %e: !tilegpu.memdesc<2x64x8xf8E4M3FN, #nv0, buffers = 1>,
    %t: !tilegpu.async.token) {
  tile.return
}

// The optional parts of a memdesc may come in either order.
// CHECK-LABEL: tile.func public @memdesc_buffers_before_mutable(
// CHECK-SAME: %{{.*}}: !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable, buffers = 2>)
tile.func public @memdesc_buffers_before_mutable(
    %a: !tilegpu.memdesc<64x32xf16, #sh2, buffers = 2, mutable>) {
  tile.return
}

//===----------------------------------------------------------------------===//
// Layout conversion
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @convert_layout(
// CHECK-SAME: %[[X:.*]]: tensor<64x64xf16, #[[B2]]>, %[[Y:.*]]: tensor<64xf32, #[[S1]]>)
tile.func public @convert_layout(%x: tensor<64x64xf16, #b2>, %y: tensor<64xf32, #s1>) {
  // CHECK-NEXT: tilegpu.convert_layout %[[X]] : tensor<64x64xf16, #[[B2]]> -> tensor<64x64xf16, #[[DA]]>
  // CHECK-NEXT: tilegpu.convert_layout %[[Y]] : tensor<64xf32, #[[S1]]> -> tensor<64xf32, #[[B1]]>
  %0 = tilegpu.convert_layout %x : tensor<64x64xf16, #b2> -> tensor<64x64xf16, #da>
  %1 = tilegpu.convert_layout %y : tensor<64xf32, #s1> -> tensor<64xf32, #b1>
  tile.return
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @shared_memory(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf16, #[[B2]]>, %[[I:.*]]: i32)
tile.func public @shared_memory(%x: tensor<64x32xf16, #b2>, %i: i32) {
  // CHECK-NEXT: %[[C:.*]] = tilegpu.local_alloc %[[X]] : (tensor<64x32xf16, #[[B2]]>) -> !tilegpu.memdesc<64x32xf16, #[[SH2]]>
  // CHECK-NEXT: %[[M:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable, buffers = 3>
  // CHECK-NEXT: %[[B:.*]] = tilegpu.memdesc_index %[[M]][%[[I]]] : !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable, buffers = 3> -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>
  // CHECK-NEXT: tilegpu.local_store %[[X]], %[[B]] : tensor<64x32xf16, #[[B2]]> -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>
  // CHECK-NEXT: %[[SUB:.*]] = tilegpu.memdesc_subslice %[[B]] [32, 16] : !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable> -> !tilegpu.memdesc<32x16xf16, #[[SH2]], mutable>
  // CHECK-NEXT: tilegpu.local_load %[[SUB]] : !tilegpu.memdesc<32x16xf16, #[[SH2]], mutable> -> tensor<32x16xf16, #[[B2]]>
  // CHECK-NEXT: tilegpu.local_load %[[C]] : !tilegpu.memdesc<64x32xf16, #[[SH2]]> -> tensor<64x32xf16, #[[B2]]>
  // CHECK-NEXT: tilegpu.local_dealloc %[[M]] : !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable, buffers = 3>
  // CHECK-NEXT: tilegpu.local_dealloc %[[C]] : !tilegpu.memdesc<64x32xf16, #[[SH2]]>
  %c = tilegpu.local_alloc %x : (tensor<64x32xf16, #b2>) -> !tilegpu.memdesc<64x32xf16, #sh2>
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #sh2, mutable, buffers = 3>
  %b = tilegpu.memdesc_index %m[%i] : !tilegpu.memdesc<64x32xf16, #sh2, mutable, buffers = 3> -> !tilegpu.memdesc<64x32xf16, #sh2, mutable>
  tilegpu.local_store %x, %b : tensor<64x32xf16, #b2> -> !tilegpu.memdesc<64x32xf16, #sh2, mutable>
  %sub = tilegpu.memdesc_subslice %b [32, 16] : !tilegpu.memdesc<64x32xf16, #sh2, mutable> -> !tilegpu.memdesc<32x16xf16, #sh2, mutable>
  %0 = tilegpu.local_load %sub : !tilegpu.memdesc<32x16xf16, #sh2, mutable> -> tensor<32x16xf16, #b2>
  %1 = tilegpu.local_load %c : !tilegpu.memdesc<64x32xf16, #sh2> -> tensor<64x32xf16, #b2>
  tilegpu.local_dealloc %m : !tilegpu.memdesc<64x32xf16, #sh2, mutable, buffers = 3>
  tilegpu.local_dealloc %c : !tilegpu.memdesc<64x32xf16, #sh2>
  tile.return
}

// CHECK-LABEL: tile.func public @shared_memory_all_buffers(
// CHECK-SAME: %[[X:.*]]: tensor<2x8x16xf16, #[[B3]]>)
tile.func public @shared_memory_all_buffers(%x: tensor<2x8x16xf16, #b3>) {
  // CHECK-NEXT: %[[C:.*]] = tilegpu.local_alloc %[[X]] : (tensor<2x8x16xf16, #[[B3]]>) -> !tilegpu.memdesc<8x16xf16, #[[SH2]], mutable, buffers = 2>
  // CHECK-NEXT: tilegpu.local_store %[[X]], %[[C]] : tensor<2x8x16xf16, #[[B3]]> -> !tilegpu.memdesc<8x16xf16, #[[SH2]], mutable, buffers = 2>
  // CHECK-NEXT: tilegpu.local_load %[[C]] : !tilegpu.memdesc<8x16xf16, #[[SH2]], mutable, buffers = 2> -> tensor<2x8x16xf16, #[[B3]]>
  %c = tilegpu.local_alloc %x : (tensor<2x8x16xf16, #b3>) -> !tilegpu.memdesc<8x16xf16, #sh2, mutable, buffers = 2>
  tilegpu.local_store %x, %c : tensor<2x8x16xf16, #b3> -> !tilegpu.memdesc<8x16xf16, #sh2, mutable, buffers = 2>
  %0 = tilegpu.local_load %c : !tilegpu.memdesc<8x16xf16, #sh2, mutable, buffers = 2> -> tensor<2x8x16xf16, #b3>
  tile.return
}

// CHECK-LABEL: tile.func public @nvmma_shared_memory(
// CHECK-SAME: %[[X:.*]]: tensor<128x64xf16, #[[B2]]>)
tile.func public @nvmma_shared_memory(%x: tensor<128x64xf16, #b2>) {
  // CHECK-NEXT: %[[M:.*]] = tilegpu.local_alloc %[[X]] : (tensor<128x64xf16, #[[B2]]>) -> !tilegpu.memdesc<128x64xf16, #[[NV128]]>
  // CHECK-NEXT: tilegpu.memdesc_subslice %[[M]] [0, 0] : !tilegpu.memdesc<128x64xf16, #[[NV128]]> -> !tilegpu.memdesc<64x64xf16, #[[NV128]]>
  %m = tilegpu.local_alloc %x : (tensor<128x64xf16, #b2>) -> !tilegpu.memdesc<128x64xf16, #nv128>
  %0 = tilegpu.memdesc_subslice %m [0, 0] : !tilegpu.memdesc<128x64xf16, #nv128> -> !tilegpu.memdesc<64x64xf16, #nv128>
  tile.return
}

//===----------------------------------------------------------------------===//
// Warpgroup matrix products
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @warp_group_dots(
// CHECK-SAME: %[[A:[^:]*]]: !tilegpu.memdesc<64x64xf16, #[[NV128]]>, %[[AT:[^:]*]]: !tilegpu.memdesc<64x64xf16, #[[NVT]]>, %[[B:[^:]*]]: !tilegpu.memdesc<64x128xf16, #[[NV128]]>, %[[AR:[^:]*]]: tensor<64x64xf16, #[[DA]]>, %[[C:[^:]*]]: tensor<64x128xf32, #[[W]]>)
tile.func public @warp_group_dots(%a: !tilegpu.memdesc<64x64xf16, #nv128>, %at: !tilegpu.memdesc<64x64xf16, #nvt>, %b: !tilegpu.memdesc<64x128xf16, #nv128>, %ar: tensor<64x64xf16, #da>, %c: tensor<64x128xf32, #w>) {
  // CHECK-NEXT: %[[D0:.*]] = tilegpu.warp_group_dot %[[A]], %[[B]], %[[C]] : !tilegpu.memdesc<64x64xf16, #[[NV128]]> * !tilegpu.memdesc<64x128xf16, #[[NV128]]> -> tensor<64x128xf32, #[[W]]>
  // CHECK-NEXT: %[[D1:.*]] = tilegpu.warp_group_dot %[[AT]], %[[B]], %[[D0]] : !tilegpu.memdesc<64x64xf16, #[[NVT]]> * !tilegpu.memdesc<64x128xf16, #[[NV128]]> -> tensor<64x128xf32, #[[W]]>
  // CHECK-NEXT: %[[D2:.*]] = tilegpu.warp_group_dot %[[AR]], %[[B]], %[[D1]] : tensor<64x64xf16, #[[DA]]> * !tilegpu.memdesc<64x128xf16, #[[NV128]]> -> tensor<64x128xf32, #[[W]]>
  // CHECK-NEXT: %[[R:.*]]:2 = tilegpu.warp_group_dot_wait %[[D2]], %[[AR]] {pendings = 1 : i32} : tensor<64x128xf32, #[[W]]>, tensor<64x64xf16, #[[DA]]>
  %d0 = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #nv128> * !tilegpu.memdesc<64x128xf16, #nv128> -> tensor<64x128xf32, #w>
  %d1 = tilegpu.warp_group_dot %at, %b, %d0 : !tilegpu.memdesc<64x64xf16, #nvt> * !tilegpu.memdesc<64x128xf16, #nv128> -> tensor<64x128xf32, #w>
  %d2 = tilegpu.warp_group_dot %ar, %b, %d1 : tensor<64x64xf16, #da> * !tilegpu.memdesc<64x128xf16, #nv128> -> tensor<64x128xf32, #w>
  %r:2 = tilegpu.warp_group_dot_wait %d2, %ar {pendings = 1 : i32} : tensor<64x128xf32, #w>, tensor<64x64xf16, #da>
  tile.return
}

// A scheduling fence on values of any element type (and scalars).
// CHECK-LABEL: tile.func public @schedule_after(
// CHECK-NEXT: tilegpu.schedule_after %{{.*}}, %{{.*}} : tensor<64x128xf32, #[[W]]>, i32
tile.func public @schedule_after(%c: tensor<64x128xf32, #w>, %i: i32) {
  tilegpu.schedule_after %c, %i : tensor<64x128xf32, #w>, i32
  tile.return
}

// tf32 products say so.
// CHECK-LABEL: tile.func public @warp_group_dot_tf32(
// CHECK: tilegpu.warp_group_dot %{{.*}}, %{{.*}}, %{{.*}} inputPrecision = tf32 maxNumImpreciseAcc = 32 : !tilegpu.memdesc<64x32xf32, #{{nvmma[0-9]*}}> * !tilegpu.memdesc<32x128xf32, #{{nvmma[0-9]*}}> -> tensor<64x128xf32, #{{wgmma[0-9]*}}>
tile.func public @warp_group_dot_tf32(%a: !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>>, %b: !tilegpu.memdesc<32x128xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32>>, %c: tensor<64x128xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 8]>>) {
  %d = tilegpu.warp_group_dot %a, %b, %c inputPrecision = tf32 maxNumImpreciseAcc = 32 : !tilegpu.memdesc<64x32xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>> * !tilegpu.memdesc<32x128xf32, #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32>> -> tensor<64x128xf32, #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 8]>>
  tile.return
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @async_copies(
// CHECK-SAME: %[[P:.*]]: tensor<64x32x!tile.ptr<f16>, #[[B2]]>, %[[MASK:.*]]: tensor<64x32xi1, #[[B2]]>, %[[O:.*]]: tensor<64x32xf16, #[[B2]]>)
tile.func public @async_copies(%p: tensor<64x32x!tile.ptr<f16>, #b2>, %mask: tensor<64x32xi1, #b2>, %other: tensor<64x32xf16, #b2>) {
  // CHECK-NEXT: %[[M:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>
  // CHECK-NEXT: %[[T0:.*]] = tilegpu.async_copy_global_to_local %[[P]], %[[M]] : tensor<64x32x!tile.ptr<f16>, #[[B2]]> -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>
  // CHECK-NEXT: %[[T1:.*]] = tilegpu.async_copy_global_to_local %[[P]], %[[M]] mask %[[MASK]] : tensor<64x32xi1, #[[B2]]> : tensor<64x32x!tile.ptr<f16>, #[[B2]]> -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>
  // CHECK-NEXT: %[[T2:.*]] = tilegpu.async_copy_global_to_local %[[P]], %[[M]] mask %[[MASK]] : tensor<64x32xi1, #[[B2]]> other %[[O]] : tensor<64x32xf16, #[[B2]]> : tensor<64x32x!tile.ptr<f16>, #[[B2]]> -> !tilegpu.memdesc<64x32xf16, #[[SH2]], mutable>
  // CHECK-NEXT: %[[G:.*]] = tilegpu.async_commit_group tokens %[[T0]], %[[T1]], %[[T2]]
  // CHECK-NEXT: %[[E:.*]] = tilegpu.async_commit_group{{$}}
  // CHECK-NEXT: tilegpu.async_wait tokens %[[G]], %[[E]] {num = 1 : i32}
  // CHECK-NEXT: tilegpu.async_wait {num = 0 : i32}
  // CHECK-NEXT: tilegpu.fence_async_shared
  %m = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #sh2, mutable>
  %t0 = tilegpu.async_copy_global_to_local %p, %m : tensor<64x32x!tile.ptr<f16>, #b2> -> !tilegpu.memdesc<64x32xf16, #sh2, mutable>
  %t1 = tilegpu.async_copy_global_to_local %p, %m mask %mask : tensor<64x32xi1, #b2> : tensor<64x32x!tile.ptr<f16>, #b2> -> !tilegpu.memdesc<64x32xf16, #sh2, mutable>
  %t2 = tilegpu.async_copy_global_to_local %p, %m mask %mask : tensor<64x32xi1, #b2> other %other : tensor<64x32xf16, #b2> : tensor<64x32x!tile.ptr<f16>, #b2> -> !tilegpu.memdesc<64x32xf16, #sh2, mutable>
  %g = tilegpu.async_commit_group tokens %t0, %t1, %t2
  // Without tokens, the op ends before the next line's `%w0 =` (regression:
  // an optional operand list without a keyword took it as an operand).
  %e = tilegpu.async_commit_group
  %w0 = tilegpu.async_wait tokens %g, %e {num = 1 : i32}
  %w1 = tilegpu.async_wait {num = 0 : i32}
  tilegpu.fence_async_shared
  tile.return
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

// CHECK-LABEL: tile.func public @barriers(
// CHECK-SAME: %[[PRED:.*]]: i1, %[[PHASE:.*]]: i32)
tile.func public @barriers(%pred: i1, %phase: i32) {
  // CHECK-NEXT: %[[BAR:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.init_barrier %[[BAR]], 1 : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.barrier_expect %[[BAR]], 16384, %[[PRED]] : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.arrive_barrier %[[BAR]], 2 : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.wait_barrier %[[BAR]], %[[PHASE]] : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.init_barrier %bar, 1 : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.barrier_expect %bar, 16384, %pred : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.arrive_barrier %bar, 2 : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.wait_barrier %bar, %phase : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tile.return
}

// Across a cluster: an arrival on the barrier at the same offset in CTA
// %cta, and the cluster-wide barrier.
// CHECK-LABEL: tile.func public @cluster_barriers(
// CHECK-SAME: %[[CTA:.*]]: i32)
tile.func public @cluster_barriers(%cta: i32) {
  // CHECK-NEXT: %[[BAR:.*]] = tilegpu.local_alloc
  // CHECK-NEXT: tilegpu.arrive_barrier %[[BAR]], 1 cta %[[CTA]] : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.arrive_barrier %[[BAR]], 1 cta %[[CTA]] {per_warp} : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.cluster_barrier
  %bar = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.arrive_barrier %bar, 1 cta %cta : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.arrive_barrier %bar, 1 cta %cta {per_warp} : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.cluster_barrier
  tile.return
}

// Barriers can be one buffer of a ring of them.
// CHECK-LABEL: tile.func public @barrier_ring(
// CHECK-SAME: %[[I:.*]]: i32)
tile.func public @barrier_ring(%i: i32) {
  // CHECK-NEXT: %[[RING:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #[[SH1]], mutable, buffers = 4>
  // CHECK-NEXT: %[[BAR:.*]] = tilegpu.memdesc_index %[[RING]][%[[I]]] : !tilegpu.memdesc<1xi64, #[[SH1]], mutable, buffers = 4> -> !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  // CHECK-NEXT: tilegpu.init_barrier %[[BAR]], 128 : !tilegpu.memdesc<1xi64, #[[SH1]], mutable>
  %ring = tilegpu.local_alloc : () -> !tilegpu.memdesc<1xi64, #sh1, mutable, buffers = 4>
  %bar = tilegpu.memdesc_index %ring[%i] : !tilegpu.memdesc<1xi64, #sh1, mutable, buffers = 4> -> !tilegpu.memdesc<1xi64, #sh1, mutable>
  tilegpu.init_barrier %bar, 128 : !tilegpu.memdesc<1xi64, #sh1, mutable>
  tile.return
}

// A warp's vote over the elements its threads hold.
// CHECK-LABEL: tile.func public @warp_all(
// CHECK-SAME: %[[C:.*]]: tensor<64x1xi1, #[[W]]>)
tile.func public @warp_all(%c: tensor<64x1xi1, #w>) {
  // CHECK-NEXT: %{{.*}} = tilegpu.warp_all %[[C]] : tensor<64x1xi1, #[[W]]>
  %all = tilegpu.warp_all %c : tensor<64x1xi1, #w>
  tile.return
}
