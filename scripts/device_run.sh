#!/usr/bin/env bash
# The whole GPU check, run on the device machine in one call:
#   scripts/device_run.sh [tests|bench|all] [extra pytest args...]
# Builds the binding (scripts/device_setup.sh), runs the pytest suite with
# the GPU tests enabled, then the benchmarks; logs and JSON go to $OUT
# (the device tool brings them back) and bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
shift || true
OUT=${OUT:-$PWD/.device/out}
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
exit $status
