// RUN: warpforge-opt --emit=ptx %s | FileCheck %s
// RUN: not warpforge-opt --emit=ptx --compute-capability=80 %s 2>&1 | FileCheck %s --check-prefix=SM80

// Hopper's architecture-specific instructions (sm_90a): an mbarrier in
// shared memory, the wgmma fences and setmaxnreg.  Compiled for sm_80, the
// same kernel fails with LLVM's own message, and warpforge-opt exits 1.

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry hopper(
// CHECK: .reqntid 128, 1, 1
// CHECK: .shared .align 8 .u64 barrier;
// CHECK: mbarrier.init.shared.b64 [barrier], %r{{[0-9]+}};
// CHECK-NEXT: fence.mbarrier_init.release.cluster;
// CHECK-NEXT: wgmma.fence.sync.aligned;
// CHECK-NEXT: wgmma.commit_group.sync.aligned;
// CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// CHECK-NEXT: setmaxnreg.inc.sync.aligned.u32 240;

// SM80: sm90a.mlir:[[@LINE+2]]:1: error: LLVM's NVPTX backend failed: Cannot select: intrinsic %llvm.nvvm.
// SM80-NOT: LLVM ERROR
module {
  llvm.mlir.global internal @barrier() {addr_space = 3 : i32, alignment = 8 : i64} : i64
  llvm.func @hopper() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
    %bar = llvm.mlir.addressof @barrier : !llvm.ptr<3>
    %count = llvm.mlir.constant(128 : i32) : i32
    nvvm.mbarrier.init %bar, %count : !llvm.ptr<3>, i32
    nvvm.fence.mbarrier.init
    nvvm.wgmma.fence.aligned
    nvvm.wgmma.commit.group.sync.aligned
    nvvm.wgmma.wait.group.sync.aligned 0
    nvvm.setmaxregister increase 240
    llvm.return
  }
}
