"""Which Func reads an `if` condition may hold when a loop's start value is
computed only where the `if`s around the loop hold
(defs.Definitions._start_under_ifs): the condition is then evaluated
wherever the loop's Func is, also where Python does not evaluate it."""
from __future__ import annotations

from pyhalide import checks, ir
from pyhalide.ir.func_walk import definition_calls, func_closure

from .start_checks import start_checked


def _defs_can_raise(fn) -> bool:
    """Whether a definition of fn, or of a Func it reads (transitively),
    reads with a run-time check or at a data-dependent (`likely`) index."""
    def calls_of(f):
        return definition_calls(([f.pure] if f.pure is not None else []) + list(f.updates))
    return any(any(checks.can_raise(c) or c.call_type == ir.FUNC and c.func is None
                   for c in calls)
               for _, calls in func_closure([fn], calls_of))


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
