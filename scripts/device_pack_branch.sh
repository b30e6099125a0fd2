#!/usr/bin/env bash
# Packs a second build, of git revision REV (a branch), beside the one
# scripts/device_pack.sh packed, so that one device call can run main and
# the branch side by side (GPU tests, benchmark ratios from one machine):
#   scripts/device_pack.sh && scripts/device_pack_branch.sh REV
# writes .device/branch/: core.tar.xz (the stripped core library only:
# the branch gets main's FileCheck and no warpforge-opt, so the CPU tests
# that run warpforge-opt are for main), src.tar.xz (REV's python/, scripts/, bench/ and what the
# binding builds from) and commit. The checkout goes back to where it was
# and is rebuilt (incrementally: only what REV changes). On the device,
# scripts/device_branch_setup.sh unpacks it.
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:?usage: $0 REV}
BUILD=${WARPFORGE_BUILD_DIR:-build}
[ -f .device/core.tar.xz ] || { echo "run scripts/device_pack.sh first" >&2; exit 2; }
git diff --quiet HEAD || { echo "commit or stash first: the checkout moves" >&2; exit 2; }
back=$(git rev-parse --abbrev-ref HEAD)
[ "$back" = HEAD ] && back=$(git rev-parse HEAD)
git checkout -q "$REV"
trap 'git checkout -q "$back"; ninja -C "$BUILD" > /dev/null; scripts/build.sh > /dev/null' EXIT
ninja -C "$BUILD" > /dev/null
stage=$(mktemp -d)
mkdir -p "$stage/lib" .device/branch
strip -o "$stage/lib/libwarpforge.so" "$BUILD/lib/libwarpforge.so"
tar -C "$stage" -cf - lib | xz -T2 -6 > .device/branch/core.tar.xz
rm -rf "$stage"
git archive --format=tar HEAD python scripts bench include third_party/nvidia/runtime \
  | xz -T2 -3 > .device/branch/src.tar.xz
git rev-parse HEAD > .device/branch/commit
du -sh .device/branch | awk '{print "packed .device/branch: " $1}'
