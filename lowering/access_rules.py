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
