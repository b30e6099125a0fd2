"""Typing rules and the meaning of every language operation.

Each function takes and returns `tensor`s and records operations through the
active builder (`core.current_builder()`): MLIR text when compiling, NumPy
when interpreting. Rules follow Triton's: integer/float promotion, Python
scalars adapting to the tensor they meet, NumPy-style broadcasting, and
C-style integer `//` and `%`. A broken rule raises `SemanticError`, which the
code generator reports at the kernel's source line.

This module is the one callers use (`semantic.add(...)`,
`semantic.computation_type(...)`, `semantic.SemanticError`); it re-exports
the public names of the modules that hold the rules:

- `_semantic_types`: `SemanticError`, Python scalars as values, promotion;
- `_semantic_shapes`: block shapes, broadcasting, reshapes and permutes;
- `_semantic_arith`: arithmetic, comparisons, casts, program ids,
  `arange` and `full`;
- `_semantic_math`: math functions (`math` dialect ops and `umulhi`, `isnan`...);
- `_semantic_memory`: loads, stores, atomics and tensor descriptors;
- `_semantic_reduce`: `dot`, reductions and scans, hints and debugging.
"""

from __future__ import annotations

from ._semantic_arith import (abs, add, addptr, and_, arange, cast, clamp, equal, floordiv,
                              full, greater_equal, greater_than, invert, less_equal,
                              less_than, logical_and, logical_not, logical_or, maximum,
                              minimum, minus, mod, mul, not_equal, num_programs, or_,
                              program_id, ptr_to_int, shl, shr, sub, truediv, where, xor_)
from ._semantic_math import (binary_math, bit_count, fma, isinf, isnan, mulhi, reinterpret,
                             signbit, sqrt_rn, unary_math)
from ._semantic_memory import (atomic_cas, atomic_rmw, descriptor_load, descriptor_reduce,
                               descriptor_store, load,
                               make_tensor_descriptor, store)
from ._semantic_reduce import (arg_reduce, cumulative, debug_barrier, device_assert,
                               device_print, dot, grid_dependency, hint,
                               inline_asm_elementwise, reduce, reduce_builtin, scan)
from ._semantic_shapes import (MAX_TENSOR_NUMEL, broadcast_pair, broadcast_shapes, broadcast_to,
                               expand_dims, permute, reshape, splat, subscript,
                               validate_block_shape)
from ._semantic_types import (SemanticError, computation_type, int_range, integer_promote,
                              literal_type, python_scalar_type, scalar_constant, to_tensor,
                              unwrap)
