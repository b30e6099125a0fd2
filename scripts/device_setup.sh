#!/usr/bin/env bash
# On the GPU machine: builds warpforge._C (every python/src/*.cpp) for its
# Python against the carried core (scripts/device_pack.sh), in seconds: the
# binding includes only include/warpforge/API/API.h. Then: export PYTHONPATH=$PWD/python.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
cp .device/lib/libwarpforge.so python/warpforge/
suffix=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
g++ -O2 -std=c++17 -shared -fPIC $("$PYTHON" -m pybind11 --includes) -Iinclude \
  python/src/*.cpp -Lpython/warpforge -lwarpforge -Wl,-rpath,'$ORIGIN' \
  -o "python/warpforge/_C$suffix"
"$PYTHON" -c 'import sys; sys.path.insert(0, "python"); from warpforge import ir; print(ir.core_version())'
