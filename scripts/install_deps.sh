#!/usr/bin/env bash
# Installs everything warpforge needs to build and test on Debian 12.
# Idempotent: installs only what is missing, so re-running costs seconds.
set -euo pipefail

APT_PACKAGES=(
  cmake ninja-build g++ git binutils
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  # LLVM's CMake config looks these up.
  libzstd-dev zlib1g-dev libedit-dev libxml2-dev libcurl4-openssl-dev libffi-dev
)
PYTHON=${PYTHON:-python3}
PIP_PACKAGES=("setuptools>=64" wheel "pybind11>=2.10" "lit>=18" pytest numpy)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

# Python headers for the binding, from Debian if this Python lacks them.
if ! "$PYTHON" -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
  APT_PACKAGES+=(python3-dev)
fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== apt: installing ${missing[*]}"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! "$PYTHON" - "${PIP_PACKAGES[@]}" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
import re
for spec in sys.argv[1:]:
    name = re.split(r"[<>=]", spec)[0]
    try:
        version(name)
    except PackageNotFoundError:
        sys.exit(1)
PY
then
  echo "== pip: installing ${PIP_PACKAGES[*]}"
  "$PYTHON" -m pip install -q --disable-pip-version-check "${PIP_PACKAGES[@]}"
fi
