#!/usr/bin/env bash
# Packs what the GPU machine needs and cannot build (it has no LLVM/MLIR):
# the stripped core library and warpforge-opt, into .device/ (git-ignored),
# to be carried to the device (carry: [".device"]). There,
# scripts/device_setup.sh builds the thin binding for its Python; then
#   export PYTHONPATH=$PWD/python PATH=$PWD/.device/bin:$PATH \
#          LD_LIBRARY_PATH=$PWD/.device/lib WARPFORGE_BUILD_DIR=$PWD/.device
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${WARPFORGE_BUILD_DIR:-build}
scripts/build.sh
rm -rf .device && mkdir -p .device/bin .device/lib
strip -o .device/lib/libwarpforge.so "$BUILD/lib/libwarpforge.so"
strip -o .device/bin/warpforge-opt "$BUILD/bin/warpforge-opt"
# FileCheck for the pytest expectations (the device has no LLVM tools), and
# the Z3 library Debian's FileCheck links: run with LD_LIBRARY_PATH=.device/lib.
cp "$(llvm-config-22 --bindir)/FileCheck" .device/bin/
strip -o .device/lib/libz3.so.4 "$(ldd "$(llvm-config-22 --bindir)/FileCheck" | awk '/libz3/ {print $3}')"
du -sh .device
