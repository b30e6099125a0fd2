#!/usr/bin/env python3
"""Compiles atomic kernels on the CPU (every tl.atomic_* op, integer and
float types, the four memory orders, result used or not, masked or not,
compare-and-swap, a scalar atomic) and digests their SASS, to check that a
change in how atomics are written in PTX leaves the machine code alone:

    NVDISASM=/path/to/nvdisasm python3 scripts/sass_snapshot_atomics.py -v > before.txt
    ... change, rebuild ...
    NVDISASM=/path/to/nvdisasm python3 scripts/sass_snapshot_atomics.py -v > after.txt
    diff before.txt after.txt

nvdisasm comes with CUDA or in the PyPI wheel nvidia-cuda-nvdisasm (unzip
it). Needs no GPU. Used when atomics moved to Triton's `atom.global.gpu.
<sem>` spelling (2026-11-26): every kernel that compiled before has the
same SASS after, and an unused relaxed exchange (once a `red ... exch`,
which ptxas rejects) compiles.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import warpforge
import warpforge.language as tl

NVDISASM = os.environ.get("NVDISASM") or shutil.which("nvdisasm") or "nvdisasm"


@warpforge.jit
def rmw(Z, X, Old, OP: tl.constexpr, SEM: tl.constexpr, USE: tl.constexpr, MASKED: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    m = offs < 100 if MASKED else None
    if OP == "add":
        o = tl.atomic_add(Z + offs % 4, x, mask=m, sem=SEM)
    elif OP == "max":
        o = tl.atomic_max(Z + offs % 4, x, mask=m, sem=SEM)
    elif OP == "min":
        o = tl.atomic_min(Z + offs % 4, x, mask=m, sem=SEM)
    elif OP == "and":
        o = tl.atomic_and(Z + offs % 4, x, mask=m, sem=SEM)
    elif OP == "or":
        o = tl.atomic_or(Z + offs % 4, x, mask=m, sem=SEM)
    elif OP == "xor":
        o = tl.atomic_xor(Z + offs % 4, x, mask=m, sem=SEM)
    else:
        o = tl.atomic_xchg(Z + offs % 4, x, mask=m, sem=SEM)
    if USE:
        tl.store(Old + offs, o)

@warpforge.jit
def cas(Z, Old, SEM: tl.constexpr, USE: tl.constexpr):
    o = tl.atomic_cas(Z, 0, 1, sem=SEM)
    if USE:
        tl.store(Old, o)

@warpforge.jit
def scalar_add(Z, v, SEM: tl.constexpr):
    tl.atomic_add(Z, v, sem=SEM)

def sass(k):
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(k.asm["cubin"])
    out = subprocess.run([NVDISASM, "-c", f.name], capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    return "\n".join(l.split("/*")[1].split("*/", 1)[1].strip() if "/*" in l else l for l in out.splitlines() if "/*0" in l)

cases = []
dts = {"int32": np.int32, "uint32": np.uint32, "int64": np.int64, "float32": np.float32,
       "float64": np.float64, "float16": np.float16}
for op in ["add", "max", "min", "and", "or", "xor", "xchg"]:
    for dt in dts:
        if op in ("and", "or", "xor") and "float" in dt: continue
        if op in ("max", "min") and dt in ("float16",): continue
        for sem in ["relaxed", "acquire", "release", "acq_rel"]:
            for use in (False, True):
                for masked in (False, True):
                    cases.append(("rmw", op, dt, sem, use, masked))
for sem in ["relaxed", "acquire", "release", "acq_rel"]:
    for dt in ("int32", "int64"):
        for use in (False, True):
            cases.append(("cas", dt, sem, use))
    cases.append(("scalar", "float32", sem))
h = hashlib.sha256()
n = 0
for c in cases:
    try:
        if c[0] == "rmw":
            _, op, dt, sem, use, masked = c
            z = np.zeros(4, dts[dt]); x = np.zeros(128, dts[dt]); o = np.zeros(128, dts[dt])
            k = rmw.warmup(z, x, o, OP=op, SEM=sem, USE=use, MASKED=masked, BLOCK=128)
        elif c[0] == "cas":
            _, dt, sem, use = c
            z = np.zeros(1, dts[dt]); o = np.zeros(1, dts[dt])
            k = cas.warmup(z, o, SEM=sem, USE=use)
        else:
            k = scalar_add.warmup(np.zeros(1, np.float32), 1.5, SEM=c[2])
    except Exception as e:
        line = f"{c}: ERROR {type(e).__name__}: {str(e).splitlines()[0][:100]}"
        print(line); h.update(line.encode()); continue
    s = sass(k)
    n += 1
    h.update(repr(c).encode()); h.update(s.encode())
    if len(sys.argv) > 1 and sys.argv[1] == "-v":
        print(c, hashlib.sha256(s.encode()).hexdigest()[:12])
print(n, "kernels; SASS digest", h.hexdigest())
