"""Compilation errors: the kernel line, a caret, a plain message, no
internal traceback."""

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge import CompilationError

F32 = np.zeros(64, np.float32)


def compile_error(kernel, *args, **kwargs) -> CompilationError:
    with pytest.raises(CompilationError) as info:
        kernel.warmup(*args, **kwargs)
    err = info.value
    # Shown with the source line and a caret; the broken rule's own
    # exception is its cause, as in Triton, without frames of its own (no
    # internals in the traceback), and nothing else is chained.
    assert err.__suppress_context__
    assert err.__cause__ is None or (err.__cause__.__traceback__ is None
                                     and str(err.__cause__) in str(err))
    return err


def line_of(kernel, needle: str) -> int:
    return kernel.first_line + next(i for i, l in enumerate(kernel.source_lines) if needle in l)


def test_broadcast_shape_mismatch():
    @warpforge.jit
    def k(x_ptr, BLOCK: tl.constexpr):
        a = tl.arange(0, BLOCK)
        b = tl.arange(0, 2 * BLOCK)
        tl.store(x_ptr + a, a + b)

    err = compile_error(k, F32, BLOCK=16)
    assert err.lineno == line_of(k, "a + b")
    assert "shapes [16] and [32] cannot be broadcast together" in str(err)
    assert str(err).splitlines()[1].strip() == "tl.store(x_ptr + a, a + b)"
    caret = str(err).splitlines()[2]
    assert caret.index("^") - 4 == "tl.store(x_ptr + a, a + b)".index("a + b")


def test_type_mismatch():
    @warpforge.jit
    def k(x_ptr):
        a = tl.arange(0, 16).to(tl.float32)
        tl.store(x_ptr + tl.arange(0, 16), a & 3)

    err = compile_error(k, F32)
    assert err.lineno == line_of(k, "a & 3")
    assert "invalid operands of type tl.float32 and tl.float32: bitwise operations need integer operands" in str(err)


def test_non_constexpr_where_constexpr_is_needed():
    @warpforge.jit
    def k(x_ptr, n):
        tl.store(x_ptr + tl.arange(0, n), 1.0)

    err = compile_error(k, F32, 7)
    assert err.lineno == line_of(k, "tl.arange(0, n)")
    assert "arange's start and end must be tl.constexpr integers" in str(err)


def test_constexpr_parameter_given_a_tensor_in_a_call_stays_a_tensor():
    """As in Triton (tutorial 06 passes a tensor for its helper's
    `offs_m: tl.constexpr`): the argument decides, not the annotation."""
    @warpforge.jit
    def helper(x, N: tl.constexpr):
        return x * N

    @warpforge.jit
    def k(x_ptr, n):
        tl.store(x_ptr, helper(1.0, n))

    k.warmup(np.zeros(1, np.float32), 7, grid=(1,))


def test_constexpr_parameter_given_a_tensor_fails_where_a_constant_is_needed():
    @warpforge.jit
    def helper(x_ptr, N: tl.constexpr):
        tl.store(x_ptr + tl.arange(0, N), 1.0)

    @warpforge.jit
    def k(x_ptr, n):
        helper(x_ptr, n)

    err = compile_error(k, F32, 7)
    assert err.lineno == line_of(helper, "tl.arange(0, N)")
    assert "arange's start and end must be tl.constexpr integers" in str(err)


def test_unknown_name():
    @warpforge.jit
    def k(x_ptr):
        tl.store(x_ptr, undefined_value)  # noqa: F821

    err = compile_error(k, F32)
    assert err.lineno == line_of(k, "undefined_value")
    assert "name 'undefined_value' is not defined" in str(err)


@pytest.mark.parametrize("construct,body", [
    ("break", "for i in range(4):\n        break"),
    ("continue", "for i in range(4):\n        continue"),
    ("lambda", "f = lambda v: v"),
    ("Try", "try:\n        pass\n    except Exception:\n        pass"),
    ("With", "with x_ptr:\n        pass"),
    ("ListComp", "y = [i for i in range(3)]"),
])
def test_unsupported_python_constructs(construct, body, tmp_path):
    source = f"import warpforge\n\n@warpforge.jit\ndef k(x_ptr):\n    {body}\n"
    path = tmp_path / f"kernel_{construct}.py"
    path.write_text(source)
    namespace = {}
    exec(compile(source, str(path), "exec"), namespace)
    with pytest.raises(warpforge.compiler.UnsupportedLanguageConstruct) as info:
        namespace["k"].warmup(F32)
    assert construct in str(info.value)
    assert info.value.filename == str(path)
    assert info.value.lineno == 5 or info.value.lineno == 6


def test_non_constexpr_global_is_rejected():
    err = compile_error(_uses_plain_global, F32)
    assert "cannot access global variable 'PLAIN_GLOBAL' of type int" in str(err)
    assert "tl.constexpr" in str(err)


PLAIN_GLOBAL = 3


@warpforge.jit
def _uses_plain_global(x_ptr):
    tl.store(x_ptr, PLAIN_GLOBAL)


def test_loop_carried_type_change():
    @warpforge.jit
    def k(x_ptr, n):
        acc = 0
        for i in range(n):
            acc += tl.load(x_ptr + tl.arange(0, 16))
        tl.store(x_ptr + tl.arange(0, 16), acc)

    err = compile_error(k, F32, 5)
    assert err.lineno == line_of(k, "for i in range(n)")
    assert ("loop-carried variable 'acc' has type tl.int32 before the loop but "
            "<[16], tl.float32> after an iteration") in str(err)
    assert "tl.zeros" in str(err)


def test_if_branches_with_different_types():
    @warpforge.jit
    def k(x_ptr, n):
        v = 1
        if n > 3:
            v = tl.load(x_ptr)
        tl.store(x_ptr, v)

    err = compile_error(k, F32, 5)
    assert "'v' has type" in str(err) and "both branches must give it one type" in str(err)


def test_dot_shape_rules():
    @warpforge.jit
    def k(a_ptr):
        a = tl.load(a_ptr + tl.arange(0, 16)[:, None] * 8 + tl.arange(0, 8)[None, :])
        tl.dot(a, a)

    err = compile_error(k, F32)
    assert "tl.dot: the inner dimensions differ: a is 16x8, b is 16x8" in str(err)


def test_math_dtype_rule():
    @warpforge.jit
    def k(x_ptr):
        x = tl.load(x_ptr + tl.arange(0, 16))
        tl.store(x_ptr + tl.arange(0, 16), tl.exp(x))

    err = compile_error(k, np.zeros(16, np.float16))
    assert "tl.exp expects fp32 or fp64, got tl.float16" in str(err)


def test_verifier_error_from_cpp_maps_to_the_python_line():
    @warpforge.jit
    def k(x_ptr, M, N):
        d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [64, 512])
        d.load([0, 0])

    err = compile_error(k, F32, 64, 64)
    assert err.lineno == line_of(k, "make_tensor_descriptor")
    assert "TMA moves at most 256 elements per dimension but the outermost" in str(err)
    assert "make_tensor_descriptor" in str(err).splitlines()[1]


def test_kernel_returning_a_value():
    @warpforge.jit
    def k(x_ptr):
        return tl.load(x_ptr)

    err = compile_error(k, F32)
    assert "returns a value" in str(err)


def test_calling_a_kernel_from_python_directly():
    with pytest.raises(RuntimeError, match=r"launch it as _uses_plain_global\[grid\]"):
        _uses_plain_global(F32)


def test_bad_options_and_arguments():
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        _uses_plain_global.warmup(F32, num_warps=3)
    with pytest.raises(TypeError, match="missing a required argument"):
        _uses_plain_global.warmup()
    with pytest.raises(TypeError, match="argument 'x_ptr': a value of type object is not a tensor"):
        _uses_plain_global.warmup(object())


def test_return_inside_a_loop():
    @warpforge.jit
    def k(x_ptr, n):
        for i in range(n):
            if i > 3:
                return
        tl.store(x_ptr, 1.0)

    err = compile_error(k, F32, 9)
    assert "return inside a for or while loop is not supported" in str(err)


def test_not_every_path_returns_a_value():
    @warpforge.jit
    def helper(x):
        if x > 0:
            return x

    @warpforge.jit
    def k(x_ptr):
        tl.store(x_ptr, helper(tl.load(x_ptr)))

    err = compile_error(k, F32)
    assert "every path must return a value" in str(err)


@warpforge.jit
def nested_def_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)

    def helper(v):
        return v + 1

    tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs)))


@warpforge.jit
def nested_def_device(x, BLOCK: tl.constexpr):
    def never_called():
        tl.store(x, 0.0)
    return x


@warpforge.jit
def calls_nested_def_device(x_ptr, BLOCK: tl.constexpr):
    tl.store(nested_def_device(x_ptr, BLOCK) + tl.arange(0, BLOCK), 1.0)


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_nested_def_is_rejected_at_its_line(interpret, monkeypatch, frontend_only):
    """A def inside a kernel would be compiled where it stands (a return in
    it dropping the rest of the kernel, a never-called body's store
    emitted): compiler and interpreter alike reject it at its line."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", interpret)
    x = np.ones(16, np.float32)
    with pytest.raises(warpforge.compiler.errors.UnsupportedLanguageConstruct) as info:
        nested_def_kernel[(1,)](x, BLOCK=16)
    assert info.value.lineno == line_of(nested_def_kernel, "def helper")
    assert "defined inside a kernel is not supported" in str(info.value)
    with pytest.raises(warpforge.compiler.errors.UnsupportedLanguageConstruct) as info:
        calls_nested_def_device[(1,)](x, BLOCK=16)
    assert info.value.lineno == line_of(nested_def_device, "def never_called")
    assert (x == 1).all()


@warpforge.jit
def huge_arange(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)


@warpforge.jit
def long_static_range(x_ptr, N: tl.constexpr):
    acc = 0.0
    for i in tl.static_range(N):
        acc += 1.0
    tl.store(x_ptr, acc)


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_sizes_that_would_take_forever_are_errors(interpret, monkeypatch, frontend_only):
    """tl.arange honours the tensor size cap tl.zeros has, and
    tl.static_range unrolls at most 4096 iterations: errors at the line
    instead of minutes of unrolling or an out-of-memory abort."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", interpret)
    x = np.zeros(16, np.float32)
    with pytest.raises(Exception, match=r"arange\(0, 1073741824\) has 1073741824 elements"):
        huge_arange[(1,)](x, BLOCK=1 << 30)
    with pytest.raises(Exception, match="unrolls 10000000 iterations; at most 4096"):
        long_static_range[(1,)](x, N=10_000_000)


@warpforge.jit
def python_type_as_dtype(x_ptr, BLOCK: tl.constexpr):
    z = tl.zeros((BLOCK,), dtype=float)
    tl.store(x_ptr + tl.arange(0, BLOCK), z)


@warpforge.jit
def takes_constexpr(x_ptr, C: tl.constexpr):
    tl.store(x_ptr, 1.0)


@warpforge.jit
def endless(x, N: tl.constexpr):
    return endless(x, N + 1)


@warpforge.jit
def calls_endless(x_ptr):
    tl.store(x_ptr, endless(1.0, 0))


def test_messages_name_the_mistake_not_internals():
    """A Python type as a dtype, an unhashable constexpr and recursion that
    never ends at compile time each say what is wrong, where."""
    err = compile_error(python_type_as_dtype, F32, BLOCK=16)
    assert "dtype must be a tl.dtype such as tl.float32, got float" in str(err)
    assert err.lineno == line_of(python_type_as_dtype, "tl.zeros")
    with pytest.raises(TypeError, match="takes_constexpr: tl.constexpr argument 'C' must be "
                                        "hashable .* got ndarray"):
        takes_constexpr.warmup(F32, C=np.zeros(3), grid=(1,))
    err = compile_error(calls_endless, F32)
    assert "calls to @jit functions nest deeper than 32 (the last: endless)" in str(err)
    assert err.lineno == line_of(endless, "return endless")


@warpforge.jit
def returns_a_value(x_ptr):
    tl.store(x_ptr, 1.0)
    return 3


@warpforge.jit
def runtime_shape(x_ptr, n):
    z = tl.zeros((n,), dtype=tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), 1.0)


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_interpreter_enforces_the_compilers_rules(interpret, monkeypatch, frontend_only):
    """A kernel returning a value and a tensor shape computed at run time
    are errors in the interpreter as when compiling."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", interpret)
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError, match="returns a value"):
        returns_a_value[(1,)](x)
    with pytest.raises(Exception, match="must be a tl.constexpr integer"):
        runtime_shape[(1,)](x, 16)


@warpforge.jit
def dict_literal(x_ptr):
    d = {"a": 1.0}
    tl.store(x_ptr, 1.0)


@warpforge.jit
def walrus(x_ptr, n):
    if (y := n + 1) > 0:
        tl.store(x_ptr, 1.0)


@warpforge.jit
def f_string_of_a_tensor(x_ptr):
    v = tl.load(x_ptr)
    s = f"{v}"
    tl.store(x_ptr, 1.0)


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_interpreter_rejects_the_constructs_the_compiler_rejects(interpret, monkeypatch,
                                                                 frontend_only):
    """A dict literal, a walrus and an f-string of a tensor: the same error
    at the same line, compiled or interpreted, and nothing runs."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", interpret)
    x = np.zeros(16, np.float32)
    for kernel, args, needle, message in [
            (dict_literal, (x,), "d = {", "unsupported Python construct: Dict"),
            (walrus, (x, 3), ":=", "unsupported Python construct: NamedExpr"),
            (f_string_of_a_tensor, (x,), 's = f"', "f-strings can only format compile-time "
                                                   "values")]:
        with pytest.raises(CompilationError, match=message) as info:
            kernel[(1,)](*args)
        assert info.value.lineno == line_of(kernel, needle)
    assert (x == 0).all()


@warpforge.jit
def broadcasts_beyond_the_cap(x_ptr, B: tl.constexpr):
    a = tl.arange(0, B)
    z = a[:, None] + a[None, :]
    tl.store(x_ptr + tl.arange(0, 16), 1.0)


@warpforge.jit
def broadcast_to_beyond_the_cap(x_ptr):
    x = tl.load(x_ptr)
    y = tl.broadcast_to(x, (1 << 30,))
    tl.store(x_ptr + tl.arange(0, 16), 2.0)


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_tensors_made_by_broadcasting_honour_the_size_cap(interpret, monkeypatch,
                                                          frontend_only):
    """A tensor of more than 2^20 elements made by broadcasting (no tl.zeros
    or tl.arange of that size in sight) is an error at its line, compiled or
    interpreted, before the interpreter allocates it (32768x32768 int32
    would take 4 GiB). The compiler's pass name stays out of the message."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", interpret)
    x = np.zeros(16, np.float32)
    with pytest.raises(CompilationError) as info:
        broadcasts_beyond_the_cap[(1,)](x, B=32768)
    assert info.value.lineno == line_of(broadcasts_beyond_the_cap, "a[:, None] + a[None, :]")
    assert str(info.value).split(": ", 1)[1].startswith(
        "'tensor<32768x32768xi32>' has 1073741824 elements; a tensor in a kernel holds at "
        "most 1048576")
    with pytest.raises(CompilationError) as info:
        broadcasts_beyond_the_cap[(1,)](x, B=2048)  # 4M elements: 16 MiB
    assert "'tensor<2048x2048xi32>' has 4194304 elements" in str(info.value)
    # 2^20: the largest allowed (a frontend-only compile cannot launch).
    if interpret == "1":
        broadcasts_beyond_the_cap[(1,)](x, B=1024)
    else:
        broadcasts_beyond_the_cap.warmup(x, B=1024, grid=(1,))
    with pytest.raises(CompilationError) as info:
        broadcast_to_beyond_the_cap[(1,)](x)
    assert info.value.lineno == line_of(broadcast_to_beyond_the_cap, "tl.broadcast_to")
    assert "'tensor<1073741824xf32>' has 1073741824 elements" in str(info.value)
    assert "tile-verify-kernels" not in str(info.value)
    assert (x == (1.0 if interpret == "1" else 0.0)).all()


def test_the_compilers_own_size_check_says_the_same(monkeypatch, frontend_only):
    """With the frontend's check out of the way, tile-verify-kernels (C++)
    rejects the same op at the same line with the same words, its pass
    name left out: one rule, whichever layer applies it."""
    from warpforge.language import _semantic_shapes
    monkeypatch.setattr(_semantic_shapes, "MAX_TENSOR_NUMEL", 1 << 40)
    err = compile_error(broadcasts_beyond_the_cap, F32, B=2048)
    assert err.lineno == line_of(broadcasts_beyond_the_cap, "a[:, None] + a[None, :]")
    assert str(err).split(": ", 1)[1].startswith(
        "'tensor<2048x2048xi32>' has 4194304 elements; a tensor in a kernel holds at most "
        "1048576")


@pytest.mark.parametrize("interpret", ["0", "1"])
def test_unhashable_constexpr_is_an_error_interpreted_too(interpret, monkeypatch,
                                                          frontend_only):
    monkeypatch.setenv("WARPFORGE_INTERPRET", interpret)
    x = np.zeros(16, np.float32)
    with pytest.raises(TypeError, match="takes_constexpr: tl.constexpr argument 'C' must be "
                                        "hashable .* got ndarray"):
        takes_constexpr[(1,)](x, C=np.zeros(3))
    assert (x == 0).all()


def test_converting_to_fp8_below_sm89_is_an_error_at_the_line(monkeypatch):
    """sm_80/sm_86 have no conversion to fp8: an error at the `.to` (not
    ptxas's message), naming the target.  Reading fp8 works there
    (test_fp8_conversion_simulation.py)."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")

    @warpforge.jit
    def k(x_ptr, y_ptr):
        offs = tl.arange(0, 64)
        y = tl.load(x_ptr + offs).to(tl.float8e4nv)
        tl.store(y_ptr + offs, y.to(tl.int8, bitcast=True))

    err = compile_error(k, F32, np.zeros(64, np.int8), arch="sm86", grid=(1,))
    assert err.lineno == line_of(k, ".to(tl.float8e4nv)")
    assert "needs sm_89 or later" in str(err) and "the target is sm_86" in str(err)
    # sm_89 has the instruction.
    assert "cvt.rn.satfinite.e4m3x2.f32" in k.warmup(
        F32, np.zeros(64, np.int8), arch="sm89", grid=(1,)).asm["ptx"]


def test_conditional_expression_with_one_void_branch():
    @warpforge.jit
    def k(x_ptr):
        pid = tl.program_id(0)
        y = tl.store(x_ptr, 1.0) if pid > 0 else tl.load(x_ptr)
        tl.store(x_ptr, y)

    err = compile_error(k, F32, grid=(1,))
    assert err.lineno == line_of(k, "if pid > 0 else")
    assert "one branch of this conditional expression has no value" in str(err)
