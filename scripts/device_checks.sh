#!/usr/bin/env bash
# On the device, after scripts/device_setup.sh: compute-sanitizer memcheck
# and racecheck over a representative set of the GPU tests (vector add,
# element-wise math, histogram, cross-warp reductions, scans, softmax,
# layer norm, tl.dot on wgmma, coalesced transposed and fp8 operands,
# int8 with B in either order; TMA copies and the tutorial-09 TMA matmuls
# with mbarrier rings, also under synccheck),
# logs in $OUT.  `scripts/device_checks.sh tma` runs the TMA group only,
# `scripts/device_checks.sh ws` the warp-specialized kernels (also under
# synccheck), `scripts/device_checks.sh attention` the attention kernels,
# `scripts/device_checks.sh mma` the mma.sync products,
# `scripts/device_checks.sh clusters` the num_ctas=2 kernels (multicast),
# `scripts/device_checks.sh attention-persistent` the persistent
# warp-specialized attention, `scripts/device_checks.sh attention-four` the
# one with four consumer warpgroups, `scripts/device_checks.sh
# attention-clusters` the persistent one on clusters of two,
# `scripts/device_checks.sh attention-three` the three-consumer-warpgroup
# kernels (experimental: 12 warps, 192-row tiles), `scripts/device_checks.sh
# attention-npot` the 80- and 176-column K/V blocks (experimental),
# `scripts/device_checks.sh attention-ws`
# racecheck's reports on the
# warp-specialized attention at one and eight CTAs, beside the hand-written
# turn kernel.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_env.sh
OUT=${OUT:-$PWD/.device/out}
mkdir -p "$OUT"
status=0
run() {
  local tool=$1 name=$2; shift 2
  local log="$OUT/sanitizer-$tool-$name.log"
  compute-sanitizer --tool "$tool" --error-exitcode 9 python3 -m pytest -q -x "$@" \
    > "$log" 2>&1
  local rc=$?
  echo "compute-sanitizer $tool: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' "$log" | tr '\n' ' ')"
  [ $rc = 0 ] || status=1
}
# memcheck, racecheck and synccheck over one selection of one test file.
all_three() {
  local name=$1 file=$2 sel=$3
  run memcheck "$name" "$file" -k "$sel"
  run racecheck "$name" "$file" -k "$sel"
  run synccheck "$name" "$file" -k "$sel"
}
only=${1:-all}
tma() {
  # TMA: 1- to 3-D copies with partial boxes (loads through one mbarrier,
  # stores through bulk groups), and the tutorial-09 matmuls: mbarrier
  # rings in the software pipeline, host and device descriptors, the
  # persistent kernel's epilogue buffer reused across tiles.
  local sel="test_copy_1d or test_copy_3d or (test_copy_2d and float16) or test_device_descriptor_copy or (test_tutorial_matmul and 77x300x136 and (fp16 or fp8))"
  all_three tma python/test/test_gpu_tma.py "$sel"
}
ws() {
  # Warp specialization: a producer warpgroup and one or two consumer
  # groups joined by full/empty mbarrier rings of 2 to 4 slots, named
  # barriers per partition, setmaxnreg; partial tiles, K loops of 1 and 3;
  # cp.async producers (pointer loads, masked, persistent) arriving on the
  # full barriers as their copies land; tensor maps of pointer blocks the
  # launcher encodes (seed 000) and ones a producer makes on the device
  # (batched seed 000, device descriptors); ping-pong (two consumer groups
  # taking turns on named barriers, each storing its own tiles) at one odd
  # shape and on programs without tiles.
  local sel="((test_tutorial_tma_matmul_warp_specialized or test_tutorial_persistent_matmul_warp_specialized) and (77x300x136 or 257x129x64) and fp16) or ((test_masked_pointer_matmul_warp_specialized or test_persistent_pointer_matmul_warp_specialized) and (77x272x64 or 257x144x208) and fp16) or (test_seed000_kernel_warp_specialized and fp16 and 3x3tiles) or (test_batched_seed000_maps_made_on_the_device and fp16) or (test_tutorial_descriptor_persistent_warp_specialized and 77x304x144 and fp16) or (test_tutorial_persistent_matmul_ping_pong and 257x129x64 and fp16) or (test_persistent_programs_without_tiles and pp)"
  all_three ws python/test/test_gpu_warp_specialize.py "$sel"
}
attention() {
  # Attention: the softmax in the accumulator's registers (row reductions
  # across the four lanes of a row, conversions between slices of two
  # wgmma layouts), P read from registers by the second product, K/V
  # rings on mbarriers, a shared Q buffer, masked last blocks and a
  # masked pointer store for an odd length; tutorial 06's backward.
  # Warp-specialized: a TMA producer warpgroup filling K/V slots, two
  # consumer warpgroups taking turns at the products (named barriers),
  # slots released after the products that read them.
  # D128's backward: its dq loop's cp.async ring reuses a layout
  # exchange's scratch bytes (a barrier between them since 2026-11-27).
  local sel="(test_forward_each_config and 128x64) or (test_tutorial06 and (128-64 or 128-128)) or (test_forward_warp_specialized and 128-1531-8)"
  all_three attention python/test/test_gpu_attention.py "$sel"
}
attention_persistent() {
  # The persistent warp-specialized attention: one CTA walking 18 tiles of
  # six heads (the turns and the slots' count going on from tile to tile,
  # the consumers' own Q and last V loads, the TMA store's buffer reused
  # per tile) under all three tools; five CTAs under memcheck and synccheck
  # (racecheck's reports with more than one CTA are the tool's: see
  # attention-ws).
  local one="test_forward_persistent_warp_specialized and 384 and float16 and 1programs"
  local five="test_forward_persistent_warp_specialized and 384 and float16 and 5programs"
  all_three attention-persistent python/test/test_gpu_attention.py "$one"
  run memcheck attention-persistent-5 python/test/test_gpu_attention.py -k "$five"
  run synccheck attention-persistent-5 python/test/test_gpu_attention.py -k "$five"
}
attention_four() {
  # Four consumer warpgroups (16 warps, 256x64 blocks at D 64) and the
  # producer: 640 threads, setmaxnreg 112/32 out of the 96 each starts
  # with; turns round four named barriers. memcheck and synccheck, causal
  # and not (racecheck's reports with more than one CTA are the tool's:
  # see attention-ws).
  local sel="test_forward_four_consumer_warpgroups and 1000 and overlapped"
  run memcheck attention-four python/test/test_gpu_attention.py -k "$sel"
  run synccheck attention-four python/test/test_gpu_attention.py -k "$sel"
  # Persistent (256-row tiles, Q prefetched by the tile before), 5 CTAs.
  local persistent="test_forward_persistent_four_consumer_warpgroups and 512 and float16 and 5programs"
  run memcheck attention-four-persistent python/test/test_gpu_attention.py -k "$persistent"
  run synccheck attention-four-persistent python/test/test_gpu_attention.py -k "$persistent"
  # racecheck on one CTA (S 250: one 256-row block), beside the
  # hand-written kernel with the same barriers (turns4.ptx: four
  # warpgroups' turns on barriers 3-6, an exchange across bar.sync 1, 512).
  # On the H100 (2026-11-27) both report hazards at their exchanges (the
  # attention 2, turns4 4, and 3 with only the prime and the drain) while
  # computing the right values, and turns4 without turns reports none: with
  # four warpgroups the tool loses the bar.arrive on one CTA already, as it
  # does for two on more than one CTA (attention-ws). So the reports are
  # printed, not counted as failures.
  compute-sanitizer --tool racecheck python3 bench/tools/racecheck_turns/attention_ctas.py \
    250 64 256 16 64 > "$OUT/sanitizer-racecheck-attention-four.log" 2>&1
  echo "racecheck attention-four (one CTA): $(grep -E 'RACECHECK SUMMARY|err ' \
    "$OUT/sanitizer-racecheck-attention-four.log" | tr '\n' ' ')"
  local mode
  for mode in 0 1; do
    GRID=1 WARPGROUPS=4 compute-sanitizer --tool racecheck python3 \
      bench/tools/racecheck_turns/turns.py $mode 3 > "$OUT/sanitizer-racecheck-turns4-$mode.log" 2>&1
    echo "racecheck turns4 mode $mode (one CTA): $(grep -E 'RACECHECK SUMMARY|correct' \
      "$OUT/sanitizer-racecheck-turns4-$mode.log" | tr '\n' ' ')"
  done
}
attention_clusters() {
  # The persistent attention on clusters of two (K multicast into both
  # CTAs' slots): one cluster walking 2x3 heads' tiles, memcheck and
  # synccheck (racecheck's reports with more than one CTA are the tool's).
  local sel="test_forward_persistent_on_clusters and 128-512-float16-full-1programs"
  run memcheck attention-clusters python/test/test_gpu_attention.py -k "$sel"
  run synccheck attention-clusters python/test/test_gpu_attention.py -k "$sel"
}
mma() {
  # mma.sync: operands through swizzled shared buffers read by ldmatrix,
  # cp.async rings in the K loop, partial tiles; batched products (each
  # operand staged whole, one buffer per batch, results written back per
  # batch and read whole); fp8 read on an sm80 target (emulated widening).
  local sel="(test_mma_matmul and (37x29x41 or 257x263x300) and (fp16-32-32-32-4 or int8-32-32-32-1 or tf32-16-32-8-1)) or (test_batched_mma_matmul and 3x37x29x41) or test_fp8_matmul_on_sm80"
  all_three mma python/test/test_gpu_mma_dot.py "$sel"
}
clusters() {
  # Clusters (num_ctas=2): each CTA's half of a program's tile; with warp
  # specialization B multicast by both CTAs' producers, empty barriers
  # released across the cluster (mapa + remote arrive), cluster barriers
  # after the barriers' initialization and before the CTAs exit.
  local sel="(test_tutorial_matmul_on_clusters and 77x300x136 and fp16) or (test_warp_specialized_matmul_on_clusters and 77x300x136) or test_program_ids_are_the_clusters"
  all_three clusters python/test/test_gpu_clusters.py "$sel"
}
attention_ws() {
  # racecheck's reports on the warp-specialized attention (README,
  # "Attention"): the kernel over one CTA (clean) and eight (hazards at the
  # exchanges after the loop), beside the hand-written turn kernel
  # (bench/tools/racecheck_turns), which shows the same: clean with one
  # CTA, hazards with eight once a bar.arrive is in it.
  local args
  for args in "120 64" "1000 64"; do
    compute-sanitizer --tool racecheck python3 bench/tools/racecheck_turns/attention_ctas.py $args \
      > "$OUT/sanitizer-racecheck-attention-ctas-${args// /-}.log" 2>&1
    echo "racecheck attention_ctas.py $args: $(grep -E 'RACECHECK SUMMARY|err ' \
      "$OUT/sanitizer-racecheck-attention-ctas-${args// /-}.log" | tr '\n' ' ')"
  done
  for args in "1 0 3" "1 1 3" "8 0 3" "8 1 3"; do
    set -- $args
    GRID=$1 compute-sanitizer --tool racecheck python3 bench/tools/racecheck_turns/turns.py $2 $3 \
      > "$OUT/sanitizer-racecheck-turns-${args// /-}.log" 2>&1
    echo "racecheck GRID=$1 turns.py $2 $3: $(grep -E 'RACECHECK SUMMARY|correct' \
      "$OUT/sanitizer-racecheck-turns-${args// /-}.log" | tr '\n' ' ')"
  done
}
# memcheck and synccheck over the attention GPU tests selected by `sel`,
# racecheck on one CTA of attention_ctas.py with the arguments after them.
attention_checks() {
  local name=$1 sel=$2
  shift 2
  run memcheck "$name" python/test/test_gpu_attention.py -k "$sel"
  run synccheck "$name" python/test/test_gpu_attention.py -k "$sel"
  compute-sanitizer --tool racecheck python3 bench/tools/racecheck_turns/attention_ctas.py "$@" \
    > "$OUT/sanitizer-racecheck-$name.log" 2>&1
  echo "racecheck $name (one CTA): $(grep -E 'RACECHECK SUMMARY|err ' \
    "$OUT/sanitizer-racecheck-$name.log" | tr '\n' ' ')"
}
# Three consumer warpgroups (experimental, 12 warps): memcheck and
# synccheck over the GPU tests (D64 192x128 and D128 192x64, persistent and
# not, S 1152), racecheck on one CTA (S 192, D 64).
attention_three() {
  attention_checks attention-three "test_forward_three_consumer_warpgroups and 1152" \
    192 128 192 4 64 3
  # Beside it the hand-written kernel with the same barriers (turns3.ptx:
  # three warpgroups' turns on barriers 3-5, an exchange across
  # bar.sync 1, 384), without turns, with them, and with only the prime and
  # the drain: if it reports hazards with turns and computes right, the
  # tool loses the bar.arrive (as with four warpgroups), and the kernel's
  # report is printed, not counted. H200, 2026-11-28: the kernel 1 hazard
  # (a read against two writes, 128 threads each, near its end: the
  # epilogue's exchange), turns3 0 without turns, 4 with them, 4 with the
  # prime and the drain only, the exchange right every time.
  local args
  for args in "0 3" "1 3" "1 0"; do
    GRID=1 WARPGROUPS=3 compute-sanitizer --tool racecheck python3 \
      bench/tools/racecheck_turns/turns.py $args > "$OUT/sanitizer-racecheck-turns3-${args// /-}.log" 2>&1
    echo "racecheck turns3 mode/iters $args (one CTA): $(grep -E 'RACECHECK SUMMARY|correct' \
      "$OUT/sanitizer-racecheck-turns3-${args// /-}.log" | tr '\n' ' ')"
  done
}
# K/V blocks of 80 (D 256) and 176 (D 128) columns (experimental):
# memcheck and synccheck over their GPU tests (fp16; S a multiple of the
# block and not), racecheck on one CTA (S 128: one 80-column block and a
# masked one).
attention_npot() {
  attention_checks attention-npot "test_forward_npot_kv_columns and float16" 128 80 128 8 256
}
# One group (its function's name, dashes for underscores), or all below.
case "$only" in
  attention-npot|attention-three|attention-four|attention-clusters|attention-persistent|attention-ws|clusters|mma|attention|tma|ws)
    "${only//-/_}"
    exit $status ;;
esac
run memcheck kernels python/test/test_gpu_kernels.py -k "vector_add and (97 or 98433) or math or histogram"
run memcheck reductions python/test/test_gpu_reductions.py -k "37-50 and 4] or softmax or layer_norm or cumsum"
run racecheck reductions python/test/test_gpu_reductions.py -k "37-50 and 4] or softmax or cumsum"
# tl.dot: wgmma from cp.async rings, one and two warpgroups, 2 to 5 stages,
# partial tiles in M, N and K.
run memcheck matmul python/test/test_gpu_matmul.py -k "test_fewer_k_steps_than_stages or (test_block_configs and (128x128x64 or 128x256x64))"
run racecheck matmul python/test/test_gpu_matmul.py -k "test_fewer_k_steps_than_stages or (test_block_configs and (128x128x64 or 128x256x64))"
# Loads coalesced along another dimension (tilegpu-coalesce): transposed
# fp16 operands, fp8 with B K-major.
run memcheck matmul-coalesced python/test/test_gpu_matmul.py -k "(test_transposed_operands and fp16) or (test_fp8_configs and e4m3)"
run racecheck matmul-coalesced python/test/test_gpu_matmul.py -k "(test_transposed_operands and fp16) or (test_fp8_configs and e4m3)"
# int8: B N-major (transposed into K-major shared memory through registers)
# and K-major (cp.async), partial tiles, 2 to 5 stages.
run memcheck matmul-int8 python/test/test_gpu_matmul.py -k "test_int8_configs"
run racecheck matmul-int8 python/test/test_gpu_matmul.py -k "test_int8_configs"
tma
ws
attention
mma
clusters
exit $status
