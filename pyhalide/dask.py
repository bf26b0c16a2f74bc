"""`fn.dask(*args)`: a @pipeline function on Dask arrays (docs/dask.md).

The arguments' blocks are the slices: array results are computed per block
(`map_blocks`, with a halo from bounds inference: the overlap of
`dask.array.overlap`), a reduction by the rfactor decomposition (a partial
result per block, merged by the proven operator through
`dask.array.reduction`). Every task compiles the function from its
definition (the pickled PipelineFunction carries its source and schedule,
never machine code) once per process, then reuses it (and the disk cache).
Dask is imported only here, and only when called.
"""
from __future__ import annotations

import numpy as np

from .errors import CompileError

__all__ = ["to_dask"]


class _Job:
    """What every task needs, picklable: the function, the specialization
    key, the arguments that are not blocks, the whole arrays' shapes."""

    def __init__(self, pf, key, names, args, shapes, chunked, float_reassociation):
        self.pf, self.key, self.names = pf, key, names
        self.args, self.shapes, self.chunked = args, shapes, chunked
        self.float_reassociation = float_reassociation
        self.wholes = {}        # name -> one-block dask array (graph building only)

    def __getstate__(self):
        return dict(self.__dict__, wholes={})

    @property
    def where(self) -> str:
        return f"{self.pf.__name__}.dask()"

    def plan(self, kind, *extra):
        cache = self.pf.__dict__.setdefault("_dask_plans", {})
        k = (kind, self.key, tuple(self.names), tuple(sorted(
            (n, tuple(a)) for n, a in self.chunked.items())), self.float_reassociation, extra)
        plan = cache.get(k)
        if plan is None:
            if kind == "reduce":
                from .dask_reduce import ReducePlan
                plan = ReducePlan(self.pf, self.key, self.names, self.chunked,
                                  self.float_reassociation)
            elif kind == "scan":
                from .dask_scan import pipeline_scan_plan
                plan = pipeline_scan_plan(self.pf, self.key, self.names, extra[0],
                                          self.float_reassociation)
            elif kind == "tail":
                from .dask_tail import TailPlan
                plan = TailPlan(self.pf, self.key, self.names, *extra)
            else:
                from .dask_map import MapPlan
                plan = MapPlan(self.pf, self.key, self.names, extra[0])
            cache[k] = plan
        return plan

    def given(self, wholes):
        """This job with the whole arrays Dask computed for the one-block dask
        arguments in place of their placeholders."""
        if not wholes:
            return self
        import copy
        out = copy.copy(self)
        out.args = [np.asarray(wholes[n]) if n in wholes else v
                    for n, v in zip(_params(self.pf), self.args)]
        return out

    def windows(self, blocks, starts):
        """name -> (offsets, block) for the blocks of the dask arguments and
        the whole NumPy arguments."""
        out = {}
        for name, v in zip(_params(self.pf), self.args):
            if name in self.names and isinstance(v, np.ndarray):
                out[name] = ((0,) * v.ndim, v)
        for name, b, s in zip(self.dask_names, blocks, starts):
            out[name] = (s, b)
        return out

    @property
    def dask_names(self):
        return [n for n in self.names if n not in self._numpy_names()]

    def _numpy_names(self):
        return {n for n, v in zip(_params(self.pf), self.args)
                if isinstance(v, np.ndarray)}


def _params(pf) -> list:
    import inspect
    return list(inspect.signature(pf.py_func).parameters)


def _starts(block_info, count, depth=None):
    """The global start of each argument's window (from dask's block_info)."""
    out = []
    for i in range(count):
        loc = block_info[i]["array-location"]
        out.append(tuple(lo for lo, _ in loc))
    return out


def _chunk_task(*blocks, job=None, wholes=None, block_info=None):
    job = job.given(wholes)
    plan = job.plan("reduce")
    part = plan.partial(job.args, job.shapes, job.windows(blocks, _starts(block_info, len(blocks))))
    return _pack(part, blocks[0].ndim)


def _pack(part, nd: int):
    """A partial result (a tuple of arrays, or None: no point) as a NumPy
    array of shape (1,) * nd with one structured element (`has`, v0, v1,
    ...): one buffer to serialize and size, not an object array of tuples."""
    fields = [("has", np.bool_)]
    if part is not None:
        fields += [(f"v{i}", a.dtype, a.shape) for i, a in enumerate(part)]
    out = np.zeros((1,) * nd, fields)
    if part is not None:
        out["has"] = True
        for i, a in enumerate(part):
            out[f"v{i}"][(0,) * nd] = a
    return out


def _flatten(x, out):
    """The partial results (tuples of arrays, or None) in the packed arrays
    of `x` (nested lists of them), in order."""
    if isinstance(x, (list, tuple)):
        for y in x:
            _flatten(y, out)
        return out
    names = x.dtype.names
    for el in x.reshape(-1):
        out.append(tuple(np.array(el[n]) for n in names[1:]) if el["has"] else None)
    return out


def _combine(x, axis=None, keepdims=True, job=None):
    merged = job.plan("reduce").merge(_flatten(x, []))
    return _pack(merged, len(axis) if keepdims else 0)


def _keep(x, axis=None, keepdims=True):
    return x


def _final_task(merged, windows, job=None, wholes=None):
    job = job.given(wholes)
    plan = job.plan("reduce")
    (merged,) = _flatten(merged, [])
    return plan.final.run(job.args, job.shapes, windows, merged)


def _map_task(*blocks, job=None, leaf=0, slots=(), depth=(), wholes=None, block_info=None):
    job = job.given(wholes)
    plan = job.plan("map", tuple(slots))
    start, shape, starts = block_place(block_info, len(blocks), depth)
    return plan.block(leaf, job.args, job.shapes, job.windows(blocks, starts), start, shape)


def block_place(block_info, count: int, depth):
    """(start, shape) of the output block, and the global start of each of
    the `count` argument windows (the block less the halo `depth`, within
    the arrays)."""
    out_loc = block_info[None]["array-location"]
    start = tuple(lo for lo, _ in out_loc)
    shape = tuple(hi - lo for lo, hi in out_loc)
    return start, shape, [tuple(max(0, s - d) for s, d in zip(start, depth))] * count


def _check_args(pf, names, values, da):
    """The array arguments: dask arrays of known chunks, aligned; NumPy
    arrays are sent whole to every task unless they have the chunked arrays'
    shape."""
    dask_args = [(n, v) for n, v in zip(names, values) if isinstance(v, da.Array)]
    if not dask_args:
        raise TypeError(f"{pf.__name__}.dask() needs at least one dask.array.Array argument; "
                        f"wrap NumPy arrays with dask.array.from_array(x, chunks=...)")
    for n, v in dask_args:
        if any(np.isnan(c) for cs in v.chunks for c in cs):
            raise ValueError(f"{pf.__name__}.dask(): argument {n!r} has unknown chunk sizes "
                             f"(NaN, after boolean indexing or similar): call "
                             f"{n}.compute_chunk_sizes() first")
    first_name, first = next(((n, v) for n, v in dask_args if v.npartitions > 1),
                             dask_args[0])
    whole = [(n, v) for n, v in dask_args if v.npartitions == 1 and v.shape != first.shape]
    dask_args = [(n, v) for n, v in dask_args if (n, v) not in whole]
    for n, v in dask_args:
        if v.shape != first.shape:
            raise ValueError(f"{pf.__name__}.dask(): argument {n!r} has shape {v.shape} but "
                             f"{first_name!r} has {first.shape}: dask arguments must have one "
                             f"shape (pass small arrays as NumPy arrays: they go whole to every "
                             f"task)")
        if v.chunks != first.chunks:
            raise ValueError(f"{pf.__name__}.dask(): arguments {first_name!r} and {n!r} are "
                             f"chunked differently ({first.chunks} and {v.chunks}): "
                             f"rechunk one like the other ({n}.rechunk({first_name}.chunks))")
    for n, v in zip(names, values):
        if isinstance(v, np.ndarray) and v.shape == first.shape and first.npartitions > 1:
            raise TypeError(f"{pf.__name__}.dask(): argument {n!r} is a NumPy array of the "
                            f"chunked arrays' shape; pass it as a dask array with the same "
                            f"chunks: dask.array.from_array({n}, chunks={first_name}.chunks)")
    return dask_args, dict(whole)


def _spec_key(names, values, da):
    from .frontend_ast.specialize import arg_spec
    key = []
    for v in values:
        if isinstance(v, da.Array):
            ones = tuple(k for k, n in enumerate(v.shape) if n == 1)
            key.append(("array", np.dtype(v.dtype).str, v.ndim, ones, "C"))
        else:
            key.append(arg_spec(v))
    return tuple(key)


def to_dask(pf, args, kwargs, float_reassociation=False, split_every=None):
    """Dask collections computing what `pf(*args, **kwargs)` returns on the
    concatenated arrays (see the module doc)."""
    import inspect

    import dask.array as da
    try:
        bound = inspect.signature(pf.py_func).bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{pf.__name__}.dask(): {e}") from None
    bound.apply_defaults()
    names = list(bound.arguments)
    # a 0-d array argument is the scalar it holds, as in a call
    values = [v[()] if type(v) is np.ndarray and v.ndim == 0 else v
              for v in bound.arguments.values()]
    dask_args, wholes = _check_args(pf, names, values, da)
    # a one-block dask array of another shape (another function's result: a
    # histogram, a lookup table) goes whole to every task, a dependency of each:
    # zeros of its shape stand for it while the graph is built
    values = [np.zeros(v.shape, v.dtype) if n in wholes else v for n, v in zip(names, values)]
    array_names = [n for n, v in zip(names, values)
                   if isinstance(v, (da.Array, np.ndarray))]
    key = _spec_key(names, values, da)
    shapes = {n: tuple(v.shape) for n, v in zip(names, values) if n in array_names}
    chunked = {n: [ax for ax, c in enumerate(v.chunks) if len(c) > 1] for n, v in dask_args}
    plain = [None if isinstance(v, da.Array) else v for v in values]
    job = _Job(pf, key, array_names, plain, shapes, chunked, float_reassociation)
    job.wholes = wholes
    xs = [v for _, v in dask_args]
    spec = pf.specialization_for(key)
    if spec.written is not None:
        raise CompileError(f"{pf.__name__} writes into its argument(s) "
                           f"{', '.join(spec.written.names)}; on Dask the arguments are "
                           f"read-only blocks: return the new array instead")
    leaves = _array_leaves(spec.result)
    if leaves is not None and _map_shapes(spec, leaves, xs[0].shape, job):
        return _map_graph(job, spec, leaves, xs, da)
    tail = _scan_tail(job, spec, xs)
    if tail is not None:
        return _tail_graph(job, spec, *tail, xs, da)
    return reduce_graph(job, xs, split_every, da)


def _scan_tail(job, spec, xs):
    """(array slots, scan slots among them, the other slots, the other items)
    when the result is a tuple of arrays of the arguments' shape, one a scan
    at least, and values computed from them (`return out, acc`); else None."""
    from .dask_scan import scan_of, split_scan
    o = spec.result
    if o.kind != "tuple":
        return None
    arrays = [x.slot for x in o.items if x.kind == "array"]
    items = [x for x in o.items if x.kind != "array"]
    scans = [s for s in arrays if split_scan(spec.out_funcs[s][0].function(), xs[0].chunks)
             and scan_of(spec.out_funcs[s][0].function()) is not None]
    others = [s for s in range(len(spec.out_funcs)) if s not in arrays]
    if not scans or not items or any(spec.out_funcs[s][1] for s in others) or \
            not _map_shapes(spec, arrays, xs[0].shape, job):
        return None
    return arrays, scans, others, items


def _tail_graph(job, spec, arrays, scans, others, items, xs, da):
    """The arrays as _map_graph's; the other items by one task reading the
    regions of the scans' dask arrays (and of the arguments) they need
    (dask_tail)."""
    import dask
    plan = job.plan("tail", tuple(scans), tuple(others))
    if 0 in xs[0].shape:
        # (no element to read: one task calls the function on the empty arrays)
        whole = _filled_args(job, [np.zeros(x.shape, x.dtype) for x in xs])
        result = dask.delayed(_call_task, pure=True)(*xs, job=job, wholes=job.wholes)
        return _leaves(job.pf(*whole), result, da)
    got = dict(zip(arrays, _map_arrays(job, spec, arrays, xs, da)))
    named = dict(zip(job.dask_names, xs))
    shapes = dict(job.shapes)
    dtypes = {n: x.dtype for n, x in named.items()}
    for s in scans:
        named[plan.feeds[s]] = got[s]
        shapes[plan.feeds[s]] = tuple(got[s].shape)
        dtypes[plan.feeds[s]] = got[s].dtype
    from .dask_tail import zero_windows
    fixed = job.windows([], [])
    regions = plan.regions(job.args, shapes, dtypes, items, fixed)
    for n, reg in regions.items():
        for ax, (lo, hi) in enumerate(reg):
            if hi - lo > max(named[n].chunks[ax]):
                raise CompileError(f"{job.where}: the values returned beside the scan read "
                                   f"{n!r} over [{lo}, {hi}) along axis {ax}, more than a "
                                   f"block: return them from a function of their own")
    windows = {n: (tuple(lo for lo, _ in reg), named[n][tuple(slice(lo, hi) for lo, hi in reg)])
               for n, reg in regions.items()}
    result = dask.delayed(_tail_task, pure=True)(windows, job=job, scans=tuple(scans),
                                                  others=tuple(others), shapes=shapes,
                                                  items=items, wholes=job.wholes)
    probe = plan.run(job.args, shapes, dict(fixed, **zero_windows(regions, dtypes)), items)
    tail = iter(_leaves(probe, result, da))
    return tuple(got[x.slot] if x.kind == "array" else next(tail) for x in spec.result.items)


def _filled_args(job, arrays) -> list:
    """The call's arguments: job.args with `arrays` for the dask arguments."""
    it = iter(arrays)
    return [next(it) if v is None else v for v in job.args]


def _call_task(*arrays, job=None, wholes=None):
    job = job.given(wholes)
    return job.pf(*_filled_args(job, arrays))


def _tail_task(windows, job=None, scans=(), others=(), shapes=None, items=(), wholes=None):
    job = job.given(wholes)
    plan = job.plan("tail", scans, others)
    return plan.run(job.args, shapes, dict(job.windows([], []), **windows), items)


def _array_leaves(o):
    """The output slots of a result made of arrays, tuples and constants, or None."""
    if o.kind == "array":
        return [o.slot]
    if o.kind == "tuple":
        out = []
        for x in o.items:
            sub = _array_leaves(x)
            if sub is None:
                return None
            out += sub
        return out
    return None


def _map_shapes(spec, slots, shape, job) -> bool:
    w = job.plan("map", tuple(slots)).window
    with w.lock:
        env = w.bind(job.args, job.shapes, {})
    for s in slots:
        _, shape_fns = spec.out_funcs[s]
        if tuple(int(fn(env)) for fn in shape_fns) != tuple(shape):
            return False
    return True


def _map_graph(job, spec, slots, xs, da):
    return _shape_like(spec.result, iter(_map_arrays(job, spec, slots, xs, da)))


def _map_arrays(job, spec, slots, xs, da):
    """The dask arrays of result leaves `slots`, each by blocks (with a halo)
    or as a scan across the blocks."""
    plan = job.plan("map", tuple(slots))
    fixed = job.windows([], [])
    results = []
    for leaf, slot in enumerate(slots):
        from .dask_scan import scan_graph, split_scan
        if split_scan(spec.out_funcs[slot][0].function(), xs[0].chunks):
            results.append(scan_graph(job, slot, xs, da))
            continue
        depth = plan.halo(leaf, job.args, job.shapes, job.dask_names,
                          xs[0].chunks, fixed)
        dtype = spec.out_funcs[slot][0].types()[0].to_numpy()
        results.append(blocks_with_halo(_map_task, xs, depth, dtype, job.pf.__name__, da,
                                        job=job, leaf=leaf, slots=tuple(slots),
                                        wholes=job.wholes))
    return results


def blocks_with_halo(task, xs, depth, dtype, where: str, da, **kwargs):
    """A dask array of the chunked arrays' chunks, each block `task(*blocks,
    depth=..., block_info=..., **kwargs)` on the blocks plus `depth`
    elements per axis of the blocks around (none beyond the arrays' edges).
    Empty chunks are merged away first (a halo crosses them: the blocks
    around them are neighbours; an empty block computes nothing), and the
    result is given the arguments' chunks back."""
    chunks = xs[0].chunks
    compact = tuple(tuple(n for n in c if n) or c[:1] for c in chunks)
    if compact != chunks:
        out = blocks_with_halo(task, [x.rechunk(compact) for x in xs], depth, dtype, where,
                               da, **kwargs)
        return out.rechunk(chunks)
    small = min(min(c) for c in xs[0].chunks)
    if max(depth, default=0) > small:
        raise ValueError(f"{where}.dask(): a block of the result reads "
                         f"{max(depth)} elements beyond it, more than the smallest chunk "
                         f"({small}); rechunk to larger chunks")
    ins = xs
    if any(depth):
        ins = [da.overlap.overlap(x, depth=dict(enumerate(depth)), boundary="none")
               for x in xs]
    return da.map_blocks(task, *ins, dtype=dtype, chunks=xs[0].chunks, depth=tuple(depth),
                         meta=np.empty((0,) * xs[0].ndim, dtype), **kwargs)


def _shape_like(o, it):
    if o.kind == "tuple":
        return tuple(_shape_like(x, it) for x in o.items)
    return next(it)


_SPLIT_EVERY = 16


def reduce_graph(job, xs, split_every, da):
    import dask
    plan = job.plan("reduce")
    nd = xs[0].ndim
    if split_every is None:
        # a merge is one small kernel call, a task costs more: Dask's default (4)
        # makes a task of every 3 merges
        split_every = dask.config.get("split_every", None) or _SPLIT_EVERY
    parts = da.map_blocks(_chunk_task, *xs, dtype=object,
                          chunks=tuple((1,) * len(c) for c in xs[0].chunks), job=job,
                          wholes=job.wholes,
                          meta=np.empty((0,) * nd, object))
    merged = da.reduction(parts, chunk=_keep, combine=_partial(_combine, job),
                          aggregate=_partial(_combine, job), axis=tuple(range(nd)),
                          keepdims=False, dtype=object, split_every=split_every,
                          concatenate=False, meta=np.empty((), object))
    regions = _final_regions(job, plan)
    windows = {n: (tuple(lo for lo, _ in reg), x[tuple(slice(lo, hi) for lo, hi in reg)])
               for (n, reg), x in zip(regions.items(), [dict(zip(job.dask_names, xs))[n]
                                                       for n in regions])}
    windows.update(job.windows([], []))
    result = dask.delayed(_final_task, pure=True)(merged, windows, job=job,
                                                  wholes=job.wholes)
    probe = plan.final.run(job.args, job.shapes, _probe_windows(job, regions),
                           None)
    return _leaves(probe, result, da)


def _partial(fn, job):
    import functools
    return functools.partial(fn, job=job)


def _probe_windows(job, regions):
    out = job.windows([], [])
    for name, reg in regions.items():
        dtype = job.plan("reduce").final.window.images[name][0].type().to_numpy()
        out[name] = (tuple(lo for lo, _ in reg), np.zeros([hi - lo for lo, hi in reg], dtype))
    return out


def _final_regions(job, plan, limit=16):
    """The regions of the dask arguments the final step reads (name -> [(lo,
    hi)] per NumPy axis), from its bounds check on empty windows."""
    from .dask_window import OutsideWindow
    regions = {}
    for _ in range(limit):
        try:
            plan.final.run(job.args, job.shapes, _probe_windows(job, _filled(job, regions)),
                           None)
            return _filled(job, regions)
        except OutsideWindow as e:
            nd = len(job.shapes[e.name])
            axis = nd - 1 - e.dim
            at = _filled(job, regions).get(e.name, [(0, 0)] * nd)[axis][0]
            glo, ghi = e.lo + at, e.hi + at + 1        # the message is in window coordinates
            reg = regions.setdefault(e.name, {})
            lo, hi = reg.get(axis, (glo, ghi))
            reg[axis] = (min(lo, glo), max(hi, ghi))
    raise CompileError(f"{job.where}: the result reads its arrays in too many "
                       f"places outside the reduction to be split on Dask")


def _filled(job, regions):
    out = {}
    for name, reg in regions.items():
        shape = job.shapes[name]
        out[name] = [reg[ax] if ax in reg else (0, shape[ax]) for ax in range(len(shape))]
    return out


def _leaves(probe, result, da):
    """Dask arrays for each leaf of the final result (tuples as tuples), each
    one task picking its leaf out of `result` (a delayed)."""
    import dask

    def build(v, path):
        if isinstance(v, tuple):
            return tuple(build(x, path + (i,)) for i, x in enumerate(v))
        a = np.asarray(v)
        return da.from_delayed(dask.delayed(_pick, pure=True)(result, path), shape=a.shape,
                               dtype=a.dtype)

    return build(probe, ())


def _pick(v, path):
    for i in path:
        v = v[i]
    return np.asarray(v)
