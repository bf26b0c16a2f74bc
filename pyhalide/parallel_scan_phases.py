"""The three phases of a parallel scan (see parallel_scan.py): the local
scans of the chunks, the serial scan of what comes before each chunk, and
the update of f that combines the two."""
from __future__ import annotations

import dataclasses

from . import ir
from .parallel_scan import func_call
from .var import unique_name


def _fresh(taken: set, prefix: str) -> str:
    name = unique_name(prefix)
    while name in taken:
        name = unique_name(prefix)
    taken.add(name)
    return name


class _DomainTag:
    """What the RVar Variables of an RDom built here point to."""

    def __init__(self, name: str):
        self._name = name

    def name(self) -> str:
        return self._name


def scan_rdom(name: str, lo, extent, tag):
    """(ReductionVariable, its Variable) of a new RDom (tag: its name) or
    of the RDom of another RVar (tag: that RVar's Variable)."""
    rv = ir.ReductionVariable(name, lo, extent)
    domain = tag.param if isinstance(tag, ir.Variable) else _DomainTag(tag)
    return rv, ir.Variable(ir.INDEX, name, "rvar", domain)


def new_func(name: str, args: tuple, types: tuple, source):
    from .func import Func, set_pure_vars
    from .var import Var
    f = Func(name)
    fn = f.function()
    fn.args, fn.output_types, fn.source = args, types, source
    set_pure_vars(f, [Var(a) for a in args])
    return f


def pure_zero(f, source, parallel: str):
    """A pure definition of zeros (the updates write every point read)."""
    fn = f.function()
    args = tuple(ir.Variable(ir.INDEX, a) for a in fn.args)
    dims = [ir.Dim(a, "parallel" if a == parallel else "serial") for a in fn.args]
    fn.pure = ir.Definition(args, tuple(ir.zero(t) for t in fn.output_types), [],
                            ir.StageSchedule(dims=dims), source)


def define_update(f, lhs, values, rv, preds, inner: list, outer: list, source):
    """An update of f over the one RVar `rv`, its loop inside `inner`'s
    (Dims) and those inside `outer`'s."""
    fn = f.function()
    dims = inner + [ir.Dim(rv.name, is_rvar=True)] + outer
    fn.updates.append(ir.Definition(tuple(lhs), tuple(values), list(preds),
                                    ir.StageSchedule(dims=dims, rvars=[rv]), source,
                                    f"{fn.name}$r"))


def build(ctx, d: ir.Definition, scan, pre, lift, variant: str):
    """Replaces the update of f by the phases of a parallel scan: "rescan"
    reduces each chunk to its state and rescans it from its carry with the
    update itself; "apply" stores the local scans of every point and applies
    the carries to them, vectorized."""
    phases = _Phases(ctx, d, scan, pre, lift)
    if variant == "rescan":
        phases.reduce_then_scan()
    else:
        phases.scan_then_apply()
    phases.skip_overwritten()
    # (as an output, f is computed in its buffer when the scan lies inside
    # it: no scratch copy and no serial copy-out)
    ctx.fn.schedule.in_place_if_inside = True


class _Phases:
    """Every read of the phases is inside an update whose RDom is empty when
    the scan is (the pure definitions are zeros): bounds inference then
    gives them no region, and an empty scan reads nothing, as the serial
    loop does. The last chunk may be partial: a predicate keeps its points
    inside the scan, and the points read or written are clamped to it too,
    so that the regions bounds inference gives them (which ignores
    predicates) stay inside the inputs."""

    def __init__(self, ctx, d, scan, pre, lift):
        self.ctx, self.d, self.scan, self.pre, self.lift = ctx, d, scan, pre, lift
        fn = self.fn = ctx.fn
        self.taken = set(fn.args) | {rv.name for rv in d.schedule.rvars}
        self.K = scan.chunk
        self.lo, self.n = scan.rv.min, ir.Max(scan.rv.extent, ir.index(0))
        self.last = ir.Sub(ir.Add(self.lo, self.n), ONE)
        self.chunks = ir.Div(ir.Add(self.n, ir.Sub(self.K, ONE)), self.K)
        self.pure_dims = [ir.Dim(dim.var) for dim in d.schedule.dims if not dim.is_rvar]
        # a scan along a dimension other than 0 (a column scan) runs f's
        # dimension 0 innermost, along memory, and the scan outside it
        # (innermost it would stride across rows: 7x slower for a column
        # scan of a 4096x4096 image)
        self.across = scan.axis > 0
        self.types = fn.output_types
        self.cn = self.fresh("scan_c")
        self.c = ir.Variable(ir.INDEX, self.cn)

    def fresh(self, prefix):
        return _fresh(self.taken, prefix)

    def point(self, j, chunk):
        return ir.Add(self.lo, ir.Add(ir.Mul(chunk, self.K), j))

    def at_axis(self, *items, args=None):
        out = list(self.scan.lhs if args is None else args)
        out[self.scan.axis:self.scan.axis + 1] = list(items)
        return tuple(out)

    def calls(self, fn, args):
        return [func_call(fn, args, i) for i in range(len(fn.output_types))]

    def local(self, name: str, with_j: bool):
        """The chunks scanned on their own, in parallel over the chunks:
        `<f>_scan_local(P, j, c)` holds every point's state (with_j), or
        `<f>_scan_total(P, c)` each chunk's total alone."""
        jn = self.fresh("scan_j") if with_j else None
        args = self.at_axis(jn, self.cn, args=self.fn.args) if with_j else \
            self.at_axis(self.cn, args=self.fn.args)
        f = new_func(f"{self.fn.name}_scan_{name}", args, self.lift.types, self.d.source)
        lfn = f.function()
        pure_zero(f, self.d.source, self.cn)
        c, chunk = self.c, [ir.Dim(self.cn, "parallel")]
        r0_rv, r0 = scan_rdom(self.fresh("scan_r0"), ir.index(0), ir.Min(self.n, ONE),
                          f"{lfn.name}$r0")
        at = self.at_axis(r0, c) if with_j else self.at_axis(c)
        define_update(f, at, self.lift.first(self.point(r0, c)), r0_rv, [], *self.around(chunk),
                self.d.source)
        rj_rv, rj = scan_rdom(self.fresh("scan_rj"), ONE,
                          ir.Max(ir.Sub(ir.Min(self.K, self.n), ONE), ir.index(0)),
                          f"{lfn.name}$r")
        q = self.point(rj, c)
        at = self.at_axis(rj, c) if with_j else self.at_axis(c)
        prev = self.at_axis(ir.Sub(rj, ONE), c) if with_j else at
        values = self.lift.step(self.calls(lfn, prev), ir.Min(q, self.last))
        define_update(f, at, values, rj_rv, [ir.LT(q, ir.Add(self.lo, self.n))],
                *self.around([ir.Dim(self.cn, "parallel" if self.across else "serial")]),
                self.d.source)
        if not self.across:      # (across rows, the chains of each column overlap)
            self.interleave(f.update(1), rj_rv.name)
        f.compute_root()
        return lfn

    def around(self, outer: list) -> tuple:
        """(Dims inside the scan's RVar, Dims outside it): f's pure Dims
        inside for a scan across rows (`across`), else outside; `outer`
        outermost."""
        if self.across:
            return list(self.pure_dims), list(outer)
        return [], self.pure_dims + list(outer)

    def interleave(self, stage, rj: str):
        """The local scans of INTERLEAVE consecutive chunks advanced together
        (their chunk loop unrolled inside the loop along the chunk): each
        scan is a chain of dependent operations, and the unrolled chains
        overlap (a float64 linear recurrence's chunk states 1.6x faster,
        argmax-so-far's 2x, measured at 1 thread). Vectorizing the chunks
        instead reads with gathers and was slower. The groups of chunks
        run in parallel; a partial group is guarded (each chunk's state
        reads its own previous value, so no chunk may run twice)."""
        from .schedule import TailStrategy
        co, ci = self.fresh("scan_co"), self.fresh("scan_ci")
        stage.split(self.cn, co, ci, INTERLEAVE, TailStrategy.GuardWithIf)
        stage.reorder(ci, rj, co)
        stage.unroll(ci)
        stage.parallel(co)

    def carry(self, total):
        """`<f>_scan_carry(P, c)`, serially: the value before the scan, then
        each chunk's total (total(rc) reads it) applied in order."""
        fn, one = self.fn, ONE
        carry = new_func(f"{fn.name}_scan_carry", self.at_axis(self.cn, args=fn.args),
                          self.types, self.d.source)
        cfn = carry.function()
        pure_zero(carry, self.d.source, "")
        c0_rv, c0 = scan_rdom(self.fresh("scan_c0"), ir.index(0), ir.Min(self.chunks, one),
                          f"{cfn.name}$r0")
        seeds = self.scan.seeds
        seed = [seeds[i] for i in range(len(seeds))] if seeds else \
            self.calls(self.pre.function(), self.at_axis(ir.Add(ir.Sub(self.lo, one), c0)))
        define_update(carry, self.at_axis(c0), seed, c0_rv, [], *self.around([]), self.d.source)
        rc_rv, rc = scan_rdom(self.fresh("scan_rc"), one,
                          ir.Max(ir.Sub(self.chunks, one), ir.index(0)), f"{cfn.name}$r")
        before = self.calls(cfn, self.at_axis(ir.Sub(rc, one)))
        define_update(carry, self.at_axis(rc), self.lift.apply(before, total(ir.Sub(rc, one))),
                rc_rv, [], *self.around([]), self.d.source)
        carry.compute_root()
        return cfn

    def replace(self, values_of, vectorize: bool):
        """f's update over (j, c), parallel over the chunks: values_of(q, j,
        c) gives the values at point q."""
        inn, on = self.fresh("scan_i"), self.fresh("scan_o")
        ij_rv, ij = scan_rdom(inn, ir.index(0), self.K, self.d.rdom_name)
        oc_rv, oc = scan_rdom(on, ir.index(0), self.chunks, ij)
        q = self.point(ij, oc)
        values = values_of(ir.Min(q, self.last), ij, oc)
        if self.across:
            dims = self.pure_dims + [ir.Dim(inn, "serial", True), ir.Dim(on, "parallel", True)]
        else:
            dims = [ir.Dim(inn, "serial", True)] + self.pure_dims + [ir.Dim(on, "parallel", True)]
        sched = ir.StageSchedule(dims=dims, rvars=[ij_rv, oc_rv])
        index = self.ctx.stage.index() - 1
        self.fn.updates[index] = ir.Definition(
            self.at_axis(ir.Min(q, self.last)), tuple(values),
            [ir.LT(q, ir.Add(self.lo, self.n))], sched, self.d.source, self.d.rdom_name)
        if vectorize:
            # iterations write distinct points and read neither f nor each
            # other's: marked directly (a split RVar would not pass the
            # directive's check that it writes at itself)
            vec = self.fresh("scan_v")
            lanes = max(4, 32 // max(t.bytes() for t in self.lift.types))
            self.ctx.stage.split(inn, inn, vec, lanes)
            dims = self.fn.updates[index].schedule.dims
            dims[:] = [dataclasses.replace(dim, kind="vectorized") if dim.var == vec else dim
                       for dim in dims]

    def skip_overwritten(self):
        """When the scan is f's first update, f's pure definition skips the
        points the scan writes (lowering/skip_range.py: two loops around
        them): the scan reads the value before it through `<f>_scan_pre`,
        the previous point from its own writes (or, at a chunk's first
        point, a value the select discards), so the pure values there are
        never read. Outside the scan (f at lo - 1, the points past its
        end) they are computed as before."""
        if self.ctx.stage.index() != 1:
            return         # (earlier updates may read the pure values anywhere)
        v = ir.Variable(ir.INDEX, self.fn.args[self.scan.axis])
        pure = self.fn.pure
        pure.predicates = list(pure.predicates) + [
            ir.Or(ir.LT(v, self.lo), ir.LT(self.last, v))]

    def scan_then_apply(self):
        """Local scans of every point, the carries, then f = apply(carry,
        local) at every point (vectorized)."""
        lfn = self.local("local", with_j=True)
        cfn = self.carry(lambda c: self.calls(lfn, self.at_axis(ir.Sub(self.K, ONE), c)))
        self.replace(lambda q, j, c: self.lift.apply(self.calls(cfn, self.at_axis(c)),
                                                     self.calls(lfn, self.at_axis(j, c))),
                     vectorize=True)

    def reduce_then_scan(self):
        """Each chunk's total, the carries, then each chunk scanned again by
        the update itself from its carry (chunk 0 exactly as the serial
        loop): one more read of the input instead of a stored local scan."""
        tfn = self.local("total", with_j=False)
        cfn = self.carry(lambda c: self.calls(tfn, self.at_axis(c)))
        x_names = [x.name for x in self.scan.xs]
        q = self.scan.lhs[self.scan.axis]
        rel = ir.Sub(q, self.lo)
        j, c = ir.Mod(rel, self.K), ir.Div(rel, self.K)
        # the previous point, or the carry at a chunk's first point. The
        # read of f at q - 1 is affine in the chunk's loop (LLVM then keeps
        # the running value in a register: a clamped index made this phase
        # 3x slower); at a chunk's first point it reads the previous chunk's
        # last point (f at lo - 1 for chunk 0, which the serial update reads
        # too), and the select discards that value, which another thread
        # may be writing. A seeded scan (parallel_scan_seed.py) never reads
        # f before lo: its index is clamped to lo there.
        back = ir.Sub(q, ONE)
        if self.scan.seeds:
            back = ir.Max(back, self.lo)
        prev = self.calls(self.fn, self.at_axis(back))
        first = ir.EQ(j, ir.index(0))
        carry = self.calls(cfn, self.at_axis(c))
        xs = [ir.Select(first, k, p) for k, p in zip(carry, prev)]
        m = dict(zip(x_names, xs))
        values = self.lift.guarded(q, [ir.substitute(v, m) for v in self.scan.v_x])
        self.split_update(values)

    def split_update(self, values):
        """f's update over its own RVar with `values`, the RVar split into
        chunks of K (GuardWithIf: the last chunk may be partial), parallel
        over the chunks. The points stay those of the RDom, so bounds
        inference bounds every access exactly (no clamp) and a full chunk
        runs without a test (loop synthesis partitions the guard)."""
        from .schedule import TailStrategy
        inn, on = self.fresh("scan_i"), self.fresh("scan_o")
        r = self.scan.rname
        rdim = ir.Dim(r, "serial", True)
        dims = self.pure_dims + [rdim] if self.across else [rdim] + self.pure_dims
        index = self.ctx.stage.index() - 1
        self.fn.updates[index] = ir.Definition(
            self.scan.lhs, tuple(values), [], ir.StageSchedule(dims=dims, rvars=[self.scan.rv]),
            self.d.source, self.d.rdom_name)
        stage = self.ctx.stage
        stage.split(r, on, inn, self.K, TailStrategy.GuardWithIf)
        if not self.across:
            stage.reorder(inn, *[dim.var for dim in self.pure_dims], on)
        # a chunk reads the previous chunk's last point only where the
        # select discards it: marked directly (the directive refuses a loop
        # whose iterations read where others write)
        sched = self.fn.updates[index].schedule
        sched.dims[:] = [dataclasses.replace(dim, kind="parallel") if dim.var == on else dim
                         for dim in sched.dims]


ONE = ir.index(1)
INTERLEAVE = 4       # chunks whose local scans advance together (Phases.interleave)
