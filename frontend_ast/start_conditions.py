"""Which Func reads an `if` condition may hold when a loop's start value is
computed only where the `if`s around the loop hold
(defs.Definitions._start_under_ifs): the condition is then evaluated
wherever the loop's Func is, also where Python does not evaluate it."""
from __future__ import annotations

from pyhalide import checks, ir

from .start_checks import start_checked


def _defs_can_raise(fn) -> bool:
    """Whether a definition of fn, or of a Func it reads (transitively),
    reads with a run-time check or at a data-dependent (`likely`) index."""
    seen, todo = set(), [fn]
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        defs = ([fn.pure] if fn.pure is not None else []) + list(fn.updates)
        calls = ir.find_calls([e for d in defs
                               for e in list(d.values) + list(d.args) + list(d.predicates)])
        if any(checks.can_raise(c) for c in calls):
            return True
        for c in calls:
            if c.call_type == ir.FUNC:
                if c.func is None:
                    return True
                todo.append(c.func)
    return False


def reads_allowed(cond, before: set, nest: set = frozenset(),
                  guarded=frozenset()) -> bool:
    """Whether every Func cond reads is safe to read at points Python does
    not evaluate cond. A Func defined before the loop nest (its name in
    `before`) must be a scalar (every index a constant: computed once, as
    Python did before the nest) or have no definition that can raise. A
    Func of the nest itself (its name in `nest`: an inner loop's result
    in the running iteration, `for jj ...: d += ...; if d > flag: ...`) is
    read at the running iteration only (every index a Var) and its pure
    definition must not read with a check (start_checks.start_checked;
    `guarded`: the Funcs whose starts hold their conditions): its value
    there is Python's, and its updates carry their loops' and `if`s'
    conditions, so they raise only where Python runs them."""
    for c in ir.find_calls(cond):
        if c.call_type != ir.FUNC:
            continue
        if c.func is None:
            return False
        if c.name in before:
            if not all(ir.is_const(a) for a in c.args) and _defs_can_raise(c.func):
                return False
        elif c.name in nest:
            if not all(isinstance(a, ir.Variable) for a in c.args) or \
                    start_checked(c, guarded):
                return False
        else:
            return False
    return True
