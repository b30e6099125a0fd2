#!/usr/bin/env bash
# On the GPU machine: unpacks the core carried in .device/core.tar.xz
# (scripts/device_pack.sh) and builds warpforge._C for this machine's Python
# against it, in seconds: the binding includes only include/warpforge/API/API.h,
# and the GPU runtime (third_party/nvidia/runtime) opens the CUDA driver with
# dlopen, so no MLIR and no CUDA headers are needed.
# Then: source scripts/device_env.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ -f .device/core.tar.xz ]; then
  xz -dc .device/core.tar.xz | tar -C .device -xf -
fi
cp .device/lib/libwarpforge.so python/warpforge/
suffix=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
g++ -O2 -std=c++17 -shared -fPIC $("$PYTHON" -m pybind11 --includes) -Iinclude \
  -Ithird_party python/src/*.cpp third_party/nvidia/runtime/*.cpp \
  -Lpython/warpforge -lwarpforge -ldl -Wl,-rpath,'$ORIGIN' \
  -o "python/warpforge/_C$suffix"
"$PYTHON" -c 'import sys; sys.path.insert(0, "python"); from warpforge import ir; print(ir.core_version())'
