"""Scalars returned beside scans on Dask (`return out, acc`): the scalar
results of a @pipeline function whose array results are computed block by
block (pyhalide.dask), read from the scans' own dask arrays.

The frontend returns the final value of a running value `acc` as a 0-d Func
reading the scan `out` at its last point. `TailPlan` is a private copy of
the specialization where every scan result is read from a window of its
dask array (dask_scan.Feed) by the Funcs of the other results; they are
realized alone (not the arrays), and converted as the call converts them.
The regions of the scans and of the arguments they read are probed when the
graph is built (their bounds checks on empty windows, as the final step of
a reduction), so the one task computing them holds those regions only: the
last element of `out`, not the array.
"""
from __future__ import annotations

import numpy as np

from .dask_scan import Feed, scan_of
from .dask_window import OutsideWindow, Window, reachable, rewrite_definition
from .errors import CompileError
from .realize import Pipeline


class TailPlan:
    """The results of slots `tail` of `pf`'s specialization for `key`, the
    array results of slots `scans` read from windows of their dask arrays
    (fed, under the image names `self.feeds`)."""

    def __init__(self, pf, key, arrays, scans, tail):
        self.window = w = Window(pf, key, arrays)
        self.tail = list(tail)
        funcs = [w.spec.out_funcs[s][0] for s in self.tail]
        users = reachable([f.function() for f in funcs])
        self.feeds = {}
        for s in scans:
            T = w.spec.out_funcs[s][0].function()
            if scan_of(T) is None or len(T.output_types) != 1:
                raise CompileError(f"{pf.__name__}.dask(): result {s} is not a scan")
            f = Feed(w, T, f"dask_result{s}$feed")     # (Function names differ by process)
            for fn in users:
                if fn is not T:
                    for d in fn.definitions():
                        rewrite_definition(d, f)
            self.feeds[s] = f.name
        if any(fn is w.spec.out_funcs[s][0].function() for fn in reachable(
                [f.function() for f in funcs]) for s in scans):
            raise CompileError(f"{pf.__name__}.dask(): the scalar results read an array "
                               f"result other than at points of its scan")
        self.pipe = Pipeline(funcs)
        self.dtypes = [[t.to_numpy() for t in f.types()] for f in funcs]

    def run(self, args, shapes, windows, items):
        """The converted values of the result's items `items` (Out objects
        of the specialization's result) on the windows (name -> (global start,
        block), arguments and fed scans)."""
        w = self.window
        spec = w.spec
        with w.lock:
            env = w.bind(args, shapes, windows)
            bufs = [np.empty((), dt) for dts in self.dtypes for dt in dts]
            call = self.pipe.bind_arrays(bufs)
        w.run_kernel(call)
        outs = [None] * len(spec.out_funcs)
        k = 0
        for s, dts in zip(self.tail, self.dtypes):
            outs[s] = bufs[k:k + len(dts)]
            k += len(dts)
        return tuple(spec.converter(o)(outs, args, env) for o in items)

    def regions(self, args, shapes, dtypes: dict, items, fixed: dict, limit: int = 16) -> dict:
        """name -> [(lo, hi)] per NumPy axis: what run() reads of each dask
        array (arguments and fed scans; `fixed`: the windows of the arrays
        sent whole), grown from its bounds checks on windows of zeros until it
        reads nothing outside them."""
        regions = {}                # name -> {axis: (lo, hi)}
        for _ in range(limit):
            boxes = {n: [reg.get(ax, (0, 0)) for ax in range(len(shapes[n]))]
                     for n, reg in regions.items()}
            try:
                self.run(args, shapes, dict(fixed, **zero_windows(boxes, dtypes)), items)
                return boxes
            except OutsideWindow as e:
                axis = len(shapes[e.name]) - 1 - e.dim
                reg = regions.setdefault(e.name, {})
                at = reg.get(axis, (0, 0))[0]
                glo, ghi = e.lo + at, e.hi + at + 1
                lo, hi = reg.get(axis, (glo, ghi))
                reg[axis] = (min(lo, glo), max(hi, ghi))
        raise CompileError("the scalar results read their arrays in too many places to be "
                           "split on Dask")


def zero_windows(boxes: dict, dtypes: dict) -> dict:
    """Windows of zeros over `boxes` (name -> [(lo, hi)] per NumPy axis)."""
    return {n: (tuple(lo for lo, _ in box), np.zeros([hi - lo for lo, hi in box], dtypes[n]))
            for n, box in boxes.items()}
