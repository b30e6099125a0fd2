"""Hand-written PTX kernels for testing the GPU runtime without the compiler,
and `assemble`, which turns them into cubins with ptxas.

Each kernel's parameters are listed in the SIGNATURES dict in the order of
the PTX `.entry`, with warpforge's type names.
"""

import os
import shutil
import subprocess
import tempfile
from typing import Optional

HEADER = """.version 8.0
.target sm_90a
.address_size 64
"""

# out[i] = x[i] + y[i] for i < n, one element per thread.
ADD_F32 = HEADER + """
.visible .entry add_f32(
    .param .u64 x_ptr,
    .param .u64 y_ptr,
    .param .u64 out_ptr,
    .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [x_ptr];
    ld.param.u64 %rd2, [y_ptr];
    ld.param.u64 %rd3, [out_ptr];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.s32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
"""

# The same parameters, and nothing done: for launch overhead.
EMPTY = HEADER + """
.visible .entry empty(
    .param .u64 x_ptr,
    .param .u64 y_ptr,
    .param .u64 out_ptr,
    .param .u32 n)
{
    ret;
}
"""

# One block fills n_words 32-bit words of dynamic shared memory with
# 3 * i + 1, then writes them out reversed: out[i] = 3 * (n - 1 - i) + 1.
SMEM_REVERSE = HEADER + """
.extern .shared .align 16 .b8 dynamic_smem[];

.visible .entry smem_reverse(
    .param .u64 out_ptr,
    .param .u32 n_words)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;

    ld.param.u64 %rd1, [out_ptr];
    ld.param.u32 %r1, [n_words];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, dynamic_smem;
    mov.u32 %r5, %r2;
FILL:
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra FILLED;
    shl.b32 %r6, %r5, 2;
    add.u32 %r7, %r4, %r6;
    mul.lo.u32 %r8, %r5, 3;
    add.u32 %r8, %r8, 1;
    st.shared.u32 [%r7], %r8;
    add.u32 %r5, %r5, %r3;
    bra FILL;
FILLED:
    bar.sync 0;
    mov.u32 %r5, %r2;
COPY:
    setp.ge.u32 %p2, %r5, %r1;
    @%p2 bra DONE;
    sub.u32 %r9, %r1, %r5;
    sub.u32 %r9, %r9, 1;
    shl.b32 %r6, %r9, 2;
    add.u32 %r7, %r4, %r6;
    ld.shared.u32 %r10, [%r7];
    mul.wide.u32 %rd2, %r5, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    add.u32 %r5, %r5, %r3;
    bra COPY;
DONE:
    ret;
}
"""

# Writes its scalar parameters into out, each in its own 8-byte slot: how
# the runtime packs fp16, bf16, fp64, i1, i8 and u64 arguments.
SCALARS = HEADER + """
.visible .entry scalars(
    .param .u64 out_ptr,
    .param .b16 h,
    .param .b16 b,
    .param .f64 d,
    .param .u8 flag,
    .param .s8 c,
    .param .u64 u)
{
    .reg .b16 %h<5>;
    .reg .f64 %fd<2>;
    .reg .b64 %rd<3>;

    ld.param.u64 %rd1, [out_ptr];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.b16 %h1, [h];
    ld.param.b16 %h2, [b];
    ld.param.f64 %fd1, [d];
    ld.param.u8 %h3, [flag];
    ld.param.s8 %h4, [c];
    ld.param.u64 %rd2, [u];
    st.global.b16 [%rd1], %h1;
    st.global.b16 [%rd1+8], %h2;
    st.global.f64 [%rd1+16], %fd1;
    st.global.u8 [%rd1+24], %h3;
    st.global.s8 [%rd1+32], %h4;
    st.global.u64 [%rd1+40], %rd2;
    ret;
}
"""

# At most 128 threads per block (.maxntid).
SMALL_BLOCK = HEADER + """
.visible .entry small_block(
    .param .u64 out_ptr)
.maxntid 128, 1, 1
{
    ret;
}
"""


def register_hungry(count: int = 180) -> str:
    """A kernel that keeps `count` loaded values live at once (volatile loads
    in order, summed in reverse): it needs more than `count` registers."""
    lines = [HEADER, ".visible .entry register_hungry(", "    .param .u64 out_ptr)", "{",
             f"    .reg .f32 %f<{count + 2}>;", "    .reg .b64 %rd<3>;",
             "    ld.param.u64 %rd1, [out_ptr];", "    cvta.to.global.u64 %rd1, %rd1;"]
    for i in range(count):
        lines.append(f"    ld.volatile.global.f32 %f{i}, [%rd1+{4 * i}];")
    lines.append(f"    mov.f32 %f{count}, %f{count - 1};")
    for i in range(count - 2, -1, -1):
        lines.append(f"    add.f32 %f{count}, %f{count}, %f{i};")
    lines += [f"    st.global.f32 [%rd1], %f{count};", "    ret;", "}", ""]
    return "\n".join(lines)


SIGNATURES = {
    "add_f32": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    "empty": {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
    "smem_reverse": {"out_ptr": "*int32", "n_words": "i32"},
    "scalars": {"out_ptr": "*int64", "h": "fp16", "b": "bf16", "d": "fp64", "flag": "i1",
                "c": "i8", "u": "u64"},
    "small_block": {"out_ptr": "*fp32"},
    "register_hungry": {"out_ptr": "*fp32"},
}


def find_ptxas() -> Optional[str]:
    """ptxas from $CUDA_HOME, $PATH or /usr/local/cuda, else None."""
    candidates = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", "ptxas"))
    found = shutil.which("ptxas")
    if found:
        candidates.append(found)
    candidates.append("/usr/local/cuda/bin/ptxas")
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def assemble(ptx: str, arch: str = "sm_90a") -> bytes:
    """The cubin of `ptx`, assembled by ptxas."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise RuntimeError("ptxas not found: set CUDA_HOME or put it on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "kernel.ptx"), os.path.join(tmp, "kernel.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        result = subprocess.run([ptxas, f"-arch={arch}", src, "-o", out],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"ptxas failed:\n{result.stderr}")
        with open(out, "rb") as f:
            return f.read()
