"""The `if` forms of the moving-slice and slice-dot rewrites
(moving_slices.py, slice_dots.py) in a phase-mode body with Blocks
(carried_phases.PhaseRun, carried_blocks.py):

    if A.ndim == 2 and np.ndim(j) == 0:       # known when compiled: one branch runs
        if not -A.shape[0] <= i < A.shape[0]:
            raise IndexError('...')           # a check phase
        ...
        if not s1 == s2:
            raise ValueError('...')           # a check phase, then the else
        else:
            for k1 in range(...): ...
    else:
        A[i, j] -= A[i, :j] @ A[:j, j]

A test known when the function is compiled runs its branch alone. An `if`
whose body is one `raise` of a builtin exception is a phase that raises it
at run time where the test (and those of the enclosing `if`s) holds, at its
place among the phases, so the writes made before it are kept as in
Python; its `else` runs after it (where the test holds, nothing after the
check runs)."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir

from . import ops
from .asserts import raise_parts
from .carried_writes import stored
from .types import np_ty
from .values import Val


def run_checked_if(run, s) -> bool:
    """Run the `if` statement s of a PhaseRun with Blocks when it has one of
    the forms above; False (nothing run) otherwise."""
    cx = run.cx
    static = _const_test(run, s.test)
    if static is not None:
        for st in (s.body if static else s.orelse):
            run.exec_stmt(st)
        return True
    if not (len(s.body) == 1 and isinstance(s.body[0], ast.Raise)):
        return False
    cx.cur_node, cx.stmt_pos, cx.stmt = s, (s.lineno, s.col_offset), s
    test = ops.truth(cx, run.b.ev_val(s.test, "a condition"))
    exc, args = raise_parts(run.bld, s.body[0])
    bad = ops.node_of(cx, test)
    cond = run.condition()
    if cond is not None:
        bad = ir.And(cond, bad)
    ok = ir.Not(bad)
    zero = ir.Const(ir.UInt(8), 0)
    ty = np_ty(np.dtype(np.uint8))
    cx.cur_node = s.body[0]
    v = cx.guard(Val(ir.Select(ok, zero, zero), ty, risky=test.risky), ok, exc, args)
    m = run.m.member("raise", ty, [])
    node = stored(cx, v, ty)
    run.m.add([], lambda idx: (m, [], {m.index: node}))
    for st in s.orelse:
        run.exec_stmt(st)
    return True


def _const_test(run, test):
    """The value of an `if` test known when the function is compiled (array
    ranks, dtypes, np.ndim of names), or None. Evaluated only where it reads
    no array element (a static test of the rewrites has no side effect)."""
    if any(isinstance(n, (ast.Subscript, ast.Call)) and not _static_call(n)
           for n in ast.walk(test)):
        return None
    v = ops.truth(run.cx, run.b.ev_val(test, "a condition"))
    return bool(v.const) if v.is_const else None


def _static_call(n) -> bool:
    """Whether n is a call or subscript the rewrites' static tests use:
    np.ndim(x), x.shape[k], np.can_cast(...), x.dtype.type(0)."""
    if isinstance(n, ast.Subscript):
        return isinstance(n.value, ast.Attribute) and n.value.attr == "shape"
    f = n.func
    return isinstance(f, ast.Attribute) and f.attr in ("ndim", "can_cast", "type")
