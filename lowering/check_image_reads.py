"""Run-time check images (pyhalide/checks.py) once their access checks are in
place (access_checks.py).

A check image is a one-element input holding 0 (frontend_ast/specialize.py
passes the same 1-byte zero buffer for every one), read at
`likely(select(ok, 0, bad))` where `bad` is never 0 (a constant 1, or
frontend_ast/context.encode_bad_index of the offending index). So:

- the access check of such a read, `0 <= index <= extent - 1`, holds exactly
  where `ok` does (`condition`): the assertion tests `ok` itself, and the
  position `bad` is computed only to report the failure;
- past its access check, every such read is 0 (`passer`): the read can go,
  and `select(read != 0, 0, v)` simplifies to `v`."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.check_images import is_check_read


def condition(c: ir.Call):
    """`ok` of a check-image read `c` at `likely(select(ok, 0, bad))` with a
    `bad` known to be nonzero, or None (then its access check is the
    general one)."""
    if not is_check_read(c) or len(c.args) != 1:
        return None
    a = c.args[0]
    if not (isinstance(a, ir.Call) and a.call_type == ir.INTRINSIC and a.name == "likely"):
        return None
    s = a.args[0]
    if not (isinstance(s, ir.Select) and ir.is_const(s.true_value, 0) and
            _nonzero(s.false_value)):
        return None
    return s.condition


def _nonzero(e) -> bool:
    """Whether e is a nonzero constant or encode_bad_index's form:
    select(x < 0, x, x + 1), clamped into int32 for a wider x."""
    if isinstance(e, ir.Const):
        return e.value != 0
    if isinstance(e, ir.Cast) and isinstance(e.value, ir.Max) and \
            isinstance(e.value.a, ir.Min):
        lo, hi = e.value.b, e.value.a.b
        if not (isinstance(lo, ir.Const) and isinstance(hi, ir.Const) and
                lo.value < 0 < hi.value and e.type.bits == 32):
            return False
        e = e.value.a.a
    if not (isinstance(e, ir.Select) and isinstance(e.condition, ir.LT) and
            ir.is_const(e.condition.b, 0)):
        return False
    x = e.condition.a
    one = e.false_value
    return ir.equal(e.true_value, x) and isinstance(one, ir.Add) and \
        ir.equal(one.a, x) and ir.is_const(one.b, 1) and x.type.is_int()


def _zero(n):
    return ir.Const(n.type, 0) if is_check_read(n) else None


def passer():
    """A function `passed(e)`: e (an Expr, or None) with its check-image
    reads as 0, one memo for every call of it (a pass's: the shared
    subexpressions of its statements are walked once; a node's result
    depends on the node alone)."""
    m = ir.FuncMutator(_zero)
    return lambda e: None if e is None else m.mutate(e)
