"""Scans on Dask: a result that is a scan along the chunked axis, by
`dask.array.cumreduction` with the scan's proven operator (pyhalide.dask).

The result Func S has one update over an RVar r in [lo, lo + n) that reads
S only at r - 1 (plainly, or seeded: the frontend's `acc += x[i]; out[i] =
acc`), one-dimensional. parallel_scan's analysis (parallel_scan.analyze)
gives its Lift: a chunk of points summed up as a *state* (`first`, `step`)
and `apply(x, s)`, the value after value x followed by the points of s:
sums, products, min/max and the other tables' operators (the state is a
value), resets (a segmented sum) and affine maps (a linear recurrence).

Each block [b, e) becomes *rows*, one per point (a structured array):

- the block holding the scan's start (b <= lo) computes S itself over the
  block, the scan restricted to [lo, min(lo + n, e)): every row a value;
- a later block computes each point's state from the block's start (the
  chunk's local scan, in global coordinates, so indices are global) and
  S's pure values at the points after the scan: rows marked as values.

`cumreduction(binop=...)` then carries the value before each block through
the blocks in order: `binop(carry, rows)` applies the carry to every state
row (`apply`, one small kernel) and keeps the value rows; its identity is a
row that is no value, which binop passes by (only the first block meets it,
and that block's rows are values). The result is the value fields of the
rows. Integers are exact (the Lift's operators compose exactly modulo
2^bits); a float scan needs `float_reassociation=True` (the blocks decide
the order); float compare-and-copy forms follow rfactor_nan's rules as
parallel_scan does (chunks start from a right identity).
"""
from __future__ import annotations

import numpy as np

from . import ir
from .buffer import ImageParam, Param, wrap_array
from .dask_window import Window
from .errors import CompileError
from .func import Func
from .realize import Pipeline
from .var import Var


def scan_of(fn: ir.Function):
    """(the update, its RVar) when `fn` is a one-dimensional scan: its last
    update runs over one RVar r writing fn(r) and reads fn at r - 1 (or
    seeded; `c[0] = h[0]` may come before); None otherwise."""
    if len(fn.args) != 1 or not fn.updates:
        return None
    d = fn.updates[-1]
    if len(d.schedule.rvars) != 1:
        return None
    r = d.schedule.rvars[0].name
    a = d.args[0]
    if not (isinstance(a, ir.Variable) and a.name == r):
        return None
    reads = [c for c in ir.find_calls(list(d.values))
             if c.call_type == ir.FUNC and c.func is fn]
    if not reads or all(ir.equal(c.args[0], a) for c in reads):
        return None
    return d, r


def scan_source(fn: ir.Function, most: int = 8):
    """(the scan Function, how far back the result reads it): `fn` itself, or
    a pure one-dimensional Func of one value reading one scan S only at its
    own point minus a constant in [0, most]; None otherwise."""
    if scan_of(fn) is not None:
        return fn, 0
    if fn.updates or len(fn.args) != 1 or len(fn.output_types) != 1:
        return None
    i = fn.args[0]
    reads = [c for c in ir.find_calls(list(fn.pure.values)) if c.call_type == ir.FUNC]
    srcs = {id(c.func): c.func for c in reads}
    if len(srcs) != 1:
        return None
    S = next(iter(srcs.values()))
    if scan_of(S) is None:
        return None
    back = 0
    for c in reads:
        a = c.args[0]
        if isinstance(a, ir.Variable) and a.name == i:
            continue
        if isinstance(a, ir.Sub) and isinstance(a.a, ir.Variable) and a.a.name == i and \
                isinstance(ir.const_value(a.b), int) and 0 <= ir.const_value(a.b) <= most:
            back = max(back, ir.const_value(a.b))
            continue
        return None
    return S, back


class _ReadImages(ir.Mutator):
    """Reads of Function S as reads of the images of its values, which
    start at `s0`."""

    def __init__(self, fn, images, s0):
        super().__init__()
        self.fn, self.images, self.s0 = fn, images, s0

    def visit_Call(self, c):
        if c.call_type == ir.FUNC and c.func is self.fn:
            from .expr import Expr
            a = self.mutate(c.args[0])
            return self.images[c.value_index][Expr(ir.Sub(a, self.s0))].node
        return self.mutate_children(c)


def pipeline_scan_plan(pf, key, arrays, slot, float_reassociation):
    """The ScanPlan of result leaf `slot` of @pipeline function `pf`."""
    w = Window(pf, key, arrays)
    return ScanPlan(w, w.spec.out_funcs[slot][0], f"{pf.__name__}.dask()",
                    float_reassociation)


class ScanPlan:
    """The result leaf `slot` (a scan, see the module doc) as rows per block
    and the carry kernel."""

    def __init__(self, host, leaf, where: str, float_reassociation: bool):
        """`host` binds the windows and runs kernels (a dask_window.Window for
        @pipeline functions, dask_funcs' for Func-API pipelines); `leaf` the
        result Func."""
        self.window = host
        got = scan_source(leaf.function())
        if got is None:
            raise CompileError(f"{where}: result {leaf.name()} is not a one-dimensional scan")
        fn, self.halo = got
        f = host.func_named(fn)
        d, rname = scan_of(fn)
        from .parallel_scan import ScanContext, analyze
        stage = f.update(len(fn.updates) - 1)
        try:
            _, scan, _, lift = analyze(ScanContext(stage), stage, rname, 1)
        except CompileError as e:
            why = str(e).split(": cannot parallel_scan: ", 1)[-1].split("\n")[0]
            raise CompileError(f"{where}: the scan {f.name()} cannot be split into blocks: "
                               f"{why}") from None
        self.value_types = list(fn.output_types)
        self.state_types = list(lift.types)
        if not float_reassociation and any(t.is_float() for t in self.state_types):
            raise CompileError(
                f"{where}: the scan {f.name()} combines float values across blocks, in an "
                f"order the chunking decides: pass float_reassociation=True to allow it")
        self.dtype = np.dtype([("isval", np.bool_)] +
                              [(f"v{i}", t.to_numpy()) for i, t in enumerate(self.value_types)] +
                              [(f"s{i}", t.to_numpy()) for i, t in enumerate(self.state_types)])
        self._rows(fn, d, scan, lift)
        self._carry(lift)
        self.leaf_type = leaf.function().output_types[0]
        self.derived = None if leaf.function() is fn else self._derived(leaf.function(), fn)

    def _derived(self, lfn, fn):
        """The leaf, a pure Func reading the scan S near its own point, with
        S read from images of S's values (`dask_scan_S<k>`, from `S0` on)."""
        self.images = [ImageParam(t, 1, f"dask_scan_S{k}") for k, t in
                       enumerate(self.value_types)]
        self.s0 = Param(ir.INDEX, "dask_scan_start", 0)
        v = Var("dask_v")
        at = ir.Add(v.node, self.b.node)
        read = _ReadImages(fn, self.images, self.s0.node)
        vals = [ir.substitute(read.mutate(e), {lfn.args[0]: at}) for e in lfn.pure.values]
        from .expr import Expr
        out = Func(f"{lfn.name}$dask_leaf")
        out[v] = Expr(vals[0])
        out.compute_root()
        return Pipeline([out])

    def _rows(self, fn, d, scan, lift):
        """rows(v) = (is a value, S's values, the state from the block's start)."""
        import dataclasses
        rv = scan.rv
        lo, n = rv.min, ir.Max(rv.extent, ir.index(0))
        end = ir.Add(lo, n)
        self.b = Param(ir.INDEX, "dask_scan_b", 0)
        self.e = Param(ir.INDEX, "dask_scan_e", 0)
        b, e = self.b.node, self.e.node
        # the block computing the scan's start from the value before it: a seed
        # (acc's value before the loop) is read by the block holding lo; f(lo - 1)
        # is the previous block's last value, carried, unless lo is 0
        first = ir.LE(b, lo) if scan.seeds else ir.Or(ir.LT(b, lo), ir.LE(b, ir.index(0)))
        # S restricted: the scan up to the block's end in the first block, none later
        stop = ir.Select(first, ir.Min(end, e), lo)
        d.schedule.rvars = [dataclasses.replace(rv, extent=ir.Max(ir.Sub(stop, lo),
                                                                  ir.index(0)))]
        # the states of the points [b, min(e, lo + n)) of a later block
        from .parallel_scan_phases import define_update, new_func, pure_zero, scan_rdom
        st = new_func(f"{fn.name}$dask_state", fn.args, lift.types, d.source)
        sfn = st.function()
        pure_zero(st, d.source, "")
        later = ir.And(ir.Not(first), ir.LT(b, end))
        r0_rv, r0 = scan_rdom(f"{fn.name}$dask_r0", b, ir.Select(later, ir.index(1), ir.index(0)),
                          f"{sfn.name}$r0")
        define_update(st, (r0,), lift.first(r0), r0_rv, [], [], [], d.source)
        last = ir.Min(e, end)
        rj_rv, rj = scan_rdom(f"{fn.name}$dask_rj", ir.Add(b, ir.index(1)),
                          ir.Select(later, ir.Max(ir.Sub(last, ir.Add(b, ir.index(1))),
                                                  ir.index(0)), ir.index(0)),
                          f"{sfn.name}$r")
        prev = [ir.Call(t, sfn.name, (ir.Sub(rj, ir.index(1)),), ir.FUNC, i, sfn)
                for i, t in enumerate(lift.types)]
        define_update(st, (rj,), lift.step(prev, rj), rj_rv, [], [], [], d.source)
        st.compute_root()
        # rows in global coordinates: the states (no value) by default; S's
        # values written over the first block and over the points after the scan,
        # by updates whose RDoms are empty elsewhere, so that S (whose pure
        # definition may read any element: best = x[0]) is computed only there
        from .expr import Expr
        g = Var("dask_g")
        rows = Func(f"{fn.name}$dask_rows")
        zeros = [Expr(ir.zero(t)) for t in self.value_types]
        states = [st[g]] if len(self.state_types) == 1 else list(st[g])
        rows[g] = tuple([Expr(ir.Const(ir.Bool(), False))] + zeros + states)
        S = self.window.func_named(fn)
        past = ir.Max(b, end)
        for name, start, stop in (("a", b, ir.Select(first, e, b)),
                                  ("p", past, ir.Select(first, past, ir.Max(e, past)))):
            from .var import RDom
            r = RDom([(Expr(start), Expr(ir.Sub(stop, start)))], f"{fn.name}$dask_{name}")
            vals = [S[r.x]] if len(self.value_types) == 1 else list(S[r.x])
            szeros = [Expr(ir.zero(t)) for t in self.state_types]
            rows[r.x] = tuple([Expr(ir.Const(ir.Bool(), True))] + vals + szeros)
        v = Var("dask_v")
        block = Func(f"{fn.name}$dask_block")
        block[v] = tuple(rows[v + self.b])
        rows.compute_root()
        block.compute_root()
        rows = block
        self.rows_pipe = Pipeline([rows])

    def _carry(self, lift):
        """apply(x, s) at every state row: x Params, s images."""
        self.xs = [Param(t, f"dask_scan_x{i}", 0) for i, t in enumerate(self.value_types)]
        self.ss = [ImageParam(t, 1, f"dask_scan_s{i}") for i, t in enumerate(self.state_types)]
        v = Var("dask_v")
        out = lift.apply([x.node for x in self.xs], [s[v].node for s in self.ss])
        from .expr import Expr
        ap = Func("dask_scan_apply")
        ap[v] = tuple(Expr(o) for o in out) if len(out) > 1 else Expr(out[0])
        self.apply_pipe = Pipeline([ap])

    def rows(self, args, shapes, windows, start: int, size: int):
        """The rows of the block [start, start + size)."""
        w = self.window
        with w.lock:
            w.bind(args, shapes, windows)
            self.b.set(int(start))
            self.e.set(int(start) + int(size))
            types = ["bool"] + [t.to_numpy() for t in self.value_types + self.state_types]
            outs = [np.empty(size, t) for t in types]
            call = self.rows_pipe.bind_arrays(outs)
        w.run_kernel(call)
        out = np.empty(size, self.dtype)
        for name, a in zip(self.dtype.names, outs):
            out[name] = a
        return out

    def leaf_block(self, args, shapes, windows, start: int, size: int, rows, rows_start: int):
        """The derived leaf over [start, start + size), S's values from
        `rows` (which start at `rows_start`)."""
        w = self.window
        with w.lock:
            w.bind(args, shapes, windows)
            self.b.set(int(start))
            self.s0.set(int(rows_start))
            for k, image in enumerate(self.images):
                image.set(wrap_array(np.ascontiguousarray(rows[f"v{k}"]), image.name()))
            out = np.empty(size, self.leaf_type.to_numpy())
            call = self.derived.bind_arrays([out])
        w.run_kernel(call)
        return out

    def binop(self, carry, rows):
        """The carry (one row, a value) applied to the state rows of `rows`."""
        if not carry["isval"][0]:
            return rows          # the identity: before the first block
        todo = ~rows["isval"]
        if not todo.any():
            return rows
        out = rows.copy()
        with self.window.lock:
            for x, k in zip(self.xs, range(len(self.value_types))):
                x.set(carry[f"v{k}"][0].item())
            for s, k in zip(self.ss, range(len(self.state_types))):
                s.set(wrap_array(np.ascontiguousarray(rows[f"s{k}"][todo]), s.name()))
            got = [np.empty(int(todo.sum()), t.to_numpy()) for t in self.value_types]
            call = self.apply_pipe.bind_arrays(got)
            call()
        for k, g in enumerate(got):
            out[f"v{k}"][todo] = g
        out["isval"] = True
        return out


def scan_graph(job, slot: int, xs, da):
    """The dask array of result leaf `slot`, a scan along the chunked axis:
    rows per block, then `dask.array.cumreduction` carrying the values."""
    import functools
    where = _where(job)
    if xs[0].ndim != 1:
        raise CompileError(f"{where}: a scan is split into blocks only over one-dimensional "
                           f"arrays (its arguments have {xs[0].ndim} dimensions)")
    if 0 in xs[0].chunks[0] and xs[0].shape[0]:
        # (an empty block's last row, which carries the value on, does not exist)
        chunks = (tuple(c for c in xs[0].chunks[0] if c),)
        xs = [x.rechunk(chunks) for x in xs]
    plan = _plan(job, slot)
    wholes = getattr(job, "wholes", None)
    rows = da.map_blocks(_rows_task, *xs, dtype=plan.dtype, job=job, slot=slot,
                         wholes=wholes, meta=np.empty((0,), plan.dtype))
    from dask.array.reductions import cumreduction
    carried = cumreduction(_same, functools.partial(_binop_task, job=job, slot=slot), 0,
                           rows, axis=0, dtype=plan.dtype)
    if plan.derived is None:
        vt = plan.dtype["v0"]
        return carried.map_blocks(_values, dtype=vt, meta=np.empty((0,), vt))
    # a leaf reading S up to `halo` points back: S's rows and the arguments with
    # that overlap (the block holding 0 computes S's values before 0 itself)
    h = plan.halo
    small = min(xs[0].chunks[0])
    if h > small:
        raise ValueError(f"{where}: a block of the result reads the scan {h} elements before "
                         f"it, more than the smallest chunk ({small}); rechunk to larger chunks")
    chunks = xs[0].chunks
    if h:
        carried = da.overlap.overlap(carried, depth={0: h}, boundary="none")
        xs = [da.overlap.overlap(x, depth={0: h}, boundary="none") for x in xs]
    lt = plan.leaf_type.to_numpy()
    return da.map_blocks(_leaf_task, carried, *xs, dtype=lt, chunks=chunks, job=job,
                         slot=slot, depth=h, wholes=wholes, meta=np.empty((0,), lt))


def _leaf_task(rows, *blocks, job=None, slot=0, depth=0, wholes=None, block_info=None):
    (args, shapes, windows), start, shape, starts = _task_inputs(job, wholes, blocks,
                                                                 block_info, depth)
    plan = _plan(job, slot)
    lo = starts[0][0]                   # where the rows and the windows start
    if start[0] - depth < 0:            # S's values before 0: its pure definition
        before = plan.rows(args, shapes, windows, start[0] - depth, depth - start[0])
        rows = np.concatenate([before, rows])
        lo = start[0] - depth
    return plan.leaf_block(args, shapes, windows, start[0], shape[0], rows, lo)


def _where(job) -> str:
    pf = getattr(job, "pf", None)
    return "Pipeline.dask()" if pf is None else f"{pf.__name__}.dask()"


def _plan(job, slot):
    """The ScanPlan of `slot` in this process (fn.dask's _Job or Pipeline.dask's
    FuncJob)."""
    if hasattr(job, "pf"):
        return job.plan("scan", slot)
    return job.plan().scan(slot)


def _task_inputs(job, wholes, blocks, block_info, depth):
    """(the plan's arguments, shapes, windows), the block's place and the
    windows' starts."""
    from .dask import block_place
    start, shape, starts = block_place(block_info, len(blocks), (depth,))
    if hasattr(job, "pf"):
        job = job.given(wholes)
        return (job.args, job.shapes, job.windows(blocks, starts)), start, shape, starts
    windows = {name: (s, b) for name, s, b in zip(job.chunked, starts, blocks)}
    return (None, job.shapes, windows), start, shape, starts


def _rows_task(*blocks, job=None, slot=0, wholes=None, block_info=None):
    (args, shapes, windows), start, shape, _ = _task_inputs(job, wholes, blocks,
                                                            block_info, 0)
    return _plan(job, slot).rows(args, shapes, windows, start[0], shape[0])


def _same(rows, axis=None):
    return rows


def _binop_task(carry, rows, job=None, slot=0):
    return _plan(job, slot).binop(carry, rows)


def _values(rows):
    return np.ascontiguousarray(rows["v0"])
