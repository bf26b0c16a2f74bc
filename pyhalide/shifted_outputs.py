"""Realizing into output Buffers whose min is not 0 (Func.realize and
Pipeline.realize, hence also a Callable given such a Buffer)."""
from __future__ import annotations

from . import ir
from .source import at, user_location
from .var import Var, unique_name


def shifted_outputs(sizes) -> list:
    """The Buffers given to realize() when one has a min that is not 0, else []."""
    from .buffer import Buffer
    bufs = [sizes] if isinstance(sizes, Buffer) else list(sizes) \
        if isinstance(sizes, (list, tuple)) else []
    if bufs and all(isinstance(b, Buffer) for b in bufs) and any(any(b.mins()) for b in bufs):
        return bufs
    return []


def _version_of(f) -> tuple:
    fn = f.function()
    return (fn.pure, tuple(fn.updates))


def wrapper_of(f) -> tuple:
    """(w, params): w[v...] = f[v + min...], the mins as Params (so one
    compilation serves every min); kept on f while f's definition is unchanged."""
    from .buffer import Param
    from .func import Func
    cached = f.__dict__.get("_shift_wrapper")
    if cached is None or cached[2] != _version_of(f):
        vs = [Var(unique_name("s")) for _ in range(f.dimensions())]
        params = [Param(ir.INDEX, unique_name(f"{f.name()}_min{i}_")) for i in range(len(vs))]
        w = Func(f"{f.name()}_shifted")
        ref = f[tuple(v + p for v, p in zip(vs, params))]
        w[tuple(vs)] = tuple(ref) if f.outputs() > 1 else ref
        cached = f._shift_wrapper = (w, params, _version_of(f))
    return cached[0], cached[1]


def shifted_wrappers(funcs: list, mins: list) -> list:
    """Each Func's wrapper (wrapper_of) with its min Params set to `mins`."""
    wrappers = []
    for f in funcs:
        w, params = wrapper_of(f)
        for p, m in zip(params, mins):
            p.set(m)
        wrappers.append(w)
    return wrappers


def realize_shifted(funcs: list, bufs: list):
    """Realize the output Funcs `funcs` over the region of `bufs` (one per
    output value, in order; their mins are not 0): each Func's wrapper (above)
    realized into the Buffers' arrays. The Funcs' values do not depend on the
    region computed, so they are their values at the Buffers' coordinates."""
    from .bounds_query import check_constraints, has_constraints
    from .buffer import Buffer
    from .graph import collect_graph
    from .realize import Pipeline
    mins = bufs[0].mins()
    if any(b.mins() != mins for b in bufs):
        raise ValueError(f"realize() was given Buffers with different mins "
                         f"{[b.mins() for b in bufs]}{at(user_location())}")
    graph = collect_graph([f.function() for f in funcs])
    if has_constraints(funcs, graph):
        check_constraints(funcs, graph, mins, [bufs[0].dim(d).extent()
                                               for d in range(bufs[0].dimensions())])
    wrappers = shifted_wrappers(funcs, mins)
    arrays = [Buffer(b.numpy()) for b in bufs]
    if len(wrappers) == 1:
        wrappers[0].realize(arrays)
    else:
        Pipeline(wrappers).realize(arrays)
    return bufs if len(bufs) > 1 else bufs[0]
