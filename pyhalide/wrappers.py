"""Halide's wrapper and clone Funcs: `f.in_(g)`, `f.in_([g, h])`, `f.in_()`,
`img.in_(...)` for an ImageParam or Buffer, and `f.clone_in(g)`.

A wrapper is a new Func `w[args] = f[args]` (each value of a Tuple); the calls
to f in the named consumers' definitions are redirected to w, so w can be
scheduled apart from f (computed at a consumer's loop, vectorized, stored
transposed) while every value stays f's. `f.in_()` redirects every Func that
calls f, those defined later included, except f's other wrappers. A clone is
a copy of f's definitions and schedule under a new name, called by the named
consumers instead of f. Asking again for the wrapper of the same consumers
returns the same Func (as in Halide)."""
from __future__ import annotations

import copy
import dataclasses
import weakref

from . import ir
from .errors import CompileError
from .ir.recursion import deep_entry
from .source import at, user_location

# every live Function, for f.in_() (redirects the Funcs that already call f)
_LIVE: "weakref.WeakSet" = weakref.WeakSet()
# source object id -> (source, global wrapper Func): Funcs defined later call the wrapper
_GLOBAL: dict = {}
_building = [0]        # > 0 while a wrapper is being defined (it calls the source itself)


def register(fn: ir.Function) -> None:
    _LIVE.add(fn)


def _source_name(src) -> str:
    return src.name()


def _calls_source(src):
    """A test: is this Call a read of `src` (a Func or an input)?"""
    if hasattr(src, "function"):
        target = src.function()
        return lambda c: c.call_type == ir.FUNC and c.func is target
    return lambda c: c.call_type == ir.IMAGE and c.func is src


@deep_entry
def _redirect(fn: ir.Function, is_source, dest: ir.Function) -> bool:
    """Replace, in every definition of fn, the calls is_source accepts by
    calls of the same element of `dest`. Whether any call changed. (A global
    wrapper walks every live Func, however deep its expressions.)"""
    changed = []

    def visit(n):
        if isinstance(n, ir.Call) and is_source(n):
            changed.append(n)
            return ir.Call(n.type, dest.name, tuple(m.mutate(a) for a in n.args), ir.FUNC,
                           n.value_index, dest)
        return None

    m = ir.FuncMutator(visit)
    for d in fn.definitions():
        args = tuple(m.mutate(a) for a in d.args)
        values = tuple(m.mutate(v) for v in d.values)
        predicates = [m.mutate(p) for p in d.predicates]
        if changed:                  # (new tuples only when something changed)
            d.args, d.values, d.predicates = args, values, predicates
    return bool(changed)


def redirect_to_global_wrappers(fn: ir.Function) -> None:
    """A Func defined after `f.in_()`: its calls of f go to the wrapper."""
    if not _GLOBAL or _building[0]:
        return
    for src, w in list(_GLOBAL.values()):
        if fn is not w.function():
            _redirect(fn, _calls_source(src), w.function())


def _consumer_list(consumers) -> list:
    from .func import Func
    items = list(consumers) if isinstance(consumers, (list, tuple)) else [consumers]
    for c in items:
        if not isinstance(c, Func):
            raise TypeError(f"in_() and clone_in() take a Func or a list of Funcs, not "
                            f"{type(c).__name__}")
    return items


def _cache(src) -> dict:
    table = src.__dict__.get("_wrapper_funcs")
    if table is None:
        table = src._wrapper_funcs = {}
    return table


def _identity_func(src, name: str):
    """w[_0, ...] = src[_0, ...] with src's own Var names when it has them."""
    from .func import Func
    _building[0] += 1
    try:
        return _define_identity(src, Func(name))
    finally:
        _building[0] -= 1


def _define_identity(src, w):
    from .var import Var
    if hasattr(src, "args") and src.args():
        vs = tuple(Var(v.name()) for v in src.args())
    else:
        vs = tuple(Var.implicit(i) for i in range(src.dimensions()))
    ref = src[vs]
    w[vs] = tuple(ref) if hasattr(src, "outputs") and src.outputs() > 1 else ref
    return w


def wrapper(src, consumers=None):
    """src.in_(consumers): src is a Func, an ImageParam or a Buffer."""
    if hasattr(src, "defined") and not src.defined():
        raise CompileError(f"Func {src.name()} must be defined before in_(){_at()}")
    table = _cache(src)
    if consumers is None:
        w = table.get(())
        if w is None:
            w = table[()] = _identity_func(src, f"{_source_name(src)}_global_wrapper")
            mine = {id(x.function()) for x in table.values()}
            own = src.function() if hasattr(src, "function") else None
            is_source = _calls_source(src)
            for fn in list(_LIVE):
                if id(fn) not in mine and fn is not own:
                    _redirect(fn, is_source, w.function())
            _GLOBAL[id(src)] = (src, w)
        return w
    items = _consumer_list(consumers)
    key = tuple(sorted(c.name() for c in items))
    w = table.get(key) or next((table[(c.name(),)] for c in items
                                if (c.name(),) in table), None)
    if w is None:
        w = _identity_func(src, f"{_source_name(src)}_in_{items[0].name()}")
    is_source = _calls_source(src)
    glob = table.get(())
    for c in items:
        if table.get((c.name(),)) is w:
            continue                 # (asked before: already redirected)
        table[(c.name(),)] = w
        changed = _redirect(c.function(), is_source, w.function())
        if glob is not None:         # a consumer the global wrapper took over
            changed |= _redirect(c.function(), _calls_source(glob), w.function())
        if not changed:
            raise CompileError(f"{c.name()} does not call {_source_name(src)}: "
                               f"{_source_name(src)}.in_({c.name()}) would wrap nothing{_at()}")
    table[key] = w
    return w


def clone_in(f, consumers):
    """f.clone_in(consumers): a copy of f (definitions and schedule) that
    the consumers call instead of f."""
    from .func import Func, set_pure_vars
    items = _consumer_list(consumers)
    table = _cache(f)
    key = ("clone",) + tuple(sorted(c.name() for c in items))
    clone = table.get(key)
    if clone is not None:
        return clone                 # (asked before: already redirected)
    src = f.function()
    clone = Func(f"{f.name()}_clone_in_{items[0].name()}")
    fn = clone.function()
    fn.args, fn.output_types = src.args, src.output_types
    fn.schedule = copy.copy(src.schedule)
    fn.pure = _copy_definition(src.pure)
    fn.updates = [_copy_definition(d) for d in src.updates]
    _redirect(fn, _calls_source(f), fn)          # its updates read the clone
    set_pure_vars(clone, f.args())
    table[key] = clone
    for c in items:
        if not _redirect(c.function(), _calls_source(f), clone.function()):
            raise CompileError(f"{c.name()} does not call {f.name()}: "
                               f"{f.name()}.clone_in({c.name()}) would clone for nothing{_at()}")
    return clone


def _copy_definition(d: ir.Definition) -> ir.Definition:
    s = d.schedule
    sched = dataclasses.replace(s, dims=list(s.dims), splits=list(s.splits), rvars=list(s.rvars))
    return dataclasses.replace(d, predicates=list(d.predicates), schedule=sched)


def _at() -> str:
    return at(user_location())
