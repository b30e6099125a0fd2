"""The interpreter's builder: `InterpreterBuilder` implements the builder
interface the semantic layer records operations through (as `TextBuilder`
does when compiling) by computing on NumPy arrays, one program at a time:
element-wise ops, loads and stores, dot, reductions and scans, atomics,
tensor descriptors and debugging ops. It also holds the errors an
interpreted kernel raises, pointing at the kernel's source line.
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..language.core import constexpr
from ..language.semantic import SemanticError
from ._interpreter_ops import _FCMP, _ICMP, _OPS, _RMW_NAMES, _occurrence_rank, _u
from ._interpreter_values import (_SCALARS, Memory, TensorHandle, _Descriptor, _elem, _Elem,
                                  _OutOfBounds, _ReadOnly, _tf32, parse_type, round_to,
                                  to_bits)

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


class InterpreterError(RuntimeError):
    """A kernel did something invalid while interpreted (an out-of-bounds
    access, a failed device assertion). `filename` and `lineno` point at the
    kernel source; `program_id` is the (x, y, z) program that failed."""

    def __init__(self, message: str, filename: str = "", lineno: int = 0,
                 program_id: Optional[Tuple[int, int, int]] = None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.program_id = program_id
        text = f"{filename}:{lineno}: {message}" if lineno else message
        if program_id is not None:
            text += f" (program id {tuple(program_id)})"
        super().__init__(text)


def _in_assert_statement() -> bool:
    """Whether the kernel line asking for a tensor's truth value is an
    `assert` statement: the instruction testing it is followed by the
    raise of AssertionError (CPython's code for `assert`)."""
    import dis
    import sys
    frame = sys._getframe(3)  # to_bool <- tensor.__bool__ <- the kernel's frame
    if frame is None:
        return False
    code, lasti = frame.f_code, frame.f_lasti
    instructions = list(dis.get_instructions(code))
    for i, ins in enumerate(instructions):
        if ins.offset == lasti:
            return any(nxt.opname == "LOAD_ASSERTION_ERROR"
                       for nxt in instructions[i + 1:i + 3])
    return False


class DeviceAssertionError(InterpreterError):
    """A `tl.device_assert` (or `assert` on a tensor) failed."""


class AssertStatementError(DeviceAssertionError, AssertionError):
    """An `assert` statement on a tensor failed: the device assert it
    compiles to, and still the AssertionError Python's `assert` raises."""


def _assert_message(frame) -> Optional[str]:
    """The message the compiler gives the device assert of the `assert`
    statement running in `frame` (codegen's visit_Assert): its own message,
    else "assertion `<test>` failed"; None when the source is not at hand."""
    import ast
    import inspect
    import textwrap
    try:
        lines, first = inspect.getsourcelines(frame.f_code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None
    line = frame.f_lineno - max(first, 1) + 1
    node = next((n for n in ast.walk(tree) if isinstance(n, ast.Assert)
                 and n.lineno <= line <= (n.end_lineno or n.lineno)), None)
    if node is None:
        return None
    if node.msg is None:
        return f"assertion `{ast.unparse(node.test)}` failed"
    try:  # compile time evaluates the message too
        msg = eval(compile(ast.Expression(node.msg), "<assert message>", "eval"),
                   frame.f_globals, dict(frame.f_locals))
    except Exception:
        return None
    return str(getattr(msg, "value", msg))


# ---------------------------------------------------------------------------
# The builder
# ---------------------------------------------------------------------------


class InterpreterBuilder:
    """The builder interface of `TextBuilder`, computing on NumPy arrays."""

    interpreting = True

    def __init__(self, jit_fn=None, grid=(1, 1, 1), memory: Optional[Memory] = None,
                 options=None):
        self.jit_fn = jit_fn
        self.grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))
        self.memory = memory if memory is not None else Memory()
        if memory is None:
            self.memory.finalize()
        self.options = options
        self.pid = (0, 0, 0)
        self.loc = ("<unknown>", 0, 0)

    # -- Locations and errors -------------------------------------------

    def set_loc(self, line: int, col: int, filename: Optional[str] = None):
        self.loc = (filename or self.loc[0], line, col)

    def _kernel_frame(self):
        """The innermost frame of kernel code (the kernel or a helper it
        called), skipping warpforge and NumPy."""
        kernel_code = getattr(getattr(self.jit_fn, "fn", None), "__code__", None)
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code is kernel_code or not _is_library_file(code.co_filename):
                return frame
            frame = frame.f_back
        return None

    def error(self, message: str, cls=InterpreterError) -> InterpreterError:
        frame = self._kernel_frame()
        if frame is None:
            return cls(message, program_id=self.pid)
        return cls(message, frame.f_code.co_filename, frame.f_lineno, self.pid)

    def _memory_error(self, e, what: str, elem: _Elem) -> InterpreterError:
        if isinstance(e, _ReadOnly):
            return self.error(f"{what} into a read-only array "
                              f"{self.memory.describe(e.addr, elem.nbytes)}")
        return self.error(f"out-of-bounds {what} "
                          f"{self.memory.describe(e.addr, elem.nbytes)}")

    def _check_origin(self, ptr: TensorHandle, addrs, elem: _Elem, what: str):
        """Accesses through a pointer derived from an array argument stay in
        that argument: one that lands in a neighbouring argument's memory
        instead (valid memory here, not on the GPU) is an error naming
        both."""
        if ptr.origin is None or not addrs.size:
            return
        name, lo, hi = ptr.origin
        end = addrs + np.uint64(elem.nbytes)
        outside = (addrs < np.uint64(lo)) | (end > np.uint64(hi))
        if not outside.any():
            return
        addr = int(addrs[int(np.argmax(outside))])
        landed = next((b.name for b in self.memory.buffers
                       if b.lo <= addr and addr + elem.nbytes <= b.lo + b.nbytes), None)
        if landed is None:
            return  # outside every argument: the memory model reports it
        if any(r.lo <= lo and hi <= r.hi and r.lo <= addr < r.hi
               for r in self.memory.regions):
            return  # arguments that overlap (views of one array) are one allocation
        raise self.error(f"out-of-bounds {what} through a pointer into argument '{name}': "
                         f"address 0x{addr:x} is {addr - lo:+d} bytes from its start (it "
                         f"spans {hi - lo} bytes) and lands in argument '{landed}'")

    def _read(self, addrs, elem, what="load"):
        try:
            return self.memory.read(addrs, elem)
        except _OutOfBounds as e:
            raise self._memory_error(e, what, elem) from None

    def _write(self, addrs, values, elem, what="store"):
        try:
            self.memory.write(addrs, values, elem)
        except (_OutOfBounds, _ReadOnly) as e:
            raise self._memory_error(e, what, elem) from None

    # -- Scalars and constants ------------------------------------------

    def constant(self, value, ir_type: str, elem_type: str) -> TensorHandle:
        shape, elem = parse_type(ir_type)
        if elem.kind == "i":
            if elem.bits == 1:
                data = np.full(shape, bool(value), np.bool_)
            else:
                v = int(value) & ((1 << elem.bits) - 1)
                if v >= 1 << (elem.bits - 1):
                    v -= 1 << elem.bits
                data = np.full(shape, v, elem.np_dtype)
        elif elem.kind == "f":
            data = np.full(shape, round_to(np.float64(float(value)), elem), elem.np_dtype)
        else:
            data = np.full(shape, int(value), np.uint64)
        return TensorHandle(data, elem)

    def op(self, name: str, operands: Sequence[TensorHandle], result_type: str,
           props: str = "") -> TensorHandle:
        impl = _OPS.get(name)
        if impl is None:
            raise NotImplementedError(f"the interpreter does not implement {name}")
        relem = _elem(result_type)
        with np.errstate(all="ignore"):
            data = impl(list(operands), relem, props or "")
        return TensorHandle(data, relem)

    def cmp(self, kind: str, predicate: int, a: TensorHandle, b: TensorHandle,
            result_type: str) -> TensorHandle:
        x, y = a.data, b.data
        with np.errstate(all="ignore"):
            if kind == "f":
                r = _FCMP[predicate](x, y)
            else:
                if predicate >= 6:
                    x, y = _u(x, a.elem), _u(y, b.elem)
                elif a.elem.bits == 1:  # signed i1: true is -1
                    x, y = -x.astype(np.int8), -y.astype(np.int8)
                r = _ICMP[predicate](x, y)
        return TensorHandle(r, _SCALARS["i1"])

    def select(self, c: TensorHandle, a: TensorHandle, b: TensorHandle) -> TensorHandle:
        origin = a.origin if a.origin == b.origin else None
        return TensorHandle(np.where(c.data, a.data, b.data), a.elem, origin)

    # -- tile ops ---------------------------------------------------------

    def program_id(self, axis: int) -> TensorHandle:
        return TensorHandle(np.int32(self.pid[axis]), _SCALARS["i32"])

    def num_programs(self, axis: int) -> TensorHandle:
        return TensorHandle(np.int32(self.grid[axis]), _SCALARS["i32"])

    def make_range(self, start: int, end: int, ir_type: str) -> TensorHandle:
        return TensorHandle(np.arange(start, end, dtype=np.int32), _SCALARS["i32"])

    def splat(self, x: TensorHandle, ir_type: str) -> TensorHandle:
        shape, _ = parse_type(ir_type)
        return TensorHandle(np.broadcast_to(x.data, shape), x.elem, x.origin)

    def broadcast(self, x: TensorHandle, ir_type: str) -> TensorHandle:
        shape, _ = parse_type(ir_type)
        return TensorHandle(np.broadcast_to(x.data, shape), x.elem, x.origin)

    def expand_dims(self, x: TensorHandle, axis: int, ir_type: str) -> TensorHandle:
        return TensorHandle(np.expand_dims(x.data, axis), x.elem, x.origin)

    def reshape(self, x: TensorHandle, ir_type: str, allow_reorder: bool) -> TensorHandle:
        shape, _ = parse_type(ir_type)
        return TensorHandle(np.reshape(x.data, shape), x.elem, x.origin)

    def trans(self, x: TensorHandle, order: Sequence[int], ir_type: str) -> TensorHandle:
        return TensorHandle(np.transpose(x.data, list(order)), x.elem, x.origin)

    def addptr(self, ptr: TensorHandle, offset: TensorHandle) -> TensorHandle:
        size = ptr.elem.pointee.nbytes
        off = np.asarray(offset.data).astype(np.int64) * np.int64(size)
        with np.errstate(all="ignore"):
            data = np.asarray(ptr.data, np.uint64) + np.asarray(off).view(np.uint64)
        return TensorHandle(data, ptr.elem, ptr.origin)

    def load(self, ptr: TensorHandle, mask: Optional[TensorHandle],
             other: Optional[TensorHandle], cache: int, evict: int, volatile: bool,
             ir_type: str) -> TensorHandle:
        shape, elem = parse_type(ir_type)
        addrs = np.asarray(ptr.data, np.uint64)
        flat = addrs.reshape(-1)
        if other is not None:
            out = np.array(np.broadcast_to(other.data, addrs.shape), dtype=elem.np_dtype)
            out = out.reshape(-1)
        else:
            out = np.zeros(flat.size, elem.np_dtype)
        if mask is None:
            active = None
        else:
            m = np.broadcast_to(mask.data, addrs.shape).reshape(-1)
            active = np.nonzero(m)[0]
        if active is None:
            self._check_origin(ptr, flat, elem, "load")
            out = self._read(flat, elem)
        elif active.size:
            self._check_origin(ptr, flat[active], elem, "load")
            out[active] = self._read(flat[active], elem)
        return TensorHandle(out.reshape(addrs.shape), elem)

    def store(self, ptr: TensorHandle, value: TensorHandle, mask: Optional[TensorHandle],
              cache: int, evict: int):
        addrs = np.asarray(ptr.data, np.uint64)
        flat = addrs.reshape(-1)
        elem = ptr.elem.pointee
        values = np.broadcast_to(value.data, addrs.shape).reshape(-1)
        if mask is not None:
            active = np.nonzero(np.broadcast_to(mask.data, addrs.shape).reshape(-1))[0]
            flat, values = flat[active], values[active]
        if flat.size:
            self._check_origin(ptr, flat, elem, "store")
            self._write(flat, values, elem)

    def dot(self, a: TensorHandle, b: TensorHandle, c: TensorHandle, input_precision: int,
            max_imprecise: int) -> TensorHandle:
        celem = c.elem
        with np.errstate(all="ignore"):
            if a.elem.kind == "i":
                r = np.matmul(a.data.astype(np.int64), b.data.astype(np.int64))
                r = (r + c.data.astype(np.int64)).astype(celem.np_dtype)
                return TensorHandle(r, celem)
            if a.data.dtype == np.float64:
                # float64 products (FMA on the GPU) stay float64.
                r = np.matmul(a.data, b.data) + c.data.astype(np.float64)
                return TensorHandle(round_to(r, celem), celem)
            x = a.data.astype(np.float32)
            y = b.data.astype(np.float32)
            if input_precision == 1:  # tf32
                prod = np.matmul(_tf32(x).astype(np.float64), _tf32(y).astype(np.float64))
            elif input_precision == 2:  # tf32x3: big*big + big*small + small*big
                xb, yb = _tf32(x), _tf32(y)
                xs, ys = _tf32(x - xb), _tf32(y - yb)
                xb, yb, xs, ys = (v.astype(np.float64) for v in (xb, yb, xs, ys))
                prod = np.matmul(xb, yb) + np.matmul(xb, ys) + np.matmul(xs, yb)
            else:
                prod = np.matmul(x.astype(np.float64), y.astype(np.float64))
            r = prod + c.data.astype(np.float64)
            return TensorHandle(round_to(r, celem), celem)

    # -- Reductions and scans -------------------------------------------

    def _combine(self, combine, elems, lefts, rights):
        args = [TensorHandle(x, e) for x, e in zip(lefts, elems)] + \
               [TensorHandle(x, e) for x, e in zip(rights, elems)]
        outs = combine(args)
        shape = np.broadcast_shapes(*[x.shape for x in lefts])
        return [np.broadcast_to(np.asarray(o.data).astype(e.np_dtype, copy=False), shape)
                for o, e in zip(outs, elems)]

    def reduce(self, srcs: Sequence[TensorHandle], axis: int, elem_types: Sequence[str],
               result_types: Sequence[str], combine) -> List[TensorHandle]:
        elems = [_elem(t) for t in elem_types]
        arrays = [np.moveaxis(np.asarray(s.data), axis, -1) for s in srcs]
        with np.errstate(all="ignore"):
            # A tree of adjacent pairs: keeps the order of the operands.
            while arrays[0].shape[-1] > 1:
                n = arrays[0].shape[-1]
                even = n - n % 2
                outs = self._combine(combine, elems, [a[..., 0:even:2] for a in arrays],
                                     [a[..., 1:even:2] for a in arrays])
                if n % 2:
                    outs = [np.concatenate([o, a[..., n - 1:]], axis=-1)
                            for o, a in zip(outs, arrays)]
                arrays = outs
        return [TensorHandle(np.array(a[..., 0]), e) for a, e in zip(arrays, elems)]

    def scan(self, srcs: Sequence[TensorHandle], axis: int, reverse: bool,
             elem_types: Sequence[str], combine) -> List[TensorHandle]:
        elems = [_elem(t) for t in elem_types]
        arrays = [np.moveaxis(np.asarray(s.data), axis, -1) for s in srcs]
        if reverse:
            arrays = [np.flip(a, -1) for a in arrays]
        n = arrays[0].shape[-1]
        d = 1
        with np.errstate(all="ignore"):
            # Hillis-Steele: after the step of distance d, element i holds the
            # combination of the (up to) 2d elements ending at i, in order.
            while d < n:
                outs = self._combine(combine, elems, [a[..., :n - d] for a in arrays],
                                     [a[..., d:] for a in arrays])
                arrays = [np.concatenate([a[..., :d], o], axis=-1)
                          for a, o in zip(arrays, outs)]
                d *= 2
        if reverse:
            arrays = [np.flip(a, -1) for a in arrays]
        return [TensorHandle(np.ascontiguousarray(np.moveaxis(a, -1, axis)), e)
                for a, e in zip(arrays, elems)]

    # -- Atomics ----------------------------------------------------------

    def _rmw_apply(self, kind: str, elem: _Elem, cur: np.ndarray, val: np.ndarray):
        ops = [TensorHandle(cur, elem), TensorHandle(val, elem)]
        with np.errstate(all="ignore"):
            if kind == "fadd":
                return _OPS["arith.addf"](ops, elem, "")
            if kind == "xchg":
                return val
            name = {"add": "arith.addi", "and": "arith.andi", "or": "arith.ori",
                    "xor": "arith.xori", "max": "arith.maxsi", "min": "arith.minsi",
                    "umax": "arith.maxui", "umin": "arith.minui"}[kind]
            return _OPS[name](ops, elem, "")

    def _atomic(self, ptr: TensorHandle, mask, values, update, elem: _Elem, what: str):
        """Applies `update(current, lane values...) -> new` lane by lane in
        order (lanes on distinct addresses at once); returns the old values."""
        addrs = np.asarray(ptr.data, np.uint64)
        shape = addrs.shape
        flat = addrs.reshape(-1)
        vals = [np.broadcast_to(v, shape).reshape(-1) for v in values]
        old = np.zeros(flat.size, elem.np_dtype)
        if mask is None:
            active = np.arange(flat.size)
        else:
            active = np.nonzero(np.broadcast_to(mask.data, shape).reshape(-1))[0]
        if active.size:
            a_addr = flat[active]
            ranks = _occurrence_rank(a_addr)
            for r in range(int(ranks.max()) + 1):
                sel = np.nonzero(ranks == r)[0]
                lanes = active[sel]
                cur = self._read(a_addr[sel], elem, what)
                new = update(cur, *[v[lanes] for v in vals])
                self._write(a_addr[sel], np.asarray(new, elem.np_dtype), elem, what)
                old[lanes] = cur
        return TensorHandle(old.reshape(shape), elem)

    def atomic_rmw(self, rmw: int, sem: int, scope: int, ptr: TensorHandle,
                   val: TensorHandle, mask: Optional[TensorHandle]) -> TensorHandle:
        kind = _RMW_NAMES[rmw]
        elem = ptr.elem.pointee
        return self._atomic(ptr, mask, [val.data],
                            lambda cur, v: self._rmw_apply(kind, elem, cur, v), elem,
                            f"atomic_{kind}")

    def atomic_cas(self, sem: int, scope: int, ptr: TensorHandle, cmp: TensorHandle,
                   val: TensorHandle) -> TensorHandle:
        elem = ptr.elem.pointee

        def update(cur, c, v):
            equal = to_bits(cur, elem) == to_bits(c, elem)
            return np.where(equal, v, cur)
        return self._atomic(ptr, None, [cmp.data, val.data], update, elem, "atomic_cas")

    # -- Tensor descriptors ------------------------------------------------

    def make_tensor_descriptor(self, base: TensorHandle, shape: Sequence[TensorHandle],
                               strides: Sequence[TensorHandle], ir_type: str) -> TensorHandle:
        _, delem = parse_type(ir_type)
        block_shape, elem = delem.block
        desc = _Descriptor(int(base.data), [int(s.data) for s in shape],
                           [int(s.data) for s in strides], block_shape, elem)
        # What the GPU checks when it writes the tensor map (and traps on):
        # the TMA's alignment rules.
        nbytes = elem.nbytes
        if desc.base % 16 or desc.strides[-1] != 1 or any(
                s <= 0 or (s * nbytes) % 16 for s in desc.strides[:-1]):
            raise self.error(
                f"tl.make_tensor_descriptor: the TMA needs a 16-byte aligned base, strides "
                f"(but the innermost) that are multiples of 16 bytes and an innermost stride "
                f"of 1; got base 0x{desc.base:x} and strides {desc.strides} of {nbytes}-byte "
                f"elements", DeviceAssertionError)
        return TensorHandle(desc, delem)

    def _desc_lanes(self, desc: _Descriptor, offsets: Sequence[TensorHandle]):
        """Addresses of a block's elements and which are inside the tensor."""
        rank = len(desc.block_shape)
        inside = np.ones(desc.block_shape, np.bool_)
        index = np.zeros(desc.block_shape, np.int64)
        for d, (off, size) in enumerate(zip(offsets, desc.block_shape)):
            coord = int(off.data) + np.arange(size, dtype=np.int64)
            view = [1] * rank
            view[d] = size
            coord = coord.reshape(view)
            inside = inside & (coord >= 0) & (coord < desc.shape[d])
            index = index + coord * desc.strides[d]
        with np.errstate(all="ignore"):
            addrs = np.uint64(desc.base) + (index * desc.elem.nbytes).view(np.uint64)
        return addrs, inside

    def descriptor_load(self, desc: TensorHandle, offsets: Sequence[TensorHandle],
                        ir_type: str) -> TensorHandle:
        d = desc.data
        addrs, inside = self._desc_lanes(d, offsets)
        out = np.zeros(addrs.size, d.elem.np_dtype)
        if d.padding == "nan":
            out[:] = np.nan  # every float element type is a NumPy float here
        active = np.nonzero(inside.reshape(-1))[0]
        if active.size:
            out[active] = self._read(addrs.reshape(-1)[active], d.elem, "descriptor load")
        return TensorHandle(out.reshape(d.block_shape), d.elem)

    def descriptor_store(self, desc: TensorHandle, offsets: Sequence[TensorHandle],
                         value: TensorHandle):
        d = desc.data
        addrs, inside = self._desc_lanes(d, offsets)
        active = np.nonzero(inside.reshape(-1))[0]
        if active.size:
            values = np.broadcast_to(value.data, d.block_shape).reshape(-1)
            self._write(addrs.reshape(-1)[active], values[active], d.elem, "descriptor store")

    def descriptor_reduce(self, kind: int, desc: TensorHandle, offsets: Sequence[TensorHandle],
                          value: TensorHandle):
        """`desc.atomic_add` and friends: in-bounds elements combined in
        place (one program at a time, so atomically)."""
        d = desc.data
        addrs, inside = self._desc_lanes(d, offsets)
        active = np.nonzero(inside.reshape(-1))[0]
        if not active.size:
            return
        where = addrs.reshape(-1)[active]
        old = self._read(where, d.elem, "descriptor reduction")
        new = np.broadcast_to(value.data, d.block_shape).reshape(-1)[active].astype(old.dtype)
        combine = [np.add, np.minimum, np.maximum, np.bitwise_and, np.bitwise_or,
                   np.bitwise_xor][kind]
        with np.errstate(all="ignore"):
            self._write(where, combine(old, new).astype(old.dtype), d.elem,
                        "descriptor reduction")

    # -- Debugging ----------------------------------------------------------

    def hint(self, value, attr, values) -> bool:
        # A promise for the compiler's analysis; it does not change values.
        return True

    def debug_barrier(self):
        # Each op runs for the whole program at once here, so every thread's
        # earlier accesses are already done: the barrier has nothing to wait for.
        return None

    def elementwise_inline_asm(self, asm, constraints, args, result_types, pure, pack):
        # PTX does not run on the CPU (Triton's interpreter cannot run it
        # either): an error at the call's line, not a guess at what it does.
        raise NotImplementedError("tl.inline_asm_elementwise runs PTX, which the interpreter "
                                  "cannot run; compile the kernel for the GPU instead")

    def grid_dependency(self, action: str):
        # Programs run one grid at a time here: the grid before has finished
        # and the next has not started, so there is nothing to wait for or
        # to let start.
        return None

    def device_assert(self, cond: TensorHandle, message: str, cls=DeviceAssertionError):
        data = np.asarray(cond.data)
        if data.all():
            return
        text = "device assertion failed"
        if message:
            text += f": {message}"
        if data.ndim:
            bad = tuple(int(i) for i in np.argwhere(~data.astype(np.bool_))[0])
            text += f" (first failing element at index {list(bad)})"
        raise self.error(text, cls)

    def device_print(self, prefix: str, args: Sequence[TensorHandle], hex: bool,
                     signed: Sequence[int]):
        parts = []
        for h, s in zip(args, signed):
            data = np.asarray(h.data)
            if h.elem.kind == "i" and not s:
                data = _u(data, h.elem)
            if hex:
                bits = to_bits(data, h.elem) if h.elem.kind != "i" else _u(data, h.elem)
                text = np.array2string(np.asarray(bits),
                                       formatter={"int": lambda v: "0x%x" % v}) \
                    if bits.ndim else "0x%x" % int(bits)
            else:
                text = np.array2string(data) if data.ndim else str(data[()])
            parts.append(text)
        print(f"pid ({self.pid[0]}, {self.pid[1]}, {self.pid[2]}) {prefix}" + " ".join(parts))

    # -- Calls and Python control flow --------------------------------------

    def call_function(self, fn, args, kwargs=None):
        from .jit import JITFunction
        fn = fn.value if isinstance(fn, constexpr) else fn
        kwargs = kwargs or {}
        if isinstance(fn, JITFunction):
            return fn.interpreted_fn()(*args, **kwargs)
        return fn(*args, **kwargs)

    def to_bool(self, t) -> bool:
        # (_in_assert_statement looks at the caller's caller's caller: call
        # it from here only.)
        data = np.asarray(t.handle.data)
        if t.type.is_block() and data.size == 1 and not _in_assert_statement():
            # A one-element tensor is its element (the compiler warns).
            return bool(data.reshape(()))
        if t.type.is_block() or data.size != 1:
            if not _in_assert_statement():
                raise SemanticError(f"a tensor of shape {list(t.shape)} has no single truth "
                                    "value; reduce it (tl.max, tl.sum, ...) or use tl.where")
            # `assert mask` on a tensor is a device assert when compiled:
            # every element must hold.
            value = bool(data.all())
        else:
            value = bool(data.reshape(()))
            if value or not _in_assert_statement():
                return value
        if not value:
            self._failed_assert_statement(t.handle)
        return value

    def _failed_assert_statement(self, cond: TensorHandle):
        """Raises what the device assert an `assert` on a tensor compiles
        to reports, with the compiler's message."""
        frame = self._kernel_frame()
        message = _assert_message(frame) if frame is not None else None
        if message is None:
            return  # Python's own AssertionError follows
        self.device_assert(cond, message, AssertStatementError)

    def to_int(self, t) -> int:
        data = np.asarray(t.handle.data)
        if t.type.is_block() and data.size == 1 and not _in_assert_statement():
            # A one-element tensor is its element (the compiler warns).
            return bool(data.reshape(()))
        if t.type.is_block() or data.size != 1:
            raise SemanticError(f"a tensor of shape {list(t.shape)} cannot be used as "
                                "an integer")
        if not t.dtype.is_int():
            raise TypeError(f"a {t.dtype} value cannot be used as an integer")
        data = data.reshape(())
        if t.dtype.is_int_unsigned():
            data = _u(data, t.handle.elem)
        return int(data)


def _is_library_file(filename: str) -> bool:
    path = os.path.abspath(filename)
    return (path.startswith(_PACKAGE_DIR + os.sep) or path.startswith(_NUMPY_DIR + os.sep)
            or filename.startswith(("<frozen", "<launcher of")))
