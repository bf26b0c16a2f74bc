"""A second build of a function that does not compile, with its Python int
arguments that bound loops known to be >= 0 (checked at call time: a call
with a negative one raises NotImplementedError, located at the loop).

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

The call-time check runs first of all call-time checks, before the kernel
and before any argument is written; its error carries no check_order tag
(the call runs no Python code to find another one). It reads the
arguments' values, so the fast paths (direct_call.py, the compiled entry)
key on them: a negative value has no entry and takes the general path,
which raises."""
from __future__ import annotations

import ast

from .limits import limit
from .ranges import INT64
from .source_read import read_function


def nonneg_ints(pf, key) -> list:
    """The names of the function's Python int arguments in this key that
    bound a loop of its source: read in a `while` test or in the start of a
    `range` (only such a function is built again: a second build costs
    about as much as the first)."""
    ints = {name for name, k in zip(pf.params, key) if k[0] == "int"}
    if not ints:
        return []
    loops = _bounding_loops(read_function(pf.fn)[0], ints)
    return [name for name in pf.params if name in loops]


def assume_nonneg(builder, names) -> None:
    """Make the int arguments `names` >= 0 in the build (ranges, bounds) and
    check that at call time, before every other call-time check."""
    cx = builder.cx
    for name in names:
        cx.syms.add(name, 0, INT64[1])
        v = builder.arg_vals[name]
        v.set_range(0, v.hi, v.lbs, v.ubs)
    tree, smap = read_function(builder.pf.fn)
    loops = _bounding_loops(tree, set(names))
    checks = cx.static_checks
    list.insert(checks, 0, NegativeBound(
        builder.pf.name, [(name, smap.loc(loops[name]), _wrapped(loops[name]))
                          for name in names]))
    checks.locs.insert(0, None)


def _bounding_loops(tree, names) -> dict:
    """{name: the first loop of the source (in source order) whose `while`
    test reads it, else the first `for ... in range(...)` whose start reads
    it} for those of `names` that bound a loop."""
    whiles, ranges = {}, {}
    nodes = sorted((n for n in ast.walk(tree) if isinstance(n, (ast.While, ast.For))),
                   key=lambda n: (n.lineno, n.col_offset))
    for loop in nodes:
        if isinstance(loop, ast.While):
            part, into = loop.test, whiles
        elif isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and \
                loop.iter.func.id == "range" and len(loop.iter.args) >= 2:
            part, into = loop.iter.args[0], ranges
        else:
            continue
        for m in ast.walk(part):
            if isinstance(m, ast.Name) and m.id in names:
                into.setdefault(m.id, loop)
    return {**ranges, **whiles}


def _wrapped(loop) -> str:
    """The source of the element the loop writes first (`a[j + 1]`), else
    of the first element it reads: an index that a negative bound lets go
    below 0."""
    subs = sorted((n for s in loop.body for n in ast.walk(s) if isinstance(n, ast.Subscript)),
                  key=lambda n: (not isinstance(n.ctx, ast.Store), n.lineno, n.col_offset))
    return ast.unparse(subs[0]) if subs else ""


class NegativeBound:
    """Call-time check that each int argument the build assumed >= 0 is:
    NotImplementedError otherwise, naming the argument, its value, the loop
    it bounds (file:line:col and its first line) and the index whose
    negative wrap is not compiled."""

    def __init__(self, fname, args):
        self.fname = fname
        self.args = args        # [(name, Loc of its loop, source of the wrapped index)]

    def __call__(self, env):
        for name, loc, index in self.args:
            value = env.params[name]
            if value < 0:
                raise limit(NotImplementedError(self.message(name, value, loc, index)))

    def message(self, name, value, loc, index) -> str:
        where = f"{loc}: " if loc is not None else ""
        header = f" (`{loc.text.strip()}`)" if loc is not None and loc.text.strip() else ""
        what = f"`{index}`" if index else "its indexes"
        return (f"{where}{self.fname}() called with {name}={value}: this loop{header} is "
                f"compiled only for {name} >= 0; with a negative {name}, Python's "
                f"negative-index wrap of {what} (an index below 0 counts from the end of "
                f"the array) is not compiled for this loop form. Pass {name} >= 0.")
