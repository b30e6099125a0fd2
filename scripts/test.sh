#!/usr/bin/env bash
# Every test: the lit suite (FileCheck, verifier diagnostics, the directive
# lint and the fuzz smoke test) and pytest.  Installs and builds first, so it
# works on a fresh machine; on a built tree that step takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
export WARPFORGE_BUILD_DIR=${WARPFORGE_BUILD_DIR:-$PWD/build}
PYTHON=${PYTHON:-python3}

echo "== lit"
"$(llvm-config-22 --bindir)/lit" -v test/
echo "== pytest"
"$PYTHON" -m pytest -v python/test
