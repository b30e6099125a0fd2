#!/usr/bin/env bash
# The whole GPU check, run on the device machine in one call:
#   scripts/device_run.sh [tests|bench|all] [extra pytest args...]
#   scripts/device_run.sh tests-matmul [extra pytest args...]
#   scripts/device_run.sh bench-matmul [bench/matmul.py args...]
#   scripts/device_run.sh matmul [bench/matmul.py args...]
#   scripts/device_run.sh bench-launch [bench/launch_overhead_gpu.py args...]
# Builds the binding (scripts/device_setup.sh), then: `tests` runs the pytest
# suite with the GPU tests enabled; `bench` the memory-bound benchmark;
# `all` both. `tests-matmul` runs the tl.dot GPU tests and the matmul
# benchmark's tests, `bench-matmul` the matmul benchmark (warpforge, Triton
# and cuBLAS; e.g. --quick, --dtypes fp16, --shapes 4096x4096x4096), and
# `matmul` one then the other (its arguments go to the benchmark);
# `bench-launch` the warm launch overhead (warpforge, Triton, torch). Logs, JSON and Markdown go to $OUT (the
# device tool brings them back); the memory-bound JSON also to bench/results/.
# The matmul steps are each cut at MATMUL_TIMEOUT seconds (default 480), so
# that a hung kernel still leaves the logs and the cases done so far.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
shift || true
case "$what" in
  tests|bench|all|tests-matmul|bench-matmul|matmul|bench-launch) ;;
  *) echo "usage: $0 [tests|bench|all|tests-matmul|bench-matmul|matmul|bench-launch] [args...]" >&2
     exit 2 ;;
esac
OUT=${OUT:-$PWD/.device/out}
MATMUL_TIMEOUT=${MATMUL_TIMEOUT:-480}
mkdir -p "$OUT"
start=$(date +%s)
scripts/device_setup.sh
source scripts/device_env.sh
echo "binding built in $(( $(date +%s) - start )) s"
status=0
if [ "$what" = tests ] || [ "$what" = all ]; then
  python3 -m pytest -q -rs python/test "$@" 2>&1 | tee "$OUT/pytest.log" | tail -40 || status=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  for b in bench/memory_bound.py; do
    [ -f "$b" ] || continue
    python3 "$b" 2>&1 | tee "$OUT/$(basename "$b" .py).log" | tail -40 || status=1
  done
  cp bench/results/*.json "$OUT/" 2>/dev/null || true
fi
if [ "$what" = tests-matmul ] || [ "$what" = matmul ]; then
  pytest_args=()
  [ "$what" = tests-matmul ] && pytest_args=("$@")
  timeout "$MATMUL_TIMEOUT" python3 -m pytest -q -rs python/test/test_gpu_matmul.py \
    python/test/test_bench_matmul.py ${pytest_args[@]+"${pytest_args[@]}"} 2>&1 \
    | tee "$OUT/pytest-matmul.log" | tail -60 || status=1
fi
if [ "$what" = bench-matmul ] || [ "$what" = matmul ]; then
  timeout "$MATMUL_TIMEOUT" python3 bench/matmul.py --results-dir "$OUT" "$@" 2>&1 \
    | tee "$OUT/matmul.log" | tail -60 || status=1
fi
if [ "$what" = bench-launch ]; then
  timeout "$MATMUL_TIMEOUT" python3 bench/launch_overhead_gpu.py --results-dir "$OUT" "$@" 2>&1 \
    | tee "$OUT/launch.log" | tail -30 || status=1
fi
exit $status
