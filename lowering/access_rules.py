"""The region rules of DESIGN.md ("Regions and safety"), in one place.

For each access (read or write, one dimension at a time) bounds inference
asks whether its interval extends the accessed buffer's computed region, and
the access-check pass asks whether it must be checked at run time. The two
answers are complementary: an access either is inside the region by
construction, or it is checked."""
from __future__ import annotations

from .interval import Interval

FUNC = "func"               # a read or write of an intermediate Func
OUTPUT = "output"           # a read or write of an output Func
IMAGE = "image"             # a read of an input buffer


def func_kind(is_output: bool) -> str:
    return OUTPUT if is_output else FUNC


def kind_of(ctx, name: str) -> str:
    """The kind of Func `name`'s accesses: its region owner's
    (LoweringContext.region_owner; an rfactor intermediate of an output
    follows the output's rules)."""
    return func_kind(ctx.is_output(ctx.region_owner(name)))


def extends_region(kind: str, iv: Interval) -> bool:
    if not iv.bounded():
        return False
    if kind == FUNC:
        return True
    return not iv.data_dependent()


def needs_check(kind: str, iv: Interval) -> bool:
    return not extends_region(kind, iv)


def bind_expression_lets(exprs, scope: dict) -> None:
    """Give each name a Let inside `exprs` binds an interval in `scope`: its
    value's (an index) or unbounded (another type, or a name bound twice).
    Bounds inference sees a call's arguments alone, outside the Lets around
    it: a read at a let-bound index then extends its region by the value's
    bounds, or (unbounded) is checked at run time inside the Lets
    (access_checks)."""
    from pyhalide import ir

    from .interval import BoundsOf

    lets, done, stack = [], set(), list(exprs)
    while stack:                # outer Lets first
        e = stack.pop()
        if isinstance(e, ir.IRNode) and id(e) not in done:
            done.add(id(e))
            if isinstance(e, ir.Let):
                lets.append(e)
            stack.extend(reversed(ir.children(e)))
    bound = set()
    for x in lets:
        if x.name in bound or x.value.type != ir.INDEX:
            scope[x.name] = Interval(None, None)
        else:
            scope[x.name] = BoundsOf(scope)(x.value)
        bound.add(x.name)
