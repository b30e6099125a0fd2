"""Python AST -> `tile` IR.

The generator evaluates the kernel's AST the way Python would, except that
values are `tensor`s (recorded through the builder) or compile-time
`constexpr`s (folded here). Control flow on constexprs is resolved now;
control flow on tensors becomes `scf.if`, `scf.for` and `scf.while`, with
the variables a branch or loop body rebinds carried as results. Calls to
other `@jit` functions become private device functions (inlined later by
the `tile-optimize` pipeline). Every op carries the Python line it came from.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import inspect
import operator
import types
import warnings
from typing import Any, Dict, List, Optional, Sequence

from .. import language as tl
from ..language import core, semantic
from ..language.core import constexpr, tensor
from . import attrs as attrs_
from .builder import TextBuilder
from .errors import CompilationError, UnsupportedLanguageConstruct
from .options import UnsupportedOptionWarning


class KernelFunction:
    """The base of `warpforge.jit` functions (`runtime.jit.JITFunction`):
    what the code generator recognizes as a kernel or device function it may
    call and inline. Declared here, below the runtime, so that the compiler
    does not import the runtime."""

# Python builtins a kernel may call; on constexprs they run at compile time.
_BUILTINS = {
    "range": builtins.range, "len": len, "min": min, "max": max, "int": int,
    "float": float, "bool": bool, "abs": builtins.abs, "isinstance": isinstance,
    "zip": zip, "enumerate": enumerate, "tuple": tuple, "list": list, "print": print,
    "getattr": getattr, "hasattr": hasattr, "round": round, "str": str, "type": type,
    "True": True, "False": False, "None": None,
}

_BINOPS = {
    ast.Add: (operator.add, semantic.add), ast.Sub: (operator.sub, semantic.sub),
    ast.Mult: (operator.mul, semantic.mul), ast.Div: (operator.truediv, semantic.truediv),
    ast.FloorDiv: (operator.floordiv, semantic.floordiv), ast.Mod: (operator.mod, semantic.mod),
    ast.BitAnd: (operator.and_, semantic.and_), ast.BitOr: (operator.or_, semantic.or_),
    ast.BitXor: (operator.xor, semantic.xor_), ast.LShift: (operator.lshift, semantic.shl),
    ast.RShift: (operator.rshift, semantic.shr), ast.Pow: (operator.pow, None),
    ast.MatMult: (operator.matmul, lambda a, b: semantic.dot(a, b)),
}
_CMPOPS = {
    ast.Lt: (operator.lt, semantic.less_than), ast.LtE: (operator.le, semantic.less_equal),
    ast.Gt: (operator.gt, semantic.greater_than), ast.GtE: (operator.ge, semantic.greater_equal),
    ast.Eq: (operator.eq, semantic.equal), ast.NotEq: (operator.ne, semantic.not_equal),
    ast.Is: (operator.is_, None), ast.IsNot: (operator.is_not, None),
    ast.In: (lambda a, b: a in b, None), ast.NotIn: (lambda a, b: a not in b, None),
}


def unwrap(v):
    return v.value if isinstance(v, constexpr) else v


def is_tensor(v) -> bool:
    return isinstance(v, tensor)


def _value(v):
    """Compile-time Python values are carried as constexprs."""
    if isinstance(v, (tensor, constexpr, tl.tensor_descriptor)) or v is None:
        return v
    if isinstance(v, (tuple, list)):
        return type(v)(_value(x) for x in v)
    return constexpr(v)


def _kernel_isinstance(value, classes) -> bool:
    """`isinstance` in a kernel: on tensors and descriptors as Python's; a
    compile-time value is a `tl.constexpr` and also an instance of its value's
    classes (`isinstance(BLOCK, int)`)."""
    classes = unwrap(classes)
    if isinstance(classes, (tuple, list)):
        classes = tuple(unwrap(c) for c in classes)
    return isinstance(value, classes) or (not is_tensor(value)
                                          and isinstance(unwrap(value), classes))


def ends_in_return(stmts: Sequence[ast.stmt]) -> bool:
    """Whether every path through `stmts` ends in a return."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return ends_in_return(last.body) and ends_in_return(last.orelse)
    return False


def contains_return(stmt: ast.stmt) -> bool:
    """Whether some path through `stmt` returns, at any depth."""
    return any(isinstance(n, ast.Return) for n in ast.walk(stmt))


def assigned_names(stmts: Sequence[ast.stmt]) -> List[str]:
    """Names a block of statements (re)binds, in first-binding order."""
    names: List[str] = []
    for stmt in stmts:
        for node in ast.walk(stmt):
            target = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                target = node.id
            if target and target not in names:
                names.append(target)
    return names


class FunctionContext:
    """State shared by the kernel and the device functions it calls."""

    def __init__(self, builder: TextBuilder, warp_specialized: bool = False):
        self.builder = builder
        # The kernel is compiled with num_consumer_groups > 0: its product
        # loop is warp-specialized whether or not tl.range says so.
        self.warp_specialized = warp_specialized
        # (function, argument types, constexpr values) -> (name, return info)
        self.device_functions: Dict[Any, Any] = {}
        self.used_globals: Dict[str, Any] = {}


# How deep calls to @jit functions may nest (each is specialized and
# inlined at compile time).
MAX_CALL_DEPTH = 32

# Expression nodes the code generator handles inside their parents (an
# f-string's fields, a starred call argument), never through visit().
_HANDLED_BY_PARENT = (ast.FormattedValue, ast.Starred)

_NESTED_DEF = ("a function defined inside a kernel is not supported: define it at module "
               "level with @warpforge.jit and call it")


def check_language_rules(fn) -> None:
    """The rules on a kernel's source that do not depend on its arguments,
    checked once per function for the interpreter (which runs the Python
    itself) as for the compiler: a nested `def` or `class` is an error at
    its line, never code that runs where it stands."""
    if getattr(fn, "_language_rules_checked", False):
        return
    try:
        kernel = fn.parse()
    except (OSError, ValueError, TypeError):
        # No source (made with exec): only the interpreter runs it, as
        # Python; the compiler says so when asked to compile it.
        return
    for node in ast.walk(kernel):
        if node is kernel:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            message = _NESTED_DEF if not isinstance(node, ast.ClassDef) else (
                "a class defined inside a kernel is not supported")
        elif isinstance(node, (ast.stmt, ast.expr)) and not isinstance(
                node, _HANDLED_BY_PARENT) and not hasattr(
                CodeGenerator, f"visit_{type(node).__name__}"):
            # What generic_visit would reject when compiling.
            message = f"unsupported Python construct: {type(node).__name__}"
        else:
            continue
        line = fn.first_line + node.lineno - 1
        source = (fn.source_lines[node.lineno - 1]
                  if node.lineno <= len(fn.source_lines) else None)
        raise UnsupportedLanguageConstruct(message, fn.filename, line,
                                           node.col_offset + fn.indent, source)
    fn._language_rules_checked = True


def _holds_tensor(value) -> bool:
    if is_tensor(value):
        return True
    return isinstance(value, (list, tuple)) and any(_holds_tensor(v) for v in value)


def _sequence_template(value, leaves: List) -> tuple:
    """`value` (a list or tuple, nested) with each tensor replaced by
    ("t", its index in `leaves`, where it is appended); other items are
    ("c", item)."""
    if is_tensor(value):
        leaves.append(value)
        return ("t", len(leaves) - 1)
    if isinstance(value, (list, tuple)):
        return ("list" if isinstance(value, list) else "tuple",
                tuple(_sequence_template(v, leaves) for v in value))
    return ("c", value)


def _template_key(template: tuple):
    """What specializes the callee: the structure and the constants' values."""
    kind, body = template
    if kind == "t":
        return ("t",)
    if kind == "c":
        return ("c", repr(unwrap(body)))
    return (kind, tuple(_template_key(t) for t in body))


def _rebuild_sequence(template: tuple, leaf):
    kind, body = template
    if kind == "t":
        return leaf(body)
    if kind == "c":
        return body
    items = [_rebuild_sequence(t, leaf) for t in body]
    return items if kind == "list" else tuple(items)


class CodeGenerator(ast.NodeVisitor):
    def __init__(self, fn, ctx: FunctionContext, scope: Dict[str, Any]):
        self.fn = fn  # a JITFunction
        self.ctx = ctx
        self.builder = ctx.builder
        self.scope = scope
        self.returned = False
        self.ret = None
        self.builder.call_function = self.call_function

    # -- Errors and locations ---------------------------------------------

    def _abs_pos(self, node):
        return self.fn.first_line + node.lineno - 1, node.col_offset + self.fn.indent

    def error(self, node, message: str, cls=CompilationError) -> CompilationError:
        line, col = self._abs_pos(node)
        source = self.fn.source_lines[node.lineno - 1] if node.lineno <= len(
            self.fn.source_lines) else None
        return cls(message, self.fn.filename, line, col, source)

    def _at(self, node):
        """Ops emitted from here on carry `node`'s position (after visiting its
        operands, which moved it)."""
        line, col = self._abs_pos(node)
        self.builder.set_loc(line, col + 1)

    def visit(self, node):
        if hasattr(node, "lineno"):
            self._at(node)
        try:
            return super().visit(node)
        except CompilationError as e:
            if e.lineno or not hasattr(node, "lineno"):
                raise
            raise self.error(node, e.message, type(e)) from None
        except Exception as e:  # a language rule broken at this node
            message = str(e) if isinstance(e, (semantic.SemanticError, TypeError, ValueError,
                                               AttributeError)) else \
                f"{type(e).__name__}: {e}"
            err = self.error(node, message)
            # The rule's own exception stays reachable as the cause (as in
            # Triton: `exc.__cause__`), without its frames in the language
            # layer, which only lengthen the traceback.
            raise err from e.with_traceback(None)

    def generic_visit(self, node):
        raise self.error(node, f"unsupported Python construct: {type(node).__name__}",
                         UnsupportedLanguageConstruct)

    # -- Functions ---------------------------------------------------------

    def visit_body(self, stmts: Sequence[ast.stmt]):
        stmts = list(stmts)
        for i, stmt in enumerate(stmts):
            if self.returned:
                return  # dead code after a return, as Python ignores it
            rest = stmts[i + 1:]
            if isinstance(stmt, ast.If) and rest and contains_return(stmt):
                # `if c: ...; return` followed by more code: the code after
                # the if runs only on the paths that do not return (Triton's
                # early return).  It is moved into both branches, so that an
                # if nested in them whose one branch returns finds it there
                # too: the path that falls through such an inner if must
                # still run the code after the outer one.
                merged = ast.If(test=stmt.test,
                                body=stmt.body if ends_in_return(stmt.body) else stmt.body + rest,
                                orelse=stmt.orelse if ends_in_return(stmt.orelse)
                                else stmt.orelse + rest)
                ast.copy_location(merged, stmt)
                self.visit(merged)
                return
            self.visit(stmt)

    def visit_FunctionDef(self, node: ast.FunctionDef):
        if node is not self.fn.parse():
            # check_language_rules rejects these before code generation; a
            # nested def compiled where it stands would be wrong code.
            raise self.error(node, _NESTED_DEF, UnsupportedLanguageConstruct)
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(
                getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):
            body = body[1:]  # docstring
        self.visit_body(body)

    def visit_Return(self, node: ast.Return):
        if self.loop_nesting:
            raise self.error(node, "return inside a for or while loop is not supported",
                             UnsupportedLanguageConstruct)
        self.ret = self.visit(node.value) if node.value is not None else None
        self.ret_node = node
        self.returned = True

    loop_nesting = 0

    # -- Names and literals -------------------------------------------------

    def visit_Name(self, node: ast.Name):
        name = node.id
        if name in self.scope:
            return self.scope[name]
        globals_ = self.fn.globals
        if name in globals_:
            value = globals_[name]
            if not self._allowed_global(value):
                raise self.error(node, f"cannot access global variable '{name}' of type "
                                       f"{type(value).__name__} from a @jit function: "
                                       "globals must be tl.constexpr, modules or functions "
                                       f"(write {name} = tl.constexpr(...))")
            if isinstance(value, constexpr):
                self.ctx.used_globals[f"{self.fn.__name__}.{name}"] = value.value
            return value
        if name in _BUILTINS:
            return _BUILTINS[name]
        raise self.error(node, f"name '{name}' is not defined")

    @staticmethod
    def _allowed_global(value) -> bool:
        return (isinstance(value, (constexpr, types.ModuleType, KernelFunction, core.dtype,
                                   type, types.FunctionType, types.BuiltinFunctionType))
                or callable(value))

    def visit_Constant(self, node: ast.Constant):
        return constexpr(node.value) if node.value is not None else None

    def visit_Tuple(self, node: ast.Tuple):
        return tuple(self.visit(e) for e in node.elts)

    def visit_List(self, node: ast.List):
        return [self.visit(e) for e in node.elts]

    def visit_JoinedStr(self, node: ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                value = self.visit(v.value)
                if is_tensor(value):
                    raise self.error(v, "f-strings can only format compile-time values")
                spec = self.visit(v.format_spec) if v.format_spec else ""
                parts.append(format(unwrap(value), unwrap(spec)))
        return constexpr("".join(parts))

    def visit_Slice(self, node: ast.Slice):
        lower = unwrap(self.visit(node.lower)) if node.lower else None
        upper = unwrap(self.visit(node.upper)) if node.upper else None
        step = unwrap(self.visit(node.step)) if node.step else None
        return slice(lower, upper, step)

    # -- Assignments ---------------------------------------------------------

    def _assign(self, target: ast.expr, value):
        if isinstance(target, ast.Name):
            self.scope[target.id] = _value(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            value = unwrap(value)
            if not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise self.error(target, "cannot unpack: the value is not a tuple of "
                                         f"{len(target.elts)} elements")
            for t, v in zip(target.elts, value):
                self._assign(t, v)
        else:
            raise self.error(target, f"cannot assign to {type(target).__name__}; only "
                                     "names and tuples of names", UnsupportedLanguageConstruct)

    @staticmethod
    def _as_assigned(value):
        """What a plain assignment binds, as Triton's code generator: a
        Python number or bool (constexpr or not) becomes a 0-d tensor
        (`acc = 0; acc.to(tl.int64)`, `value = 1; value.dtype`), tuples
        element by element; dtypes, None and other objects stay what they
        are.  An annotation `x: tl.constexpr = ...` keeps the constant."""
        if isinstance(value, (tuple, list)) and not isinstance(value, tensor):
            return type(value)(CodeGenerator._as_assigned(v) for v in value) \
                if type(value) in (tuple, list) else value
        raw = unwrap(value)
        if isinstance(raw, (bool, int, float)) and not isinstance(raw, core.dtype):
            return semantic.to_tensor(raw)
        return value

    def visit_Assign(self, node: ast.Assign):
        value = self.visit(node.value)
        self._at(node)
        value = self._as_assigned(value)
        for target in node.targets:
            self._assign(target, value)

    def visit_AugAssign(self, node: ast.AugAssign):
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "augmented assignment needs a name",
                             UnsupportedLanguageConstruct)
        lhs = self.visit_Name(ast.Name(id=node.target.id, ctx=ast.Load()))
        self._assign(node.target, self._binop(node.op, lhs, self.visit(node.value), node))

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if node.value is None:
            return
        value = self.visit(node.value)
        annotation = unwrap(self._annotation(node.annotation))
        if annotation is constexpr and is_tensor(value):
            raise self.error(node, f"'{ast.unparse(node.target)}' is annotated tl.constexpr "
                                   "but its value is only known at run time")
        if annotation is not constexpr:
            self._at(node)
            value = self._as_assigned(value)
        elif not isinstance(value, constexpr):
            # A tuple literal (or any other compile-time value) annotated
            # tl.constexpr is one constexpr, as in Triton (its `.type`).
            value = constexpr(value)
        self._assign(node.target, value)

    def _annotation(self, node):
        try:
            return self.visit(node)
        except CompilationError:
            return None

    # -- Expressions -------------------------------------------------------------

    def _binop(self, op, lhs, rhs, node):
        self._at(node)
        py, sem = _BINOPS[type(op)]
        if not is_tensor(lhs) and not is_tensor(rhs):
            return constexpr(py(unwrap(lhs), unwrap(rhs)))
        if sem is None:
            raise self.error(node, f"operator {type(op).__name__} is not supported on tensors")
        return sem(lhs, rhs)

    def visit_BinOp(self, node: ast.BinOp):
        return self._binop(node.op, self.visit(node.left), self.visit(node.right), node)

    def visit_UnaryOp(self, node: ast.UnaryOp):
        operand = self.visit(node.operand)
        self._at(node)
        if not is_tensor(operand):
            fn = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                  ast.Invert: operator.invert}[type(node.op)]
            return constexpr(fn(unwrap(operand)))
        if isinstance(node.op, ast.Not):
            return semantic.logical_not(operand)
        return {ast.USub: semantic.minus, ast.UAdd: lambda x: x,
                ast.Invert: semantic.invert}[type(node.op)](operand)

    def visit_BoolOp(self, node: ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        result = None
        for value_node in node.values:
            value = self.visit(value_node)
            self._at(node)
            if result is None:
                result = value
            elif not is_tensor(result) and not is_tensor(value):
                result = constexpr(unwrap(result) and unwrap(value)) if is_and else \
                    constexpr(unwrap(result) or unwrap(value))
            else:
                result = semantic.logical_and(result, value) if is_and else \
                    semantic.logical_or(result, value)
            # Short-circuit on constexprs, as Python does.
            if not is_tensor(result) and (bool(unwrap(result)) != is_and):
                return result
        return result

    def visit_Compare(self, node: ast.Compare):
        left = self.visit(node.left)
        result = None
        for op, comp_node in zip(node.ops, node.comparators):
            right = self.visit(comp_node)
            self._at(node)
            py, sem = _CMPOPS[type(op)]
            if not is_tensor(left) and not is_tensor(right):
                r = constexpr(py(unwrap(left), unwrap(right)))
            elif isinstance(op, (ast.Is, ast.IsNot)):
                # Identity, as in Triton: decided at compile time (a tensor
                # `is not None`), never per element.
                r = constexpr(py(unwrap(left), unwrap(right)))
            elif sem is None:
                raise self.error(node, f"'{type(op).__name__}' cannot compare tensors")
            else:
                r = sem(left, right)
            result = r if result is None else self._and(result, r)
            left = right
        return result

    @staticmethod
    def _and(a, b):
        if not is_tensor(a) and not is_tensor(b):
            return constexpr(unwrap(a) and unwrap(b))
        return semantic.logical_and(a, b)

    def visit_IfExp(self, node: ast.IfExp):
        cond = self.visit(node.test)
        if not is_tensor(cond):
            return self.visit(node.body if unwrap(cond) else node.orelse)
        cond = self._scalar_condition(cond, node)
        raw = []
        blocks = []
        for branch in (node.body, node.orelse):
            self.builder.push_block()
            raw.append(self.visit(branch))
            blocks.append(self.builder.pop_block())
        voids = [unwrap(v) is None for v in raw]
        if all(voids):
            # `tl.store(...) if c else tl.store(...)`: a statement, as in
            # Triton; an scf.if with no results.
            self.builder.scf_if(cond.handle, blocks[0], [], blocks[1], [])
            return constexpr(None)
        if any(voids):
            raise self.error(node, "one branch of this conditional expression has no value "
                                   "(None) and the other has one; with a run-time condition "
                                   "both must have a value, or neither")
        values = []
        for block, v in zip(blocks, raw):
            self.builder.push_block(block)
            values.append(semantic.to_tensor(v))
            self.builder.pop_block()
        then, other = values
        if then.type != other.type:
            if then.dtype.is_ptr() or other.dtype.is_ptr():
                raise self.error(node, f"Ternary expression with dynamic condition has "
                                       f"inconsistent type: its branches have types "
                                       f"{then.type} and {other.type}")
            ty = semantic.computation_type(then.dtype, other.dtype, False)
            casted = []
            for block, v in zip(blocks, values):
                self.builder.push_block(block)
                casted.append(semantic.cast(v, ty))
                self.builder.pop_block()
            then, other = casted
            if then.type != other.type:
                raise self.error(node, f"conditional expression branches have shapes "
                                       f"{list(then.shape)} and {list(other.shape)}")
        (result,) = self.builder.scf_if(cond.handle, blocks[0], [then.handle], blocks[1],
                                        [other.handle])
        return tensor(result, then.type)

    def visit_Attribute(self, node: ast.Attribute):
        value = self.visit(node.value)
        if isinstance(value, constexpr) and node.attr == "type":
            return _value(value.type)  # Triton's constexpr_type, whatever the value
        target = value.value if isinstance(value, constexpr) and not isinstance(
            value.value, (int, float, bool)) else value
        if isinstance(target, tensor) and node.attr in ("dtype", "shape", "type", "numel", "T"):
            return _value(getattr(target, node.attr))
        return _value(getattr(target, node.attr))

    def visit_Subscript(self, node: ast.Subscript):
        value = self.visit(node.value)
        index = self.visit(node.slice)
        self._at(node)
        if is_tensor(value):
            if isinstance(index, tuple):
                index = tuple(unwrap(i) for i in index)
            return semantic.subscript(value, unwrap(index))
        if is_tensor(index):
            raise self.error(node, "indexing a tuple needs a compile-time index")
        return _value(unwrap(value)[unwrap(index)])

    # -- Calls -------------------------------------------------------------

    def visit_Call(self, node: ast.Call):
        fn = unwrap(self.visit(node.func))
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.extend(unwrap(self.visit(a.value)))
            else:
                args.append(self.visit(a))
        kwargs = {}
        for k in node.keywords:
            if k.arg is None:
                kwargs.update(unwrap(self.visit(k.value)))
            else:
                kwargs[k.arg] = self.visit(k.value)
        self._at(node)
        return self.call_function(fn, args, kwargs, node)

    def call_function(self, fn, args, kwargs=None, node=None):
        kwargs = kwargs or {}
        if isinstance(fn, KernelFunction):
            return self.call_jit(fn, list(args), kwargs)
        if fn is print:
            # Python's print in a kernel prints on the device, as in Triton:
            # its strings make the prefix, its values are printed.
            texts = [str(unwrap(a)) for a in args if isinstance(unwrap(a), str)]
            values = [a for a in args if not isinstance(unwrap(a), str)]
            tl.device_print(" ".join(texts) + (" " if texts else ""), *values)
            return None
        if fn is builtins.range:
            raise CompilationError("range() can only be used in a for loop")
        if fn is isinstance:
            return constexpr(_kernel_isinstance(*args))
        if fn in (hasattr, getattr, type, callable):
            # Introspection of the compile-time objects tensors are (Triton
            # calls any builtin so): decided now, no code emitted.
            return _value(fn(*[unwrap(a) for a in args],
                             **{k: unwrap(v) for k, v in kwargs.items()}))
        if fn in (min, max) and any(is_tensor(a) for a in args):
            # Python's min/max on run-time values, as Triton maps them.
            combine = semantic.minimum if fn is min else semantic.maximum
            values = list(args[0]) if len(args) == 1 else list(args)
            result = values[0]
            for v in values[1:]:
                result = combine(result, v)
            return result
        module = getattr(fn, "__module__", "") or ""
        is_language = module.startswith("warpforge.language") or isinstance(
            getattr(fn, "__self__", None), (tensor, tl.tensor_descriptor))
        if is_language or fn in (tl.static_range, tl.range):
            return _value(fn(*args, **kwargs))
        if any(is_tensor(a) for a in list(args) + list(kwargs.values())):
            name = getattr(fn, "__name__", repr(fn))
            raise CompilationError(f"cannot call the Python function '{name}' on tensors; "
                                   "decorate it with @warpforge.jit")
        # A Python function of compile-time values runs now.
        return _value(fn(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()}))

    def call_jit(self, fn, args: List, kwargs: Dict):
        """Calls a @jit function as a private device function, specialized on
        its constexpr arguments and the types of its tensor arguments."""
        try:
            bound = fn.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise CompilationError(f"calling {fn.__name__}: {e}") from None
        bound.apply_defaults()
        tensor_args, arg_types, constants = [], [], {}
        # Descriptor arguments travel as their parts (the map, then its
        # shape and strides) and are rebuilt in the callee.
        descriptors: Dict[str, tuple] = {}
        sequences: Dict[str, tuple] = {}
        for name, value in bound.arguments.items():
            if isinstance(value, tl.tensor_descriptor):
                parts = [value.handle] + [semantic.to_tensor(x) for x in
                                          list(value.shape) + list(value.strides)]
                descriptors[name] = (len(value.shape), tuple(value.block_shape))
                for i, part in enumerate(parts):
                    tensor_args.append((f"{name}#{i}", part))
                    arg_types.append(part.type)
                arg_types.append(("desc", name) + descriptors[name])
            elif isinstance(value, (list, tuple)) and _holds_tensor(value):
                # A list or tuple holding run-time values (tutorial 06 passes
                # shape=[y_dim, HEAD_DIM]): its tensors travel as arguments
                # of their own and the callee rebuilds it around them.
                leaves: List[tensor] = []
                template = _sequence_template(value, leaves)
                sequences[name] = template
                for i, leaf in enumerate(leaves):
                    tensor_args.append((f"{name}#s{i}", leaf))
                    arg_types.append(leaf.type)
                arg_types.append(("seq", name, repr(_template_key(template))))
            elif is_tensor(value):
                # A run-time value for a parameter annotated tl.constexpr
                # stays a run-time value, as in Triton, where what an
                # argument is decides (tutorial 06 passes its offs_m tensor
                # so); a use that needs a constant says so at its line.
                tensor_args.append((name, value))
                arg_types.append(value.type)
            else:
                constants[name] = _value(value)
        key = (fn, tuple(arg_types), tuple((k, repr(unwrap(v))) for k, v in constants.items()))
        if key not in self.ctx.device_functions:
            digest = hashlib.sha1(repr(key[1:]).encode()).hexdigest()[:8]
            name = f"{fn.__name__}__{digest}"
            # Device functions are specialized and inlined: a chain of calls
            # that does not end at compile time (recursion on a constexpr
            # that never stops) would only end in Python's recursion limit.
            depth = getattr(self.ctx, "call_depth", 0)
            if depth >= MAX_CALL_DEPTH:
                raise CompilationError(
                    f"calls to @jit functions nest deeper than {MAX_CALL_DEPTH} "
                    f"(the last: {fn.__name__}): recursion must end at compile time")
            self.ctx.device_functions[key] = (name, None)
            self.ctx.call_depth = depth + 1
            try:
                info = self._generate_device_function(fn, name, tensor_args, constants,
                                                      descriptors, sequences)
            finally:
                self.ctx.call_depth = depth
            self.ctx.device_functions[key] = (name, info)
        name, info = self.ctx.device_functions[key]
        if info is None:
            raise CompilationError(f"{fn.__name__} calls itself; recursion is not supported")
        ret_types, shape = info
        handles = self.builder.call(name, [t.handle for _, t in tensor_args],
                                    [t.to_ir() for t in ret_types])
        results = [tensor(h, t) for h, t in zip(handles, ret_types)]
        if shape == "none":
            return None
        if shape == "single":
            return results[0]
        if isinstance(shape, tuple) and shape[0] == "desc":
            # A descriptor comes back as its parts: the map, shape, strides.
            _, rank, block_shape = shape
            return tl.tensor_descriptor(results[0], results[1:1 + rank], results[1 + rank:],
                                        list(block_shape))
        return tuple(results)

    def _generate_device_function(self, fn, name, tensor_args, constants, descriptors=None,
                                  sequences=None):
        saved_loc = self.builder.loc
        scope = dict(constants)
        info = {}

        def body(arg_values):
            parts = {}
            for (arg_name, t), v in zip(tensor_args, arg_values):
                if "#" in arg_name:
                    parts[arg_name] = tensor(v, t.type)
                else:
                    scope[arg_name] = tensor(v, t.type)
            for arg_name, (rank, block_shape) in (descriptors or {}).items():
                values = [parts[f"{arg_name}#{i}"] for i in range(1 + 2 * rank)]
                scope[arg_name] = tl.tensor_descriptor(values[0], values[1:1 + rank],
                                                       values[1 + rank:], list(block_shape))
            for arg_name, template in (sequences or {}).items():
                scope[arg_name] = _rebuild_sequence(
                    template, lambda i, n=arg_name: parts[f"{n}#s{i}"])
            gen = CodeGenerator(fn, self.ctx, scope)
            gen.visit(fn.parse())
            ret = gen.ret
            self.builder.call_function = self.call_function
            if ret is None:
                info["shape"], values = "none", []
            elif isinstance(ret, tl.tensor_descriptor):
                info["shape"] = ("desc", len(ret.shape), tuple(ret.block_shape))
                values = [ret.handle] + [semantic.to_tensor(x) for x in
                                         list(ret.shape) + list(ret.strides)]
            elif isinstance(ret, tuple):
                info["shape"], values = "tuple", [semantic.to_tensor(r) for r in ret]
            else:
                info["shape"], values = "single", [semantic.to_tensor(ret)]
            info["types"] = [v.type for v in values]
            return [v.handle for v in values]

        self.builder.function(name, False, [t.type.to_ir() for _, t in tensor_args],
                              [""] * len(tensor_args), body,
                              (fn.filename, fn.first_line, 1))
        self.builder.loc = saved_loc
        return info["types"], info["shape"]

    # -- Statements ---------------------------------------------------------

    def visit_Expr(self, node: ast.Expr):
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def visit_Assert(self, node: ast.Assert):
        cond = self.visit(node.test)
        msg = unwrap(self.visit(node.msg)) if node.msg else ""
        if not is_tensor(cond):
            if not unwrap(cond):
                raise self.error(node, f"assertion failed: {msg}" if msg else "assertion failed")
            return
        semantic.device_assert(cond, msg or f"assertion `{ast.unparse(node.test)}` failed")

    def _scalar_condition(self, cond: tensor, node) -> tensor:
        if cond.type.is_block() and cond.numel == 1:
            # A one-element tensor is its element, as in Triton (which
            # warns the same way).
            line, _ = self._abs_pos(node)
            warnings.warn_explicit(
                f"If conditional called with multidimensional Tensor of shape "
                f"{list(cond.type.shape)}: its one element is the condition",
                UserWarning, self.fn.filename, line)
            cond = tl.item(cond)
        if cond.type.is_block():
            raise self.error(node, "the condition of `if` must be a scalar; for tensors use "
                                   "tl.where")
        return semantic.cast(cond, core.int1)

    def _carry(self, lines: List[str], value) -> tensor:
        """`value` as a tensor, materializing a constexpr inside `lines`."""
        if is_tensor(value):
            return value
        self.builder.push_block(lines)
        try:
            return semantic.to_tensor(value)
        finally:
            self.builder.pop_block()

    def visit_If(self, node: ast.If):
        cond = self.visit(node.test)
        if not is_tensor(cond):
            self.visit_body(node.body if unwrap(cond) else node.orelse)
            return
        cond = self._scalar_condition(cond, node)
        before = self.scope
        branches = []
        try:
            for stmts in (node.body, node.orelse):
                self.scope = dict(before)
                self.returned, self.ret = False, None
                self.builder.push_block()
                self.visit_body(stmts)
                branches.append((self.scope, self.builder.pop_block(), self.returned,
                                 self.ret))
        finally:
            self.scope = before
            self.returned, self.ret = False, None
        (then_scope, then_lines, then_ret, then_val), \
            (else_scope, else_lines, else_ret, else_val) = branches
        if then_ret or else_ret:
            return self._returning_if(node, cond, branches)
        names, then_vals, else_vals = [], [], []
        for name in then_scope:
            if name not in else_scope:
                continue
            t, e = then_scope[name], else_scope[name]
            if t is before.get(name) and e is before.get(name):
                continue
            if not is_tensor(t) and not is_tensor(e):
                if isinstance(t, constexpr) and isinstance(e, constexpr) and t.value == e.value:
                    self.scope[name] = t
                    continue
                if isinstance(unwrap(t), (tuple, list)) or isinstance(unwrap(e), (tuple, list)):
                    raise self.error(node, f"'{name}' is a tuple rebound in a branch of a "
                                           "run-time if; this is not supported")
            t, e = self._carry(then_lines, t), self._carry(else_lines, e)
            if t.type != e.type:
                raise self.error(node, f"Mismatched type for {name}: '{name}' has type "
                                       f"{t.type} after the if branch but {e.type} after the "
                                       "else branch; both branches must give it one type")
            names.append(name)
            then_vals.append(t)
            else_vals.append(e)
        results = self.builder.scf_if(cond.handle, then_lines, [v.handle for v in then_vals],
                                      else_lines, [v.handle for v in else_vals])
        for name, r, v in zip(names, results, then_vals):
            self.scope[name] = tensor(r, v.type)

    def _returning_if(self, node, cond, branches):
        """A run-time if after which the function ends on both branches (the
        visit_body rewrite guarantees nothing follows it): the values the
        branches return are the if's results."""
        (_, then_lines, then_ret, then_val), (_, else_lines, else_ret, else_val) = branches
        if not (then_ret and else_ret):
            # One branch falls off the end of the function: it returns None.
            if (then_val if then_ret else else_val) is not None:
                raise self.error(node, "one branch of this if returns a value and the "
                                       "other reaches the end of the function; every path "
                                       "must return a value")
        def as_list(v):
            return [] if v is None else list(v) if isinstance(v, tuple) else [v]
        then_vals, else_vals = as_list(then_val), as_list(else_val)
        if len(then_vals) != len(else_vals) or isinstance(then_val, tuple) != isinstance(
                else_val, tuple):
            raise self.error(node, "the branches of this if return different numbers of "
                                   "values")
        then_vals = [self._carry(then_lines, v) for v in then_vals]
        else_vals = [self._carry(else_lines, v) for v in else_vals]
        for t, e in zip(then_vals, else_vals):
            if t.type != e.type:
                raise self.error(node, f"Return type mismatch: the branches of this if "
                                       f"return {t.type} and {e.type}; both must return one "
                                       "type")
        results = self.builder.scf_if(cond.handle, then_lines, [v.handle for v in then_vals],
                                      else_lines, [v.handle for v in else_vals])
        values = [tensor(r, v.type) for r, v in zip(results, then_vals)]
        self.returned = True
        self.ret = None if then_val is None and else_val is None else \
            tuple(values) if isinstance(then_val, tuple) else values[0]
        self.ret_node = node

    def _loop_carried(self, stmts, exclude=()) -> List[str]:
        return [n for n in assigned_names(stmts) if n in self.scope and n not in exclude
                and (is_tensor(self.scope[n]) or isinstance(unwrap(self.scope[n]),
                                                           (int, float, bool)))]

    def visit_For(self, node: ast.For):
        if node.orelse:
            raise self.error(node, "for ... else is not supported", UnsupportedLanguageConstruct)
        it = node.iter
        if not isinstance(it, ast.Call):
            iterable = unwrap(self.visit(it))
            if is_tensor(iterable):
                raise self.error(node, "cannot iterate over a tensor")
            return self._static_loop(node, iterable)
        fn = unwrap(self.visit(it.func))
        args = [self.visit(a) for a in it.args]
        kwargs = {k.arg: self.visit(k.value) for k in it.keywords}
        if fn is tl.static_range:
            return self._static_loop(node, tl.static_range(*args, **kwargs))
        if fn is builtins.range:
            loop = tl.range(*args, **kwargs)
        elif fn is tl.range:
            loop = tl.range(*args, **kwargs)
        else:
            iterable = self.call_function(fn, args, kwargs, node)
            if is_tensor(iterable):
                raise self.error(node, "cannot iterate over a tensor")
            return self._static_loop(node, unwrap(iterable))
        if not isinstance(node.target, ast.Name):
            raise self.error(node, "a range loop needs a single loop variable")
        self._warn_unsupported_loop_options(it, loop)
        self._range_loop(node, loop)

    def _warn_unsupported_loop_options(self, node: ast.AST, loop) -> None:
        """tl.range's hints that do nothing yet: say so at the loop (a warning,
        so that Triton kernels written with them still run)."""
        notes = []
        # With warp specialization (the loop's or the kernel's) the producer
        # already runs ahead across tiles, which is what flattening is for;
        # without, it is not done.
        if loop.flatten and not (loop.warp_specialize or self.ctx.warp_specialized):
            notes.append("flatten=True: flattening persistent tile loops without "
                         "warp_specialize=True is not supported yet; the loop is not "
                         "flattened")
        line, _ = self._abs_pos(node)
        for note in notes:
            warnings.warn_explicit(f"{self.fn.__name__}: tl.range({note.split('=')[0]}=...): "
                                   f"{note}", UnsupportedOptionWarning, self.fn.filename, line)

    def _static_loop(self, node: ast.For, iterable):
        try:
            items = list(iterable)
        except TypeError:
            raise self.error(node, f"cannot iterate over {type(iterable).__name__} at "
                                   "compile time") from None
        for item in items:
            self._assign(node.target, item)
            self.visit_body(node.body)

    def _range_loop(self, node: ast.For, loop):
        bounds = [loop.start, loop.end, loop.step]
        step = unwrap(loop.step)
        if isinstance(step, int) and step == 0:
            raise self.error(node, "range step must not be zero")
        # A negative step known at compile time (Triton's `range(hi, lo,
        # -1)`): the loop counts k = 0 .. n-1 with n = ceil((start - end) /
        # -step) (none when start <= end) and binds start + k * step.
        descending = isinstance(step, int) and step < 0
        if not descending and isinstance(step, int) and step <= 0:
            raise self.error(node, f"range step must be positive, got {step}")
        iv_ty = core.int32
        for b in bounds:
            if is_tensor(b):
                if not b.dtype.is_int() or b.type.is_block():
                    raise self.error(node, f"range bounds must be integer scalars, got {b.type}")
                if b.dtype.primitive_bitwidth == 64:
                    iv_ty = core.int64
            elif not isinstance(unwrap(b), int):
                raise self.error(node, f"range bounds must be integers, got {unwrap(b)!r}")
            elif not -(1 << 31) <= unwrap(b) < (1 << 31):
                iv_ty = core.int64
        lb, ub, st = (semantic.cast(semantic.to_tensor(b, iv_ty), iv_ty) for b in bounds)
        start = lb
        if descending:
            self._at(node)
            count = semantic.floordiv(
                semantic.add(semantic.sub(lb, ub), semantic.to_tensor(-step - 1, iv_ty)),
                semantic.to_tensor(-step, iv_ty))
            lb = semantic.cast(semantic.to_tensor(0, iv_ty), iv_ty)
            ub = semantic.cast(count, iv_ty)
            st = semantic.cast(semantic.to_tensor(1, iv_ty), iv_ty)
        target = node.target.id
        carried = self._loop_carried(node.body, exclude=(target,))
        inits = [semantic.to_tensor(self.scope[n]) for n in carried]
        args = self.builder.block_args([iv_ty.to_ir()] + [t.type.to_ir() for t in inits])
        outer = self.scope
        self.scope = dict(outer)
        self.scope[target] = tensor(args[0], iv_ty)
        for name, init, arg in zip(carried, inits, args[1:]):
            self.scope[name] = tensor(arg, init.type)
        self.builder.push_block()
        if descending:
            self.scope[target] = semantic.add(
                start, semantic.mul(self.scope[target], semantic.to_tensor(step, iv_ty)))
        self.loop_nesting += 1
        try:
            self.visit_body(node.body)
        finally:
            self.loop_nesting -= 1
        body_scope = self.scope
        body_lines = self.builder.pop_block()
        self.scope = outer
        yields = self._loop_yields(node, carried, inits, body_scope, body_lines)
        attrs = []
        if loop.num_stages is not None:
            attrs.append(f"{attrs_.NUM_STAGES} = {int(loop.num_stages)} : i32")
        if loop.loop_unroll_factor is not None:
            attrs.append(f"{attrs_.LOOP_UNROLL_FACTOR} = {int(loop.loop_unroll_factor)} : i32")
        if loop.warp_specialize and self.builder.options.warp_specialize_loops:
            attrs.append(attrs_.WARP_SPECIALIZE)
        if loop.disable_licm:
            attrs.append(attrs_.DISABLE_LICM)
        # The loop op at its `for` line (the body moved the position on):
        # what passes report about the loop points there.
        self._at(node)
        results = self.builder.scf_for(lb.handle, ub.handle, st.handle,
                                       [t.handle for t in inits], args, body_lines,
                                       [y.handle for y in yields], ", ".join(attrs))
        for name, r, init in zip(carried, results, inits):
            self.scope[name] = tensor(r, init.type)

    def _loop_yields(self, node, carried, inits, body_scope, body_lines) -> List[tensor]:
        yields = []
        for name, init in zip(carried, inits):
            value = self._carry(body_lines, body_scope[name])
            if value.type != init.type:
                raise self.error(node, f"loop-carried variable '{name}' has type {init.type} "
                                       f"before the loop but {value.type} after an iteration; "
                                       "give it its final type and shape before the loop "
                                       "(e.g. tl.zeros(shape, dtype))")
            yields.append(value)
        return yields

    def visit_While(self, node: ast.While):
        if node.orelse:
            raise self.error(node, "while ... else is not supported",
                             UnsupportedLanguageConstruct)
        carried = self._loop_carried(node.body)
        inits = [semantic.to_tensor(self.scope[n]) for n in carried]
        types_ = [t.type.to_ir() for t in inits]
        outer = self.scope
        self.loop_nesting += 1
        try:
            before_args = self.builder.block_args(types_)
            self.scope = dict(outer)
            for name, init, arg in zip(carried, inits, before_args):
                self.scope[name] = tensor(arg, init.type)
            self.builder.push_block()
            cond = self.visit(node.test)
            hint = unwrap(cond)
            disable_licm = isinstance(hint, tl.condition) and hint.disable_licm
            if isinstance(hint, tl.condition):
                cond = hint.condition
            if not is_tensor(cond):
                raise self.error(node, "a while loop needs a condition computed at run time; "
                                       "loops on compile-time conditions are not supported")
            cond = self._scalar_condition(cond, node)
            before_lines = self.builder.pop_block()
            after_args = self.builder.block_args(types_)
            self.scope = dict(outer)
            for name, init, arg in zip(carried, inits, after_args):
                self.scope[name] = tensor(arg, init.type)
            self.builder.push_block()
            self.visit_body(node.body)
            body_scope = self.scope
            after_lines = self.builder.pop_block()
        finally:
            self.loop_nesting -= 1
            self.scope = outer
        yields = self._loop_yields(node, carried, inits, body_scope, after_lines)
        results = self.builder.scf_while([t.handle for t in inits], before_args, before_lines,
                                         cond.handle, after_args, after_lines,
                                         [y.handle for y in yields],
                                         attrs_.DISABLE_LICM if disable_licm else "")
        for name, r, init in zip(carried, results, inits):
            self.scope[name] = tensor(r, init.type)

    def visit_Break(self, node):
        raise self.error(node, "break is not supported in kernels", UnsupportedLanguageConstruct)

    def visit_Continue(self, node):
        raise self.error(node, "continue is not supported in kernels",
                         UnsupportedLanguageConstruct)

    def visit_Lambda(self, node):
        raise self.error(node, "lambda is not supported in kernels; use a @warpforge.jit "
                               "function", UnsupportedLanguageConstruct)
