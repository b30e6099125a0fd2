"""fp8 -> f32 below sm_89, run for every thread of a CTA on the CPU.

The hardware converts fp8 from sm_89 (Ada) on; an sm_80/sm_86 kernel that
reads fp8 (an fp8 product, widened to f16 for mma.sync, or an explicit
`.to(tl.float32)`) converts it with integer operations instead
(ElementwiseOpToLLVM.cpp, emulateFp8ToF16).  The simulator runs that code
on bytes -100 to 100 (both signs, the subnormals, zero, e4m3's NaN 0xff)
and the result must be the value the byte encodes.  Converting to fp8
below sm_89 is an error at the op (test_frontend_errors.py has the Python
line).
"""

import subprocess

import numpy as np
import pytest

from test_layout_simulation import OPT, Kernel, blocked, input_values, simulate, written

PASSES = ("--tilegpu-to-llvm",)
LAYOUT = blocked([2], [32], [2], [0])


def decode(byte, fmt):
    """The value of fp8 `byte` (0..255) in e4m3fn or e5m2."""
    sign = -1.0 if byte & 0x80 else 1.0
    ebits, bias = (4, 7) if fmt == "e4m3" else (5, 15)
    mbits = 7 - ebits
    e, m = (byte >> mbits) & ((1 << ebits) - 1), byte & ((1 << mbits) - 1)
    if fmt == "e4m3" and e == 15 and m == 7:
        return float("nan")
    if fmt == "e5m2" and e == 31:
        return float("nan") if m else sign * float("inf")
    if e == 0:
        return sign * m * 2.0 ** (1 - bias - mbits)
    return sign * (1 + m / 2 ** mbits) * 2.0 ** (e - bias)


def kernel(fmt, dst):
    n = 128
    kern = Kernel(2, ["i8", dst])
    t = kern.ttype
    ftype = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}[fmt]
    x = kern.load(0, [n], LAYOUT)
    f = kern.emit(f"tile.bitcast {x} : {t([n], 'i8', LAYOUT)} -> {t([n], ftype, LAYOUT)}")
    y = kern.emit(f"tile.fp_to_fp {f} : {t([n], ftype, LAYOUT)} -> {t([n], dst, LAYOUT)}")
    kern.store(1, y, [n], LAYOUT)
    return kern.text().replace('attributes {"tilegpu.num-warps"',
                               'attributes {tilegpu.target = "cuda:80", "tilegpu.num-warps"', 1)


@pytest.mark.parametrize("dst", ["f32", "f16"])
@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_fp8_to_float_emulated_on_sm80(fmt, dst):
    ir = kernel(fmt, dst)
    llvm = subprocess.run([OPT, *PASSES], input=ir, capture_output=True, text=True,
                          timeout=300)
    assert llvm.returncode == 0, llvm.stderr
    assert "cvt.rn.f16x2" not in llvm.stdout, "sm_80 has no fp8 conversion instruction"
    out = simulate(ir, ["i8", dst], passes=PASSES)
    got = written(out, 1, 128)
    want = np.array([decode(int(b) & 0xFF, fmt) for b in input_values(0, 128)])
    np.testing.assert_array_equal(got, want)


def test_fp8_from_float_below_sm89_is_an_error():
    kern = Kernel(2, ["f32", "i8"])
    t = kern.ttype
    x = kern.load(0, [128], LAYOUT)
    y = kern.emit(f"tile.fp_to_fp {x}, rounding = rtne : {t([128], 'f32', LAYOUT)} -> "
                  f"{t([128], 'f8E4M3FN', LAYOUT)}")
    z = kern.emit(f"tile.bitcast {y} : {t([128], 'f8E4M3FN', LAYOUT)} -> "
                  f"{t([128], 'i8', LAYOUT)}")
    kern.store(1, z, [128], LAYOUT)
    ir = kern.text().replace('attributes {"tilegpu.num-warps"',
                             'attributes {tilegpu.target = "cuda:86", "tilegpu.num-warps"', 1)
    proc = subprocess.run([OPT, *PASSES], input=ir, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "conversion to 'f8E4M3FN' needs sm_89 or later" in proc.stderr
    assert "the target is sm_86" in proc.stderr
