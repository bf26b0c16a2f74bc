"""The calls an expression may evaluate, leaving out the branches of lazy
`if_then_else`s that an enclosing `if_then_else` with the same condition
has decided: in `if_then_else(r, if_then_else(r, a, b), c)` the inner b is
never evaluated (a value assigned after a `break` keeps the name's earlier
value in its false branch, and a start value under the same running
condition reads it only where r holds)."""
from __future__ import annotations

from . import nodes as N
from .mutator import children
from .ops import equal, find_calls

_BUDGET = 20000     # nodes walked (with their known conditions) before giving up


class _OverBudget(Exception):
    pass


def live_calls(exprs) -> list:
    """The calls of `exprs` (a list of expressions) outside the dead
    branches of lazy `if_then_else`s, each once per distinct path of known
    conditions; every call (find_calls) when the walk would exceed _BUDGET
    nodes. Only if_then_else decides: both operands of a `select` are
    evaluated."""
    out, seen = [], set()
    count = [0]

    def known(cond, facts):
        for c, v in facts:
            if c is cond or equal(c, cond):
                return v
        return None

    def walk(e, facts):
        key = (id(e), tuple(id(c) for c, _ in facts))
        if key in seen:
            return
        seen.add(key)
        count[0] += 1
        if count[0] > _BUDGET:
            raise _OverBudget
        if type(e) is N.Call:
            if e.call_type == N.INTRINSIC and e.name == "if_then_else" and len(e.args) == 3:
                cond, then, other = e.args
                v = known(cond, facts)
                if v is not None:
                    walk(then if v else other, facts)
                    return
                walk(cond, facts)
                walk(then, facts + ((cond, True),))
                walk(other, facts + ((cond, False),))
                return
            out.append(e)
        for ch in children(e):
            if isinstance(ch, N.IRNode):
                walk(ch, facts)

    try:
        for e in exprs:
            walk(e, ())
    except _OverBudget:
        return find_calls(list(exprs))
    return out
