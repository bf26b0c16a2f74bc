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

That build comes in two forms (specialize._build tries the first, then the
second):

- int32 (`wide` False): each such argument is the int32 value `max(P, 0)`
  with P a call-time parameter holding it, for arguments in [0, 2**30)
  (`lo + 2` stays int32). With the function's source rewritten so that a
  `while` counter compared with it reads as the loop's position
  (specialize._build, loop_counter_index.py), `while j >= lo` then tests
  `t >= max(P, 0)` in int32 as `while j >= 0` tests `t >= 0`, the loop
  bounds (`range(lo + 1, n)`: from P + 1) relate to that test, and
  lowering/loop_range_facts.py proves from `max(P, 0) >= 0` that the loop's
  reads are inside the array (no clamp, no negative-index wrap, no index
  check: insertion from lo runs as fast as insertion from 0). A call with
  an argument >= 2**30 raises PastInt32 before the kernel, which
  Specialization.run answers by running the wide form instead.
- wide: the arguments keep their int64 values, with ranges [0, 2**63):
  any argument >= 0 runs.

    nonneg_ints(pf, key) -> [argument name]      the int arguments bounding loops
    assume_nonneg(builder, names, wide)          before Builder.build
    PastInt32                                    an int32 build's argument >= 2**30

The call-time check runs first of all call-time checks, before the kernel
and before any argument is written; its error carries no check_order tag
(the call runs no Python code to find another one). It reads the
arguments' values, so the fast paths (direct_call.py, the compiled entry)
key on them: a negative value (or one >= 2**30 in the int32 form) has no
entry and takes the general path, which raises."""
from __future__ import annotations

import ast
import itertools

from pyhalide import ir
from pyhalide.buffer import Param

from .context import StaticParam
from .limits import limit
from .ranges import INT64, Aff
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


def assume_nonneg(builder, names, wide=False) -> None:
    """Make the int arguments `names` values >= 0 in the build (int32 ones
    below 2**30, or with `wide` int64 ones: see the module docstring) and
    check that at call time, before every other call-time check."""
    cx = builder.cx
    for name in names:
        v = builder.arg_vals[name]
        if wide:
            cx.syms.add(name, 0, INT64[1])
            v.set_range(0, v.hi, v.lbs, v.ubs)
            continue
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
                          for name in names], None if wide else LIMIT))
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


class PastInt32(NotImplementedError):
    """An int32 nonneg build called with an argument >= 2**30: the call
    runs the wide build (Specialization.run); raised to the user only
    where a caller binds the build itself (the message says why)."""


class NegativeBound:
    """Call-time check that each int argument the build assumed >= 0 is:
    NotImplementedError otherwise, naming the argument, its value, the loop
    it bounds (file:line:col and its first line) and the index whose
    negative wrap is not compiled; PastInt32 for one >= `below` (the int32
    build's 2**30; None: no bound)."""

    def __init__(self, fname, args, below=None):
        self.fname = fname
        self.args = args        # [(name, Loc of its loop, source of the wrapped index)]
        self.below = below

    def __call__(self, env):
        for name, loc, index in self.args:
            value = env.params[name]
            if value < 0:
                raise limit(NotImplementedError(self.message(name, value, loc, index)))
            if self.below is not None and value >= self.below:
                raise limit(PastInt32(self.head(name, value, loc) + (
                    f"compiled here as a 32-bit value, for {name} < 2**30 (a call "
                    f"through the @pipeline function runs its build for larger {name})")))

    def head(self, name, value, loc) -> str:
        where = f"{loc}: " if loc is not None else ""
        header = f" (`{loc.text.strip()}`)" if loc is not None and loc.text.strip() else ""
        return f"{where}{self.fname}() called with {name}={value}: this loop{header} is "

    def message(self, name, value, loc, index) -> str:
        what = f"`{index}`" if index else "its indexes"
        return (f"{self.head(name, value, loc)}compiled only for {name} >= 0; with a "
                f"negative {name}, Python's negative-index wrap of {what} (an index below "
                f"0 counts from the end of the array) is not compiled for this loop form. "
                f"Pass {name} >= 0.")
