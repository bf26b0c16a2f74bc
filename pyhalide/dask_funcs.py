"""`Pipeline.dask({image_param: dask_array, ...})`: a Func-API Pipeline on
Dask arrays (docs/dask.md).

The outputs have the chunked inputs' shape; each block is one task that
realizes the outputs over the block on the blocks of the inputs plus a halo
(the region bounds inference says the block reads, probed as for @pipeline
functions: dask_map.probe_halo). As in dask_window, a private copy of the
pipeline is rewritten to compute in the whole arrays' coordinates: reads of
a chunked ImageParam `img(e)` become `img(e - offset)` and its extents the
whole array's, and each output F is realized through `W(v) = F(v + start)`
over the block, so every value is the whole-array realize's value at the
same coordinates and a read outside the window fails the kernel's bounds
check (an error, never another value). The outputs keep their schedules
(each computed at root), which then run within a block.

Tasks carry the pipeline by its definition: the Funcs (algorithm, schedule,
the other inputs and the Params' values at the time of the call) pickled
once per call, never machine code; a process builds one plan per
definition digest and compiles it once (then the kernel caches).
"""
from __future__ import annotations

import hashlib
import threading

import numpy as np

from . import ir
from .buffer import Param
from .dask_map import probe_halo
from .dask_window import OutsideWindow, Shift, outside_window, reachable, rewrite_definition
from .errors import CompileError

_lock = threading.Lock()
_PLANS: dict = {}              # definition digest -> FuncPlan


class FuncWindow:
    """A private copy of a pipeline's outputs (and the Funcs they call) whose
    reads of the chunked ImageParams are in global coordinates: `images`:
    name -> (ImageParam, offset Params, extent Params), as dask_window's."""

    def __init__(self, outputs: list, chunked: list):
        from .graph import collect_graph
        self.lock = threading.RLock()
        graph = collect_graph([f.function() for f in outputs])
        self.images = {}
        for name in chunked:
            img = graph.images[name]
            dims = img.dimensions()
            self.images[name] = (img, [Param(ir.INDEX, f"{name}$dask_o{k}", 0)
                                       for k in range(dims)],
                                 [Param(ir.INDEX, f"{name}$dask_n{k}", 0) for k in range(dims)])
        shift = Shift({id(img): (o, n) for img, o, n in self.images.values()})
        self.functions = reachable([f.function() for f in outputs])
        for fn in self.functions:
            for d in fn.definitions():
                rewrite_definition(d, shift)
        self.outputs = list(outputs)

    def bind(self, args, shapes: dict, windows: dict):
        """The chunked inputs set to their windows (name -> (global start,
        block); an input without one: an empty window); `args` unused
        (dask_window.Window's interface)."""
        from .buffer import Buffer
        for name, (img, offs, exts) in self.images.items():
            nd = len(offs)
            at, block = windows.get(name, ((0,) * nd, None))
            if block is None:
                block = np.zeros((0,) * nd, img.type().to_numpy())
            img.set(Buffer(np.require(block, requirements="CA")))
            for axis in range(nd):
                offs[nd - 1 - axis].set(int(at[axis]))
                exts[nd - 1 - axis].set(int(shapes[name][axis]))

    def func_named(self, function):
        """A Func for a Function of this copy (an output's own Func if it is one)."""
        for f in self.outputs:
            if f.function() is function:
                return f
        from .autoschedule.funcapi import func_of
        return func_of(function)

    def run_kernel(self, call):
        try:
            call()
        except (IndexError, ValueError) as e:
            out = outside_window(e)
            if out is not None:
                raise out from None
            raise


class FuncPlan(FuncWindow):
    """The outputs computed block by block in global coordinates."""

    def __init__(self, outputs: list, chunked: list, blob: bytes):
        from .func import Func
        from .realize import Pipeline
        from .var import Var
        super().__init__(outputs, chunked)
        self.blob = blob                # the pickled outputs this is a copy of
        self.scans = {}
        self.float_reassociation = False
        self.blocks = []
        for f in outputs:
            f.compute_root()
            vs = [Var(f"dask_v{i}") for i in range(f.dimensions())]
            o = [Param(ir.INDEX, f"{f.name()}$dask_o{i}", 0) for i in range(f.dimensions())]
            w = Func(f"{f.name()}$block")
            ref = f[tuple(v + p for v, p in zip(vs, o))]
            w[tuple(vs)] = tuple(ref) if f.outputs() > 1 else ref
            self.blocks.append((Pipeline([w]), o, [t.to_numpy() for t in f.types()]))

    def block(self, slot: int, windows: dict, shapes: dict, start, shape):
        """Output `slot` (a tuple of arrays for a Tuple-valued Func) over the
        block at `start` of extent `shape` (NumPy axis order), from the
        windows (name -> (global start, block)) of the chunked inputs."""
        pipe, o, dtypes = self.blocks[slot]
        with self.lock:
            self.bind(None, shapes, windows)
            for axis, s in enumerate(start):
                o[len(start) - 1 - axis].set(int(s))
            outs = [np.empty(shape, dt) for dt in dtypes]
            self.run_kernel(pipe.bind_arrays(outs))
        return outs[0] if len(outs) == 1 else tuple(outs)

    def scan(self, slot: int):
        """The ScanPlan of output `slot` (dask_scan), made once, on a copy of
        its own: ScanPlan restricts the scan's update to a block, which the
        other outputs (reading the scan) and the blocks computed here must not
        see."""
        with self.lock:
            plan = self.scans.get(slot)
            if plan is None:
                import pickle

                from .dask_scan import ScanPlan, leaf_func
                host = FuncPlan(pickle.loads(self.blob), list(self.images), self.blob)
                out, *path = slot if isinstance(slot, tuple) else (slot,)
                plan = self.scans[slot] = ScanPlan(host, leaf_func(host, host.outputs[out], path),
                                                   "Pipeline.dask()", self.float_reassociation)
        return plan


class FuncJob:
    """What every task needs, pickled by the pipeline's definition."""

    def __init__(self, digest: str, blob: bytes, chunked: list, shapes: dict,
                 float_reassociation: bool = False):
        self.digest, self.blob, self.chunked, self.shapes = digest, blob, chunked, shapes
        self.float_reassociation = float_reassociation

    def plan(self) -> FuncPlan:
        with _lock:
            plan = _PLANS.get(self.digest)
            if plan is None:
                import pickle
                plan = _PLANS[self.digest] = FuncPlan(pickle.loads(self.blob), self.chunked,
                                                      self.blob)
                # (the digest covers it: a plan has one)
                plan.float_reassociation = self.float_reassociation
        return plan


def _func_task(*blocks, job=None, slot=0, item=None, depth=(), block_info=None):
    from .dask import block_place
    start, shape, starts = block_place(block_info, len(blocks), depth)
    windows = {name: (s, b) for name, s, b in zip(job.chunked, starts, blocks)}
    out = job.plan().block(slot, windows, job.shapes, start, shape)
    return out if item is None else out[item]


def pipeline_to_dask(pipeline, inputs: dict, float_reassociation: bool = False,
                     sizes=None, split_every=None):
    """Dask arrays computing what `pipeline.realize(shape)` computes with each
    ImageParam of `inputs` set to its dask array (concatenated): one per
    output (a tuple per Tuple-valued output; a list for several outputs). An
    output that is a one-dimensional scan is carried across the blocks
    (dask_scan; a float scan needs `float_reassociation`). With `sizes` (as
    realize's), or for a 0-D output, the outputs are reductions over the
    inputs, realized over `sizes` (dask_funcs_reduce)."""
    import cloudpickle
    import dask.array as da

    from .buffer import ImageParam
    from .dask import blocks_with_halo
    if not inputs or not all(isinstance(k, ImageParam) and isinstance(v, da.Array)
                             for k, v in inputs.items()):
        raise TypeError("Pipeline.dask() takes a dict {ImageParam: dask.array.Array}; wrap "
                        "NumPy arrays with dask.array.from_array(x, chunks=...), or set "
                        "ImageParams read whole with img.set(array) first")
    names = [k.name() for k in inputs]
    xs = list(inputs.values())
    first = xs[0]
    for img, x in inputs.items():
        if any(np.isnan(c) for cs in x.chunks for c in cs):
            raise ValueError(f"Pipeline.dask(): the array for {img.name()} has unknown chunk "
                             f"sizes (NaN): call x.compute_chunk_sizes() first")
        if x.ndim != img.dimensions() or np.dtype(x.dtype) != img.type().to_numpy():
            raise TypeError(f"Pipeline.dask(): ImageParam {img.name()} is a "
                            f"{img.dimensions()}-D {img.type()} image, but its dask array is "
                            f"{x.ndim}-D {x.dtype}")
        if x.shape != first.shape or x.chunks != first.chunks:
            raise ValueError(f"Pipeline.dask(): the arrays for {names[0]} and {img.name()} "
                             f"differ in shape or chunks ({first.chunks} and {x.chunks}): "
                             f"rechunk one like the other (x.rechunk(y.chunks))")
    outs = pipeline.outputs()
    if isinstance(sizes, (int, np.integer)):
        sizes = [sizes]
    for f in outs:
        if sizes is None and f.dimensions() not in (0, first.ndim):
            raise CompileError(f"Pipeline.dask(): output {f.name()} has {f.dimensions()} "
                               f"dimensions; on Dask the outputs are computed block by block "
                               f"over the inputs' shape ({first.ndim}-D), or, for a "
                               f"reduction over the inputs, over the sizes given as "
                               f"Pipeline.dask(..., sizes=[...]) (as realize's)")
    blob = cloudpickle.dumps(outs)
    job = FuncJob(hashlib.sha256(blob + bytes([float_reassociation])).hexdigest(), blob, names,
                  {n: tuple(x.shape) for n, x in zip(names, xs)}, float_reassociation)
    if sizes is not None or any(f.dimensions() == 0 for f in outs):
        from .dask_funcs_reduce import reduction_to_dask
        chunked = {n: [ax for ax, c in enumerate(x.chunks) if len(c) > 1]
                   for n, x in zip(names, xs)}
        results = [reduction_to_dask(dict(digest=job.digest, blob=blob, slot=slot, names=names,
                                          shapes=job.shapes, chunked=chunked,
                                          sizes=list(sizes or []),
                                          float_reassociation=float_reassociation,
                                          where=f"Pipeline.dask(): output {f.name()}"),
                                     xs, split_every, da)
                   for slot, f in enumerate(outs)]
        return results[0] if len(results) == 1 else results
    plan = job.plan()
    dtypes = {n: x.dtype for n, x in zip(names, xs)}
    shapes = job.shapes
    results = []
    for slot, f in enumerate(outs):
        from .dask_scan import scan_graph, split_scan
        if f.outputs() == 1 and split_scan(f.function(), first.chunks):
            results.append(scan_graph(job, slot, xs, da))
            continue
        try:
            depth = probe_halo(lambda w, s, e: plan.block(slot, w, shapes, s, e), dtypes,
                               shapes, first.chunks, {})
        except OutsideWindow as e:
            raise CompileError(f"Pipeline.dask(): output {f.name()} reads {e.name} in a "
                               f"way bounds inference does not bound per block: {e}") from None
        items = [None] if f.outputs() == 1 else list(range(f.outputs()))
        try:
            arrays = tuple(blocks_with_halo(_func_task, xs, depth, t.to_numpy(), "Pipeline",
                                            da, job=job, slot=slot, item=i)
                           for i, t in zip(items, f.types()))
        except ValueError as e:
            if not any(d.schedule.rvars for d in f.function().updates):
                raise
            raise ValueError(f"{e} (or, for a reduction over the inputs such as a "
                             f"histogram, give the output's sizes: Pipeline.dask(..., "
                             f"sizes=[...]) as for realize)") from None
        results.append(arrays[0] if f.outputs() == 1 else arrays)
    return results[0] if len(results) == 1 else results
