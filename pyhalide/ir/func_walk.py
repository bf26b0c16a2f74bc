"""The Functions reachable from some Functions through their Func calls."""
from __future__ import annotations

from .nodes import FUNC
from .ops import find_calls


def func_closure(funcs, calls_of):
    """Yields (fn, calls) for each Function reachable from `funcs` (them
    included), each once, depth first: `calls` are calls_of(fn), the calls
    of the parts of fn's definitions the caller follows, and the Funcs those
    calls name (a FUNC call whose func is set) are visited next."""
    seen, stack = set(), list(funcs)
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        calls = calls_of(fn)
        yield fn, calls
        stack += [c.func for c in calls if c.call_type == FUNC and c.func is not None]


def definition_calls(defs) -> list:
    """The calls in the values, args and predicates of the Definitions defs."""
    return find_calls([e for d in defs for e in list(d.values) + list(d.args) + list(d.predicates)])
