"""Which Funcs start with a checked read: their pure definition (the value
before the loop, computed wherever the Func is) reads with a run-time check,
directly or through the pure definitions of the Funcs it reads."""
from __future__ import annotations

from pyhalide import checks, ir
from pyhalide.ir.func_walk import func_closure
from pyhalide.ir.live_calls import live_calls


def start_checked(node, guarded=frozenset()) -> bool:
    """Whether node reads a Func whose pure definition reads with a
    run-time check, directly or through the pure definitions of the Funcs
    it reads. A Func named in `guarded` computes its start only
    where the `if`s around its loop hold (defs.Definitions.define_group):
    its own checks do not count, those of the Funcs it reads do. A read in
    a branch of an `if_then_else` that an enclosing one with the same
    condition never takes does not count (live_calls)."""
    def pure_calls(fn):
        d = fn.pure
        return [] if d is None else live_calls(list(d.values) + list(d.args) + list(d.predicates))
    start = [c.func for c in ir.find_calls(node) if c.call_type == ir.FUNC and c.func is not None]
    return any(fn.pure is not None and fn.name not in guarded and
               any(checks.is_check_read(c) for c in calls)
               for fn, calls in func_closure(start, pure_calls))
