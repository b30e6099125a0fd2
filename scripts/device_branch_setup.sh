#!/usr/bin/env bash
# On the device, after scripts/device_setup.sh (main's): unpacks the branch
# that scripts/device_pack_branch.sh packed into DIR (default
# /tmp/warpforge-branch), with main's FileCheck (no warpforge-opt: the
# tests that run it are for main), and builds its binding. Then:
#   (cd DIR && source scripts/device_env.sh && python3 -m pytest ...)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:-/tmp/warpforge-branch}
rm -rf "$DIR" && mkdir -p "$DIR/.device/bin" "$DIR/.device/lib"
xz -dc "$here/.device/branch/src.tar.xz" | tar -C "$DIR" -xf -
xz -dc "$here/.device/branch/core.tar.xz" | tar -C "$DIR/.device" -xf -
cp "$here/.device/bin/FileCheck" "$DIR/.device/bin/" 2>/dev/null || true
for f in "$here"/.device/lib/*; do
  [ "$(basename "$f")" = libwarpforge.so ] || cp "$f" "$DIR/.device/lib/"
done
cp "$here/.device/branch/commit" "$DIR/.device/commit"
# device_setup.sh unpacks .device/core.tar.xz when there is one: there is
# none here, the library is in place.
(cd "$DIR" && scripts/device_setup.sh)
echo "branch $(cat "$DIR/.device/commit") set up in $DIR"
