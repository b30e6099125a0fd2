// RUN: warpforge-opt %s --split-input-file --tilegpu-allocate-shared-memory --convert-tilegpu-to-llvm | FileCheck %s

// Hopper wgmma: tilegpu.warp_group_dot and tilegpu.warp_group_dot_wait.
// Descriptor constants (i64, printed signed) are checked against the
// formulas in DotOpToLLVM.cpp: start address >> 4 (added at run time) |
// LBO >> 4 << 16 | SBO >> 4 << 32 | swizzle mode << 62.

#ka128 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#kb128 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
// SS form, both operands K-major with 128-byte swizzle: fence, four K
// steps chained through the accumulator, commit.  Descriptor constant:
// LBO 1 << 16 | SBO (8 * 128 >> 4 = 64) << 32 | 128B mode (1) << 62, plus the
// K step's 32 bytes >> 4 = 2.  A and B are the same here.
// CHECK-LABEL: llvm.func @ss_f16_k_major
// CHECK: %[[A:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: %[[B:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[AM:.*]] = llvm.and %[[A]], %{{.*}} : i32
// CHECK: %[[AS:.*]] = llvm.lshr %[[AM]], %{{.*}} : i32
// CHECK: %[[AF:.*]] = llvm.zext %[[AS]] : i32 to i64
// CHECK: %[[AC:.*]] = llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK: %[[AD0:.*]] = llvm.add %[[AF]], %[[AC]] : i64
// CHECK: llvm.and %[[B]]
// CHECK: llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK: %[[BD0:.*]] = llvm.add
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[D0:.*]] = llvm.inline_asm has_side_effects "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $128, 0;\0A\09wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40, $41, $42, $43, $44, $45, $46, $47, $48, $49, $50, $51, $52, $53, $54, $55, $56, $57, $58, $59, $60, $61, $62, $63}, $129, $130, p, 1, 1, 0, 0;\0A\09}", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,r,l,l" {{.*}}, %[[ONE]], %[[AD0]], %[[BD0]]
// CHECK: llvm.extractvalue %[[D0]][0]
// CHECK: llvm.mlir.constant(4611686293305360386 : i64) : i64
// CHECK: llvm.mlir.constant(4611686293305360386 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: llvm.mlir.constant(4611686293305360388 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: llvm.mlir.constant(4611686293305360390 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// The wait ties all 64 accumulators of the thread through itself.
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63"
// CHECK: llvm.return
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @ss_f16_k_major(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #ka128, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #kb128, mutable>
    %c = tile.splat %f : f32 -> tensor<64x128xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #ka128, mutable> * !tilegpu.memdesc<64x128xf16, #kb128, mutable> -> tensor<64x128xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x128xf32, #w>
    tile.return
  }
}

// -----

#at64 = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>
#bn128 = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 16]>
// Both operands MN-major (A transposed, B untransposed): transpose
// immediates 1, 1.  A: 64-byte swizzle (mode 2), its 64 rows of M are two
// 32-element column blocks Lo * S = 32 * 64 = 2048 bytes apart: LBO 128,
// SBO 8 * 64 >> 4 = 32; a K step is 16 rows of 64 bytes (+64).  B: 128-byte
// swizzle, LBO 32 * 128 >> 4 = 256, SBO 64; a K step is 16 rows of 128 bytes
// (+128).
// CHECK-LABEL: llvm.func @ss_f16_mn_major
// CHECK: llvm.mlir.constant(-9223371899407433728 : i64) : i64
// CHECK: llvm.mlir.constant(4611686293322072064 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1, 1;
// CHECK: llvm.mlir.constant(-9223371899407433664 : i64) : i64
// CHECK: llvm.mlir.constant(4611686293322072192 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1, 1;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @ss_f16_mn_major(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #at64, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x128xf16, #bn128, mutable>
    %c = tile.splat %f : f32 -> tensor<64x128xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x32xf16, #at64, mutable> * !tilegpu.memdesc<32x128xf16, #bn128, mutable> -> tensor<64x128xf32, #w>
    tile.return
  }
}

// -----

#a32 = #tilegpu.nvmma_shared<swizzlingByteWidth = 32, transposed = false, elementBitWidth = 16>
#b64 = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [8, 1], instrShape = [64, 64, 16]>
// 8 warps as two warpgroups along M, 2 x 2 repetitions of m64n64 and two K
// steps: 8 instructions, in the order (rm, rn, ks).  The warpgroup
// ((warp / 4) % 2, the warp index read from lane 0 so that ptxas knows
// it is warp-uniform) starts 64 rows of 32 bytes further into A.  A: K-major,
// 32-byte swizzle (mode 3), SBO 16; the next M repetition is 128 rows on
// (+4096 bytes, +256), the second K step the next 16-element column block
// (+256 * 32 bytes, +512).  B: K-major, 64-byte swizzle (mode 2), SBO 32; the
// next N repetition is 64 rows of 64 bytes on (+256), a K step 32 bytes (+2).
// CHECK-LABEL: llvm.func @two_warpgroups_reps
// CHECK: %[[TID_WARP:.*]] = llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[TID_WARP]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[Q:.*]] = llvm.udiv %[[WARP]], %[[FOUR]] : i32
// CHECK: %[[G:.*]] = llvm.urem %[[Q]], %[[TWO]] : i32
// CHECK: %[[A:.*]] = llvm.ptrtoint
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[ROWS:.*]] = llvm.mlir.constant(2048 : i32) : i32
// CHECK: %[[GB:.*]] = llvm.mul %[[G]], %[[ROWS]] : i32
// CHECK: llvm.add %[[A]], %[[GB]] : i32
// CHECK: llvm.mlir.constant(-4611685949707845632 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756800 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707845120 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756798 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707845632 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756544 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707845120 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756542 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707845376 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756800 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707844864 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756798 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707845376 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756544 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK: llvm.mlir.constant(-4611685949707844864 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756542 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 0;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {"tilegpu.num-warps" = 8 : i32} {
  tile.func public @two_warpgroups_reps(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x32xbf16, #a32, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x128xbf16, #b64, mutable>
    %c = tile.splat %f : f32 -> tensor<256x128xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<256x32xbf16, #a32, mutable> * !tilegpu.memdesc<32x128xbf16, #b64, mutable> -> tensor<256x128xf32, #w>
    tile.return
  }
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#bn = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 2], instrShape = [64, 32, 16]>
// Two warps along N and an N-major B whose 64-element swizzle rows hold two
// n = 32 instructions: the start is column c = warpN * 32 + rn * 64 of B, at
// byte (c / 64) * Lo * S + (c % 64) * 2 with Lo * S = 64 * 128 = 8192.  B's
// LBO is 8192 >> 4 = 512 (column blocks), SBO 64; a K step +16 rows of 128
// bytes (+128).  A is shared by both warpgroups.
// CHECK-LABEL: llvm.func @warps_along_n
// CHECK: %[[TID_WARP:.*]] = llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK: %[[WARP:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[TID_WARP]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[Q:.*]] = llvm.udiv %[[WARP]], %[[FOUR]] : i32
// CHECK: %[[WN:.*]] = llvm.urem %[[Q]], %[[TWO]] : i32
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: %[[B:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK: %[[N:.*]] = llvm.mul %[[WN]], %{{.*}} : i32
// CHECK: %[[BLK:.*]] = llvm.udiv %[[N]], %{{.*}} : i32
// CHECK: %[[IN:.*]] = llvm.urem %[[N]], %{{.*}} : i32
// CHECK: %[[BLKB:.*]] = llvm.mul %[[BLK]], %{{.*}} : i32
// CHECK: %[[INB:.*]] = llvm.mul %[[IN]], %{{.*}} : i32
// CHECK: %[[OFF:.*]] = llvm.add %[[BLKB]], %[[INB]] : i32
// CHECK: llvm.add %[[B]], %[[OFF]] : i32
// CHECK: llvm.mlir.constant(4611686293338849280 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// CHECK: llvm.mlir.constant(4611686293338849408 : i64) : i64
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// The second N repetition: column warpN * 32 + 64.
// CHECK: %[[N1:.*]] = llvm.mul %[[WN]], %{{.*}} : i32
// CHECK: %[[SIXTYFOUR:.*]] = llvm.mlir.constant(64 : i32) : i32
// CHECK: llvm.add %[[N1]], %[[SIXTYFOUR]] : i32
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {"tilegpu.num-warps" = 8 : i32} {
  tile.func public @warps_along_n(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf16, #a, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x128xf16, #bn, mutable>
    %c = tile.splat %f : f32 -> tensor<64x128xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf16, #a, mutable> * !tilegpu.memdesc<64x128xf16, #bn, mutable> -> tensor<64x128xf32, #w>
    tile.return
  }
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
#bt = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
// fp8 (e4m3 x e5m2, K-major only: no transpose immediates) into an f16
// accumulator: its 32 elements travel as 16 pairs packed in i32.  64-byte
// swizzle: a K step of 32 bytes is +2.
// CHECK-LABEL: llvm.func @fp8_f16_acc
// CHECK: llvm.insertelement %{{.*}}, %{{.*}}[%{{.*}} : i32] : vector<2xf16>
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: llvm.mlir.constant(-9223371899415756800 : i64) : i64
// CHECK: llvm.mlir.constant(-9223371899415756800 : i64) : i64
// CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $32, 0;\0A\09wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e5m2 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}, $33, $34, p, 1, 1;\0A\09}", "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,r,l,l"
// CHECK: llvm.mlir.constant(-9223371899415756798 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e5m2
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @fp8_f16_acc(%f: f16) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf8E4M3FN, #a, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf8E5M2, #bt, mutable>
    %c = tile.splat %f : f16 -> tensor<64x64xf16, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xf8E4M3FN, #a, mutable> * !tilegpu.memdesc<64x64xf8E5M2, #bt, mutable> -> tensor<64x64xf16, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 1 : i32} : tensor<64x64xf16, #w>
    tile.return
  }
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
#bt = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
// int8: signed s8 operands into s32, a register per accumulator element
// (no packing) and no immediates after scale-d (integer wgmma has no
// scale-a/b or transposes).
// CHECK-LABEL: llvm.func @int8
// CHECK-NOT: vector<2x
// CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $64, 0;\0A\09wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, $65, $66, p;\0A\09}", "=r,{{.*}},r,l,l" {{.*}} -> !llvm.struct<(i32
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, p;
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @int8(%i: i32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #a, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xi8, #bt, mutable>
    %c = tile.splat %i : i32 -> tensor<64x64xi32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : !tilegpu.memdesc<64x64xi8, #a, mutable> * !tilegpu.memdesc<64x64xi8, #bt, mutable> -> tensor<64x64xi32, #w>
    tile.return
  }
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32>
#bt = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = true, elementBitWidth = 32>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 8]>
// tf32: f32 operands with inputPrecision = tf32, K = 8 per instruction
// (32 bytes, +2 per step).
// CHECK-LABEL: llvm.func @tf32
// CHECK: llvm.mlir.constant(4611686293305360384 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
// CHECK: llvm.mlir.constant(4611686293305360386 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK: llvm.mlir.constant(4611686293305360388 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK: llvm.mlir.constant(4611686293305360390 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// CHECK-NOT: wgmma.mma_async
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @tf32(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf32, #a, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf32, #bt, mutable>
    %c = tile.splat %f : f32 -> tensor<64x64xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c inputPrecision = tf32 : !tilegpu.memdesc<64x32xf32, #a, mutable> * !tilegpu.memdesc<32x64xf32, #bt, mutable> -> tensor<64x64xf32, #w>
    tile.return
  }
}

// -----

#bn = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#opA = #tilegpu.dot_op<opIdx = 0, parent = #w, kWidth = 2>
// RS form: A from registers, four f16 pairs per K step (a0..a3 in the
// fragment order), no trans-a immediate; B N-major (trans-b 1).  Both K
// steps' pairs are packed before the fence (PTX: registers a wgmma reads
// are written before its wgmma.fence; ptxas injects a warpgroup.arrive per
// product otherwise).  The wait ties the 32 f32 accumulators and the 16
// f16 operand elements (8 pairs).
// CHECK-LABEL: llvm.func @rs_f16
// CHECK-COUNT-8: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK-NOT: llvm.bitcast
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NOT: llvm.bitcast
// CHECK: llvm.mlir.constant(4611686293322072064 : i64) : i64
// CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p;\0A\09setp.ne.b32 p, $64, 0;\0A\09wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, {$65, $66, $67, $68}, $69, p, 1, 1, 1;\0A\09}", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,r,r,r,r,r,l"
// CHECK-NOT: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: llvm.mlir.constant(4611686293322072192 : i64) : i64
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39"
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @rs_f16(%f: f32, %h: f16) {
    %a = tile.splat %h : f16 -> tensor<64x32xf16, #opA>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #bn, mutable>
    %c = tile.splat %f : f32 -> tensor<64x64xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c : tensor<64x32xf16, #opA> * !tilegpu.memdesc<32x64xf16, #bn, mutable> -> tensor<64x64xf32, #w>
    %r:2 = tilegpu.warp_group_dot_wait %d, %a {pendings = 0 : i32} : tensor<64x64xf32, #w>, tensor<64x32xf16, #opA>
    tile.return
  }
}

// -----

// A wait with nothing to tie is NVVM's typed op, not inline asm (the same
// `wgmma.wait_group.sync.aligned 1;` in PTX).  The explicit target is the
// one the lowering assumes without the attribute.
// CHECK-LABEL: llvm.func @wait_on_nothing
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT: llvm.return
module attributes {"tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90"} {
  tile.func public @wait_on_nothing() {
    "tilegpu.warp_group_dot_wait"() {pendings = 1 : i32} : () -> ()
    tile.return
  }
}

// -----

#a = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
#bt = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
// max_num_imprecise_acc = 32 on K = 64 (two k32 instructions): each
// instruction sums from zero into a partial accumulator, which is waited
// for and added (contractible f32 adds, one per element) to the f32
// accumulator, and wgmma is fenced again before the next instruction.
// CHECK-LABEL: llvm.func @fp8_partial_accumulation
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-SAME: %[[ZERO]], %[[ZERO]]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-32: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK-COUNT-32: llvm.fadd %{{.*}}, %{{.*}} {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NOT: wgmma.mma_async
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @fp8_partial_accumulation(%f: f32) {
    %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf8E4M3FN, #a, mutable>
    %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x64xf8E4M3FN, #bt, mutable>
    %c = tile.splat %f : f32 -> tensor<64x64xf32, #w>
    %d = tilegpu.warp_group_dot %a, %b, %c maxNumImpreciseAcc = 32 : !tilegpu.memdesc<64x64xf8E4M3FN, #a, mutable> * !tilegpu.memdesc<64x64xf8E4M3FN, #bt, mutable> -> tensor<64x64xf32, #w>
    %r = tilegpu.warp_group_dot_wait %d {pendings = 0 : i32} : tensor<64x64xf32, #w>
    tile.return
  }
}

// -----

#w = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#s = #tilegpu.slice<dim = 1, parent = #w>
// schedule_after: the thread's elements (two rows of the slice, f32 bits)
// xor-ed into one register, which a branch around a membar.cta tests.
// CHECK-LABEL: llvm.func @schedule_after
// CHECK-COUNT-2: llvm.bitcast %{{.*}} : f32 to i32
// CHECK: llvm.xor
// CHECK: llvm.inline_asm has_side_effects "{\0A\09.reg .pred p;\0A\09setp.eq.b32 p, $0, -1;\0A\09@p bra SCHEDULE_RARE;\0A\09bra.uni SCHEDULE_DONE;\0A\09SCHEDULE_RARE:\0A\09membar.cta;\0A\09SCHEDULE_DONE:\0A\09}", "r"
module attributes {"tilegpu.num-warps" = 4 : i32} {
  tile.func public @schedule_after(%f: f32) {
    %m = tile.splat %f : f32 -> tensor<64xf32, #s>
    tilegpu.schedule_after %m : tensor<64xf32, #s>
    tile.return
  }
}
