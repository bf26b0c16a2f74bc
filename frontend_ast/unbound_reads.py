"""Reads of a loop member that is unassigned before its loop (Python raises
UnboundLocalError where it is read and no iteration so far assigned it).

Such a member's group has a bool element, its "assigned" flag (named
flag_name(member); loops.LoopRunner adds it before the typing runs, the
builder sets it where the loop assigns the member). While the group's loop
runs, the flag's current value is bound in the scope under that name, so a
read of the member anywhere in the nest, after the loop or in a later
iteration of an enclosing loop, is the member's value guarded by the flag.

After the loop the member is an AfterLoop: its value guarded by the final
flag, keeping both. A later loop that assigns the member again starts its own
flag from that flag and the member from the unguarded value (carry_flags), so
the guard is evaluated only where a read finds the member unassigned by either
loop (`for i in range(n): ...` then `for i in range(m): ...`, `return i`
with n = 0 < m returns m - 1, as Python does)."""
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


class AfterLoop(Val):
    """A member's value after a loop that may leave it unassigned: `value`
    guarded by `assigned` (the loop's final flag)."""

    __slots__ = ("member", "value", "assigned")


def after_loop(cx, v: Val, assigned: Val, name: str) -> AfterLoop:
    """Member `name`'s value after its loop (v, assigned where `assigned`)."""
    g = guarded(cx, v, assigned, name)
    out = AfterLoop(g.node, g.ty, risky=g.risky, static=g.static, const=g.const, facts=g.facts)
    out.set_range(g.lo, g.hi, g.lbs, g.ubs)
    out.member, out.value, out.assigned = name, v, assigned
    return out


def carry_flags(g, add_flag) -> None:
    """For each member of group g (after its type fixpoint) whose initial
    value is its own AfterLoop of the loop's type (read unchanged since the
    earlier loop), a flag (add_flag(g, name)) that starts from the earlier
    loop's flag, and the unguarded value as the initial value: reads in the
    loop are guarded by the flag (member_read), the value after it by the
    final flag. Members with a tag or whose type the loop changes keep
    their guarded initial value (their value after the loop is a union with
    it, selected by whether the loop ran, not by the flag)."""
    for k in range(g.base):
        init, name = g.init[k], g.names[k]
        if not isinstance(init, AfterLoop) or init.member != name or init.union or \
                name in g.tag_of or name in g.flag_of or init.ty != g.tys[k]:
            continue
        add_flag(g, name)
        g.init[-1] = init.assigned
        g.init[k] = init.value


def member_read(cx, env: dict, name: str, v: Val):
    """The value of a read of `name` (bound to v in env) inside the loop of
    a group holding its assigned flag: v guarded by the flag; None when no
    such group runs."""
    flag = env.get(flag_name(name))
    if not isinstance(flag, Val):
        return None
    return guarded(cx, Val(v.node, v.ty, risky=v.risky).set_range(v.lo, v.hi, v.lbs, v.ubs),
                   flag, name)
