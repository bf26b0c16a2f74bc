"""A second build of a function that does not compile, with its Python int
arguments that bound loops known to be in [0, 2**30) (checked at call
time: a call with a negative or a larger one raises NotImplementedError,
located at the loop).

Insertion sort from position `lo` (`while j >= lo and a[j] > key: a[j + 1]
= a[j]; j -= 1`) is refused while lo may be negative: `a[j + 1]` and `a[j]`
then carry Python's negative-index wrap (`select(j + 1 < 0, j + 1 + n,
j + 1)`), so the loop does not write at its position plus a constant
(loop_cycles.py), and with j below 0 its positions do wrap (iteration n - 1
reads what iteration 0 wrote). With every int argument >= 0 (its symbol's
range and its Val's lower bound 0), the wrap selects fold away and the loop
compiles.

In that build such an argument is an int32 value, `max(P, 0)` with P a
call-time parameter holding it: with the function's source rewritten so
that a `while` counter compared with it reads as the loop's position
(specialize._build, loop_counter_index.py), `while j >= lo` then tests
`t >= max(P, 0)` in int32 as `while j >= 0` tests `t >= 0`, the loop
bounds (`range(lo + 1, n)`: from P + 1) relate to that test, and
lowering/loop_range_facts.py proves from `max(P, 0) >= 0` that the loop's
reads are inside the array (no clamp, no negative-index wrap, no index
check: insertion from lo runs as fast as insertion from 0).

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
import itertools

from pyhalide import ir
from pyhalide.buffer import Param

from .context import StaticParam
from .limits import limit
from .ranges import Aff
from .source_read import read_function
from .values import Val, mark_cannot_raise

_PARAMS = itertools.count()     # names of the int32 parameters
LIMIT = 2**30                   # the arguments are below it (`lo + 2` is int32 too)


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
    """Make the int arguments `names` int32 values >= 0 in the build (nodes,
    ranges, bounds) and check that at call time, before every other
    call-time check."""
    cx = builder.cx
    for name in names:
        v = builder.arg_vals[name]
        p = Param(ir.INDEX, f"__pyhalide_nonneg{next(_PARAMS)}")
        cx.static_params.append(StaticParam(p, _int32_value(v.static), ir.INDEX))
        # (max(P, 0) is P where the call runs: it tells the lowering P >= 0)
        node = ir.Max(p.node, ir.index(0))
        cx.syms.add(name, 0, LIMIT - 1)
        cx.sym_nodes[name] = p.node
        nv = Val(node, v.ty, static=v.static).set_range(0, LIMIT - 1, [Aff.sym(name)],
                                                         [Aff.sym(name)])
        builder.arg_vals[name] = nv
        builder.scope.env[name] = nv
    tree, smap = read_function(builder.pf.fn)
    loops = _bounding_loops(tree, set(names))
    checks = cx.static_checks
    list.insert(checks, 0, NegativeBound(
        builder.pf.name, [(name, smap.loc(loops[name]), _wrapped(loops[name]))
                          for name in names]))
    checks.locs.insert(0, None)


def _int32_value(f):
    """The call-time value of P: the argument where it is in [0, LIMIT) (a
    call with another value raises before the kernel: NegativeBound)."""
    def value(env):
        x = int(f(env))
        return x if 0 <= x < LIMIT else 0
    return mark_cannot_raise(value)


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
    """Call-time check that each int argument the build assumed in [0,
    LIMIT) is: NotImplementedError otherwise, naming the argument, its
    value, the loop it bounds (file:line:col and its first line) and, for a
    negative one, the index whose negative wrap is not compiled."""

    def __init__(self, fname, args):
        self.fname = fname
        self.args = args        # [(name, Loc of its loop, source of the wrapped index)]

    def __call__(self, env):
        for name, loc, index in self.args:
            value = env.params[name]
            if not 0 <= value < LIMIT:
                raise limit(NotImplementedError(self.message(name, value, loc, index)))

    def message(self, name, value, loc, index) -> str:
        where = f"{loc}: " if loc is not None else ""
        header = f" (`{loc.text.strip()}`)" if loc is not None and loc.text.strip() else ""
        head = (f"{where}{self.fname}() called with {name}={value}: this loop{header} is "
                f"compiled only for 0 <= {name} < 2**30; ")
        if value >= LIMIT:
            return head + (f"{name} is a 32-bit value in the compiled loop. Pass {name} "
                           f"< 2**30.")
        what = f"`{index}`" if index else "its indexes"
        return head + (f"with a negative {name}, Python's negative-index wrap of {what} (an "
                       f"index below 0 counts from the end of the array) is not compiled for "
                       f"this loop form. Pass {name} >= 0.")
