#!/usr/bin/env bash
# Packs what the GPU machine needs and cannot build (it has no LLVM/MLIR)
# into .device/core.tar.xz (git-ignored): the stripped core library,
# warpforge-opt, and FileCheck with the Z3 library Debian's FileCheck links.
# Carry it with `carry: [".device"]`; on the device, scripts/device_run.sh
# unpacks it, builds the thin binding for the device's Python and runs the
# GPU tests and benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${WARPFORGE_BUILD_DIR:-build}
scripts/build.sh
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
strip -o "$stage/lib/libwarpforge.so" "$BUILD/lib/libwarpforge.so"
strip -o "$stage/bin/warpforge-opt" "$BUILD/bin/warpforge-opt"
cp "$(llvm-config-22 --bindir)/FileCheck" "$stage/bin/"
strip -o "$stage/lib/libz3.so.4" \
  "$(ldd "$(llvm-config-22 --bindir)/FileCheck" | awk '/libz3/ {print $3}')"
rm -rf .device && mkdir -p .device
tar -C "$stage" -cf - bin lib | xz -T2 -6 > .device/core.tar.xz
# The commit benchmarks record (a dirty tree says so).
echo "$(git rev-parse HEAD)$(git diff --quiet HEAD || echo -dirty)" > .device/commit
ls -l .device/core.tar.xz | awk '{printf "packed .device/core.tar.xz: %.1f MB\n", $5 / 1e6}'
