"""Array results on Dask: each block of a result computed by one task from
the same blocks of the arguments plus a halo (pyhalide.dask).

Each result Func F (an array of the arguments' shape) is wrapped as
`W(v) = F(v + o)` with o the block's position, and W is realized over the
block's extent on windows of the arguments (dask_window): the values are the
whole-array call's values at the same coordinates. The halo is what bounds
inference says the block reads: a first block computed on zeros reports the
region it reads beyond its block (the kernel's bounds check), until it reads
nothing outside.
"""
from __future__ import annotations

import numpy as np

from . import ir
from .buffer import Param
from .dask_window import OutsideWindow, Window, reachable, rvar_offset
from .errors import CompileError
from .func import Func
from .realize import Pipeline
from .source import at
from .var import Var


class MapPlan:
    """The result leaves `slots` (indices into the specialization's output
    Funcs), each computed per block."""

    def __init__(self, pf, key, arrays, slots):
        self.window = w = Window(pf, key, arrays)
        self.pipes = []
        self.slots = list(slots)
        self.limits = {}
        self.offsets = []
        for slot in slots:
            f, _ = w.spec.out_funcs[slot]
            dims = f.dimensions()
            vs = [Var(f"dask_v{i}") for i in range(dims)]
            o = [Param(ir.INDEX, f"dask_out{slot}_o{i}", 0) for i in range(dims)]
            wf = Func(f"{f.name()}$block")
            ref = f[tuple(v + p for v, p in zip(vs, o))]
            wf[tuple(vs)] = tuple(ref) if f.outputs() > 1 else ref
            wf.compute_root()
            _refuse_unbounded_whiles(f.function())
            self._restrict(f.function(), o, slot)
            self.pipes.append((Pipeline([wf]), [t.to_numpy() for t in f.types()]))
            self.offsets.append(o)

    def _restrict(self, fn, o, slot):
        """An update of the result that writes `F(r + c)` along a dimension
        (c fixed for the call: _rvar_shift), and reads F only where it
        writes, runs over the block's points only."""
        plans = []
        for d in fn.updates:
            rvars = {rv.name for rv in d.schedule.rvars}
            tied = {}
            for k, a in enumerate(d.args):
                hit = _rvar_shift(a, rvars)
                if hit is not None:
                    tied[hit[0]] = (k, hit[1])
            self_reads = [c for c in ir.find_calls(list(d.values) + list(d.predicates))
                          if c.call_type == ir.FUNC and c.func is fn]
            if set(tied) != rvars or any(not all(ir.equal(x, y) for x, y in zip(c.args, d.args))
                                         for c in self_reads):
                return      # an update reads F elsewhere (a scan): every update runs whole
            plans.append((d, tied))
        for d, tied in plans:
            if not d.schedule.rvars:
                continue
            hi = [Param(ir.INDEX, f"dask_out{slot}_hi{i}", 0) for i in range(len(o))]
            self.limits.setdefault(slot, []).append(hi)
            new = []
            for rv in d.schedule.rvars:
                k, c = tied[rv.name]
                lo_b = ir.Sub(o[k].node, c)
                hi_b = ir.Sub(hi[k].node, c)
                mn = ir.Max(rv.min, lo_b)
                ext = ir.Max(ir.Sub(ir.Min(ir.Add(rv.min, rv.extent), hi_b), mn), ir.index(0))
                new.append(ir.ReductionVariable(rv.name, mn, ext))
            d.schedule.rvars = new

    def block(self, leaf: int, args, shapes, windows, start, shape):
        """Result leaf `leaf` over the block at `start` (NumPy axis order) of
        extent `shape`."""
        w = self.window
        pipe, dtypes = self.pipes[leaf]
        with w.lock:
            w.bind(args, shapes, windows)
            o = self.offsets[leaf]
            for axis, s in enumerate(start):
                o[len(start) - 1 - axis].set(int(s))
            for hi in self.limits.get(self.slots[leaf], []):
                for axis, (s, e) in enumerate(zip(start, shape)):
                    hi[len(start) - 1 - axis].set(int(s) + int(e))
            outs = [np.empty(shape, dt) for dt in dtypes]
            call = pipe.bind_arrays(outs)
        w.run_kernel(call)
        return outs[0]

    def halo(self, leaf, args, shapes, arrays, chunks, fixed):
        """Per NumPy axis, how far beyond its block a middle block reads."""
        dtypes = {n: self.window.images[n][0].type().to_numpy() for n in arrays}
        return probe_halo(lambda windows, start, shape:
                          self.block(leaf, args, shapes, windows, start, shape),
                          dtypes, shapes, chunks, fixed)


def _rvar_shift(e, rvars):
    """(RVar name, offset expression) when e is `r`, `r + c` or `c + r` for
    an RVar r named in rvars and an index c fixed for the call (constants,
    parameters and buffer geometry, no read: `out[1:] = ...` writes at
    `min(1, a.extent.0) + r`), else None."""
    hit = rvar_offset(e, rvars)
    if hit is not None:
        return hit[0], ir.index(hit[1])
    if isinstance(e, ir.Add):
        for r, c in ((e.a, e.b), (e.b, e.a)):
            if isinstance(r, ir.Variable) and r.name in rvars and c.type == ir.INDEX and \
                    not ir.reads_memory(c) and \
                    all(v.kind == "param" for v in ir.free_vars(c).values()):
                return r.name, c
    return None


def _refuse_unbounded_whiles(fn):
    """A located CompileError where the result reads an update running a
    `while` loop without a stated bound (ir.Definition.exit_required): the
    halo probe computes a block on zeros, where such a loop may run all its
    2**31 - 2 iterations per point."""
    for g in reachable([fn]):
        for d in g.updates:
            if d.exit_required:
                raise CompileError("a `while` loop without a stated bound inside another loop "
                                   "is not split into Dask blocks (the block size is found by "
                                   "running the function on zeros, where the loop may not "
                                   "end): compare a counter with a bound in its condition "
                                   "(`while k < n and ...:` with `k += 1`), or call the "
                                   "function on NumPy arrays" + at(d.source))


def probe_halo(block, dtypes: dict, shapes: dict, chunks, fixed: dict, limit=8):
    """Per NumPy axis, how far beyond its block any block reads (bounds
    inference, through the kernel's bounds check on zeros): `block(windows,
    start, shape)` computes a block; `dtypes`: name -> dtype of the chunked
    arrays; `fixed`: the windows of the arrays sent whole. The blocks
    probed are the middle, first and last of the nonempty chunks along each
    axis (an empty block reads nothing; a loop over part of the array, as
    `range(1, n - 1)`, reads beyond the first and last blocks differently
    from the middle one), the depth growing from one to the next."""
    depth = [0] * len(chunks)
    roles = []
    for pick in (lambda f: f[len(f) // 2], lambda f: f[0], lambda f: f[-1]):
        mid = []
        for c in chunks:
            full = [k for k, n in enumerate(c) if n] or list(range(len(c)))
            mid.append(pick(full))
        if mid not in roles:
            roles.append(mid)
            depth = _probe_block(block, dtypes, shapes, chunks, fixed, mid, depth, limit)
    return depth


def _probe_block(block, dtypes, shapes, chunks, fixed, mid, depth, limit):
    """probe_halo's depth after computing block `mid` (chunk indices) from
    `depth` on."""
    nd = len(chunks)
    start = [sum(c[:m]) for c, m in zip(chunks, mid)]
    shape = [c[m] for c, m in zip(chunks, mid)]
    depth = list(depth)
    for _ in range(limit):
        windows = dict(fixed)
        for name, dtype in dtypes.items():
            lo = [max(0, s - d) for s, d in zip(start, depth)]
            hi = [min(n, s + e + d) for s, e, d, n in zip(start, shape, depth, shapes[name])]
            windows[name] = (lo, np.zeros([h - lo_ for lo_, h in zip(lo, hi)], dtype))
        try:
            block(windows, start, shape)
            return depth
        except OutsideWindow as e:
            axis = nd - 1 - e.dim
            at = windows[e.name][0][axis]        # the message is in the window's coordinates
            need = max(start[axis] - (e.lo + at), e.hi + at - (start[axis] + shape[axis] - 1))
            if need <= depth[axis]:
                raise
            depth[axis] = need
        except (ArithmeticError, AssertionError, IndexError, ValueError):
            return depth        # a check on the zeros: the reads were in the window
    return depth
