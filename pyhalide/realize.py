"""Pipeline: collect the Func graph, compile it once per (algorithm, schedule,
argument types), and run it on NumPy arrays."""
from __future__ import annotations

import operator

import numpy as np

from . import bounds_query, ir, shifted_inputs, tracing
from .bounds_query import check_constraints, has_constraints, repeat_unchecked
from .buffer import Buffer
from .errors import CompileError
from .graph import collect_graph, fingerprint
from .ir.errors import counted
from .ir.lru import LRU
from .ir.recursion import deep_entry
from .pipeline_halide import HalidePipelineMethods
from .realize_fast import realize_again, record, result
from .schedule_warnings import emit as emit_schedule_warnings
from .shifted_outputs import realize_shifted, shifted_outputs
from .source import at, user_location


def _dense0(arr: np.ndarray) -> bool:
    """Whether dimension 0 (the last NumPy axis) has stride 1."""
    return arr.ndim > 0 and (arr.strides[-1] == arr.itemsize or arr.shape[-1] <= 1)


# a buffer of stride 2 in dimension 0 (a part of a contiguous complex array:
# a.real, a.imag) is named in a kernel's dense set with this suffix
# (lowering/storage_flattening.py reads it at that constant stride, so that
# LLVM's vectorizer sees the two parts' loads as one interleaved group)
PAIRED = "#2"


def _dense_name(name: str, arr: np.ndarray):
    """`name` if arr is dense in dimension 0, name + PAIRED if its stride
    there is 2 elements, else None."""
    if _dense0(arr):
        return name
    if arr.ndim > 0 and arr.strides[-1] == 2 * arr.itemsize:
        return name + PAIRED
    return None


def _dense_names(names, arrays, images=None) -> frozenset:
    """The dense set of buffers `names` bound to `arrays` (_dense_name).
    The imaginary part of a complex argument (its image's `paired_after`
    names the real part's image: frontend_ast/array_complex.input_array),
    PAIRED with the real part bound, is named `name#2@real`: its loads read
    the real part's buffer one element further (storage_flattening), so
    that LLVM sees both parts' loads as one interleaved group (wide loads
    and shuffles, no gathers). The pairing is the argument's structure
    (its two views), so every call with the same strides has it."""
    images = images or {}
    got = {n: _dense_name(n, a) for n, a in zip(names, arrays)}
    out = []
    for n, a in zip(names, arrays):
        name = got[n]
        first = getattr(images.get(n), "paired_after", None)
        if name is not None and name.endswith(PAIRED) and first is not None and \
                got.get(first) == first + PAIRED:
            b = arrays[names.index(first)]
            if a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype and \
                    a.__array_interface__["data"][0] == \
                    b.__array_interface__["data"][0] + a.itemsize:
                name += "@" + first
        if name is not None:
            out.append(name)
    return frozenset(out)


# fingerprint -> compiled kernel, shared by every Pipeline of the process
_KERNELS = LRU()


def _cached_kernel(key: str):
    """The kernel compiled for `key` in this process or in the disk cache, or None."""
    kernel = _KERNELS.get(key)
    if kernel is None:
        from .lowering.kernel_cache import load_kernel
        kernel = load_kernel(key)
        if kernel is not None:
            _KERNELS.put(key, kernel)
    return kernel


def _row_extents(graph, tokens=None) -> dict:
    """The extent of dimension 0 of each input bound now, by the name of
    its symbol (`a.extent.0`: what lowering/specialize_rows.py specializes
    on); with `tokens` (canonical image names), of those images only, by
    token."""
    out = {}
    for name in graph.image_names():
        token = _canonical_buffer(graph, name)
        if tokens is not None and token not in tokens:
            continue
        try:
            arr = graph.input_array(name)
        except ValueError:
            continue
        if arr.ndim > 0:
            out[token if tokens is not None else f"{name}.extent.0"] = int(arr.shape[-1])
    return out
# output Functions' ids -> (outputs, versions, graph, fingerprint, plan): the last
# graph of those outputs, reused while no reachable Function changed. Both are
# bounded (ir/lru.py): an evicted graph or kernel is rebuilt (recompiled, or
# loaded from the disk cache) when next used.
_GRAPHS = LRU()


def function_version(fn: ir.Function) -> tuple:
    """What `fn`'s definitions and schedule are now. Definitions are replaced
    as tuples, and schedule entries (LoopLevel, Dim, Split, ReductionVariable)
    are immutable and replaced, never edited: holding the objects themselves
    keeps them alive, so an equal version means an unchanged Function (tuple
    comparison checks identity first, which keeps this cheap). Its traced
    events (pyhalide/tracing.py) are part of it: a trace call after a record
    takes the full path, which traces."""
    s = fn.schedule
    return (s.compute_level, s.store_level, tuple(s.bounds), s.device, s.trace_realizations,
            tracing.events(fn),
            tuple((d.args, d.values, tuple(d.predicates), tuple(d.schedule.splits),
                   tuple(d.schedule.rvars), tuple(d.schedule.dims),
                   d.schedule.allow_race_conditions, d.schedule.atomic)
                  for d in fn.definitions()))


def _output_buffer_names(fn: ir.Function) -> list:
    if len(fn.output_types) == 1:
        return [fn.name]
    return [f"{fn.name}.{i}" for i in range(len(fn.output_types))]


def _canonical_buffer(graph, name: str) -> str:
    """A buffer name with its Func's or image's name canonical
    (graph.canonical_buffers; `f.1`: element 1 of Func f's tuple)."""
    tokens = graph.canonical_buffers
    if PAIRED in name:
        head, _, other = name.partition(PAIRED)
        return _canonical_buffer(graph, head) + PAIRED + \
            ("@" + _canonical_buffer(graph, other[1:]) if other else "")
    if name in tokens:
        return tokens[name]
    head, dot, tail = name.rpartition(".")
    if dot and head in tokens and tail.isdigit():
        return tokens[head] + dot + tail
    return name


def _integer_sizes(sizes) -> list:
    """realize()'s sizes as ints; TypeError for anything but integers (8.7 is
    not rounded to 8)."""
    out = []
    for s in sizes:
        try:
            out.append(operator.index(s))
        except TypeError:
            raise TypeError(f"realize() sizes must be integers, not {s!r} (in {list(sizes)})"
                            f"{at(user_location())}") from None
    return out


class Pipeline(HalidePipelineMethods):
    """Several output Funcs realized together (Halide's other Pipeline
    methods: pipeline_halide.py)."""

    def __init__(self, outputs=None):
        from .func import Func
        if outputs is None:                 # Halide's undefined Pipeline()
            self._outputs = []
            return
        if isinstance(outputs, Func):
            outputs = [outputs]
        self._outputs = list(outputs)
        if not self._outputs:
            raise CompileError("a Pipeline needs at least one output Func")
        for f in self._outputs:
            if not f.defined():
                raise CompileError(f"Func {f.name()} is not defined")

    def outputs(self) -> list:
        return list(self._outputs)

    # compilation ---------------------------------------------------------------
    def _graph(self):
        return self._current()[0]

    def _graph_and_key(self):
        graph, key, _ = self._current()
        return graph, key

    def _current(self):
        """The Func graph, its fingerprint and its call plan, recomputed only
        when some reachable Function changed since the last call for these
        outputs."""
        outs = [f.function() for f in self._outputs]
        memo_key = tuple(id(fn) for fn in outs)
        hit = _GRAPHS.get(memo_key)
        if hit is not None:
            _, versions, graph, key, plan = hit
            if all(function_version(fn) == v for fn, v in zip(graph.env.values(), versions)):
                return graph, key, plan
        return self._collect(outs, memo_key)

    @staticmethod
    @deep_entry
    def _collect(outs, memo_key):
        graph = collect_graph(outs)
        key = fingerprint(outs, graph)
        plan = _CallPlan(graph, outs)
        _GRAPHS.put(memo_key, (outs, [function_version(fn) for fn in graph.env.values()], graph, key,
                               plan))
        return graph, key, plan

    def lowered_stmt(self):
        """The lowered statement of the pipeline as bound now (the kernel's
        code before LLVM; bounds_query evaluates its input checks)."""
        graph = self._graph()
        return self._lowered(graph, self._default_dense(graph)).stmt

    def _lowered(self, graph, dense=(), stop_after=None, rows=None, in_place=None, probe=None):
        from .lowering.pipeline import lower
        return lower([f.function() for f in self._outputs], graph.env,
                     graph.input_images(), graph.scalar_params(), dense=dense,
                     stop_after=stop_after, rows=rows, in_place=in_place, probe=probe)

    @deep_entry
    def _kernel(self, dense=None, graph_and_key=None, in_place=None, probe=None):
        """The compiled kernel for the current algorithm, schedules and input
        types, specialized on which buffers are dense in dimension 0 (and,
        for the loop nests lowering/specialize_rows.py copies, on the row
        extents the inputs have now); with `in_place` (output Func name ->
        the input image it copies) its in-place variant
        (lowering/in_place.py: InPlaceRefused where it does not apply);
        `probe`: the input symbols' values at the call it is compiled for,
        whose cold copies that call does not run are compiled when a call
        first needs them (lowering/lazy_copies.py, lazy_kernel.py)."""
        graph, key = graph_and_key or self._graph_and_key()
        if dense is None:
            dense = self._default_dense(graph)
        key = key + "|dense:" + ",".join(sorted(_canonical_buffer(graph, n) for n in dense))
        if in_place:
            key += "|in_place:" + ",".join(sorted(
                f"{_canonical_buffer(graph, o)}={_canonical_buffer(graph, i)}"
                for o, i in in_place.items()))
        kernel = _cached_kernel(key)
        if kernel is not None and getattr(kernel, "rows", None):
            # specialized on row extents (lowering/specialize_rows.py): for
            # other extents worth a copy, the kernel specialized on them
            from .lowering.specialize_rows import worth
            now = _row_extents(graph, kernel.rows)
            if now != kernel.rows and all(worth(v) for v in now.values()):
                key += "|rows:" + ",".join(f"{t}={v}" for t, v in sorted(now.items()))
                kernel = _cached_kernel(key)
        if kernel is None:
            from .lowering.kernel_cache import store_kernel
            from .lowering.pipeline import compile_lowered
            lowered = self._lowered(graph, dense, rows=_row_extents(graph), in_place=in_place,
                                    probe=probe)
            kernel = compile_lowered(lowered)
            kernel.names = dict(graph.canonical)
            kernel.rows = {_canonical_buffer(graph, n[:-len(".extent.0")]): v
                           for n, v in lowered.rows.items()}
            store_kernel(key, kernel)
            _KERNELS.put(key, kernel)
        return kernel.with_names(graph.canonical), graph

    def _default_dense(self, graph) -> frozenset:
        """Outputs we allocate are dense; inputs as they are bound now."""
        names = set()
        for fn in (f.function() for f in self._outputs):
            if fn.dimensions() > 0:
                names.update(_output_buffer_names(fn))
        bound = []
        for name in graph.image_names():
            try:
                bound.append((name, graph.input_array(name)))
            except ValueError:
                continue
        return frozenset(names) | _dense_names([n for n, _ in bound], [a for _, a in bound],
                                               graph.images)

    def compile_jit(self, *args, **kw):
        self._kernel()
        return self

    @deep_entry
    def apply_autoscheduler(self, target=None, params=None):
        """Schedule the pipeline automatically (Halide 21's call; sizes from
        set_estimates): pyhalide.autoschedule.funcapi."""
        from .autoschedule.funcapi import apply_autoscheduler
        return apply_autoscheduler(self, target, params)

    @deep_entry
    def lower(self, stage: str = "final") -> str:
        graph = self._graph()
        return self._lowered(graph, self._default_dense(graph), stop_after=stage,
                             rows=_row_extents(graph)).text(stage)

    # running ---------------------------------------------------------------
    def realize(self, sizes=None, *more, **kw):
        if not kw and "_fast" in self.__dict__ and not (
                bounds_query.EVER_SET[0] and
                not repeat_unchecked(self._outputs, self.__dict__["_fast"]())):
            out = realize_again(self, sizes, more)      # the last call, nothing changed
            if out is not None:
                return out
        if tracing.active() and not tracing.recording():   # Halide's trace around the run
            return tracing.run_traced(self._outputs, lambda: self.realize(sizes, *more, **kw))
        shifted = shifted_inputs.shifted_graph(self._outputs)     # inputs whose min is not 0
        if shifted is not None:
            return shifted_inputs.run_shifted(shifted, lambda: self.realize(sizes, *more, **kw))
        graph, key, plan = self._current()
        if has_constraints(self._outputs, graph):       # expression constraints on geometry
            check_constraints(self._outputs, graph, *_region(sizes, more))
        out_shifted = shifted_outputs(sizes)            # output Buffers whose min is not 0
        if out_shifted:
            return realize_shifted(self._outputs, out_shifted)
        dims = {f.dimensions() for f in self._outputs}
        if len(dims) != 1:         # (compile_jit takes them)
            raise CompileError("the outputs of a Pipeline realized together must have the same "
                               "dimensions: realize them in Pipelines of their own")
        if "_requirements" in self.__dict__:
            self._check_requirements()
        if self.__dict__.get("warned_graph") is not graph:     # Halide's schedule warnings
            self.warned_graph = graph
            emit_schedule_warnings(graph.env, [f.name() for f in self._outputs])
        given = None
        if sizes is None:
            sizes = []
        if isinstance(sizes, (int, float, np.number)):
            sizes = [sizes, *more]
        elif isinstance(sizes, Buffer) or (isinstance(sizes, (list, tuple)) and sizes
                                           and isinstance(sizes[0], (Buffer, np.ndarray))):
            given = [sizes] if isinstance(sizes, Buffer) else list(sizes)
        if given is not None:
            bufs = [b if isinstance(b, Buffer) else Buffer(b) for b in given]
            if len(bufs) != len(plan.out_types):
                raise ValueError(f"realize() was given {len(bufs)} Buffers but the pipeline "
                                 f"has {len(plan.out_types)} outputs")
            for b, t in zip(bufs, plan.out_types):
                if b.type() != t:
                    raise TypeError(f"output Buffer {b.name()} has type {b.type()}, "
                                    f"expected {t}")
            arrays = [b.numpy() for b in bufs]
        else:
            sizes = _integer_sizes(sizes)
            if len(sizes) != plan.dims:
                raise ValueError(f"Func {plan.first_name} has {counted(plan.dims, 'dimension')} but "
                                 f"realize() was given {counted(len(sizes), 'size')}")
            if any(s < 0 for s in sizes):
                raise ValueError(f"realize() sizes must be non-negative, got {sizes}")
            shape = tuple(reversed(sizes))
            arrays = [np.empty(shape, dtype=dt) for dt in plan.out_dtypes]
        kernel, buffers, params = self._bound(graph, key, plan, arrays)
        kernel(buffers, params, given is None)
        if not kw and not tracing.traced(graph.env.values()) and not shifted_inputs.running() \
                and (given is None or all(type(b) is Buffer for b in given)):
            record(self, graph, plan, None if given is not None else sizes, kernel, buffers,
                   params, len(self._outputs) == 1, self._check_requirements,
                   given=given is not None)
        if given is not None:
            return bufs if len(bufs) > 1 else bufs[0]
        return result(len(self._outputs) == 1, arrays, plan.out_names)

    def _bound(self, graph, key, plan, arrays: list, in_place=None) -> tuple:
        """(kernel, buffers, params): the kernel for the inputs and
        parameters bound now (compiled on first use) and its arguments
        (`in_place`: see _kernel)."""
        inputs = [graph.input_array(name) for name in plan.image_names]
        params = [graph.param_value(name) for name in plan.param_names]
        dense = _dense_names([*plan.image_names, *plan.out_names], [*inputs, *arrays],
                             graph.images)
        which = (dense, tuple(sorted(in_place.items()))) if in_place else dense
        kernel = plan.kernels.get(which)
        if kernel is None:
            # the cold copies this call does not run are compiled when a
            # call needs them (lowering/lazy_copies.py; not with the disk
            # cache); never in the in-place variant, whose output is an input
            # (a rerun after a partial run would read what that run wrote)
            from .lowering.lazy_probe import call_probe
            probe = None if in_place else call_probe(
                [*plan.image_names, *plan.out_names], inputs + arrays, plan.param_names, params)
            kernel = plan.kernels[which] = self._kernel(dense, (graph, key), in_place, probe)[0]
        return kernel, inputs + arrays, params

    def bind_arrays(self, arrays: list):
        """The @pipeline frontend's call path, in two steps: this one reads
        the inputs and parameters bound now (and compiles on first use); the
        function it returns runs the kernel on them, writing `arrays` (just
        allocated by the caller, so they alias nothing; of the outputs'
        dtypes, one per output element). The inputs may be rebound (for
        another call) before that function runs."""
        kernel, buffers, params, _, _ = self.kernel_call(arrays)
        return lambda: kernel(buffers, params, True)

    def kernel_call(self, arrays: list, in_place=None) -> tuple:
        """(kernel, buffers, params, graph, plan): bind_arrays' first step
        with its parts: the kernel for the inputs and parameters bound now
        (compiled on first use), its arguments writing `arrays`, and the
        graph and call plan they come from (`in_place`: output Func name ->
        the input image it copies, for the in-place variant: see _kernel)."""
        graph, key, plan = self._current()
        kernel, buffers, params = self._bound(graph, key, plan, arrays, in_place)
        return kernel, buffers, params, graph, plan

    def dask(self, inputs: dict, float_reassociation: bool = False, *, sizes=None,
             split_every=None):
        """Dask arrays computing the outputs over the shape of `inputs`
        ({ImageParam: dask.array.Array}, one shape and chunking), block by
        block with the halo bounds inference gives, or reductions over the
        inputs realized over `sizes` (0-D outputs need none) (docs/dask.md); a
        float scan, sum or product needs `float_reassociation=True`."""
        from .dask_funcs import pipeline_to_dask
        return pipeline_to_dask(self, inputs, float_reassociation, sizes, split_every)


def _region(sizes, more) -> tuple:
    """(mins, extents) realize() computes: of its first Buffer, or from 0."""
    if isinstance(sizes, (list, tuple)) and sizes and isinstance(sizes[0], (Buffer, np.ndarray)):
        sizes = sizes[0]
    if isinstance(sizes, np.ndarray):
        sizes = Buffer(sizes)
    if isinstance(sizes, Buffer):
        return sizes.mins(), [sizes.dim(d).extent() for d in range(sizes.dimensions())]
    extents = _integer_sizes([sizes, *more] if isinstance(sizes, (int, np.integer))
                             else list(sizes or []))
    return [0] * len(extents), extents


class _CallPlan:
    """What running a graph needs that depends on the graph alone: its input
    and parameter names, its outputs' types, dtypes and buffer names, the
    kernels compiled for it so far, by which buffers are dense, and the record
    of a repeated call (realize_fast.py)."""

    def __init__(self, graph, out_fns):
        self.image_names = graph.image_names()
        self.param_names = graph.param_names()
        self.out_types = [t for fn in out_fns for t in fn.output_types]
        self.out_dtypes = [t.to_numpy() for t in self.out_types]
        self.out_names = [n for fn in out_fns for n in _output_buffer_names(fn)]
        self.dims = out_fns[0].dimensions()
        self.first_name = out_fns[0].name
        self.kernels: dict = {}
        self.fast = None            # the last call's record (realize_fast.py)
