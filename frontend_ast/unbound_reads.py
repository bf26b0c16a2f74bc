"""Reads of a loop member that is unassigned before its loop (Python raises
UnboundLocalError where it is read and no iteration so far assigned it).

Such a member's group has a bool element, its "assigned" flag (named
flag_name(member); loops.LoopRunner adds it before the typing runs, the
builder sets it where the loop assigns the member). While the group's loop
runs, the flag's current value is bound in the scope under that name, so a
read of the member anywhere in the nest, after the loop or in a later
iteration of an enclosing loop, is the member's value guarded by the flag."""
from __future__ import annotations

from . import ops
from .names import user_name
from .values import Val

SUFFIX = "?assigned"


def flag_name(name: str) -> str:
    """The name of member `name`'s assigned flag (no Python name has a `?`)."""
    return name + SUFFIX


def guarded(cx, v: Val, assigned: Val, name: str) -> Val:
    """v (the member `name`), raising UnboundLocalError where it is read and
    `assigned` is false, as Python does."""
    msg = (f"cannot access local variable {user_name(name)!r} where it is not associated "
           f"with a value",)
    out = cx.guard(v, ops.truth(cx, assigned).node, "UnboundLocalError", msg)
    # its range holds where the loop assigned it, not where the guard fails
    # (a read it indexes is checked, and is in bounds where the check passes)
    it = v.ty.ir()
    return out.set_range(it.min_value(), it.max_value()) if v.ty.is_int() and \
        v.ty.kind != "int" else out.set_range(None, None)


def member_read(cx, env: dict, name: str, v: Val):
    """The value of a read of `name` (bound to v in env) inside the loop of
    a group holding its assigned flag: v guarded by the flag; None when no
    such group runs."""
    flag = env.get(flag_name(name))
    if not isinstance(flag, Val):
        return None
    return guarded(cx, Val(v.node, v.ty, risky=v.risky).set_range(v.lo, v.hi, v.lbs, v.ubs),
                   flag, name)
