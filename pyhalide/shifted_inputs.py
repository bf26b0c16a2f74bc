"""Inputs whose min is not 0 (Halide's Buffer.set_min on an input, an
ImageParam set to such a Buffer): `img[x, y]` reads the element at
coordinates (x, y) of the Buffer's own domain, and `img.dim(d).min()` is
the Buffer's min.

Compiled kernels address every buffer from 0 (lowering/context.py), so for
a run whose inputs have mins, the reads are rewritten to `img[x - m0, y - m1]`
and the ImageParam's min to `m_d`, where m_d are scalar Params holding the
mins (one Param per input dimension, so one compilation serves every min);
access checks then check the shifted reads against the array's extents.
The definitions are rewritten only for the run and restored after it."""
from __future__ import annotations

import dataclasses
import re
import threading
import weakref

from . import ir
from .ir.mutator import FuncMutator

# inputs that have been given mins (checked at each realize while any is alive)
_SHIFTED: "weakref.WeakSet" = weakref.WeakSet()
_running = threading.local()      # run_shifted is under way in this thread


def note(src) -> None:
    """An input (ImageParam or Buffer) that may carry mins."""
    _SHIFTED.add(src)


def active() -> bool:
    """Whether some input has mins and no run_shifted is under way here (the
    realize calls it makes see the definitions already shifted)."""
    if getattr(_running, "on", False):
        return False
    return any(any(_mins(s)) for s in list(_SHIFTED))


def shifted_graph(outputs: list):
    """The graph of `outputs` when one of its inputs has mins (and no
    run_shifted is under way here), for run_shifted; else None: inputs with
    mins elsewhere in the process leave this pipeline's realize (and its
    recorded fast call) alone."""
    if not active():
        return None
    from .graph import collect_graph
    graph = collect_graph([f.function() for f in outputs])
    if any(any(_mins(graph.images[name])) for name in graph.image_names()):
        return graph
    return None


def running() -> bool:
    """Whether run_shifted is under way in this thread (the definitions are
    shifted for it)."""
    return getattr(_running, "on", False)


def _mins(src) -> list:
    buf = src.get() if hasattr(src, "get") else src
    return buf.mins() if buf is not None and hasattr(buf, "mins") else []


def _min_params(src) -> list:
    from .buffer import Param
    ps = src.__dict__.get("_min_params")
    if ps is None:
        ps = src._min_params = [Param(ir.INDEX, f"{src.name()}.shift.{d}")
                                for d in range(src.dimensions())]
    return ps


def _rewriter(shifted: dict):
    """A mutator: reads of the shifted inputs and their min Variables."""
    by_geometry = {f"{src.name()}.min.{d}": (src, p.node)
                   for src, ps in shifted.values() for d, p in enumerate(ps)}

    def visit(n):
        if isinstance(n, ir.Call) and n.call_type == ir.IMAGE and id(n.func) in shifted:
            _, ps = shifted[id(n.func)]
            args = tuple(ir.Sub(m.mutate(a), p.node) for a, p in zip(n.args, ps))
            return ir.Call(n.type, n.name, args, ir.IMAGE, n.value_index, n.func)
        if isinstance(n, ir.Variable) and n.kind == "param" and n.name in by_geometry:
            src, node = by_geometry[n.name]
            if n.param is src:
                return node
        return None

    m = FuncMutator(visit)
    return m


def run_shifted(graph, run):
    """Run `run()` (the realize of `graph`'s outputs, shifted_graph's) with
    the reads of inputs whose mins are not 0 shifted; restore the
    definitions after."""
    shifted = {}
    for name in graph.image_names():
        src = graph.images[name]
        mins = _mins(src)
        if any(mins):
            ps = _min_params(src)
            for p, m in zip(ps, mins):
                p.set(m)
            shifted[id(src)] = (src, ps)
    m = _rewriter(shifted)
    saved = []
    _running.on = True
    try:
        for fn in graph.env.values():
            for d in fn.definitions():
                saved.append((d, d.args, d.values, d.predicates, d.schedule.rvars))
                d.args = tuple(m.mutate(a) for a in d.args)
                d.values = tuple(m.mutate(v) for v in d.values)
                d.predicates = [m.mutate(p) for p in d.predicates]
                d.schedule.rvars = [dataclasses.replace(rv, min=m.mutate(rv.min),
                                                        extent=m.mutate(rv.extent))
                                    for rv in d.schedule.rvars]
        try:
            return run()
        except (ValueError, IndexError) as e:
            if type(e) not in (ValueError, IndexError):
                raise
            text = unshifted_message(str(e), {src.name(): _mins(src)
                                              for src, _ in shifted.values()})
            if text == str(e):
                raise
            raise type(e)(text).with_traceback(e.__traceback__) from None
    finally:
        _running.on = False
        for d, args, values, predicates, rvars in reversed(saved):
            d.args, d.values, d.predicates, d.schedule.rvars = args, values, predicates, rvars


# the access errors of a shifted run (lowering/bounds_inference.py,
# lowering/access_checks.py), whose coordinates are the shifted ones
_READ_OVER = re.compile(r"input buffer (\S+) is read over \[(-?\d+), (-?\d+)\] in dimension "
                        r"(\d+), but it covers only \[(-?\d+), (-?\d+)\]")
_READ_AT = re.compile(r"input buffer (\S+) is (\w+) at index (-?\d+) in dimension (\d+), "
                      r"outside its extent \[(-?\d+), (-?\d+)\]")


def unshifted_message(text: str, mins: dict) -> str:
    """An access error of a shifted run with its coordinates in the input's
    own domain (`mins`: input name -> its mins): `covers only [1, 3]` for a
    Buffer of extent 3 with min 1, not the kernel's [0, 2]."""
    def shift(name: str, dim: int) -> int:
        own = mins.get(name, [])
        return own[dim] if dim < len(own) else 0

    def read_over(m):
        name, dim = m.group(1), int(m.group(4))
        k = shift(name, dim)
        lo, hi, bmin, bmax = (int(m.group(i)) + k for i in (2, 3, 5, 6))
        return (f"input buffer {name} is read over [{lo}, {hi}] in dimension {dim}, "
                f"but it covers only [{bmin}, {bmax}]")

    def read_at(m):
        name, dim = m.group(1), int(m.group(4))
        k = shift(name, dim)
        at, bmin, bmax = (int(m.group(i)) + k for i in (3, 5, 6))
        return (f"input buffer {name} is {m.group(2)} at index {at} in dimension {dim}, "
                f"outside its extent [{bmin}, {bmax}]")

    return _READ_AT.sub(read_at, _READ_OVER.sub(read_over, text))
