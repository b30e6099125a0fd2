"""@jit kernels -> verified tile IR, for the zoo of tutorial kernels."""

import re
import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge.compiler import compile_kernel, generate_tile_ir

import zoo
from filecheck import filecheck

F32 = np.zeros(64, np.float32)
F16 = np.zeros(64, np.float16)
I64 = np.zeros(64, np.int64)


def test_vector_add(tmp_path):
    k = zoo.add_kernel.warmup(F32, F32, F32, 1000, BLOCK_SIZE=1024)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @add_kernel(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg3: i32)
CHECK: %[[PID:.*]] = tile.get_program_id x : i32
CHECK: %[[START:.*]] = arith.muli %[[PID]], %c1024_i32 : i32
CHECK: %[[RANGE:.*]] = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
CHECK: %[[OFFS:.*]] = arith.addi %{{.*}}, %[[RANGE]] : tensor<1024xi32>
CHECK: %[[MASK:.*]] = arith.cmpi slt, %[[OFFS]], %{{.*}} : tensor<1024xi32>
CHECK: %[[X:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<1024x!tile.ptr<f32>>
CHECK: %[[Y:.*]] = tile.load %{{.*}}, %[[MASK]] : tensor<1024x!tile.ptr<f32>>
CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[Y]] : tensor<1024xf32>
CHECK: tile.store %{{.*}}, %[[SUM]], %[[MASK]] : tensor<1024x!tile.ptr<f32>>
CHECK-NEXT: tile.return
""", tmp_path)


def test_fused_softmax(tmp_path):
    k = zoo.softmax_kernel.warmup(F32, F32, 781, 781, 1823, 781, BLOCK_SIZE=1024,
                                  num_stages=4)
    assert k.options.num_stages == 4
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @softmax_kernel
CHECK: scf.for %{{.*}} = %{{.*}} to %arg4 step %{{.*}}  : i32 {
CHECK: %[[ROW:.*]] = tile.load %{{.*}}, %{{.*}}, %cst{{.*}} : tensor<1024x!tile.ptr<f32>>
CHECK: %[[MAX:.*]] = tile.reduce %[[ROW]] axis = 0 : tensor<1024xf32> -> f32 {
CHECK: arith.maxnumf
CHECK: tile.reduce.return
CHECK: arith.subf
CHECK: math.exp
CHECK: tile.reduce %{{.*}} axis = 0 : tensor<1024xf32> -> f32 {
CHECK: arith.addf
CHECK: arith.divf
CHECK: tile.store
CHECK: } {tile.num_stages = 4 : i32}
""", tmp_path)


def test_layer_norm(tmp_path):
    k = zoo.layer_norm_fwd.warmup(F16, F16, F16, F16, F32, F32, 1151, 1151, 1e-5,
                                  BLOCK_SIZE=512)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @layer_norm_fwd
CHECK-SAME: %arg8: f32)
CHECK: scf.for {{.*}} iter_args(%{{.*}} = %cst{{.*}}) -> (tensor<512xf32>)
CHECK: arith.extf %{{.*}} : tensor<512xf16> to tensor<512xf32>
CHECK: tile.reduce
CHECK: arith.sitofp %arg7 : i32 to f32
CHECK: math.sqrt
CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<f32>
CHECK: scf.for
CHECK: arith.truncf %{{.*}} : tensor<512xf32> to tensor<512xf16>
""", tmp_path)


def test_grouped_matmul_with_helper(tmp_path, frontend_only):
    k = zoo.matmul_kernel.warmup(F16, F16, F16, 512, 512, 512, 512, 1, 512, 1, 512, 1,
                                 BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64,
                                 GROUP_SIZE_M=8, ACTIVATION="leaky_relu")
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @matmul_kernel
CHECK: arith.minsi
CHECK: %{{.*}}:3 = scf.for {{.*}} -> (tensor<128x128xf32>, tensor<128x64x!tile.ptr<f16>>, tensor<64x128x!tile.ptr<f16>>)
CHECK: %[[A:.*]] = tile.load {{.*}} : tensor<128x64x!tile.ptr<f16>>
CHECK: %[[B:.*]] = tile.load {{.*}} : tensor<64x128x!tile.ptr<f16>>
CHECK: tile.dot %[[A]], %[[B]], %{{.*}} : tensor<128x64xf16> * tensor<64x128xf16> -> tensor<128x128xf32>
CHECK: scf.yield
CHECK: arith.cmpf oge
CHECK: arith.select
CHECK: arith.truncf %{{.*}} : tensor<128x128xf32> to tensor<128x128xf16>
CHECK: tile.store
CHECK-NOT: tile.call
CHECK-NOT: leaky_relu
""", tmp_path)
    # The helper is a device function in the frontend's output, inlined after.
    assert "tile.call @leaky_relu__" in k.asm["tile-frontend"]
    assert "tile.func private @leaky_relu__" in k.asm["tile-frontend"]


def test_argmax_reduction(tmp_path):
    k = zoo.argmax_rows_kernel.warmup(F32, F32, I64, 1000, 1000, BLOCK=1024)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @argmax_rows_kernel
CHECK: tile.reduce %{{.*}} axis = 0 : tensor<1024xf32> -> f32
CHECK: %{{.*}}:2 = tile.reduce %{{.*}}, %{{.*}} axis = 0 : tensor<1024xf32>, tensor<1024xi32> -> f32, i32 {
CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: i32, %{{.*}}: f32, %{{.*}}: i32):
CHECK: arith.cmpf ogt
CHECK: tile.reduce.return %{{.*}}, %{{.*}} : f32, i32
CHECK: arith.extsi %{{.*}} : i32 to i64
CHECK: tile.store %{{.*}}, %{{.*}} : !tile.ptr<i64>
""", tmp_path)


def test_helper_and_constexpr_global(tmp_path):
    k = zoo.helper_call_kernel.warmup(F32, F32, 1000, BLOCK=256)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @helper_call_kernel
CHECK: %[[TWO:.*]] = arith.constant dense<2.000000e+00> : tensor<256xf32>
CHECK: %[[X:.*]] = tile.load
CHECK: %[[Y:.*]] = arith.mulf %[[X]], %[[TWO]] : tensor<256xf32>
CHECK: %[[R:.*]] = scf.if %{{.*}} -> (tensor<256xf32>) {
CHECK: arith.addf %[[Y]]
CHECK: } else {
CHECK: scf.yield %[[Y]]
CHECK: tile.store %{{.*}}, %[[R]]
""", tmp_path)
    assert k.used_globals == {"helper_call_kernel.SCALE": 2.0}


def test_locations_point_at_the_python_lines():
    text, _ = generate_tile_ir(zoo.add_kernel, {"x_ptr": "*fp32", "y_ptr": "*fp32",
                                                "out_ptr": "*fp32", "n_elements": "i32"},
                               {"BLOCK_SIZE": 128})
    src = zoo.add_kernel.source_lines
    first = zoo.add_kernel.first_line
    load_line = first + next(i for i, l in enumerate(src) if "x = tl.load" in l)
    assert f'"tile.load"' in text
    load_ops = [l for l in text.splitlines() if '"tile.load"' in l]
    assert f'zoo.py":{load_line}:' in load_ops[0]
    assert all("loc(" in l for l in text.splitlines() if '= "' in l)


def test_while_loop_and_run_time_if(tmp_path):
    @warpforge.jit
    def collatz(out_ptr, n):
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        tl.store(out_ptr, steps)

    k = collatz.warmup(np.zeros(1, np.int32), 27)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @collatz
CHECK: %{{.*}}:2 = scf.while (%[[N:.*]] = %arg1, %[[S:.*]] = %c0_i32) : (i32, i32) -> (i32, i32) {
CHECK: arith.cmpi ne, %[[N]], %c1_i32
CHECK: scf.condition
CHECK: } do {
CHECK: scf.if %{{.*}} -> (i32) {
CHECK: arith.divsi
CHECK: } else {
CHECK: arith.muli
CHECK: scf.yield
CHECK: tile.store %arg0, %{{.*}}#1 : !tile.ptr<i32>
""", tmp_path)


def test_static_range_unrolls_and_constexpr_if_folds(tmp_path):
    @warpforge.jit
    def unrolled(x_ptr, MODE: tl.constexpr):
        acc = tl.zeros([16], dtype=tl.float32)
        for i in tl.static_range(3):
            acc += tl.load(x_ptr + i * 16 + tl.arange(0, 16))
        if MODE == "double":
            acc = acc * 2
        else:
            acc = acc * 3
        tl.store(x_ptr + tl.arange(0, 16), acc)

    k = unrolled.warmup(F32, MODE="double")
    text = k.asm["tile"]
    assert text.count("tile.load") == 3
    assert "scf." not in text
    assert "dense<2.000000e+00>" in text and "dense<3.000000e+00>" not in text


def test_dtypes_casts_and_math(tmp_path):
    @warpforge.jit
    def kinds(f16_ptr, bf16_ptr, i8_ptr, u32_ptr, out_ptr):
        offs = tl.arange(0, 32)
        h = tl.load(f16_ptr + offs)
        b = tl.load(bf16_ptr + offs)
        i = tl.load(i8_ptr + offs)
        u = tl.load(u32_ptr + offs)
        x = h.to(tl.float32) + b  # fp32 + bf16 -> fp32
        y = tl.exp(x) + tl.sqrt(tl.abs(x)) + tl.sigmoid(x) + tl.erf(x)
        z = y + i             # int8 -> fp32
        w = (u >> 3) + (i // 3).to(tl.uint32)
        q = z.to(tl.float8e4nv, fp_downcast_rounding="rtz").to(tl.float32)
        tl.store(out_ptr + offs, q + w + tl.cumsum(z, 0) + tl.clamp(z, -1.0, 1.0))

    # NumPy has no bfloat16: give the signature directly.
    k = compile_kernel(kinds, {"f16_ptr": "*fp16", "bf16_ptr": "*bf16", "i8_ptr": "*i8",
                               "u32_ptr": "*u32", "out_ptr": "*fp32"}, {}, gpu=False)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @kinds
CHECK: arith.extf %{{.*}} : tensor<32xf16> to tensor<32xf32>
CHECK: math.exp
CHECK: math.absf
CHECK: math.sqrt
CHECK: math.erf
CHECK: arith.sitofp %{{.*}} : tensor<32xi8> to tensor<32xf32>
CHECK: arith.shrui
CHECK: arith.divsi %{{.*}} : tensor<32xi8>
CHECK: arith.extsi %{{.*}} : tensor<32xi8> to tensor<32xi32>
CHECK: tile.fp_to_fp %{{.*}}, rounding = rtz : tensor<32xf32> -> tensor<32xf8E4M3FN>
CHECK: tile.fp_to_fp %{{.*}} : tensor<32xf8E4M3FN> -> tensor<32xf32>
CHECK: arith.uitofp
CHECK: tile.scan
CHECK: arith.maxnumf
CHECK: arith.minnumf
""", tmp_path)


def test_atomics_descriptors_and_debug_ops(tmp_path, frontend_only):
    @warpforge.jit
    def misc(hist_ptr, data_ptr, a_ptr, M, N, lock_ptr):
        offs = tl.arange(0, 128)
        bins = tl.load(data_ptr + offs) % 16
        tl.atomic_add(hist_ptr + bins, 1)
        tl.atomic_max(a_ptr + offs, 1.5)
        tl.atomic_cas(lock_ptr, 0, 1)
        d = tl.make_tensor_descriptor(a_ptr, [M, N], [N, 1], [64, 64])
        tile = d.load([0, 64])
        d.store([64, 0], tile * 2)
        tl.device_assert(bins < 16, "bin out of range")
        tl.device_print("bins", bins)

    k = misc.warmup(np.zeros(16, np.int32), np.zeros(128, np.int32), F32, 256, 256,
                    np.zeros(1, np.int32))
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @misc
CHECK: tile.atomic_rmw add, acq_rel, gpu, %{{.*}}, %{{.*}} : tensor<128x!tile.ptr<i32>>
CHECK: tile.atomic_rmw max, acq_rel, gpu, {{.*}} : tensor<128x!tile.ptr<i32>>
CHECK: tile.atomic_rmw umin, acq_rel, gpu, {{.*}} : tensor<128x!tile.ptr<i32>>
CHECK: tile.atomic_cas acq_rel, gpu, %arg5, %{{.*}}, %{{.*}} : !tile.ptr<i32>
CHECK: %[[D:.*]] = tile.make_tensor_descriptor %arg2, [%arg3, %arg4], [%{{.*}}, %{{.*}}] : !tile.ptr<f32>, !tile.tensordesc<tensor<64x64xf32>>
CHECK: tile.descriptor_load %[[D]][%{{.*}}, %{{.*}}] : !tile.tensordesc<tensor<64x64xf32>> -> tensor<64x64xf32>
CHECK: tile.descriptor_store %[[D]][%{{.*}}, %{{.*}}], %{{.*}} : !tile.tensordesc<tensor<64x64xf32>>, tensor<64x64xf32>
CHECK: tile.assert %{{.*}}, "bin out of range" : tensor<128xi1>
CHECK: tile.print "bins" {isSigned = array<i32: 1>} : %{{.*}} : tensor<128xi32>
""", tmp_path)


def test_user_reduce_with_jit_combiner(tmp_path):
    @warpforge.jit
    def mul_combine(a, b):
        return a * b

    @warpforge.jit
    def prod(x_ptr, out_ptr):
        x = tl.load(x_ptr + tl.arange(0, 64)[:, None] * 8 + tl.arange(0, 8)[None, :])
        tl.store(out_ptr + tl.arange(0, 8), tl.reduce(x, 0, mul_combine))

    k = prod.warmup(F32, F32)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @prod
CHECK: tile.reduce %{{.*}} axis = 0 : tensor<64x8xf32> -> tensor<8xf32> {
CHECK: ^bb0(%[[L:.*]]: f32, %[[R:.*]]: f32):
CHECK: %[[P:.*]] = arith.mulf %[[L]], %[[R]] : f32
CHECK: tile.reduce.return %[[P]] : f32
""", tmp_path)


def test_early_return_in_a_kernel(tmp_path):
    @warpforge.jit
    def guarded(x_ptr, n_rows, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        if row >= n_rows:
            return
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + row * BLOCK + offs, 1.0)

    k = guarded.warmup(F32, 100, BLOCK=64)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @guarded
CHECK: %[[C:.*]] = arith.cmpi sge
CHECK: scf.if %[[C]] {
CHECK-NEXT: } else {
CHECK: tile.store
CHECK: }
CHECK-NEXT: tile.return
""", tmp_path)


def test_return_in_a_nested_if_keeps_the_code_after_the_outer_if(tmp_path):
    """A return in one branch of an if nested in another: the path that
    falls through the inner if still runs the store after the outer one
    (Triton's test_nested_if_else_return; the store was once dropped)."""
    @warpforge.jit
    def nested(c1, c2, v1, v2, out):
        val = 0
        if tl.load(c1):
            if tl.load(c2):
                val = tl.load(v1)
            else:
                return
        else:
            val = tl.load(v2)
        tl.store(out, val)

    I32 = np.zeros(1, np.int32)
    k = nested.warmup(I32, I32, I32, I32, I32)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @nested
CHECK: scf.if
CHECK: scf.if
CHECK: %[[V1:.*]] = tile.load %arg2
CHECK-NEXT: tile.store %arg4, %[[V1]]
CHECK-NEXT: }
CHECK-NEXT: } else {
CHECK: %[[V2:.*]] = tile.load %arg3
CHECK-NEXT: tile.store %arg4, %[[V2]]
""", tmp_path)


def test_early_return_of_values_from_a_device_function(tmp_path):
    @warpforge.jit
    def pick(x, lo):
        if x < lo:
            return lo
        if x > 2 * lo:
            return x - lo
        return x

    @warpforge.jit
    def user(x_ptr, lo):
        tl.store(x_ptr, pick(tl.load(x_ptr), lo))

    k = user.warmup(F32, 3.0)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @user
CHECK: %[[R:.*]] = scf.if %{{.*}} -> (f32) {
CHECK: } else {
CHECK: scf.if %{{.*}} -> (f32) {
CHECK: arith.subf
CHECK: tile.store %arg0, %[[R]] : !tile.ptr<f32>
""", tmp_path)


def test_debug_barrier(tmp_path):
    @warpforge.jit
    def exchange(x_ptr):
        offs = tl.arange(0, 64)
        tl.store(x_ptr + offs, offs.to(tl.float32))
        tl.debug_barrier()
        tl.store(x_ptr + 64 + offs, tl.load(x_ptr + 63 - offs))

    k = exchange.warmup(np.zeros(128, np.float32))
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @exchange
CHECK: tile.store
CHECK-NEXT: tile.barrier
CHECK: tile.load
""", tmp_path)


def test_hints_become_attributes(tmp_path):
    @warpforge.jit
    def hinted(x_ptr, stride, BLOCK: tl.constexpr):
        offs = tl.max_contiguous(tl.multiple_of(tl.program_id(0) * BLOCK + tl.arange(0, BLOCK),
                                                BLOCK), BLOCK)
        s = tl.multiple_of(stride, 8)
        tl.store(x_ptr + offs * s, 1.0)

    k = hinted.warmup(F32, 24, BLOCK=64)  # 24: specialization knows no divisor
    filecheck(k.asm["tile-frontend"], """
CHECK-LABEL: tile.func public @hinted(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: i32 {tile.divisibility = 8 : i32})
CHECK: arith.addi %{{.*}}, %{{.*}} {tile.contiguity = array<i32: 64>, tile.divisibility = array<i32: 64>} : tensor<64xi32>
""", tmp_path)


def test_hint_errors():
    @warpforge.jit
    def bad_rank(x_ptr):
        offs = tl.multiple_of(tl.arange(0, 16)[:, None] + tl.arange(0, 16)[None, :], [16])
        tl.store(x_ptr + offs, 1.0)

    with pytest.raises(warpforge.CompilationError, match=r"max_contiguous needs 2 value"):
        @warpforge.jit
        def bad_rank2(x_ptr):
            offs = tl.max_contiguous(tl.arange(0, 16)[:, None] + tl.arange(0, 16)[None, :], [16])
            tl.store(x_ptr + offs, 1.0)
        bad_rank2.warmup(F32)

    @warpforge.jit
    def loop_carried(x_ptr, n):
        i = 0
        for k in range(n):
            i = tl.multiple_of(i, 4)
            i += 4
        tl.store(x_ptr + i, 1.0)

    # Triton code hints loop-carried pointers (tutorial 08): the hint is
    # not used, with a warning at its line, and the kernel compiles.
    with pytest.warns(UserWarning, match="tl.multiple_of of a loop-carried value is not "
                      "used") as record:
        loop_carried.warmup(F32, 10)
    hinted = loop_carried.first_line + next(
        i for i, text in enumerate(loop_carried.source_lines) if "tl.multiple_of(i, 4)" in text)
    assert (record[0].filename, record[0].lineno) == (loop_carried.filename, hinted)
    bad_rank.warmup(F32)  # one value for multiple_of applies to every dimension


@warpforge.jit
def pointer_type_in_kernel(a_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    back = (a_ptr + offs).to(tl.int64).to(tl.pointer_type(tl.float32))
    tl.store(out_ptr + offs, tl.where(offs < 3, tl.load(back), -1.0))


def test_pointer_type_built_in_a_kernel(tmp_path):
    """tl.pointer_type(tl.float32) in a kernel gets its arguments as
    constexprs: the pointer's element type is the float, so a load through
    it is f32 and combines with a float literal (it was 'constexpr[fp32]')."""
    text, _ = generate_tile_ir(pointer_type_in_kernel, {"a_ptr": "*fp32", "out_ptr": "*fp32"},
                               {"BLOCK": 8})
    filecheck(text, """
        CHECK: "tile.int_to_ptr"({{.*}}) : (tensor<8xi64>) -> tensor<8x!tile.ptr<f32>>
        CHECK: %[[V:.*]] = "tile.load"({{.*}}) -> tensor<8xf32>
        CHECK: "arith.select"({{.*}}, %[[V]], {{.*}}) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>)
    """, tmp_path)


@warpforge.jit
def python_print_in_kernel(x_ptr):
    print("pid", tl.program_id(0), "x", tl.load(x_ptr))


def test_python_print_prints_on_the_device(tmp_path):
    """Python's print in a kernel is a device print, as in Triton: its
    strings make the prefix, its values are printed."""
    text, _ = generate_tile_ir(python_print_in_kernel, {"x_ptr": "*fp32"}, {})
    filecheck(text, """
        CHECK: "tile.print"(%{{.*}}, %{{.*}}) <{{.*}}prefix = "pid x "}> : (i32, f32) -> ()
    """, tmp_path)


@warpforge.jit
def _scaled_sum(pair, scale: tl.constexpr):
    return (pair[0] + pair[1][0] * pair[1][1]) * scale


@warpforge.jit
def passes_lists_with_run_time_values(out_ptr, n, m):
    tl.store(out_ptr, _scaled_sum([n, (m, 3)], 2))


def test_lists_holding_run_time_values_reach_the_callee(tmp_path):
    """A list or tuple argument of a device call may hold run-time values
    (tutorial 06 passes shape=[y_dim, HEAD_DIM] to its descriptor helper):
    they travel as the callee's arguments, the constants stay constants, and
    the callee is specialized on the structure and the constants."""
    k = passes_lists_with_run_time_values.warmup(np.zeros(1, np.int32), 5, 7, grid=(1,))
    ir = k.asm["tile-frontend"]
    assert re.search(r"tile\.func private @_scaled_sum__\w+\(%arg0: i32, %arg1: i32\) -> i32", ir), ir
    assert re.search(r"tile\.call @_scaled_sum__\w+\(%arg1, %arg2\)", ir), ir
    # (n + m * 3) * 2: m (the callee's %arg1) times the constant 3.
    filecheck(ir, """
CHECK: %[[C3:.*]] = arith.constant 3 : i32
CHECK: %[[P:.*]] = arith.muli %arg1, %[[C3]] : i32
CHECK: arith.addi %arg0, %[[P]] : i32
""", tmp_path)


def test_lists_holding_run_time_values_compute_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    out = np.zeros(1, np.int32)
    passes_lists_with_run_time_values[(1,)](out, 5, 7)
    assert out[0] == (5 + 7 * 3) * 2


@pytest.mark.parametrize("fp8", ["fp8e4nv", "fp8e5"])
def test_abs_of_fp8_clears_the_sign_bit(tmp_path, fp8):
    # LLVM's fabs takes no fp8 type (fp8 values are i8 in LLVM): abs is the
    # sign bit cleared, all the way to PTX (it used to stop in the LLVM
    # verifier).
    @warpforge.jit
    def abs_fp8(x_ptr, out_ptr):
        offs = tl.arange(0, 128)
        tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs)))

    k = compile_kernel(abs_fp8, {"x_ptr": "*" + fp8, "out_ptr": "*" + fp8}, {})
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @abs_fp8
CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : tensor<128xf8{{.*}}> to tensor<128xi8>
CHECK: %[[ABS:.*]] = arith.andi %[[BITS]], %{{.*}} : tensor<128xi8>
CHECK: arith.bitcast %[[ABS]] : tensor<128xi8> to tensor<128xf8
CHECK-NOT: math.absf
""", tmp_path)
    assert "ptx" in k.asm and "and.b" in k.asm["ptx"]


def test_void_conditional_expression_with_a_run_time_condition(tmp_path):
    """`tl.store(...) if c else tl.store(...)` (Triton's test_if,
    if_exp_dynamic_void): an scf.if with no results."""
    @warpforge.jit
    def void_ifexp(ret_ptr, t_ptr, f_ptr):
        pid = tl.program_id(0)
        tl.store(ret_ptr, tl.load(t_ptr)) if pid % 2 == 0 else tl.store(ret_ptr, tl.load(f_ptr))

    k = compile_kernel(void_ifexp, {"ret_ptr": "*fp32", "t_ptr": "*fp32", "f_ptr": "*fp32"}, {},
                       gpu=False)
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @void_ifexp
CHECK: scf.if %{{.*}} {
CHECK-NEXT: %[[T:.*]] = tile.load %arg1
CHECK-NEXT: tile.store %arg0, %[[T]]
CHECK-NEXT: } else {
CHECK-NEXT: %[[F:.*]] = tile.load %arg2
CHECK-NEXT: tile.store %arg0, %[[F]]
CHECK-NEXT: }
""", tmp_path)


@pytest.mark.parametrize("dtype", ["fp32", "fp64"])
def test_sqrt_is_approximate_and_sqrt_rn_correctly_rounded(tmp_path, dtype):
    """tl.sqrt is Triton's approximate square root (`afn`: libdevice's
    sqrtf, sqrt.approx for fp32); tl.math.sqrt_rn is math.sqrt without
    fast-math flags, sqrt.rn in PTX."""
    @warpforge.jit
    def roots(x_ptr, a_ptr, b_ptr):
        offs = tl.arange(0, 128)
        x = tl.load(x_ptr + offs)
        tl.store(a_ptr + offs, tl.sqrt(x))
        tl.store(b_ptr + offs, tl.math.sqrt_rn(x))

    k = compile_kernel(roots, {"x_ptr": "*" + dtype, "a_ptr": "*" + dtype,
                               "b_ptr": "*" + dtype}, {})
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @roots
CHECK: math.sqrt %[[X:.*]] fastmath<afn> :
CHECK: math.sqrt %[[X]] :
""", tmp_path)
    bits = dtype[2:]
    assert f"sqrt.rn.f{bits}" in k.asm["ptx"]
    if dtype == "fp32":
        # ftz: enable_reflect_ftz, on by default as in Triton.
        assert "sqrt.approx.ftz.f32" in k.asm["ptx"]
