"""Run-time checks inside a definition's values.

`@pipeline` code raises where Python raises (an index past an array's end, a
division by zero, ...), from inside a Func's definition. Such a check is a
read of a one-element input image (a check image, holding 0) at index
`likely(select(ok, 0, 1))`: where `ok` fails the read leaves the image, the
access check of lowering raises, and the frontend turns that error into
Python's (it names one check image per check). The checked value `v` becomes
`select(read != 0, zero, v)` (`guarded`), which is `v` wherever the check
passes. Lowering asserts `ok` itself before the statement and then reads
the image as 0 (lowering/check_image_reads.py), so compiled code keeps only
the assertion. A check whose read position is already read, outside lazy
branches, by a check of the value it guards is not made again
(frontend_ast/context.Context.guard: `a[i] += 1` checks `i` once).

A check is on the point a definition evaluates (its index, its data), never
on the value computed: `strip` gives a value without its checks, and the
checks (`read != 0`), so that analyses of the value (rfactor's associativity
match) see the operator; a rewrite of the value puts them back with
`apply`, and they then raise at exactly the points the original raised at.
A check found only inside a lazy `if_then_else` branch stays in place: it
raises only when that branch is taken. A lazy `if_then_else` whose branches
then hold no read that can raise evaluates like a select, and becomes one
(the frontend makes a branch lazy because of a check in it).
"""
from __future__ import annotations

from . import ir
from .ir.check_images import CHECK_PREFIX, is_check_read

PREFIX = CHECK_PREFIX


def image_name(n: int) -> str:
    """The name of the n-th check image of a pipeline."""
    return f"{PREFIX}{n}"


def guarded(read: ir.Expr, value: ir.Expr) -> ir.Expr:
    """`value`, checked by `read` (a read of a check image)."""
    return apply([ir.NE(read, ir.Const(read.type, 0))], value)


def _check(e):
    """The check (`read != 0`) of a guarded value `e`, or None."""
    if not (isinstance(e, ir.Select) and isinstance(e.condition, ir.NE)
            and isinstance(e.true_value, ir.Const) and not e.true_value.value):
        return None
    read, zero = e.condition.a, e.condition.b
    if is_check_read(read) and isinstance(zero, ir.Const) and zero.value == 0:
        return e.condition
    return None


def checked_value(e):
    """The value a guarded expression `e` checks, or None if e is not one."""
    return e.false_value if _check(e) is not None else None


class _Eager(ir.Visitor):
    """The checks evaluated wherever the value is (outside lazy branches)."""

    def __init__(self):
        super().__init__()
        self.checks = []

    def visit_Select(self, e):
        check = _check(e)
        if check is not None and not any(ir.equal(check, c) for c in self.checks):
            self.checks.append(check)
        self.visit_children(e)

    def visit_Call(self, e):
        self.visit(e.args[0]) if ir.is_lazy_select(e) else self.visit_children(e)


class _Strip(ir.Mutator):
    """Removes the eager checks, also where a lazy branch repeats one."""

    def __init__(self, checks: list):
        super().__init__()
        self.checks = checks

    def visit_Select(self, e):
        check = _check(e)
        if check is not None and any(ir.equal(check, c) for c in self.checks):
            return self.mutate(e.false_value)
        return self.mutate_children(e)

    def visit_Call(self, e):
        out = self.mutate_children(e)
        if ir.is_lazy_select(out) and not _guards_input(out) and \
                not any(can_raise(c) for c in ir.find_calls(list(out.args[1:]))):
            return ir.Select(*out.args)
        return out


def _guards_input(e: ir.Call) -> bool:
    """Whether lazy select `e` reads an input only where its condition,
    fixed for a call (parameters and buffer geometry only: `0 < c.extent.0`
    of arrays.ArrayAccess._unless_empty), holds: a select would read the
    input also where it is empty."""
    cond, a, _ = e.args
    return fixed_for_call(cond) and any(c.call_type == ir.IMAGE for c in ir.find_calls([a]))


def fixed_for_call(e: ir.Expr) -> bool:
    """Whether e names only scalar parameters and buffer geometry (no loop
    variable, placeholder or read): its value is the same wherever it is
    evaluated in a call (lowering/unswitch_lazy.py tests it once)."""
    return not ir.reads_memory(e) and all(v.kind == "param" for v in ir.free_vars(e).values())


def can_raise(c: ir.Call) -> bool:
    """A read that can raise: of a check image, or of an input at an index
    the frontend marks `likely` (data-dependent, checked by lowering)."""
    return c.call_type == ir.IMAGE and any(
        isinstance(a, ir.Call) and a.call_type == ir.INTRINSIC and a.name == "likely"
        for a in c.args)


def eager(e: ir.Expr) -> list:
    """The checks (`read != 0`) evaluated wherever `e` is (outside lazy
    branches)."""
    v = _Eager()
    v.visit(e)
    return v.checks


def eager_where(e: ir.Expr) -> list:
    """[(check, lazy conditions)]: the checks evaluated wherever `e` is
    (eager(): conditions ()), then those evaluated wherever the conditions
    of lazy `if_then_else`s fixed for a call (fixed_for_call) around them
    hold (an operand read lazily where an array has elements), each once."""
    out = [(c, ()) for c in eager(e)]
    seen = set()
    stack = [(e, ())]
    while stack:
        n, conds = stack.pop()
        key = (id(n), tuple(id(c) for c in conds))
        if not isinstance(n, ir.IRNode) or key in seen:
            continue
        seen.add(key)
        check = _check(n)
        if check is not None and not any(ir.equal(check, c) for c, _ in out):
            out.append((check, conds))
        if ir.is_lazy_select(n):
            c = n.args[0]
            stack.append((c, conds))
            if fixed_for_call(c):
                stack.append((n.args[1], conds + (c,)))
            continue
        stack.extend((x, conds) for x in ir.children(n))
    return out


def strip(values) -> tuple:
    """(values without their checks, [the checks]). A check only inside a
    lazy branch stays where it is."""
    eager = _Eager()
    for v in values:
        eager.visit(v)
    s = _Strip(eager.checks)
    return tuple(s.mutate(v) for v in values), eager.checks


def without(e: ir.Expr, checks: list) -> ir.Expr:
    """`e` without those of its eager checks that are among `checks`
    (conditions `read != 0`, as eager() lists them)."""
    return _Strip(checks).mutate(e) if checks else e


class _Shown(ir.Mutator):
    def visit_Select(self, e):
        if _check(e) is not None:
            return self.mutate(e.false_value)
        return self.mutate_children(e)

    def visit_Call(self, e):
        if e.call_type == ir.INTRINSIC and e.name == "likely":
            return self.mutate(e.args[0])
        return self.mutate_children(e)


def shown(e: ir.Expr) -> ir.Expr:
    """`e` as messages show it: without any check, eager or lazy, and
    without the `likely` marks of checked indices."""
    return _Shown().mutate(e)


def apply(checks, value: ir.Expr) -> ir.Expr:
    """`value` guarded by every check in `checks`."""
    zero = ir.Const(value.type, False if value.type.is_bool() else 0)
    for c in reversed(list(checks)):
        value = ir.Select(c, zero, value)
    return value
