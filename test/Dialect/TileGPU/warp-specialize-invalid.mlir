// RUN: warpforge-opt %s --split-input-file --verify-diagnostics

tile.func public @partition_uses_outer_value(%n: i32) {
  // expected-note @+1 {{required by region isolation constraints}}
  tilegpu.warp_specialize()
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(4) {
    // expected-error @+1 {{using value defined outside the region}}
    %x = arith.addi %n, %n : i32
    tilegpu.warp_return
  }
  tile.return
}

// -----

tile.func public @no_partition() {
  // expected-error @+1 {{needs at least one partition}}
  tilegpu.warp_specialize()
  default() {
    tilegpu.warp_yield
  }
  tile.return
}

// -----

tile.func public @registers_for_part_of_a_warpgroup() {
  // expected-error @+1 {{setmaxnreg needs whole warpgroups: a partition of 2 warps cannot request registers}}
  tilegpu.warp_specialize() attributes {requestedRegisters = array<i32: 40>, defaultRegisters = 232 : i32}
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(2) {
    tilegpu.warp_return
  }
  tile.return
}

// -----

tile.func public @bad_register_count() {
  // expected-error @+1 {{register counts must be multiples of 8 from 24 to 256, got 20}}
  tilegpu.warp_specialize() attributes {requestedRegisters = array<i32: 20>, defaultRegisters = 232 : i32}
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(4) {
    tilegpu.warp_return
  }
  tile.return
}

// -----

tile.func public @partition_registers_alone() {
  // expected-error @+1 {{requests partition registers without defaultRegisters}}
  tilegpu.warp_specialize() attributes {requestedRegisters = array<i32: 40>}
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(4) {
    tilegpu.warp_return
  }
  tile.return
}

// -----

tile.func public @zero_warps() {
  // expected-error @+1 {{a partition needs at least one warp, got 0}}
  tilegpu.warp_specialize()
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(0) {
    tilegpu.warp_return
  }
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @ring_buffers_differ() {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 2>
  // expected-error @+1 {{each ring must be mutable with the channel's 3 buffers}}
  %ch = tilegpu.create_channel %a : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 2> -> !tilegpu.channel<3>
  tile.return
}

// -----

// expected-error @+1 {{a channel needs at least one slot, got 0}}
tile.func public @empty_channel(%ch: !tilegpu.channel<0>) {
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @wait_gives_one_buffer_per_ring(%i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
  %b = tilegpu.local_alloc : () -> !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3>
  %ch = tilegpu.create_channel %a, %b : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>, !tilegpu.memdesc<256x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  // expected-error @+1 {{gives one buffer per ring of the channel (2), got 1}}
  %x = tilegpu.channel_wait %ch, %i : !tilegpu.channel<3> -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable>
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @tma_load_into_a_missing_ring(%d: !tile.tensordesc<tensor<128x64xf16>>, %i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
  %ch = tilegpu.create_channel %a : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  tilegpu.warp_specialize(%ch, %d, %i)
  default(%dch: !tilegpu.channel<3>, %dd: !tile.tensordesc<tensor<128x64xf16>>, %di: i32) {
    tilegpu.warp_yield
  }
  partition0(%pch: !tilegpu.channel<3>, %pd: !tile.tensordesc<tensor<128x64xf16>>, %pi: i32) num_warps(4) {
    // expected-error @+1 {{buffer 1 of a channel of 1 rings}}
    tilegpu.channel_tma_load %pch[%pi] %pd[%pi, %pi] -> 1 : !tilegpu.channel<3>, !tile.tensordesc<tensor<128x64xf16>>
    tilegpu.warp_return
  }
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
tile.func public @tma_load_block_does_not_fit_the_ring(%d: !tile.tensordesc<tensor<64x64xf16>>, %i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
  %ch = tilegpu.create_channel %a : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  // expected-error @+1 {{the buffer must hold one block of}}
  tilegpu.channel_tma_load %ch[%i] %d[%i, %i] -> 0 : !tilegpu.channel<3>, !tile.tensordesc<tensor<64x64xf16>>
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @async_copy_into_a_missing_ring(%p: tensor<128x64x!tile.ptr<f16>, #blocked>, %i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
  %ch = tilegpu.create_channel %a : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  // expected-error @+1 {{buffer 2 of a channel of 1 rings}}
  tilegpu.channel_async_copy %ch[%i] %p -> 2 : !tilegpu.channel<3>, tensor<128x64x!tile.ptr<f16>, #blocked>
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @async_copy_does_not_fit_the_ring(%p: tensor<64x64x!tile.ptr<f16>, #blocked>, %i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
  %ch = tilegpu.create_channel %a : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  // expected-error @+1 {{do not match the destination}}
  tilegpu.channel_async_copy %ch[%i] %p -> 0 : !tilegpu.channel<3>, tensor<64x64x!tile.ptr<f16>, #blocked>
  tile.return
}

// -----

#nvmma = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
#blocked = #tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
tile.func public @async_copy_fill_without_mask(%p: tensor<128x64x!tile.ptr<f16>, #blocked>, %o: tensor<128x64xf16, #blocked>, %i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3>
  %ch = tilegpu.create_channel %a : !tilegpu.memdesc<128x64xf16, #nvmma, mutable, buffers = 3> -> !tilegpu.channel<3>
  // expected-error @+1 {{'other' needs a mask}}
  tilegpu.channel_async_copy %ch[%i] %p other %o : tensor<128x64xf16, #blocked> -> 0 : !tilegpu.channel<3>, tensor<128x64x!tile.ptr<f16>, #blocked>
  tile.return
}

// -----

tile.func public @copy_arrival_on_a_non_barrier(%i: i32) {
  %a = tilegpu.local_alloc : () -> !tilegpu.memdesc<2xi32, #tilegpu.shared<order = [0]>, mutable>
  // expected-error @+1 {{}}
  tilegpu.async_copy_mbarrier_arrive %a : !tilegpu.memdesc<2xi32, #tilegpu.shared<order = [0]>, mutable>
  tile.return
}

// -----

tile.func public @named_barrier_zero() {
  // expected-error @+1 {{barrier id must be from 1 to 15 (0 is the CTA's tile.barrier), got 0}}
  tilegpu.named_barrier_wait 0, 128
  tile.return
}

// -----

tile.func public @named_barrier_sixteen() {
  // expected-error @+1 {{barrier id must be from 1 to 15 (0 is the CTA's tile.barrier), got 16}}
  tilegpu.named_barrier_arrive 16, 128
  tile.return
}

// -----

tile.func public @named_barrier_part_of_a_warp() {
  // expected-error @+1 {{thread count must be a positive multiple of 32 up to 1024, got 100}}
  tilegpu.named_barrier_wait 4, 100
  tile.return
}

// -----

tile.func public @named_barrier_too_many_threads() {
  // expected-error @+1 {{thread count must be a positive multiple of 32 up to 1024, got 2048}}
  tilegpu.named_barrier_arrive 4, 2048
  tile.return
}

// -----

tile.func public @named_barrier_of_a_region() {
  tilegpu.warp_specialize()
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(4) {
    // expected-error @+1 {{barrier id 2 is one of the enclosing tilegpu.warp_specialize regions' own barriers (0 to 2)}}
    tilegpu.named_barrier_arrive 2, 256
    tilegpu.warp_return
  }
  tile.return
}

// -----

tile.func public @warp_group_turns_of_one_group() {
  // expected-error @+1 {{turns need at least 2 warpgroups, got 1}}
  tilegpu.warp_group_turn_wait 4, 1
  tile.return
}

// -----

tile.func public @warp_group_turn_of_a_group_not_there() {
  // expected-error @+1 {{warpgroup 2 is not one of the 2}}
  tilegpu.warp_group_turn_pass 4, 2 only 2
  tile.return
}

// -----

tile.func public @warp_group_turns_past_the_last_barrier() {
  // expected-error @+1 {{barrier id must be from 1 to 15 (0 is the CTA's tile.barrier), got 16}}
  tilegpu.warp_group_turn_wait 14, 3
  tile.return
}

// -----

tile.func public @warp_group_turns_on_a_regions_own_barrier() {
  tilegpu.warp_specialize()
  default() {
    // expected-error @+1 {{barrier id 2 is one of the enclosing tilegpu.warp_specialize regions' own barriers (0 to 2)}}
    tilegpu.warp_group_turn_wait 2, 2
    tilegpu.warp_yield
  }
  partition0() num_warps(4) {
    tilegpu.warp_return
  }
  tile.return
}

// -----

// 16 consumer warps and a producer warpgroup: 640 threads start with 96
// registers each (61440), not the SM's 65536; asking for 120 and 32 (the
// 64K split) would leave setmaxnreg.inc waiting forever.
module attributes {"tilegpu.num-warps" = 16 : i32} {
tile.func public @registers_beyond_what_the_cta_starts_with() {
  // expected-error @+1 {{requests 65536 registers, more than the 61440 its 640 threads start with (96 each): setmaxnreg.inc would wait forever}}
  tilegpu.warp_specialize() attributes {requestedRegisters = array<i32: 32>, defaultRegisters = 120 : i32}
  default() {
    tilegpu.warp_yield
  }
  partition0() num_warps(4) {
    tilegpu.warp_return
  }
  tile.return
}
}
