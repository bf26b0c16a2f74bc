"""`assert cond, msg`: raises AssertionError(msg) where Python raises it;
`raise E(msg)` (E a builtin exception class) is `assert False, msg` raising E,
also under `python -O`.

A condition known at call time (array sizes, scalar arguments) outside
loops is checked at call time, under the conditions of the enclosing `if`s.
Any other condition (array data, loop variables, loop state) is checked at
run time where the statement runs: it is the run-time check (cx.guard) of a
one-element array written at the statement (so the check is evaluated for
every iteration Python runs and only there), computed whole as an
unreturned result. The message is a constant (Python evaluates it only when
the assertion fails, so a constant is all it can show without computing it).
Under `python -O`, as in Python, asserts do nothing.
"""
from __future__ import annotations

import ast
import builtins

import numpy as np

from pyhalide import ir

from . import ops
from .loop_steps import RAISES_ATTR
from .names import MISSING
from .types import np_ty
from .values import Arr, Val, const_val


def exec_assert(b, s: ast.Assert):
    """Execute `assert` statement s in the interpreter b (builder.Builder)."""
    raises = getattr(s, RAISES_ATTR, None)
    if raises is not None:      # a rewrite's check (loop_steps.py), also under `python -O`
        _check(b, s, s.test, message_args(b.cx, s), exc=raises)
        return
    if not __debug__:
        return
    cx = b.cx
    args = message_args(cx, s)
    # `assert a and b` is `assert a` then `assert b` (b evaluated only where a
    # holds): its leading parts known at call time are call-time checks, in
    # order; the rest is one condition
    tests = [s.test]
    while isinstance(tests[0], ast.BoolOp) and isinstance(tests[0].op, ast.And):
        tests[:1] = tests[0].values
    reached = b.scope.current_condition()
    split = not b.state.loops and (reached is None or reached.is_static)
    for k, test in enumerate(tests):
        if k == len(tests) - 1 or not split:
            rest = test if k == len(tests) - 1 else _conjunction(b, s, tests[k:])
            _check(b, s, rest, args)
            return
        cond = ops.truth(cx, b.exprs.ev_val(test, "a condition"))
        if not cond.is_static:
            _check(b, s, _conjunction(b, s, tests[k:]), args)
            return
        _check(b, s, test, args, cond)


def _conjunction(b, s, tests):
    """`tests[0] and tests[1] and ...` as one node (the same node in every
    run of the statement)."""
    store = vars(b).setdefault("_assert_parts", {})
    key = (id(s), len(tests))
    node = store.get(key)
    if node is None:
        node = ast.copy_location(ast.BoolOp(op=ast.And(), values=list(tests)), tests[0])
        store[key] = node
    return node


def exec_raise(b, s: ast.Raise):
    """Execute `raise E` / `raise E(msg)` (analyze._check_raise's forms) in
    the interpreter b: E raised with the message where the statement runs."""
    name, args = raise_parts(b, s)
    _check(b, s, None, args, const_val(False), exc=name)


def raise_parts(b, s: ast.Raise):
    """(the builtin exception's name, its arguments) of `raise E` / `raise
    E(msg)`; a located error for other forms."""
    cx = b.cx
    call = s.exc if isinstance(s.exc, ast.Call) else None
    name = (call.func if call is not None else s.exc).id
    exc = getattr(builtins, name, None)
    if b.exprs.globals_lookup(name) is not MISSING or name in b.scope.env or not (
            isinstance(exc, type) and issubclass(exc, Exception)):
        raise cx.err(s.exc, f"{name!r} is not a builtin exception class",
                     hint="raise a builtin exception: ValueError, TypeError, RuntimeError, ...")
    args = () if call is None or not call.args else \
        (_constant_message(cx, call.args[0], "a raise"),)
    return name, args


def _check(b, s, test, args, cond=None, exc="AssertionError", part=0):
    """One asserted condition (`cond`: its value, if already evaluated);
    `exc`: the name of the builtin exception raised where it does not hold;
    `part`: which of the checks made at one node it is (each has its own
    flag array: in a loop, a second write of one flag in an iteration would
    replace the first, and its check with it)."""
    cx = b.cx
    if cond is None:
        cond = ops.truth(cx, b.exprs.ev_val(test, "a condition"))
    cx.cur_node = s
    if cond.is_const and cond.const:
        return
    reached = b.scope.current_condition()
    if not b.state.loops and cond.is_static and (reached is None or reached.is_static):
        if not cx.typing:
            cx.static_checks.append(CallTimeAssert(cond.static, reached and reached.static,
                                                   args, cx.smap.loc(s), exc))
        return
    arr = _flag_array(b, test if test is not None else s, part)
    ok = ops.node_of(cx, cond)
    zero = ir.Const(ir.UInt(8), 0)
    # the value mentions the condition also in typing runs (which make no
    # check): a loop's running state it reads then is one value per iteration
    v = Val(ir.Select(ok, zero, zero), np_ty(np.dtype(np.uint8)), risky=cond.risky)
    v = cx.guard(v, ok, exc, args)
    b.arrays.write(arr, [], v, s)


def shape_check(b, node, ok: Val, exc: str, message: str, part=0) -> None:
    """A shape check of an array operation at `node` made at run time where
    the statement runs, as an assert raising `exc` (call_time_reach.
    run_time_gated: under an `if` of data, where a call-time check would
    raise though Python does not run the statement). Each distinct check of
    a node has its own flag array: the key is `part` (hashable) and the
    condition's text (np.stack's parts, a broadcast's axes)."""
    loc = b.cx.smap.loc(node)
    where = f" ({loc.file}:{loc.line})" if loc is not None else ""
    n = ops.node_of(b.cx, ok)
    key = (part, message, ir.expr_to_str(n) if n is not None else None)
    _check(b, node, None, (message + where,), ok, exc=exc, part=key)


def message_args(cx, s: ast.Assert) -> tuple:
    """The arguments of the AssertionError: () or (the constant message,)."""
    return () if s.msg is None else (_constant_message(cx, s.msg, "an assert"),)


def _constant_message(cx, m, what: str):
    """The value of the constant message m of `what` (a literal, or a negated
    number)."""
    if isinstance(m, ast.UnaryOp) and isinstance(m.op, ast.USub) and \
            isinstance(m.operand, ast.Constant) and type(m.operand.value) in (int, float):
        return -m.operand.value
    if isinstance(m, ast.Constant):
        return m.value
    raise cx.err(m, f"the message of {what} must be a constant (a string)",
                 hint="write the message as a string literal; return the values to look at "
                      "them after the call")


def assertion_error(args: tuple, loc, exc: str = "AssertionError") -> Exception:
    """The exception (builtin, by name) an assert or raise statement raises,
    with a note naming the user's line."""
    e = getattr(builtins, exc)(*args)
    if loc is not None:
        what = "assertion" if exc == "AssertionError" else "raise"
        e.add_note(f"{what} at {loc.file}:{loc.line}")
    return e


class CallTimeAssert:
    """A call-time check: raise where the enclosing conditions hold and the
    asserted condition does not (both functions of StaticEnv)."""

    def __init__(self, cond, reached, args, loc, exc="AssertionError"):
        self.cond, self.reached, self.args, self.loc, self.exc = cond, reached, args, loc, exc

    def __call__(self, env):
        if (self.reached is None or self.reached(env)) and not self.cond(env):
            raise assertion_error(self.args, self.loc, self.exc)


def _flag_array(b, s, part=0) -> Arr:
    """The one-element array written where the assert (part) s runs (one per
    node and part, the same in every typing run of an enclosing loop)."""
    store = vars(b).setdefault("_assert_flags", {})
    arr = store.get((id(s), part))
    if arr is None:
        arr = Arr(f"assert_line{b.cx.smap.loc(s).line}", np_ty(np.dtype(np.uint8)), [],
                  "local", b.cx.smap.loc(s))
        arr.fill = const_val(np.uint8(0))
        store[(id(s), part)] = arr
        b.array_code.checked.append(arr)
    return arr
