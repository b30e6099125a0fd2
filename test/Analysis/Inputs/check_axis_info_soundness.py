#!/usr/bin/env python3
"""Soundness check of the axis analysis on random programs.

Generates random tile functions over small integer, mask and pointer tensors
(ranges, structured dense constants, splats of hinted kernel arguments and
program ids, and the ops the analysis has rules for, scf.if included),
evaluates each program for several concrete choices of the unknowns
(arguments that are multiples of their `tile.divisibility`, program ids; the
first two choices are the edge values 0 and the divisor), runs
`warpforge-opt -test-print-axis-info`, and checks every claim on every value:

  * contiguity C along d: in every aligned run of C, each value is the
    previous plus one (plus the pointee size for pointers);
  * divisibility D along d: the value at every run start is a multiple of D;
  * constancy K along d: every aligned run of K holds one value;
  * the constant value: every element equals it.

Values stay in [0, 2^31), so neither overflow nor the sign of a dividend
matters (the analysis assumes neither happens).  Prints a summary; exits 1
with the program and the broken claim when a claim is false.  Plain Python:
lit runs it with the system interpreter.

Usage: check_axis_info_soundness.py --opt PATH [--programs N] [--seed S]
"""

import argparse
import itertools
import random
import re
import subprocess
import sys

INSTANCES = 8
LIMIT = 1 << 31
REMARK = re.compile(r"^<stdin>:(\d+):\d+: remark: (?:(argument|result) #(\d+): )?"
                    r"contiguity = \[([\d, ]+)\], divisibility = \[([\d, ]+)\], "
                    r"constancy = \[([\d, ]+)\], constant_value = (\S+)$")


# ---------------------------------------------------------------------------
# Row-major arrays of Python integers
# ---------------------------------------------------------------------------

class Array:
    def __init__(self, shape, data):
        self.shape, self.data = tuple(shape), list(data)

    @staticmethod
    def full(shape, value):
        return Array(shape, [value] * size(shape))

    @staticmethod
    def build(shape, fn):
        """fn(index tuple) for every index, in row-major order."""
        return Array(shape, [fn(i) for i in indices(shape)])

    def at(self, index):
        flat = 0
        for i, n in zip(index, self.shape):
            flat = flat * n + i
        return self.data[flat]

    def map(self, fn, *others):
        return Array(self.shape, [fn(*xs) for xs in zip(self.data, *(o.data for o in others))])

    def reshape(self, shape):
        return Array(shape, self.data)

    def broadcast(self, shape):
        return Array.build(shape, lambda i: self.at(tuple(0 if n == 1 else k
                                                          for k, n in zip(i, self.shape))))

    def transpose(self):
        return Array.build(self.shape[::-1], lambda i: self.at(i[::-1]))


def size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def indices(shape):
    return itertools.product(*(range(n) for n in shape))


def in_range(arrays):
    return all(0 <= x < LIMIT for a in arrays for x in a.data)


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------

class Value:
    def __init__(self, name, kind, shape, arrays, elem_bytes=1, width=32):
        self.name, self.kind, self.shape = name, kind, tuple(shape)
        self.arrays = arrays          # one Array per instance
        self.elem_bytes = elem_bytes  # pointers: the pointee size
        self.width = width            # integers: 1 (masks), 32 or 64

    def type(self):
        if self.kind == "ptr":
            elem = {1: "!tile.ptr<i8>", 2: "!tile.ptr<f16>", 4: "!tile.ptr<f32>"}[self.elem_bytes]
        else:
            elem = f"i{self.width}"
        if self.shape == ():
            return elem
        return f"tensor<{'x'.join(map(str, self.shape))}x{elem}>"


class Program:
    def __init__(self, rng):
        self.rng = rng
        self.args, self.arg_types, self.lines, self.values = [], [], [], []
        self.splats, self.ranges = set(), set()
        self.count = 0

    def fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def add(self, line, value=None):
        """One line of the body, defining `value` (None: defines nothing)."""
        self.lines.append((line, value))
        if value is not None:
            self.values.append(value)
        return value

    def arg(self, kind, divisor, elem_bytes=1):
        name = f"%a{len(self.args)}"
        rng = self.rng
        if kind == "ptr":
            align = divisor or elem_bytes
            values = [rng.randrange(1 << 20) * align for _ in range(INSTANCES)]
        else:
            # Small, so that comparisons against ranges go both ways; the
            # first instances take the edge values 0 and the divisor itself.
            step = divisor or 1
            values = [0, step] + [rng.randrange(0, 128 // step + 1) * step
                                  for _ in range(INSTANCES - 2)]
        value = Value(name, kind, (), [Array.full((), v) for v in values], elem_bytes)
        attr = f" {{tile.divisibility = {divisor} : i32}}" if divisor else ""
        self.args.append(value)
        self.arg_types.append(f"{name}: {value.type()}{attr}")
        self.values.append(value)
        return value

    def pick(self, kind, shape=None, exclude=None):
        pool = [v for v in self.values if v.kind == kind and v is not exclude
                and (shape is None or v.shape == shape) and (kind != "int" or v.width == 32)]
        return self.rng.choice(pool) if pool else None

    def pick_from(self, names, shape):
        """Half the time one of `names`: the operands the rules look for
        (ranges and offsets on the left, splats on the right)."""
        pool = [v for v in self.values if v.name in names and v.shape == shape]
        if pool and self.rng.randrange(2):
            return self.rng.choice(pool)
        return self.pick("int", shape)

    def pick_shape(self, shapes):
        """Half the time the shape of a range, where the rules have most to
        say."""
        ranges = [v.shape for v in self.values if v.name in self.ranges]
        if ranges and self.rng.randrange(2):
            return self.rng.choice(ranges)
        return self.rng.choice(shapes)

    def text(self):
        body = "\n".join(f"  {line}" for line, _ in self.lines)
        return (f"tile.func public @f({', '.join(self.arg_types)}) {{\n{body}\n"
                f"  tile.return\n}}\n")


def structured(rng, shape):
    """base + a structured term per dimension: runs, blocks, strides."""
    terms = []
    for d in range(len(shape)):
        s, b = rng.choice([1, 2, 4, 8, 16, 3]), rng.choice([1, 2, 4, 8])
        table = [rng.randrange(64) for _ in range(shape[d])]
        terms.append(rng.choice([
            lambda i: 0, lambda i: i, lambda i, s=s: i * s,
            lambda i, s=s, b=b: i // b * s, lambda i, b=b: i % b,
            lambda i, t=table: t[i]]))
    base = rng.choice([0, 0, 1, 3, 8, 16, 64, 100])
    return Array.build(shape, lambda index: base + sum(t(i) for t, i in zip(terms, index)))


def dense_literal(array):
    def nest(index, d):
        if d == len(array.shape):
            return str(array.at(index))
        return "[" + ", ".join(nest(index + (i,), d + 1) for i in range(array.shape[d])) + "]"
    return nest((), 0)


BINARY = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: a // b, "arith.divui": lambda a, b: a // b,
    "arith.remsi": lambda a, b: a % b, "arith.remui": lambda a, b: a % b,
    "arith.andi": lambda a, b: a & b, "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
    "arith.minsi": min, "arith.maxsi": max, "arith.minui": min, "arith.maxui": max,
    "arith.shli": lambda a, b: a << b,
    "arith.shrsi": lambda a, b: a >> b, "arith.shrui": lambda a, b: a >> b,
}
CMP = {"slt": lambda a, b: int(a < b), "ult": lambda a, b: int(a < b),
       "sle": lambda a, b: int(a <= b), "sgt": lambda a, b: int(a > b),
       "uge": lambda a, b: int(a >= b), "eq": lambda a, b: int(a == b),
       "ne": lambda a, b: int(a != b)}
SHAPES_2D = [(4, 8), (8, 4), (2, 16)]


# One generator per kind of op: each adds lines to `p` or gives up.

def gen_make_range(p, rng, shapes):
    n = rng.choice([s[0] for s in shapes if len(s) == 1])
    start = rng.choice([0, 0, 1, 4, 8, 16, 3, 32])
    name = p.fresh()
    arrays = [Array((n,), range(start, start + n))] * INSTANCES
    p.add(f"{name} = tile.make_range {{start = {start} : i32, end = {start + n} : i32}}"
          f" : tensor<{n}xi32>", Value(name, "int", (n,), arrays))
    p.ranges.add(name)


def gen_dense(p, rng, shapes):
    shape = rng.choice(shapes)
    array = structured(rng, shape)
    v = Value(p.fresh(), "int", shape, [array] * INSTANCES)
    p.add(f"{v.name} = arith.constant dense<{dense_literal(array)}> : {v.type()}", v)


def gen_scalar_constant(p, rng, shapes):
    c = rng.choice([0, 1, 2, 3, 4, 8, 16, 24, 32, 48])
    v = Value(p.fresh(), "int", (), [Array.full((), c)] * INSTANCES)
    p.add(f"{v.name} = arith.constant {c} : i32", v)


def gen_splat(p, rng, shapes):
    src, shape = p.pick("int", ()), p.pick_shape(shapes)
    v = Value(p.fresh(), "int", shape, [Array.full(shape, a.data[0]) for a in src.arrays])
    p.add(f"{v.name} = tile.splat {src.name} : i32 -> {v.type()}", v)
    p.splats.add(v.name)


def gen_binary(p, rng, shapes):
    shape = p.pick_shape(shapes + [()])
    a, b = p.pick_from(p.ranges, shape), p.pick_from(p.splats, shape)
    if a is None or b is None:
        return
    op = rng.choice(sorted(BINARY))
    if op.startswith("arith.sh"):
        amount = rng.randrange(0, 5)
        b = Value(p.fresh(), "int", shape, [Array.full(shape, amount)] * INSTANCES)
        literal = f"dense<{amount}> : {b.type()}" if shape else f"{amount} : i32"
        p.add(f"{b.name} = arith.constant {literal}", b)
    if op.startswith(("arith.div", "arith.rem")) and 0 in (x for y in b.arrays for x in y.data):
        return
    arrays = [x.map(BINARY[op], y) for x, y in zip(a.arrays, b.arrays)]
    if not in_range(arrays):
        return
    v = Value(p.fresh(), "int", shape, arrays)
    p.add(f"{v.name} = {op} {a.name}, {b.name} : {v.type()}", v)
    if a.name in p.ranges and op in ("arith.addi", "arith.subi", "arith.remsi"):
        p.ranges.add(v.name)


def gen_cmp(p, rng, shape, swap=True):
    x, n = p.pick_from(p.ranges, shape), p.pick_from(p.splats, shape)
    if x is None or n is None:
        return None
    if swap and rng.randrange(2):
        x, n = n, x
    pred = rng.choice(sorted(CMP))
    v = Value(p.fresh(), "bool", shape,
              [u.map(CMP[pred], w) for u, w in zip(x.arrays, n.arrays)], width=1)
    p.add(f"{v.name} = arith.cmpi {pred}, {x.name}, {n.name} : {x.type()}", v)
    return v


def gen_select(p, rng, shapes):
    shape = p.pick_shape(shapes)
    if rng.randrange(3):
        a = p.pick_from(p.ranges, shape)
        b = p.pick("int", shape, exclude=a)
    else:  # pointers to the same type
        a = p.pick("ptr", shape)
        b = a and rng.choice([v for v in p.values if v.kind == "ptr" and v.shape == shape
                              and v.elem_bytes == a.elem_bytes])
    if a is None or b is None:
        return
    c = p.pick("bool", shape)
    if c is None or rng.randrange(2):
        c = gen_cmp(p, rng, shape, swap=False)
        if c is None:
            return
    v = Value(p.fresh(), a.kind, shape,
              [k.map(lambda kk, u, w: u if kk else w, u, w)
               for k, u, w in zip(c.arrays, a.arrays, b.arrays)], a.elem_bytes)
    p.add(f"{v.name} = arith.select {c.name}, {a.name}, {b.name} : {c.type()}, {v.type()}", v)


def gen_mask_op(p, rng, shapes):
    shape = rng.choice(shapes)
    c, c2 = p.pick("bool", shape), p.pick("bool", shape)
    if c is None:
        return
    op = rng.choice(["arith.andi", "arith.ori", "arith.xori"])
    v = Value(p.fresh(), "bool", shape,
              [x.map(BINARY[op], y) for x, y in zip(c.arrays, c2.arrays)], width=1)
    p.add(f"{v.name} = {op} {c.name}, {c2.name} : {v.type()}", v)


def gen_expand_broadcast(p, rng, rows, cols):
    kind = rng.choice(["int", "int", "bool", "ptr"])
    n = rng.choice([rows, cols])
    src = p.pick(kind, (n,))
    if src is None:
        return
    axis = 1 if n == rows else 0
    eshape = (n, 1) if axis == 1 else (1, n)
    e = Value(p.fresh(), kind, eshape, [x.reshape(eshape) for x in src.arrays],
              src.elem_bytes, src.width)
    p.add(f"{e.name} = tile.expand_dims {src.name} {{axis = {axis} : i32}} : "
          f"{src.type()} -> {e.type()}", e)
    b = Value(p.fresh(), kind, (rows, cols), [x.broadcast((rows, cols)) for x in e.arrays],
              src.elem_bytes, src.width)
    p.add(f"{b.name} = tile.broadcast {e.name} : {e.type()} -> {b.type()}", b)


def gen_trans_reshape(p, rng, rows, cols):
    kind = rng.choice(["int", "int", "bool", "ptr"])
    src = p.pick(kind, (rows, cols)) if rng.randrange(2) else p.pick(kind, (rows * cols,))
    if src is None:
        return
    name = p.fresh()
    if src.shape == (rows, cols) and rng.randrange(2):
        v = Value(name, kind, (cols, rows), [x.transpose() for x in src.arrays],
                  src.elem_bytes, src.width)
        p.add(f"{name} = tile.trans {src.name} {{order = array<i32: 1, 0>}} : "
              f"{src.type()} -> {v.type()}", v)
    else:
        shape = (rows * cols,) if src.shape == (rows, cols) else (rows, cols)
        v = Value(name, kind, shape, [x.reshape(shape) for x in src.arrays],
                  src.elem_bytes, src.width)
        p.add(f"{name} = tile.reshape {src.name} : {src.type()} -> {v.type()}", v)


def gen_addptr(p, rng, shapes, ptr):
    shape = rng.choice(shapes)
    off = p.pick("int", shape)
    base = p.pick("ptr", shape) if rng.randrange(2) else None
    if off is None:
        return
    if base is None:
        base = Value(p.fresh(), "ptr", shape, [Array.full(shape, a.data[0]) for a in ptr.arrays],
                     ptr.elem_bytes)
        p.add(f"{base.name} = tile.splat {ptr.name} : {ptr.type()} -> {base.type()}", base)
    step = base.elem_bytes
    v = Value(p.fresh(), "ptr", shape,
              [x.map(lambda a, o: a + o * step, y) for x, y in zip(base.arrays, off.arrays)], step)
    p.add(f"{v.name} = tile.addptr {base.name}, {off.name} : {v.type()}, {off.type()}", v)


def gen_ptr_int_casts(p, rng):
    src = p.pick("ptr")
    if src is None or src.shape == ():
        return
    i = Value(p.fresh(), "int", src.shape, src.arrays, width=64)
    p.add(f"{i.name} = tile.ptr_to_int {src.name} : {src.type()} -> {i.type()}", i)
    q = Value(p.fresh(), "ptr", src.shape, src.arrays, rng.choice([1, 2, 4]))
    p.add(f"{q.name} = tile.int_to_ptr {i.name} : {i.type()} -> {q.type()}", q)


def gen_if(p, rng, shapes):
    """scf.if choosing between two values: the lattice join."""
    shape = p.pick_shape(shapes)
    a = p.pick_from(p.ranges, shape)
    b = p.pick("int", shape, exclude=a)
    x, n = p.pick("int", ()), p.pick("int", ())
    if a is None or b is None:
        return
    cond = Value(p.fresh(), "bool", (), [u.map(CMP["slt"], w) for u, w in zip(x.arrays, n.arrays)],
                 width=1)
    p.add(f"{cond.name} = arith.cmpi slt, {x.name}, {n.name} : i32", cond)
    v = Value(p.fresh(), "int", shape,
              [u if k.data[0] else w for k, u, w in zip(cond.arrays, a.arrays, b.arrays)])
    p.add(f"{v.name} = scf.if {cond.name} -> ({v.type()}) {{", v)
    p.add(f"  scf.yield {a.name} : {v.type()}")
    p.add("} else {")
    p.add(f"  scf.yield {b.name} : {v.type()}")
    p.add("}")


def gen_ext_trunc(p, rng):
    src = p.pick("int")
    w = Value(p.fresh(), "int", src.shape, src.arrays, width=64)
    p.add(f"{w.name} = arith.extsi {src.name} : {src.type()} to {w.type()}", w)
    t = Value(p.fresh(), "int", src.shape, src.arrays)
    p.add(f"{t.name} = arith.trunci {w.name} : {w.type()} to {t.type()}", t)


def generate(rng):
    p = Program(rng)
    rows, cols = rng.choice(SHAPES_2D)
    shapes = [(rows,), (cols,), (rows, cols), (rows * cols,)]
    for _ in range(rng.randrange(1, 4)):
        p.arg("int", rng.choice([None, 2, 4, 8, 16, 64]))
    ptr = p.arg("ptr", rng.choice([None, 16]), rng.choice([1, 2, 4]))
    pid = Value(p.fresh(), "int", (), [Array.full((), v) for v in
                                       [0, 1] + [rng.randrange(64) for _ in range(INSTANCES - 2)]])
    p.add(f"{pid.name} = tile.get_program_id x : i32", pid)
    generators = [
        lambda: gen_make_range(p, rng, shapes), lambda: gen_dense(p, rng, shapes),
        lambda: gen_scalar_constant(p, rng, shapes), lambda: gen_splat(p, rng, shapes),
        lambda: gen_binary(p, rng, shapes), lambda: gen_binary(p, rng, shapes),
        lambda: gen_binary(p, rng, shapes), lambda: gen_cmp(p, rng, p.pick_shape(shapes)),
        lambda: gen_select(p, rng, shapes), lambda: gen_mask_op(p, rng, shapes),
        lambda: gen_expand_broadcast(p, rng, rows, cols),
        lambda: gen_trans_reshape(p, rng, rows, cols),
        lambda: gen_addptr(p, rng, shapes, ptr), lambda: gen_ptr_int_casts(p, rng),
        lambda: gen_if(p, rng, shapes), lambda: gen_ext_trunc(p, rng),
    ]
    for _ in range(rng.randrange(8, 24)):
        rng.choice(generators)()
    return p


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------

def check_claim(value, claim, array):
    """The first false claim on `array`, or None."""
    contiguity, divisibility, constancy, constant = claim
    shape = value.shape or (1,)
    a = array.reshape(shape)
    step = value.elem_bytes if value.kind == "ptr" else 1
    if constant is not None and any(x != constant for x in a.data):
        return f"not all equal to {constant}"
    for d in range(len(shape)):
        c, k, dv = contiguity[d], constancy[d], divisibility[d]
        if shape[d] % c or shape[d] % k:
            return f"run length does not divide dimension {d}"
        for index in indices(shape):
            i = index[d]
            start = a.at(index[:d] + (i // c * c,) + index[d + 1:])
            if a.at(index) != start + (i % c) * step:
                return f"not contiguous in runs of {c} along {d}"
            if i % c == 0 and a.at(index) % dv:
                return f"run starts not multiples of {dv} along {d}"
            if a.at(index) != a.at(index[:d] + (i // k * k,) + index[d + 1:]):
                return f"not constant in runs of {k} along {d}"
    return None


def parse_remarks(stderr, program):
    """Claims by value: remarks at line L describe the value defined there."""
    claims = {}
    line_of = {i + 2: v for i, (_, v) in enumerate(program.lines) if v is not None}
    for line in stderr.splitlines():
        m = REMARK.match(line)
        if not m:
            continue
        number, prefix, index = int(m.group(1)), m.group(2), m.group(3)
        vectors = [list(map(int, m.group(i).split(", "))) for i in (4, 5, 6)]
        constant = None if m.group(7) == "<none>" else int(m.group(7))
        if prefix == "argument" and number == 1:
            value = program.args[int(index)]
        elif prefix is None and number in line_of:
            value = line_of[number]
        else:
            continue
        claims[value.name] = (value, (*vectors, constant))
    return claims


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt", required=True)
    parser.add_argument("--programs", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    checked = unsound = 0
    for n in range(args.programs):
        program = generate(rng)
        text = program.text()
        proc = subprocess.run([args.opt, "-", "-test-print-axis-info", "-o", "/dev/null"],
                              input=text, text=True, capture_output=True, timeout=60)
        if proc.returncode != 0:
            print(f"=== program {n} (seed {args.seed}) failed:\n{text}\n{proc.stderr}")
            return 1
        claims = parse_remarks(proc.stderr, program)
        missing = [v.name for v in program.values if v.name not in claims]
        if missing:
            print(f"=== program {n} (seed {args.seed}): no remark for {missing}\n{text}")
            return 1
        for value, claim in claims.values():
            checked += 1
            for i, array in enumerate(value.arrays):
                problem = check_claim(value, claim, array)
                if problem:
                    unsound += 1
                    print(f"=== program {n} (seed {args.seed}): {value.name} claims {claim}, "
                          f"but {problem} in instance {i}: {array.data}\n{text}")
                    break
    print(f"{args.programs} programs, {checked} values checked, {unsound} unsound")
    return 1 if unsound else 0


if __name__ == "__main__":
    sys.exit(main())
