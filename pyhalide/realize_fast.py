"""A repeated realize of an unchanged pipeline: the bound call of the last
realize over integer sizes, kept for the Pipeline and reused while nothing
it was checked against changed.

    record(pipe, graph, plan, sizes, kernel, buffers, params)
    realize_again(pipe, sizes, more) -> the realize's result, or None

A record (one per call plan, held weakly by the Pipeline) holds the graph
the call was made for with the versions of its Functions (their definitions
and schedules: Pipeline._current returns the same graph while those are
equal), the sizes, each input's source (ImageParam or Buffer) with the
shape, strides and dtype its array had, and a PreparedCall of the kernel
with the geometry rows of those arrays and of the outputs written and
checked. `realize_again` reuses it only when every Function's version is
equal (nothing edited since the record or the last comparison: the edit
stamp of ir/function.py, when every list the Functions hold is tracked;
else tested by a flat walk over snapshots of the objects the versions hold,
which builds no tuples, then by the versions), the sizes are equal ints, and every input's array (read again from its
source: an ImageParam may have been set to another Buffer, a Buffer's array
cropped or reshaped in place) has that shape, strides and dtype, no min
(Halide's set_min: the shifted path) and an aligned data pointer; the
params are read again and checked by the kernel's converters at each call,
the outputs are allocated fresh, and a Pipeline's requirements are
evaluated at each call. Otherwise it returns None and the caller takes the
full path (which raises what is wrong, or records the new call)."""
from __future__ import annotations

import weakref

import numpy as np

from . import tracing
from .buffer import Buffer, wrap_array
from .dispatch import MISS
from .ir.function import LAST_EDIT, tracked
from .realize_entry import realize_entry


class _Record:
    __slots__ = ("graph", "functions", "versions", "snapshots", "sizes", "shape", "sources",
                 "geometry", "params", "out_dtypes", "out_names", "call", "version_of",
                 "single", "requirements", "stamp", "native", "kernel", "given",
                 "checked", "__weakref__")

    def __init__(self, graph, plan, sizes, kernel, buffers, params, single, requirements,
                 given=None):
        from .realize import function_version
        n = len(plan.image_names)
        self.version_of = function_version
        self.graph = graph
        self.functions = tuple(graph.env.values())
        self.stamp = _stamp(self.functions, LAST_EDIT[0])
        self.versions = tuple(function_version(fn) for fn in self.functions)
        self.snapshots = tuple(_snapshot(fn) for fn in self.functions)
        self.sizes = sizes
        self.shape = tuple(reversed(sizes))
        self.sources = tuple(graph.images[name] for name in plan.image_names)
        self.geometry = tuple((a.shape, a.strides, a.dtype) for a in buffers[:n])
        self.params = tuple(graph.params[name] for name in plan.param_names)
        self.out_dtypes = tuple(plan.out_dtypes)
        self.out_names = tuple(plan.out_names)
        self.single = single
        self.requirements = requirements
        # the outputs' (shape, strides, dtype) for a call on given Buffers (their
        # alignment checked at each call, as the inputs'), None for sizes
        self.given = given
        # weak references to the arrays (inputs, outputs) of the last call on
        # given Buffers whose overlap was tested (realize_given)
        self.checked = [weakref.ref(a) for a in buffers] if given is not None else []
        self.call = kernel.prepared(buffers, params, live=range(len(params)),
                                    check_alignment=n if given is None else len(buffers))
        # the whole call as one builtin (pyhalide/realize_entry.py), or None;
        # built after the first reuse (False until then: a pipeline realized
        # twice does not pay its LLVM compile, ~8 ms CPU per new layout)
        self.native = False
        self.kernel = kernel


def _input_array(src):
    """The array an input source holds now, or None when the full path must
    look at it (unset, not a plain Buffer or ndarray, or with mins)."""
    buf = src.get() if hasattr(src, "get") else src
    if type(buf) is Buffer:
        mins = getattr(buf, "_mins", None)
        if mins and any(mins):
            return None
        arr = buf.numpy()
        return arr if type(arr) is np.ndarray else None
    return buf if type(buf) is np.ndarray else None


def record(pipe, graph, plan, sizes: list, kernel, buffers: list, params: list,
           single: bool, requirements, given: bool = False) -> None:
    """Keep the call just made (over integer `sizes`, on fresh outputs; or,
    `given`, on the output arrays ending `buffers`, of the Buffers passed to
    realize, `sizes` then being None) for
    realize_again (`single`: the Pipeline has one output Func;
    `requirements()` checks its requirements, at each call), when it is the second in a row of `pipe` for this plan and
    sizes (a Pipeline realized once does not pay for a record) and its inputs
    all have arrays without mins. The record lives in the call plan, which
    lives in realize._GRAPHS (bounded): the Pipeline holds it weakly, so an
    evicted graph frees its kernels as before."""
    geometry = None
    if given:
        geometry = tuple((a.shape, a.strides, a.dtype)
                         for a in buffers[len(plan.image_names):])
        sizes = list(reversed(geometry[0][0]))
    mark = (id(plan), tuple(sizes), geometry)
    if pipe.__dict__.get("_fast_mark") != mark:
        pipe._fast_mark = mark
        return
    if any(_input_array(graph.images[name]) is None for name in plan.image_names):
        return
    rec = plan.fast = _Record(graph, plan, mark[1], kernel, buffers, params, single,
                              requirements, geometry)
    pipe._fast = weakref.ref(rec)


def _int_sizes(sizes, more):
    if type(sizes) is int:
        sizes = (sizes, *more)
    elif more:
        return None
    elif sizes is None:
        return ()
    elif type(sizes) is list or type(sizes) is tuple:
        sizes = tuple(sizes)
    else:
        return None
    for s in sizes:
        if type(s) is not int:
            return None
    return sizes


def _snapshot(fn) -> tuple:
    """The objects `_unchanged` compares `fn` with: its schedule, levels,
    definitions and their schedules by identity, and copies of the lists it
    holds (edited in place by schedules) compared by equality, as
    function_version compares them; its traced events (a new frozenset at each
    trace call)."""
    s = fn.schedule
    defs = tuple((d, d.args, d.values, list(d.predicates), d.schedule,
                  list(d.schedule.splits), list(d.schedule.rvars), list(d.schedule.dims),
                  d.schedule.allow_race_conditions, d.schedule.atomic)
                 for d in fn.definitions())
    return (fn, s, s.compute_level, s.store_level, list(s.bounds), s.device,
            s.trace_realizations, tracing.events(fn), fn.pure, tuple(fn.updates), defs)


def _unchanged(snapshots) -> bool:
    """Whether every Function still holds what its snapshot holds. A flat
    walk (no version tuples built: after a bandwidth-bound kernel its cost is
    the cache lines it reads): True implies equal function_versions; False
    may also mean an equal object replaced an old one (the caller then
    compares the versions)."""
    for fn, s, compute, store, bounds, device, trace, events, pure, updates, defs in snapshots:
        if fn.schedule is not s or s.compute_level is not compute \
                or s.store_level is not store or s.bounds != bounds or s.device != device \
                or s.trace_realizations is not trace or tracing.events(fn) is not events \
                or fn.pure is not pure:
            return False
        now = fn.updates
        if len(now) != len(updates):
            return False
        for a, b in zip(now, updates):
            if a is not b:
                return False
        for d, args, values, preds, ds, splits, rvars, dims, race, atomic in defs:
            if d.args is not args or d.values is not values or d.schedule is not ds \
                    or d.predicates != preds or ds.splits != splits or ds.rvars != rvars \
                    or ds.dims != dims or ds.allow_race_conditions is not race \
                    or ds.atomic is not atomic:
                return False
    return True


def _stamp(functions, now):
    """The edit stamp `now` (read before the Functions were last compared),
    when it covers all of `functions` (ir/function.py: tracked); else None."""
    for fn in functions:
        if not tracked(fn):
            return None
    return now


def _versions_equal(rec) -> bool:
    """Pipeline._current's test (every Function's version equal), with the
    snapshots taken again when it passes where the flat walk did not."""
    version_of = rec.version_of
    for fn, version in zip(rec.functions, rec.versions):
        if version_of(fn) != version:
            return False
    rec.snapshots = tuple(_snapshot(fn) for fn in rec.functions)
    return True


def realize_again(pipe, sizes, more):
    """The result of pipe.realize(sizes, *more) through its record, or None.
    Written flat: after a bandwidth-bound kernel the caches are cold, and
    each function called and object read costs cache misses."""
    d = pipe.__dict__
    rec = d["_fast"]()
    if rec is None:
        return None
    kind = type(sizes)
    if rec.given is not None:
        return realize_given(d, rec, sizes, more)
    if (kind is list or kind is tuple) and not more:      # (_int_sizes, inlined)
        for s in sizes:
            if type(s) is not int:
                return None
        if kind is list:
            sizes = tuple(sizes)
    else:
        sizes = _int_sizes(sizes, more)
    if sizes is None or sizes != rec.sizes:
        return None
    inputs = _inputs_now(rec)
    if inputs is None:
        return None
    arrays, values = inputs
    native = rec.native
    if native and "_requirements" not in d:
        outs = native(*arrays, *values)      # (it checks the arrays and values, runs the call)
        if outs is not MISS:
            if type(outs) is not tuple:
                if rec.single:
                    b = Buffer.__new__(Buffer)         # wrap_array, inlined
                    b._array = outs
                    b._name = rec.out_names[0]
                    return b
                outs = (outs,)
            return result(rec.single, list(outs), rec.out_names)
    for arr, geometry in zip(arrays, rec.geometry):
        if type(arr) is not np.ndarray or (arr.shape, arr.strides, arr.dtype) != geometry:
            return None
    if "_requirements" in d:
        rec.requirements()
    shape = rec.shape
    outs = [np.empty(shape, dtype=dt) for dt in rec.out_dtypes]
    arrays += outs
    rec.call(arrays, values)
    if native is False:
        rec.native = realize_entry(rec.kernel, arrays, len(rec.sources), values)
    if rec.single and len(outs) == 1:
        b = Buffer.__new__(Buffer)         # wrap_array, inlined
        b._array = outs[0]
        b._name = rec.out_names[0]
        return b
    return result(rec.single, outs, rec.out_names)


def realize_given(d: dict, rec: _Record, sizes, more):
    """realize_again for a record of a call on given Buffers (`d`: the
    Pipeline's __dict__): the Buffers given now (one, or a list or tuple of
    them) are exact Buffers without mins, as many as the outputs, whose arrays
    are writeable and have the recorded geometry and dtypes (checked by the
    compiled entry, or here) and share memory with no other buffer of the
    call: taken as proved when every array is the one of the last call
    checked (an ndarray's data pointer never changes but by resize, which
    takes memory no live array has), else tested by np.may_share_memory (the
    bounds test; the full path makes the exact one); the rest is
    realize_again's; `more` (a Target, say) is ignored, as the full path
    ignores what follows Buffers. The result is the given Buffer (one), or
    a list of them, as realize's."""
    if type(sizes) is Buffer:
        bufs = [sizes]
    elif type(sizes) is list or type(sizes) is tuple:
        bufs = list(sizes)
    else:
        return None
    if len(bufs) != len(rec.given):
        return None
    outs = []
    for b in bufs:
        if type(b) is not Buffer:
            return None
        mins = getattr(b, "_mins", None)
        arr = b._array
        if mins and any(mins) or type(arr) is not np.ndarray or not arr.flags.writeable:
            return None
        outs.append(arr)
    inputs = _inputs_now(rec)
    if inputs is None:
        return None
    arrays, values = inputs
    arrays += outs
    if not _same_arrays(rec, arrays):
        n = len(rec.sources)
        for k in range(n, len(arrays)):
            for j, other in enumerate(arrays):
                if j != k and (j < n or j > k) and np.may_share_memory(arrays[k], other):
                    return None
        rec.checked = [weakref.ref(a) for a in arrays]
    native = rec.native
    if native and "_requirements" not in d:
        if native(*arrays, *values) is not MISS:
            return bufs[0] if len(bufs) == 1 else bufs
    for arr, geometry in zip(arrays, rec.geometry + rec.given):
        if (arr.shape, arr.strides, arr.dtype) != geometry:
            return None
    if "_requirements" in d:
        rec.requirements()
    rec.call(arrays, values)
    if native is False:
        rec.native = realize_entry(rec.kernel, arrays, len(rec.sources), values, given=True)
    return bufs[0] if len(bufs) == 1 else bufs


def _same_arrays(rec: _Record, arrays: list) -> bool:
    """Whether `arrays` are the arrays of the call last checked for overlap."""
    checked = rec.checked
    if len(checked) != len(arrays):
        return False
    for ref, arr in zip(checked, arrays):
        if ref() is not arr:
            return False
    return True


def _inputs_now(rec: _Record):
    """(input arrays, param values) of a repeated call of `rec`, or None when
    a Function changed since it or an input has mins or a param no value."""
    now = LAST_EDIT[0]
    if rec.stamp != now:         # something was edited since: compare the Functions
        if not _unchanged(rec.snapshots) and not _versions_equal(rec):
            return None
        rec.stamp = _stamp(rec.functions, now)
    arrays = []
    for src in rec.sources:
        buf = src if type(src) is Buffer else src.get() if hasattr(src, "get") else src
        if type(buf) is Buffer:            # (_input_array, inlined)
            mins = getattr(buf, "_mins", None)
            if mins and any(mins):
                return None
            arrays.append(buf._array)
        else:
            arrays.append(buf)
    values = []
    for p in rec.params:
        v = p.get()
        if v is None:
            return None
        values.append(v)
    return arrays, values


def result(single: bool, arrays: list, names) -> object:
    """realize()'s value for output arrays it allocated: a Buffer or a tuple
    of Buffers (`single` output Func, with a tuple value), or a list
    (several outputs)."""
    bufs = [wrap_array(a, n) for a, n in zip(arrays, names)]
    if single:
        return bufs[0] if len(bufs) == 1 else tuple(bufs)
    return bufs
