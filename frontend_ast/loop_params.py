"""Loop bounds and region sizes known at call time (a Python int argument,
n - 1, a size computed from arguments) as int32 parameters of their own,
which bounds inference can bound (a narrowing cast of a wider value is
unbounded: it may wrap)."""
from __future__ import annotations

import copy
import itertools

from pyhalide import ir
from pyhalide.buffer import Param

from .context import StaticParam
from .limits import int_text, limit
from .loop_bound_reach import reached_condition, reached_only, reads_data
from .ranges import INT32, Aff, n_within
from .values import Val


def index_param(cx, v: Val, what: str, params: dict | None = None, key=None,
                checked: bool = True) -> Val:
    """v, a value known at call time (a Python int argument, n - 1, a size
    computed from arguments), for a loop bound or a region size: checked at
    call time to fit int32 where its range does not prove it (OverflowError
    naming `what`), and where its node is wider than int32 (or unsigned),
    an int32 parameter of its own with that value. Bounds inference bounds
    a loop or region over such a parameter by its value; a narrowing cast of
    the wider node would be unbounded (it may wrap), so arrays read over it
    would get no region. With `params`, the parameter is params[key], made
    once (typing runs included: every run of a loop header sees one node).
    A value whose node carries run-time checks (risky: np.ndindex's
    negative size) keeps its node, unless `checked` is False (the size of
    an array that exists: its checks ran where it was made)."""
    if not v.is_static:
        return v
    if not n_within(v.rng, INT32):
        reached = cx.reached_at_call()
        if cx.typing:
            # no check is added in a typing run: narrow a copy, so that v keeps
            # its range and the compiling run adds the check
            v = copy.copy(v)
        elif reached is False and not reads_data(cx, reached_condition(cx)):
            # whether Python reaches the code is known only at run time, where
            # the loop's bounds are computed
            v = _fits_at_run_time(cx, v, what)
        else:
            # under a condition that reads data (reached is False), a value whose
            # computation raises counts as fitting: its run-time checks report
            # that where Python evaluates it (loop_bound_reach.sink)
            cx.static_checks.append(_fits_int32(v.static, what, reached or None,
                                                raising_fits=reached is False and v.risky))
        v.set_range(INT32[0] if v.lo is None else max(v.lo, INT32[0]),
                    INT32[1] if v.hi is None else min(v.hi, INT32[1]), v.lbs, v.ubs)
    n = v.node
    if v.is_const or checked and v.risky or n is not None and (n.type == ir.INDEX or
                                                              n.type.bits < 32):
        return v
    p = None if params is None else params.get(key)
    if p is None:
        if cx.typing and params is None:
            return v
        f = v.static
        p = Param(ir.INDEX, f"__pyhalide_bound{next(_BOUNDS)}")
        cx.static_params.append(StaticParam(p, lambda env: _in_int32(f(env)), ir.INDEX))
        if params is not None:
            params[key] = p
    return Val(p.node, v.ty, static=v.static).set_range(
        v.lo, v.hi, *_with_symbol(cx, p, v))


def _with_symbol(cx, p: Param, v: Val):
    """v's affine bounds (lbs, ubs) and the parameter p itself, a symbol of
    the argument ranges with its call-time value: a loop over it is bounded
    by it (`for i in range(max(lo, hi), 1, -1)`: i <= the bound, where the
    Affs of max(lo, hi) only give the type's range), so the bounds of an
    inner loop's `range(i + 1, n)` are checked against the values of the
    call, not the int32 range."""
    sym = p.name()
    if sym not in cx.sym_static:
        f = v.static
        cx.syms.add(sym, INT32[0] if v.lo is None else max(v.lo, INT32[0]),
                    INT32[1] if v.hi is None else min(v.hi, INT32[1]))
        cx.sym_nodes[sym] = p.node
        cx.sym_static[sym] = lambda env: _in_int32(f(env))
    own = Aff.sym(sym)
    return list(v.lbs) + [own], list(v.ubs) + [own]


def _in_int32(v) -> int:
    """A bound's value for the kernel: v where it fits int32, else 0. Only a
    loop Python does not reach gets 0 (a reached one fails its check first):
    0 keeps the index arithmetic of the regions it bounds from overflowing
    (a clamped -2**31 made `i - n` wrap)."""
    v = int(v)
    return v if INT32[0] <= v <= INT32[1] else 0


def _fits_at_run_time(cx, v: Val, what: str) -> Val:
    """v, checked to fit int32 where Python evaluates it, under a condition
    known only at run time (`if a[0] > 0:`): the fit is computed at call
    time as a flag parameter (a value whose computation raises counts as
    fitting: its own run-time checks report that where it is reached), and
    a run-time check on the flag raises OverflowError, passing where the
    enclosing conditions fail (loop_bound_reach.reached_only)."""
    f = v.static

    def fits(env):
        try:
            return int(INT32[0] <= int(f(env)) <= INT32[1])
        except Exception:       # (reported by the value's own checks)
            return 1
    p = Param(ir.UInt(8), f"__pyhalide_fits{next(_BOUNDS)}")
    cx.static_params.append(StaticParam(p, fits, ir.UInt(8)))
    v = cx.guard(v, ir.NE(p.node, ir.Const(ir.UInt(8), 0)), "OverflowError",
                 f"{what}: its bound does not fit in 32 bits (compiled loops and arrays have "
                 f"int32 indices)")
    return reached_only(cx, v)


def _fits_int32(f, what: str, reached, raising_fits: bool = False):
    """The call-time check that f fits int32, where the code is reached
    (`reached`: Context.reached_at_call, None for always): a bound under a
    branch Python does not take (`if n > 2**31: return -1`) is not checked.
    With `raising_fits`, a computation of f that raises passes."""
    def check(env):
        if reached is not None and not reached(env):
            return
        try:
            v = int(f(env))
        except ArithmeticError:
            if raising_fits:
                return
            raise
        if not INT32[0] <= v <= INT32[1]:
            raise limit(OverflowError(f"{what}: its bound {int_text(v)} does not fit in 32 bits (compiled "
                                      f"loops and arrays have int32 indices)"))
    return check


_BOUNDS = itertools.count()
