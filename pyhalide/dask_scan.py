"""Scans on Dask: a result that is a scan along the chunked axis, by
`dask.array.cumreduction` with the scan's proven operator (pyhalide.dask).

The result Func S has one update over an RVar r in [lo, lo + n) that
writes S at r in one dimension k (at S's pure Vars in the others: every
line along k is a scan of its own) and reads S only at r - 1 there
(plainly, or seeded: the frontend's `acc += x[i]; out[i] = acc`).
parallel_scan's analysis (parallel_scan.analyze)
gives its Lift: a chunk of points summed up as a *state* (`first`, `step`)
and `apply(x, s)`, the value after value x followed by the points of s:
sums, products, min/max and the other tables' operators (the state is a
value), resets (a segmented sum) and affine maps (a linear recurrence).

Each block, [b, e) along k, becomes *rows*, one per point (a structured
array of the block's shape):

- the block holding the scan's start (b <= lo) computes S itself over the
  block, the scan restricted to [lo, min(lo + n, e)): every row a value;
- a later block computes each point's state from the block's start (the
  chunk's local scan, in global coordinates, so indices are global) and
  S's pure values at the points after the scan: rows marked as values.

`cumreduction(binop=..., axis=k's axis)` then carries the value before each
block (per line) through the blocks in order: `binop(carry, rows)` applies
each line's carry to its state rows (`apply`, one small kernel) and keeps
the value rows; its identity is a
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
    """(the update, its RVar) when `fn` is a scan along one of its
    dimensions: its last update runs over one RVar r writing fn at r in one
    dimension (scan_dim) and at fn's own pure Vars in the others, and reads
    fn at r - 1 there (or seeded; `c[0] = h[0]` may come before); None
    otherwise."""
    if not fn.updates:
        return None
    d = fn.updates[-1]
    if len(d.schedule.rvars) != 1:
        return None
    r = d.schedule.rvars[0].name
    k = scan_dim(fn, d, r)
    if k is None:
        return None
    reads = [c for c in ir.find_calls(list(d.values))
             if c.call_type == ir.FUNC and c.func is fn]
    if not reads or all(ir.equal(c.args[k], d.args[k]) for c in reads):
        return None
    return d, r


def scan_dim(fn: ir.Function, d, r: str):
    """The dimension of fn that update d writes at RVar r alone, the others
    at distinct pure Vars (fn's own, or, from the frontend, named after the
    loops: own_pure_names renames them); None if it writes otherwise."""
    at = [k for k, a in enumerate(d.args) if isinstance(a, ir.Variable) and a.name == r]
    if len(at) != 1:
        return None
    others = [a for k, a in enumerate(d.args) if k != at[0]]
    if not all(isinstance(a, ir.Variable) and a.kind == "" for a in others) or \
            len({a.name for a in others}) != len(others):
        return None
    return at[0]


def own_pure_names(fn: ir.Function, d, k: int, where: str):
    """Update d (of a private copy) with its pure Vars named as fn's
    (parallel_scan's analysis wants them so), in place."""
    import dataclasses

    from .dask_window import definition_exprs
    names = {a.name: fn.args[i] for i, a in enumerate(d.args) if i != k}
    names = {old: new for old, new in names.items() if old != new}
    if not names:
        return
    used = ir.free_vars(definition_exprs(d))
    if any(new in used and new not in names for new in names.values()):
        raise CompileError(f"{where}: the scan {fn.name} uses the name of one of its "
                           f"dimensions for another value: it is not split into blocks")
    mapping = {old: ir.Variable(ir.INDEX, new) for old, new in names.items()}
    d.args = tuple(ir.substitute(a, mapping) for a in d.args)
    d.values = tuple(ir.substitute(v, mapping) for v in d.values)
    d.predicates = [ir.substitute(p, mapping) for p in d.predicates]
    d.schedule.dims = [dataclasses.replace(dim, var=names.get(dim.var, dim.var))
                       for dim in d.schedule.dims]


def scan_source(fn: ir.Function, most: int = 8):
    """(the scan Function, how far back the result reads it): `fn` itself, or
    a pure Func of one value reading one scan S of its dimensionality only
    at its own point, or, along S's scan dimension, its own point minus a
    constant in [0, most]; None otherwise."""
    if scan_of(fn) is not None:
        return fn, 0
    if fn.updates or len(fn.output_types) != 1:
        return None
    reads = [c for c in ir.find_calls(list(fn.pure.values)) if c.call_type == ir.FUNC]
    srcs = {id(c.func): c.func for c in reads}
    if len(srcs) != 1:
        return None
    S = next(iter(srcs.values()))
    if len(S.args) != len(fn.args) or scan_of(S) is None:
        return None
    k = scan_dim(S, *scan_of(S))
    back = 0
    for c in reads:
        for dim, (a, i) in enumerate(zip(c.args, fn.args)):
            if isinstance(a, ir.Variable) and a.name == i:
                continue
            c_back = ir.const_value(a.b) if isinstance(a, ir.Sub) else None
            if dim == k and isinstance(c_back, int) and 0 <= c_back <= most and \
                    isinstance(a.a, ir.Variable) and a.a.name == i:
                back = max(back, c_back)
                continue
            return None
    return S, back


def split_scan(fn: ir.Function, chunks) -> bool:
    """Whether result `fn` is computed as a scan across the blocks
    (scan_graph): a scan (or reads one, scan_source) along an axis the
    arrays (`chunks`, dask's) split into several blocks, or any 1-D scan; an
    N-d scan along an axis of one block is computed block by block (map)."""
    got = scan_source(fn)
    if got is None:
        return False
    if len(chunks) == 1:
        return True
    nd = len(chunks)
    scans, todo = [], [got[0]]
    while todo:                 # S and the scans fed to it, to theirs, ...
        S = todo.pop()
        scans.append(S)
        todo += fed_scans(S)
    for S in scans:
        d, r = scan_of(S)
        if len(S.args) == nd and len(chunks[nd - 1 - scan_dim(S, d, r)]) > 1:
            return True
    return False


def fed_scans(S: ir.Function) -> list:
    """The scans (scan_of) of S's dimensionality and one value that S reads,
    directly or through other Funcs but not through another such scan (an
    integral image's row scan, read by its column scan), in a fixed order:
    each is computed as a dask array of its own and read by S's blocks from
    their block of it (Feed). S's own earlier updates count when they are a
    scan (earlier_scan; as split_earlier makes them)."""
    import dataclasses

    from .dask_window import definition_exprs
    seen = {id(S)}
    before = earlier_scan(S)
    if before is not None:
        S = dataclasses.replace(S, pure=dataclasses.replace(S.pure, values=tuple(
            ir.Call(t, before.name, tuple(ir.Variable(ir.INDEX, a) for a in S.args), ir.FUNC,
                    i, before) for i, t in enumerate(S.output_types))),
            updates=S.updates[-1:])
    out, stack = [], [S]
    seen.add(id(S))
    while stack:
        fn = stack.pop()
        for d in fn.definitions():
            for c in ir.find_calls(definition_exprs(d)):
                T = c.func
                if c.call_type != ir.FUNC or T is None or id(T) in seen:
                    continue
                seen.add(id(T))
                if len(T.args) == len(S.args) and len(T.output_types) == 1 and \
                        scan_of(T) is not None:
                    out.append(T)
                else:
                    stack.append(T)
    return out


class _Retarget(ir.Mutator):
    """Calls of Function `old` as calls of Function `new`."""

    def __init__(self, old, new):
        super().__init__()
        self.old, self.new = old, new

    def visit_Call(self, c):
        c = self.mutate_children(c)
        if c.call_type == ir.FUNC and c.func is self.old:
            import dataclasses
            return dataclasses.replace(c, name=self.new.name, func=self.new)
        return c


def earlier_scan(S: ir.Function):
    """S up to its last update, as a Function of its own (`S$dask_before`),
    when that is a scan (an integral image written as one array: a scan
    along the rows, then one along the columns of the same array); None
    otherwise. S's last update sees exactly those values, so S defined as
    a read of it followed by the last update is S."""
    import dataclasses

    from .dask_window import rewrite_definition
    if len(S.updates) < 2:
        return None
    T = dataclasses.replace(S, name=f"{S.name}$dask_before",
                            pure=dataclasses.replace(S.pure),
                            updates=[dataclasses.replace(d) for d in S.updates[:-1]],
                            schedule=dataclasses.replace(S.schedule))
    for d in T.definitions():
        rewrite_definition(d, _Retarget(S, T))
    return T if scan_of(T) is not None else None


def split_earlier(S: ir.Function) -> None:
    """S (of a private copy) made a read of earlier_scan(S) at its own point
    followed by its last update, in place, when there is one."""
    import dataclasses
    T = earlier_scan(S)
    if T is None:
        return
    at = tuple(ir.Variable(ir.INDEX, a) for a in S.args)
    S.pure = dataclasses.replace(S.pure, args=at, predicates=[], values=tuple(
        ir.Call(t, T.name, at, ir.FUNC, i, T) for i, t in enumerate(S.output_types)))
    S.updates = S.updates[-1:]


class Feed(ir.Mutator):
    """Reads of Function T (in the Functions of a plan's private copy) as
    reads of an ImageParam `T$dask_feed` registered as one of the host's
    windowed images: a block of T's own dask array (plus a halo), in global
    coordinates. Before the array's start along T's scan dimension k (the
    frontend's `acc += x[j]; out[j] = acc` reads acc at j - 1) T is its pure
    definition when that reads no Func and T's one update writes at no
    negative point (the windows are padded with zeros there: _feed_window)."""

    def __init__(self, host, T: ir.Function, name: str | None = None):
        """`name`: the image's (default `T$dask_feed`; a name the same in
        every process when windows are named on the client)."""
        super().__init__()
        self.T = T
        nd = len(T.args)
        self.name = name or f"{T.name}$dask_feed"
        self.image = ImageParam(T.output_types[0], nd, self.name)
        self.offsets = [Param(ir.INDEX, f"{self.name}_o{k}", 0) for k in range(nd)]
        extents = [Param(ir.INDEX, f"{self.name}_n{k}", 0) for k in range(nd)]
        host.images[self.name] = (self.image, self.offsets, extents)
        d, r = scan_of(T)
        lo = ir.const_value(d.schedule.rvars[0].min)
        plain = not any(c.call_type == ir.FUNC for c in ir.find_calls(list(T.pure.values)))
        self.k = scan_dim(T, d, r) if len(T.updates) == 1 and isinstance(lo, int) and \
            lo >= 0 and plain else None

    def visit_Call(self, c):
        c = self.mutate_children(c)
        if c.call_type != ir.FUNC or c.func is not self.T:
            return c
        from .expr import Expr
        read = self.image[tuple(Expr(ir.Sub(a, o.node))
                                for a, o in zip(c.args, self.offsets))].node
        if self.k is None:
            return read
        pure = ir.substitute(self.T.pure.values[0], dict(zip(self.T.args, c.args)))
        return ir.Select(ir.LE(ir.index(0), c.args[self.k]), read, pure)


def feed(host, S: ir.Function) -> list:
    """The names of the scans S reads (fed_scans), each replaced in the
    Functions S reads up to it, in the private copy `host`, by its Feed
    image."""
    from .dask_window import rewrite_definition
    split_earlier(S)
    fed = fed_scans(S)
    users = _upto(S, fed)
    for T in fed:
        f = Feed(host, T)
        for fn in users:
            for d in fn.definitions():
                rewrite_definition(d, f)
    return [T.name for T in fed]


def _upto(S, fed) -> list:
    """S and the Functions it reads other than through the scans `fed`."""
    from .dask_window import definition_exprs
    out, stack = [S], [S]
    while stack:
        for d in stack.pop().definitions():
            for c in ir.find_calls(definition_exprs(d)):
                T = c.func
                if c.call_type == ir.FUNC and T is not None and \
                        not any(T is x for x in out + fed):
                    out.append(T)
                    stack.append(T)
    return out


def leaf_func(host, root, path):
    """The Func a scan plan splits: output `root` (a Func of `host`), or, for
    a `path` of indices, the fed scan reached by taking fed_scans()[i] of the
    scan each index names in turn (names differ between copies: positions
    do not)."""
    if not path:
        return root
    got = scan_source(root.function())
    if got is None:
        raise CompileError(f"{root.name()} is not a scan")
    S = got[0]
    for i in path:
        split_earlier(S)
        S = fed_scans(S)[i]
    return host.func_named(S)


class _ReadImages(ir.Mutator):
    """Reads of Function S as reads of the images of its values, which
    start at `s0` (per dimension)."""

    def __init__(self, fn, images, s0):
        super().__init__()
        self.fn, self.images, self.s0 = fn, images, s0

    def visit_Call(self, c):
        if c.call_type == ir.FUNC and c.func is self.fn:
            from .expr import Expr
            args = [self.mutate(a) for a in c.args]
            return self.images[c.value_index][tuple(Expr(ir.Sub(a, s)) for a, s in
                                                    zip(args, self.s0))].node
        return self.mutate_children(c)


def pipeline_scan_plan(pf, key, arrays, slot, float_reassociation):
    """The ScanPlan of result leaf `slot` of @pipeline function `pf`."""
    w = Window(pf, key, arrays)
    slot, *path = slot if isinstance(slot, tuple) else (slot,)
    return ScanPlan(w, leaf_func(w, w.spec.out_funcs[slot][0], path), f"{pf.__name__}.dask()",
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
        self.feeds = feed(host, fn)
        f = host.func_named(fn)
        d, rname = scan_of(fn)
        self.k, self.nd = scan_dim(fn, d, rname), len(fn.args)    # the scan's dimension
        own_pure_names(fn, d, self.k, where)
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
        S read from images of S's values (`dask_scan_S<k>`, from
        `dask_scan_start<i>` on), over the block at the offsets `o`."""
        nd = self.nd
        self.images = [ImageParam(t, nd, f"dask_scan_S{k}") for k, t in
                       enumerate(self.value_types)]
        self.s0 = [Param(ir.INDEX, f"dask_scan_start{i}", 0) for i in range(nd)]
        vs = [Var(f"dask_v{i}") for i in range(nd)]
        at = {a: ir.Add(v.node, o.node) for a, v, o in zip(lfn.args, vs, self.o)}
        read = _ReadImages(fn, self.images, [s0.node for s0 in self.s0])
        vals = [ir.substitute(read.mutate(e), at) for e in lfn.pure.values]
        from .expr import Expr
        out = Func(f"{lfn.name}$dask_leaf")
        out[tuple(vs)] = Expr(vals[0])
        out.compute_root()
        return Pipeline([out])

    def _rows(self, fn, d, scan, lift):
        """rows(v) = (is a value, S's values, the state from the block's start
        along S's dimension k), over the block: its start `o` (per dimension),
        its end `e` along k."""
        import dataclasses
        k, nd = self.k, self.nd
        rv = scan.rv
        lo, n = rv.min, ir.Max(rv.extent, ir.index(0))
        end = ir.Add(lo, n)
        self.o = [Param(ir.INDEX, f"dask_scan_o{i}", 0) for i in range(nd)]
        self.b = self.o[k]
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
        pure = [ir.Variable(ir.INDEX, a) for a in fn.args]

        def at(item):
            """fn's pure Vars with `item` in dimension k."""
            return tuple(item if i == k else v for i, v in enumerate(pure))

        # the states of the points [b, min(e, lo + n)) of a later block, the other
        # dimensions' loops inside the scan's when it runs across rows (as
        # parallel_scan's phases)
        from .parallel_scan_phases import define_update, new_func, pure_zero, scan_rdom
        pure_dims = [ir.Dim(a) for i, a in enumerate(fn.args) if i != k]
        around = (pure_dims, []) if k > 0 else ([], pure_dims)
        st = new_func(f"{fn.name}$dask_state", fn.args, lift.types, d.source)
        sfn = st.function()
        pure_zero(st, d.source, "")
        later = ir.And(ir.Not(first), ir.LT(b, end))
        r0_rv, r0 = scan_rdom(f"{fn.name}$dask_r0", b, ir.Select(later, ir.index(1), ir.index(0)),
                              f"{sfn.name}$r0")
        define_update(st, at(r0), lift.first(r0), r0_rv, [], *around, d.source)
        last = ir.Min(e, end)
        rj_rv, rj = scan_rdom(f"{fn.name}$dask_rj", ir.Add(b, ir.index(1)),
                              ir.Select(later, ir.Max(ir.Sub(last, ir.Add(b, ir.index(1))),
                                                      ir.index(0)), ir.index(0)),
                              f"{sfn.name}$r")
        prev = [ir.Call(t, sfn.name, at(ir.Sub(rj, ir.index(1))), ir.FUNC, i, sfn)
                for i, t in enumerate(lift.types)]
        define_update(st, at(rj), lift.step(prev, rj), rj_rv, [], *around, d.source)
        st.compute_root()
        # rows in global coordinates: the states (no value) by default; S's
        # values written over the first block and over the points after the scan,
        # by updates whose RDoms are empty elsewhere, so that S (whose pure
        # definition may read any element: best = x[0]) is computed only there
        from .expr import Expr
        from .var import RDom
        gs = tuple(Var(f"dask_g{i}") for i in range(nd))
        rows = Func(f"{fn.name}$dask_rows")
        zeros = [Expr(ir.zero(t)) for t in self.value_types]
        states = [st[gs]] if len(self.state_types) == 1 else list(st[gs])
        rows[gs] = tuple([Expr(ir.Const(ir.Bool(), False))] + zeros + states)
        S = self.window.func_named(fn)
        past = ir.Max(b, end)
        for name, start, stop in (("a", b, ir.Select(first, e, b)),
                                  ("p", past, ir.Select(first, past, ir.Max(e, past)))):
            r = RDom([(Expr(start), Expr(ir.Sub(stop, start)))], f"{fn.name}$dask_{name}")
            idx = tuple(r.x if i == k else g for i, g in enumerate(gs))
            vals = [S[idx]] if len(self.value_types) == 1 else list(S[idx])
            szeros = [Expr(ir.zero(t)) for t in self.state_types]
            rows[idx] = tuple([Expr(ir.Const(ir.Bool(), True))] + vals + szeros)
        vs = tuple(Var(f"dask_v{i}") for i in range(nd))
        block = Func(f"{fn.name}$dask_block")
        block[vs] = tuple(rows[tuple(v + o for v, o in zip(vs, self.o))])
        rows.compute_root()
        block.compute_root()
        self.rows_pipe = Pipeline([block])

    def _carry(self, lift):
        """apply(x, s) at every state row to be carried (flattened): x, s images."""
        self.xs = [ImageParam(t, 1, f"dask_scan_x{i}") for i, t in enumerate(self.value_types)]
        self.ss = [ImageParam(t, 1, f"dask_scan_s{i}") for i, t in enumerate(self.state_types)]
        v = Var("dask_v")
        out = lift.apply([x[v].node for x in self.xs], [s[v].node for s in self.ss])
        from .expr import Expr
        ap = Func("dask_scan_apply")
        ap[v] = tuple(Expr(o) for o in out) if len(out) > 1 else Expr(out[0])
        self.apply_pipe = Pipeline([ap])

    def rows(self, args, shapes, windows, start: tuple, size: tuple, feeds=()):
        """The rows of the block at `start` of shape `size` (NumPy axis order),
        `feeds` the window (global start, block) of each fed scan's array
        (self.feeds' order)."""
        w = self.window
        nd = self.nd
        if feeds:
            names = [f"{n}$dask_feed" for n in self.feeds]
            windows = dict(windows, **dict(zip(names, feeds)))
            shapes = dict(shapes, **{n: tuple(s + b.shape[ax] for ax, s in enumerate(at))
                                     for n, (at, b) in zip(names, feeds)})
        with w.lock:
            w.bind(args, shapes, windows)
            for i, o in enumerate(self.o):
                o.set(int(start[nd - 1 - i]))
            self.e.set(int(start[nd - 1 - self.k]) + int(size[nd - 1 - self.k]))
            types = ["bool"] + [t.to_numpy() for t in self.value_types + self.state_types]
            outs = [np.empty(size, t) for t in types]
            call = self.rows_pipe.bind_arrays(outs)
        w.run_kernel(call)
        out = np.empty(size, self.dtype)
        for name, a in zip(self.dtype.names, outs):
            out[name] = a
        return out

    def leaf_block(self, args, shapes, windows, start: tuple, size: tuple, rows,
                   rows_start: tuple):
        """The derived leaf over the block at `start` of shape `size` (NumPy
        axis order), S's values from `rows` (which start at `rows_start`)."""
        w = self.window
        nd = self.nd
        with w.lock:
            w.bind(args, shapes, windows)
            for i, (o, s0) in enumerate(zip(self.o, self.s0)):
                o.set(int(start[nd - 1 - i]))
                s0.set(int(rows_start[nd - 1 - i]))
            for k, image in enumerate(self.images):
                # (a copy: a field of a one-row block keeps the row's stride in a view)
                image.set(wrap_array(rows[f"v{k}"].copy(), image.name()))
            out = np.empty(size, self.leaf_type.to_numpy())
            call = self.derived.bind_arrays([out])
        w.run_kernel(call)
        return out

    def binop(self, carry, rows):
        """The carry (one row per line along the scan's axis: a value, or the
        identity before the first block) applied to the state rows of `rows`."""
        carry = np.broadcast_to(carry, rows.shape)
        todo = carry["isval"] & ~rows["isval"]
        if not todo.any():
            return rows
        out = rows.copy()
        with self.window.lock:
            for x, k in zip(self.xs, range(len(self.value_types))):
                x.set(wrap_array(np.ascontiguousarray(carry[f"v{k}"][todo]), x.name()))
            for s, k in zip(self.ss, range(len(self.state_types))):
                s.set(wrap_array(np.ascontiguousarray(rows[f"s{k}"][todo]), s.name()))
            got = [np.empty(int(todo.sum()), t.to_numpy()) for t in self.value_types]
            call = self.apply_pipe.bind_arrays(got)
            call()
        for k, g in enumerate(got):
            out[f"v{k}"][todo] = g
        out["isval"][todo] = True
        return out


def scan_graph(job, slot: int, xs, da):
    """The dask array of result leaf `slot`, a scan along one axis of the
    arrays: rows per block, then `dask.array.cumreduction` along that axis
    carrying the values (per line of the other axes)."""
    import functools
    where = _where(job)
    plan = _plan(job, slot)
    nd = xs[0].ndim
    axis = nd - 1 - plan.k
    # (an empty block's last row, which carries the value on, does not exist;
    # the fed scans' arrays are chunked alike)
    axes = [axis] if not plan.feeds else range(nd)
    if any(0 in xs[0].chunks[ax] and xs[0].shape[ax] for ax in axes):
        chunks = [tuple(c for c in cs if c) if ax in axes and xs[0].shape[ax] else cs
                  for ax, cs in enumerate(xs[0].chunks)]
        xs = [x.rechunk(tuple(chunks)) for x in xs]
    path = slot if isinstance(slot, tuple) else (slot,)
    feeds = [scan_graph(job, path + (i,), xs, da).rechunk(xs[0].chunks)
             for i in range(len(plan.feeds))]
    depths = _probe_rows(job, slot, xs, feeds, where)
    feeds = [da.overlap.overlap(f, depth=dict(enumerate(d)), boundary="none") if any(d) else f
             for f, d in zip(feeds, depths)]
    wholes = getattr(job, "wholes", None)
    rows = da.map_blocks(_rows_task, *xs, *feeds, dtype=plan.dtype, chunks=xs[0].chunks,
                         job=job, slot=slot, nfeeds=len(feeds), depths=depths, wholes=wholes,
                         meta=np.empty((0,) * nd, plan.dtype))
    from dask.array.reductions import cumreduction
    carried = cumreduction(_same, functools.partial(_binop_task, job=job, slot=slot), 0,
                           rows, axis=axis, dtype=plan.dtype)
    if plan.derived is None:
        vt = plan.dtype["v0"]
        return carried.map_blocks(_values, dtype=vt, meta=np.empty((0,) * nd, vt))
    # a leaf reading S up to `halo` points back along its axis: S's rows and the
    # arguments with that overlap (the block holding 0 computes S's values
    # before 0 itself)
    h = plan.halo
    small = min(xs[0].chunks[axis])
    if h > small:
        raise ValueError(f"{where}: a block of the result reads the scan {h} elements before "
                         f"it, more than the smallest chunk ({small}); rechunk to larger chunks")
    chunks = xs[0].chunks
    if h:
        carried = da.overlap.overlap(carried, depth={axis: h}, boundary="none")
        xs = [da.overlap.overlap(x, depth={axis: h}, boundary="none") for x in xs]
    lt = plan.leaf_type.to_numpy()
    return da.map_blocks(_leaf_task, carried, *xs, dtype=lt, chunks=chunks, job=job,
                         slot=slot, depth=h, axis=axis, wholes=wholes,
                         meta=np.empty((0,) * nd, lt))


def _probe_rows(job, slot, xs, feeds, where: str, limit: int = 8) -> list:
    """The rows of a middle block computed on zeros when the graph is built,
    for the depth (per NumPy axis) each fed scan's window needs beyond the
    block (grown from its reads outside it, as probe_halo's): any other read
    outside the block (the scan reads another array across the blocks, say)
    is refused here rather than by every task."""
    from .dask_window import OutsideWindow
    chunks = xs[0].chunks
    nd = len(chunks)
    depths = [(0,) * nd for _ in feeds]
    if all(len(c) == 1 for c in chunks) and not feeds:
        return depths
    names = [f"{n}$dask_feed" for n in _plan(job, slot).feeds]
    mid = [len(c) // 2 for c in chunks]
    loc = [(sum(c[:m]), sum(c[:m + 1])) for c, m in zip(chunks, mid)]
    info = {i: {"array-location": loc} for i in range(len(xs))}
    info[None] = {"array-location": loc}
    for _ in range(limit):
        blocks = [np.zeros([hi - lo for lo, hi in loc], x.dtype) for x in xs]
        blocks += [np.zeros([min(n, hi + d) - max(0, lo - d) for (lo, hi), d, n in
                             zip(loc, depth, f.shape)], f.dtype)
                   for f, depth in zip(feeds, depths)]
        try:
            _rows_task(*blocks, job=job, slot=slot, nfeeds=len(feeds), depths=depths,
                       wholes=None, block_info=info)
            break
        except OutsideWindow as e:
            i = names.index(e.name) if e.name in names else None
            axis = nd - 1 - e.dim
            if i is not None:
                lo, hi = loc[axis]
                at = lo - depths[i][axis]
                need = max(lo - (e.lo + at), e.hi + at - (hi - 1), depths[i][axis])
                if need > depths[i][axis]:
                    depths[i] = tuple(need if ax == axis else d
                                      for ax, d in enumerate(depths[i]))
                    continue
            raise CompileError(f"{where}: the scan's blocks read outside their block: "
                               f"{e}") from None
        except (ArithmeticError, AssertionError, IndexError, ValueError):
            break           # a check on the zeros: the reads were in the block
    for depth in depths:
        for ax, d in enumerate(depth):
            if d > min(chunks[ax]):
                raise ValueError(f"{where}: a block of the scan reads {d} elements of the scan "
                                 f"it reads beyond the block, more than the smallest chunk "
                                 f"({min(chunks[ax])}); rechunk to larger chunks")
    return depths


def _leaf_task(rows, *blocks, job=None, slot=0, depth=0, axis=0, wholes=None,
               block_info=None):
    nd = rows.ndim
    dep = tuple(depth if ax == axis else 0 for ax in range(nd))
    (args, shapes, windows), start, shape, starts = _task_inputs(job, wholes, blocks,
                                                                 block_info, dep)
    plan = _plan(job, slot)
    lo = tuple(max(0, s - d) for s, d in zip(start, dep))   # where the rows start
    if start[axis] - depth < 0:         # S's values before 0: its pure definition
        at = tuple(s - d for s, d in zip(start, dep))
        size = tuple(depth - s if ax == axis else n
                     for ax, (s, n) in enumerate(zip(start, shape)))
        rows = np.concatenate([plan.rows(args, shapes, windows, at, size), rows], axis=axis)
        lo = at
    return plan.leaf_block(args, shapes, windows, start, shape, rows, lo)


def _where(job) -> str:
    pf = getattr(job, "pf", None)
    return "Pipeline.dask()" if pf is None else f"{pf.__name__}.dask()"


def _plan(job, slot):
    """The ScanPlan of `slot` in this process (fn.dask's _Job or Pipeline.dask's
    FuncJob)."""
    if hasattr(job, "pf"):
        return job.plan("scan", slot)
    return job.plan().scan(slot)


def _task_inputs(job, wholes, blocks, block_info, depth=None):
    """(the plan's arguments, shapes, windows), the block's place and the
    windows' starts (`depth`: the halo per NumPy axis, none by default)."""
    from .dask import block_place
    nd = len(block_info[None]["array-location"])
    start, shape, starts = block_place(block_info, len(blocks), depth or (0,) * nd)
    if hasattr(job, "pf"):
        job = job.given(wholes)
        return (job.args, job.shapes, job.windows(blocks, starts)), start, shape, starts
    windows = {name: (s, b) for name, s, b in zip(job.chunked, starts, blocks)}
    return (None, job.shapes, windows), start, shape, starts


def _rows_task(*blocks, job=None, slot=0, nfeeds=0, depths=(), wholes=None,
               block_info=None):
    n = len(blocks) - nfeeds
    (args, shapes, windows), start, shape, _ = _task_inputs(job, wholes, blocks[:n],
                                                            block_info)
    feeds = [_feed_window(start, depth, b) for depth, b in zip(depths, blocks[n:])]
    return _plan(job, slot).rows(args, shapes, windows, start, shape, feeds)


def _feed_window(start, depth, block):
    """(global start, block) of a fed scan's window: its block plus `depth`
    around (dask's overlap, none beyond the arrays), padded with zeros below
    the arrays' start (Feed reads there only where the scan is not written)."""
    pad = [(max(0, d - s), 0) for s, d in zip(start, depth)]
    if any(p for p, _ in pad):
        block = np.pad(block, pad)
    return tuple(s - d for s, d in zip(start, depth)), block


def _same(rows, axis=None):
    return rows


def _binop_task(carry, rows, job=None, slot=0):
    return _plan(job, slot).binop(carry, rows)


def _values(rows):
    return np.ascontiguousarray(rows["v0"])
