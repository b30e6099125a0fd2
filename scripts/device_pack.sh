#!/usr/bin/env bash
# Packs what the GPU machine needs and cannot build (it has no LLVM/MLIR):
# the stripped core library and warpforge-opt, into .device/ (git-ignored),
# to be carried to the device (carry: [".device"]). There,
# scripts/device_setup.sh builds the thin binding for its Python.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${WARPFORGE_BUILD_DIR:-build}
scripts/build.sh
rm -rf .device && mkdir -p .device/bin .device/lib
strip -o .device/lib/libwarpforge.so "$BUILD/lib/libwarpforge.so"
strip -o .device/bin/warpforge-opt "$BUILD/bin/warpforge-opt"
# FileCheck for the pytest expectations (the device has no LLVM tools).
cp "$(llvm-config-22 --bindir)/FileCheck" .device/bin/
du -sh .device
