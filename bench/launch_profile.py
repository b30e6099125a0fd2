"""Breaks the warm-launch host overhead into its parts (needs torch and a GPU)."""
import os, sys, timeit, functools
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "test"))
import torch
import zoo
from warpforge.compiler.compiler import CompiledKernel
from warpforge.runtime.jit import arg_spec

CompiledKernel.launch = lambda self, grid, args, stream=None: None
x = torch.empty(4096, device="cuda")
k = zoo.add_kernel
k[(4,)](x, x, x, 4000, BLOCK_SIZE=1024)
launcher = k._launcher
def t(label, stmt, n=200000):
    best = min(timeit.repeat(stmt, number=n, repeat=5, globals=globals())) / n * 1e6
    print(f"{label:40s} {best:6.3f} us")
t("kernel[grid](...)", "k[(4,)](x, x, x, 4000, BLOCK_SIZE=1024)")
t("launcher(..., grid=...)", "launcher(x, x, x, 4000, BLOCK_SIZE=1024, grid=(4,))")
t("x.data_ptr()", "x.data_ptr()")
t("x.dtype", "x.dtype")
t("arg_spec(tensor)", "arg_spec(x)")
t("arg_spec(int)", "arg_spec(4000)")
t("k.interpreting()", "k.interpreting()")
t("k[(4,)] (the bound launcher)", "k[(4,)]")
