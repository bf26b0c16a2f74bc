"""A second build of a function that does not compile, with its Python int
arguments that bound loops known to be >= 0 (checked at call time; a call
with a negative one runs the plain function).

Insertion sort from position `lo` (`while j >= lo and a[j] > key: a[j + 1]
= a[j]; j -= 1`) is refused while lo may be negative: `a[j + 1]` and `a[j]`
then carry Python's negative-index wrap (`select(j + 1 < 0, j + 1 + n,
j + 1)`), so the loop does not write at its position plus a constant
(loop_cycles.py), and with j below 0 its positions do wrap (iteration n - 1
reads what iteration 0 wrote). With every int argument >= 0 (its symbol's
range and its Val's lower bound 0), the wrap selects fold away and the loop
compiles.

    nonneg_ints(pf, key) -> [argument name]      the int arguments bounding loops
    assume_nonneg(builder, names)                before Builder.build

The first call-time check of such a build raises PlainFallback for a
negative argument; Specialization.run then returns what the plain function
returns (it makes its argument writes and raises what it raises), which is
what Python does. The call-time check reads the arguments' values, so the
fast paths (direct_call.py, the compiled entry) key on them and never run
the kernel on a negative one."""
from __future__ import annotations

import ast

from .ranges import INT64


class PlainFallback(Exception):
    """A call outside what the build assumed: run the plain function."""


def nonneg_ints(pf, key) -> list:
    """The names of the function's Python int arguments in this key that
    bound a loop: read in a `while` test or in the start of a `range` (only
    such a function is built again: a second build costs about as much as
    the first)."""
    ints = {name for name, k in zip(pf.params, key) if k[0] == "int"}
    if not ints:
        return []
    bounds = set()
    for n in ast.walk(pf.tree):
        if isinstance(n, ast.While):
            part = n.test
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id == "range" and len(n.args) >= 2:
            part = n.args[0]
        else:
            continue
        bounds |= {m.id for m in ast.walk(part) if isinstance(m, ast.Name)}
    return [name for name in pf.params if name in ints & bounds]


def assume_nonneg(builder, names) -> None:
    """Make the int arguments `names` >= 0 in the build (ranges, bounds) and
    check that at call time, before every other call-time check."""
    cx = builder.cx
    for name in names:
        cx.syms.add(name, 0, INT64[1])
        v = builder.arg_vals[name]
        v.set_range(0, v.hi, v.lbs, v.ubs)
    checks = cx.static_checks
    list.insert(checks, 0, _check(tuple(names)))
    checks.locs.insert(0, None)


def _check(names):
    def check(env):
        for name in names:
            if env.params[name] < 0:
                raise PlainFallback(name)
    return check
