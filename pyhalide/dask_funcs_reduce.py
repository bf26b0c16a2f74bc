"""Reductions of Func-API pipelines on Dask: `Pipeline.dask({img: x}, sizes=...)`
for an output that reduces over the chunked inputs (docs/dask.md).

The same rfactor decomposition as for @pipeline functions (dask_reduce),
with a private copy of the pipeline (dask_funcs.FuncWindow: reads of the
chunked ImageParams in global coordinates) as the host:

- the one Func R with an update over an RDom that reads the chunked inputs
  is the reduction; its operator must be proven associative by the tables
  (the same refusals as @pipeline functions: float sums without
  `float_reassociation=True`, non-commuting operators over more than the
  outermost RVar's axis, ...);
- the *chunk* task realizes R with the operator's identity (or the block's
  first point) as pure definition and the update over the RDom points whose
  reads fall in its block;
- the partial results are merged in block order by `dask.array.reduction`
  (dask.reduce_graph, `split_every`);
- the *final* task realizes the output over `sizes` on a second copy whose
  R has its update replaced by one merge of the merged total, so R's
  initial value and what the output computes from R are one machine's.

R is the output itself (realized over `sizes`) or a scalar (0-D) Func the
output reads; a reduction into an array that is not the output has no known
extent here and is refused.
"""
from __future__ import annotations

import threading

import numpy as np

from .dask_funcs import FuncWindow
from .dask_reduce import FinalStep, ReducePlan
from .errors import CompileError

_lock = threading.Lock()
_PLANS: dict = {}              # (definition digest, slot, sizes) -> FuncReducePlan


class FuncReducePlan(ReducePlan):
    """The chunk and final steps of output `slot`'s reduction."""

    def __init__(self, blob: bytes, slot: int, names: list, chunked: dict, sizes: list,
                 float_reassociation: bool):
        import pickle
        w = FuncWindow(pickle.loads(blob), names)
        out = w.outputs[slot]
        where = f"Pipeline.dask(): output {out.name()}"
        fn, k, op = self.analyze(w, where, chunked, float_reassociation)
        if fn is not out.function() and fn.dimensions():
            raise CompileError(f"{where}: the reduction {fn.name} over the chunked inputs is "
                               f"an array that is not the output; on Dask a reduction is split "
                               f"into blocks when it is the output or a scalar Func the output "
                               f"reads")
        if fn is out.function() and len(sizes) != fn.dimensions():
            raise CompileError(f"{where} has {fn.dimensions()} dimensions, but sizes gives "
                               f"{len(sizes)}")
        self.sizes = list(sizes)
        final = FuncWindow(pickle.loads(blob), names)
        twin = next(f for f in final.functions if f.name == fn.name)
        self.final = FuncFinal(final, final.outputs[slot], twin, k, op,
                               self.shape(w, None), tuple(reversed(self.sizes)))

    def shape(self, w, shapes) -> tuple:
        """R's extent per NumPy axis: the output's sizes, or () for a scalar."""
        return tuple(reversed(self.sizes)) if self.dims else ()


class FuncFinal(FinalStep):
    """The output over `sizes`, its reduction's update one merge (FinalStep)."""

    def __init__(self, w: FuncWindow, out, fn, k: int, op, r_shape: tuple, shape: tuple):
        from .realize import Pipeline
        self.window = w
        self.replace_update(fn, k, op)
        self.r_shape = r_shape or (1,)
        self.shape = shape
        self.pipe = Pipeline([out])
        self.dtypes = [t.to_numpy() for t in out.types()]

    def run(self, args, shapes, windows, merged):
        """The output (a tuple for a Tuple-valued Func) given the merged
        intermediate and the windows of the inputs it reads elsewhere."""
        w = self.window
        with w.lock:
            w.bind(args, shapes, windows)
            self.set_merged(merged, self.r_shape)
            outs = [np.empty(self.shape, dt) for dt in self.dtypes]
            call = self.pipe.bind_arrays(outs)
        w.run_kernel(call)
        return outs[0] if len(outs) == 1 else tuple(outs)


class FuncReduceJob:
    """What every task of one output's reduction needs, pickled by the
    pipeline's definition (dask.reduce_graph's job interface)."""

    args = None
    wholes: dict = {}

    def __init__(self, digest: str, blob: bytes, slot: int, names: list, shapes: dict,
                 chunked: dict, sizes: list, float_reassociation: bool, where: str):
        self.digest, self.blob, self.slot, self.names = digest, blob, slot, names
        self.shapes, self.chunked, self.sizes = shapes, chunked, list(sizes)
        self.float_reassociation, self.where = float_reassociation, where

    @property
    def dask_names(self) -> list:
        return self.names

    def given(self, wholes):
        return self

    def windows(self, blocks, starts) -> dict:
        return {n: (s, b) for n, b, s in zip(self.names, blocks, starts)}

    def plan(self, kind: str = "reduce") -> FuncReducePlan:
        key = (self.digest, self.slot, tuple(self.sizes), self.float_reassociation,
               tuple(sorted((n, tuple(a)) for n, a in self.chunked.items())))
        with _lock:
            plan = _PLANS.get(key)
            if plan is None:
                plan = _PLANS[key] = FuncReducePlan(self.blob, self.slot, self.names,
                                                    self.chunked, self.sizes,
                                                    self.float_reassociation)
        return plan


def reduction_to_dask(job_fields: dict, xs: list, split_every, da):
    """The dask collection (a dask array, a tuple of them for a Tuple-valued
    output) of one reduction output (FuncReduceJob's fields)."""
    from .dask import reduce_graph
    job = FuncReduceJob(**job_fields)
    job.plan()              # refusals before any graph is built
    return reduce_graph(job, xs, split_every, da)
