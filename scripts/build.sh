#!/usr/bin/env bash
# Builds the C++ core, warpforge-opt and the Python module (CMake, driven by
# setup.py, in build/ or $WARPFORGE_BUILD_DIR) and installs the `warpforge`
# package in editable mode.  Incremental: a second run only rebuilds changes.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
"$PYTHON" -m pip install -q --disable-pip-version-check --no-build-isolation -e . \
  2> >(grep -v "Running pip as the 'root' user" >&2)
