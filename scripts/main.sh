#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install the dependencies,
# build, and compile the example kernel's tile IR with the JIT's pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
BUILD=${WARPFORGE_BUILD_DIR:-build}

echo "== examples/vector_add.mlir through warpforge-opt --tile-optimize"
"$BUILD/bin/warpforge-opt" --tile-optimize examples/vector_add.mlir
echo "== the same pipeline from Python (warpforge.ir), with the source locations"
"${PYTHON:-python3}" - <<'PY'
from warpforge import ir
with open("examples/vector_add.mlir") as f:
    print(ir.run_pipeline(f.read(), "tile-optimize", "vector_add.mlir", debug_info=True))
PY
