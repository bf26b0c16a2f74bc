"""Which Funcs start with a checked read: their pure definition (the value
before the loop, computed wherever the Func is) reads with a run-time check,
directly or through the pure definitions of the Funcs it reads."""
from __future__ import annotations

from pyhalide import checks, ir


def start_checked(node, guarded=frozenset()) -> bool:
    """Whether node reads a Func whose pure definition reads with a
    run-time check, directly or through the pure definitions of the Funcs
    it reads. A Func named in `guarded` computes its start only
    where the `if`s around its loop hold (defs.Definitions.define_group):
    its own checks do not count, those of the Funcs it reads do."""
    seen, todo = set(), [c.func for c in ir.find_calls(node)
                         if c.call_type == ir.FUNC and c.func is not None]
    while todo:
        fn = todo.pop()
        if id(fn) in seen or fn.pure is None:
            continue
        seen.add(id(fn))
        d = fn.pure
        calls = ir.find_calls(list(d.values) + list(d.args) + list(d.predicates))
        if fn.name not in guarded and any(checks.is_check_read(c) for c in calls):
            return True
        todo += [c.func for c in calls if c.call_type == ir.FUNC and c.func is not None]
    return False
