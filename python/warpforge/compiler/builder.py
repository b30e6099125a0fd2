"""Builds `tile` IR as MLIR text.

The semantic layer (`warpforge.language.semantic`) decides types; the builder
only records operations. Ops are written in MLIR's generic form, which is
uniform for every dialect; `warpforge.ir.parse` turns the result into the
custom form. Every op carries the Python location the code generator set.

The interpreter implements the same methods on NumPy arrays, so compiled and
interpreted kernels share one semantic layer.
"""

from __future__ import annotations

import math
import struct
from contextlib import contextmanager
from typing import Callable, List, Optional, Sequence, Tuple


class Value:
    """An SSA value: its name and MLIR type."""

    __slots__ = ("name", "type")

    def __init__(self, name: str, type: str):
        self.name = name
        self.type = type

    def __repr__(self):
        return f"{self.name}: {self.type}"


def mlir_string(s: str) -> str:
    """A Python string as an MLIR string literal."""
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.extend("\\%02X" % b for b in ch.encode("utf-8"))
    return '"' + "".join(out) + '"'


# Per narrower float type, the halfway point between its largest finite
# value and the next power of 2: from there up a value rounds to infinity
# (round to nearest even; the largest finite mantissa is odd).
_FLOAT_MAX = {"f32": 2.0 ** 128 - 2.0 ** 103, "f16": 65520.0, "bf16": 2.0 ** 128 - 2.0 ** 119}


def float_literal(value: float, ir_type: str) -> str:
    """A float attribute's text; non-finite values (and finite ones too
    large for the type, which round to infinity) as the type's bit pattern.
    MLIR's float literals need a mantissa with a point: `1.0e-05`, never
    Python's `1e-05`."""
    if math.isfinite(value) and abs(value) < _FLOAT_MAX.get(ir_type, math.inf):
        text = repr(float(value))
        if "." not in text and "e" in text:
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    if math.isfinite(value):
        value = math.copysign(math.inf, value)
    if ir_type == "f64":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    bits32 = struct.unpack("<I", struct.pack("<f", value))[0]
    if ir_type == "f32":
        return "0x%08X" % bits32
    if ir_type == "bf16":
        return "0x%04X" % (bits32 >> 16)
    if ir_type == "f16":
        import numpy as np
        return "0x%04X" % int(np.array(value, dtype=np.float16).view(np.uint16))
    raise ValueError(f"no literal for {value} of type {ir_type}")


class TextBuilder:
    """Records tile/arith/math/scf operations as MLIR text."""

    def __init__(self, filename: str = "<unknown>"):
        self.filename = filename
        self.loc: Tuple[str, int, int] = (filename, 0, 0)
        self._blocks: List[List[str]] = [[]]
        self._counter = 0
        self.functions: List[str] = []
        # Result name -> (block, index) of the line defining it, for hints.
        self._defs = {}
        # Hints on the arguments of the function being built, by argument name.
        self._arg_hints = {}

    # -- Emission ---------------------------------------------------------

    def set_loc(self, line: int, col: int, filename: Optional[str] = None):
        self.loc = (filename or self.filename, line, col)

    def _loc(self) -> str:
        f, line, col = self.loc
        return f" loc({mlir_string(f)}:{line}:{col})"

    def _fresh(self) -> str:
        self._counter += 1
        return f"%{self._counter}"

    def emit(self, op: str, operands: Sequence[Value], result_types: Sequence[str],
             props: str = "", regions: Sequence[str] = (), attrs: str = "") -> List[Value]:
        results = [Value(self._fresh(), t) for t in result_types]
        text = ""
        if results:
            text = ", ".join(r.name for r in results) + " = "
        text += f'"{op}"(' + ", ".join(o.name for o in operands) + ")"
        if props:
            text += " <{" + props + "}>"
        if regions:
            text += " (" + ", ".join(regions) + ")"
        if attrs:
            text += " {" + attrs + "}"
        text += " : (" + ", ".join(o.type for o in operands) + ") -> "
        if len(result_types) == 1:
            text += result_types[0]
        else:
            text += "(" + ", ".join(result_types) + ")"
        block = self._blocks[-1]
        block.append(text + self._loc())
        for r in results:
            self._defs[r.name] = (block, len(block) - 1)
        return results

    def emit1(self, op, operands, result_type, props="", regions=()) -> Value:
        return self.emit(op, operands, [result_type], props, regions)[0]

    @contextmanager
    def region(self, arg_types: Sequence[str]):
        """Collects the ops of a one-block region; yields its arguments.
        The region's text is in `self.last_region` afterwards."""
        args = self.block_args(arg_types)
        self._blocks.append([])
        try:
            yield args
        finally:
            body = self._blocks.pop()
        self.last_region = self.render_region(body, args)

    def yield_(self, op: str, values: Sequence[Value]):
        self.emit(op, values, [])

    def push_block(self, lines: Optional[List[str]] = None):
        """Starts collecting ops into `lines` (a new list by default)."""
        self._blocks.append(lines if lines is not None else [])

    def pop_block(self) -> List[str]:
        return self._blocks.pop()

    @staticmethod
    def render_region(lines: List[str], args: Sequence[Value] = ()) -> str:
        header = ""
        if args:
            header = "^bb0(" + ", ".join(f"{a.name}: {a.type}" for a in args) + "):\n"
        return "{\n" + header + "".join("  " + l + "\n" for l in lines) + "}"

    def block_args(self, types: Sequence[str]) -> List[Value]:
        return [Value(self._fresh().replace("%", "%a"), t) for t in types]

    # -- Scalars and constants -------------------------------------------

    def constant(self, value, ir_type: str, elem_type: str) -> Value:
        if elem_type == "i1":
            lit = "true" if value else "false"
        elif elem_type.startswith("i"):
            lit = str(int(value))
        else:
            lit = float_literal(float(value), elem_type)
        if ir_type.startswith("tensor<"):
            attr = f"dense<{lit}> : {ir_type}"
        elif elem_type == "i1":
            attr = lit  # a bool attribute takes no type
        else:
            attr = f"{lit} : {ir_type}"
        return self.emit1("arith.constant", [], ir_type, f"value = {attr}")

    def op(self, name: str, operands: Sequence[Value], result_type: str,
           props: str = "") -> Value:
        """An `arith`/`math`/`tile` op with one result, by name."""
        return self.emit1(name, operands, result_type, props)

    def cmp(self, kind: str, predicate: int, a: Value, b: Value, result_type: str) -> Value:
        return self.emit1(f"arith.cmp{kind}", [a, b], result_type,
                          f"predicate = {predicate} : i64")

    def select(self, c: Value, a: Value, b: Value) -> Value:
        return self.emit1("arith.select", [c, a, b], a.type)

    # -- tile ops ---------------------------------------------------------

    def program_id(self, axis: int) -> Value:
        return self.emit1("tile.get_program_id", [], "i32", f"axis = {axis} : i32")

    def num_programs(self, axis: int) -> Value:
        return self.emit1("tile.get_num_programs", [], "i32", f"axis = {axis} : i32")

    def make_range(self, start: int, end: int, ir_type: str) -> Value:
        return self.emit1("tile.make_range", [], ir_type,
                          f"end = {end} : i32, start = {start} : i32")

    def splat(self, x: Value, ir_type: str) -> Value:
        return self.emit1("tile.splat", [x], ir_type)

    def broadcast(self, x: Value, ir_type: str) -> Value:
        return self.emit1("tile.broadcast", [x], ir_type)

    def expand_dims(self, x: Value, axis: int, ir_type: str) -> Value:
        return self.emit1("tile.expand_dims", [x], ir_type, f"axis = {axis} : i32")

    def reshape(self, x: Value, ir_type: str, allow_reorder: bool) -> Value:
        return self.emit1("tile.reshape", [x], ir_type,
                          "allow_reorder" if allow_reorder else "")

    def trans(self, x: Value, order: Sequence[int], ir_type: str) -> Value:
        return self.emit1("tile.trans", [x], ir_type,
                          "order = array<i32: " + ", ".join(map(str, order)) + ">")

    def addptr(self, ptr: Value, offset: Value) -> Value:
        return self.emit1("tile.addptr", [ptr, offset], ptr.type)

    @staticmethod
    def _hints(cache: int, evict: int) -> List[str]:
        return [f"cache = {cache} : i32", f"evict = {evict} : i32"]

    def load(self, ptr: Value, mask: Optional[Value], other: Optional[Value], cache: int,
             evict: int, volatile: bool, ir_type: str) -> Value:
        operands = [ptr] + ([mask] if mask else []) + ([other] if other else [])
        props = self._hints(cache, evict)
        if volatile:
            props.append("isVolatile")
        props.append("operandSegmentSizes = array<i32: 1, %d, %d>" % (bool(mask), bool(other)))
        return self.emit1("tile.load", operands, ir_type, ", ".join(props))

    def store(self, ptr: Value, value: Value, mask: Optional[Value], cache: int, evict: int):
        operands = [ptr, value] + ([mask] if mask else [])
        self.emit("tile.store", operands, [], ", ".join(self._hints(cache, evict)))

    def dot(self, a: Value, b: Value, c: Value, input_precision: int, max_imprecise: int) -> Value:
        return self.emit1("tile.dot", [a, b, c], c.type,
                          f"inputPrecision = {input_precision} : i32, "
                          f"maxNumImpreciseAcc = {max_imprecise} : i32")

    def _combiner(self, op: str, elem_types: Sequence[str],
                  combine: Callable[[List[Value]], List[Value]]) -> str:
        with self.region(list(elem_types) * 2) as args:
            results = combine(args)
            self.yield_(op, results)
        return self.last_region

    def reduce(self, srcs: Sequence[Value], axis: int, elem_types: Sequence[str],
               result_types: Sequence[str], combine) -> List[Value]:
        region = self._combiner("tile.reduce.return", elem_types, combine)
        return self.emit("tile.reduce", srcs, result_types, f"axis = {axis} : i32", [region])

    def scan(self, srcs: Sequence[Value], axis: int, reverse: bool,
             elem_types: Sequence[str], combine) -> List[Value]:
        region = self._combiner("tile.scan.return", elem_types, combine)
        props = f"axis = {axis} : i32" + (", reverse" if reverse else "")
        return self.emit("tile.scan", srcs, [s.type for s in srcs], props, [region])

    def atomic_rmw(self, rmw: int, sem: int, scope: int, ptr: Value, val: Value,
                   mask: Optional[Value]) -> Value:
        operands = [ptr, val] + ([mask] if mask else [])
        return self.emit1("tile.atomic_rmw", operands, val.type,
                          f"atomic_rmw_op = {rmw} : i32, scope = {scope} : i32, sem = {sem} : i32")

    def atomic_cas(self, sem: int, scope: int, ptr: Value, cmp: Value, val: Value) -> Value:
        return self.emit1("tile.atomic_cas", [ptr, cmp, val], val.type,
                          f"scope = {scope} : i32, sem = {sem} : i32")

    def make_tensor_descriptor(self, base: Value, shape: Sequence[Value],
                               strides: Sequence[Value], ir_type: str) -> Value:
        return self.emit1("tile.make_tensor_descriptor", [base, *shape, *strides], ir_type,
                          "operandSegmentSizes = array<i32: 1, %d, %d>" % (len(shape), len(strides)))

    def descriptor_load(self, desc: Value, offsets: Sequence[Value], ir_type: str) -> Value:
        return self.emit1("tile.descriptor_load", [desc, *offsets], ir_type,
                          ", ".join(self._hints(1, 1)))

    def descriptor_store(self, desc: Value, offsets: Sequence[Value], value: Value):
        self.emit("tile.descriptor_store", [desc, *offsets, value], [])

    def descriptor_reduce(self, kind: int, desc: Value, offsets: Sequence[Value], value: Value):
        self.emit("tile.descriptor_reduce", [desc, *offsets, value], [], f"kind = {kind} : i32")

    def debug_barrier(self):
        self.emit("tile.barrier", [], [])

    def elementwise_inline_asm(self, asm: str, constraints: str, args: Sequence[Value],
                               result_types: Sequence[str], pure: bool, pack: int) -> List[Value]:
        return self.emit("tile.elementwise_inline_asm", args, result_types,
                         f"asm_string = {mlir_string(asm)}, constraints = {mlir_string(constraints)}, "
                         f"packed_element = {int(pack)} : i32, pure = {'true' if pure else 'false'}")

    def grid_dependency(self, action: str):
        self.emit("tile.grid_dependency", [], [], f'action = "{action}"')

    def hint(self, value: Value, attr: str, values: Sequence[int]) -> bool:
        """Attaches `attr = array<i32: values>` to the op defining `value`
        (or to the argument, for a function argument). False when `value` is
        another block argument (a loop-carried value), which has no op."""
        text = f"{attr} = array<i32: {', '.join(map(str, values))}>"
        if value.name.startswith("%arg"):
            # A scalar kernel argument: its divisibility, in the same form as
            # specialization gives it (the largest power of two dividing it).
            if attr != "tile.divisibility":
                return False
            pow2 = values[0] & -values[0]
            self._arg_hints[value.name] = max(self._arg_hints.get(value.name, 1), pow2)
            return True
        site = self._defs.get(value.name)
        if site is None:
            return False
        block, index = site
        line = block[index]
        cut = line.rindex(" : (")
        head, tail = line[:cut], line[cut:]
        if head.endswith("}") and not head.endswith("}>"):
            head = head[:-1] + ", " + text + "}"  # the op already has attributes
        else:
            head += " {" + text + "}"
        block[index] = head + tail
        return True

    def device_assert(self, cond: Value, message: str):
        self.emit("tile.assert", [cond], [], f"message = {mlir_string(message)}")

    def device_print(self, prefix: str, args: Sequence[Value], hex: bool, signed: Sequence[int]):
        self.emit("tile.print", args, [],
                  f"hex = {'true' if hex else 'false'}, isSigned = array<i32"
                  + "".join(f", {int(s)}" if i else f": {int(s)}" for i, s in enumerate(signed))
                  + f">, prefix = {mlir_string(prefix)}")

    # -- Structured control flow (used by the code generator) ------------

    def scf_if(self, cond: Value, then_lines: List[str], then_yield: Sequence[Value],
               else_lines: List[str], else_yield: Sequence[Value]) -> List[Value]:
        """An scf.if from the ops of its two branches and the values each
        yields (the code generator knows them only after both are built)."""
        regions = []
        for lines, values in ((then_lines, then_yield), (else_lines, else_yield)):
            self.push_block(lines)
            self.yield_("scf.yield", values)
            regions.append(self.render_region(self.pop_block()))
        return self.emit("scf.if", [cond], [v.type for v in then_yield], "", regions)

    def scf_for(self, lb: Value, ub: Value, step: Value, inits: Sequence[Value],
                args: Sequence[Value], body_lines: List[str], yields: Sequence[Value],
                attrs: str = "") -> List[Value]:
        """An scf.for whose body (with block arguments `args`: the induction
        variable, then one per init) is `body_lines`, yielding `yields`."""
        self.push_block(body_lines)
        self.yield_("scf.yield", yields)
        region = self.render_region(self.pop_block(), args)
        return self.emit("scf.for", [lb, ub, step, *inits], [v.type for v in inits], "",
                         [region], attrs)

    def scf_while(self, inits: Sequence[Value], before_args: Sequence[Value],
                  before_lines: List[str], cond: Value, after_args: Sequence[Value],
                  after_lines: List[str], yields: Sequence[Value],
                  attrs: str = "") -> List[Value]:
        self.push_block(before_lines)
        self.emit("scf.condition", [cond, *before_args], [])
        before = self.render_region(self.pop_block(), before_args)
        self.push_block(after_lines)
        self.yield_("scf.yield", yields)
        after = self.render_region(self.pop_block(), after_args)
        return self.emit("scf.while", list(inits), [v.type for v in inits], "", [before, after],
                         attrs)

    def call(self, callee: str, args: Sequence[Value], result_types: Sequence[str]) -> List[Value]:
        return self.emit("tile.call", args, result_types, f"callee = @{callee}")

    # -- Functions ---------------------------------------------------------

    def function(self, name: str, public: bool, arg_types: Sequence[str],
                 arg_attrs: Sequence[str], body_fn: Callable[[List[Value]], List[Value]],
                 loc: Tuple[str, int, int]) -> List[str]:
        """Emits a tile.func; `body_fn` builds the body from the arguments and
        returns the values to return. Returns the result types."""
        args = [Value(f"%arg{i}", t) for i, t in enumerate(arg_types)]
        saved_hints, self._arg_hints = self._arg_hints, {}
        self._blocks.append([])
        try:
            results = body_fn(args)
            self.emit("tile.return", results, [])
        finally:
            body = self._blocks.pop()
        attrs = []
        for a, attr in zip(args, arg_attrs):
            hinted = self._arg_hints.get(a.name, 1)
            known = int(attr.split("=")[1].split(":")[0]) if attr else 1
            divisor = max(hinted, known)
            attrs.append(f"tile.divisibility = {divisor} : i32" if divisor > 1 else "")
        self._arg_hints = saved_hints
        params = ", ".join(f"{a.name}: {a.type}" + (f" {{{attr}}}" if attr else "")
                           for a, attr in zip(args, attrs))
        result_types = [r.type for r in results]
        sig = f"({params})"
        if result_types:
            sig += " -> (" + ", ".join(result_types) + ")"
        f, line, col = loc
        text = (f"tile.func {'public' if public else 'private'} @{name}{sig} {{\n"
                + "".join("  " + l + "\n" for l in body)
                + f"}} loc({mlir_string(f)}:{line}:{col})\n")
        self.functions.append(text)
        return result_types

    def module(self) -> str:
        return "module {\n" + "".join(self.functions) + "}\n"

    # -- Python control flow on values -------------------------------------

    def to_bool(self, t) -> bool:
        from .errors import UnsupportedLanguageConstruct
        raise UnsupportedLanguageConstruct(
            "a tensor's value is only known when the kernel runs; it cannot "
            "decide Python control flow at compile time (use `if` on it "
            "directly, or tl.where)")

    def to_int(self, t) -> int:
        from .errors import UnsupportedLanguageConstruct
        raise UnsupportedLanguageConstruct(
            "a tensor's value is only known when the kernel runs; a "
            "tl.constexpr is needed here")
