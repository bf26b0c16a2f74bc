"""`Stage.parallel_scan`: a scan along an RVar as three parallel phases.

An update `f(P, r) = V(f(P, r - 1), f(P, r), ...)` over an RDom `r` in
[lo, lo + n) (P: f's pure Vars, the scan at any dimension) computes every
f(P, r) from the previous one. When the tables prove that V is
`op(f(P, r - 1), y(r))` for an associative `op`, the scan is rebuilt from
chunks of K consecutive points, c = (r - lo) / K and j = (r - lo) % K:

1. `<f>_scan_local(P, j, c)`: each chunk scanned on its own, in parallel
   over c; a chunk starts from its first element's `y` (no identity is
   needed) and then applies the update's own V along j;
2. `<f>_scan_carry(P, c)`: what comes before chunk c, serially over the
   chunks: the value before the scan (`f(P, lo - 1)`), then
   `carry(c) = op(carry(c - 1), local(P, K - 1, c - 1))`;
3. the update of f becomes `f(P, r) = op(carry(P, c), local(P, j, c))`,
   whose iterations are independent: parallel over the chunks, vectorized
   inside them.

Reads of f at the point written (`f(P, r)`, the value before the scan, as in
an in-place cumsum) and the value before the first point read
`<f>_scan_pre`, a copy of f's definitions before this update (inlined when
that is only the pure definition). Integers are exact (wrapping operators
are associative); floats are combined in another order, which the schedule
asked for.
"""
from __future__ import annotations

from . import ir
from .checks import strip as strip_checks
from .errors import CompileError
from .source import at, user_location


class _Refs(ir.Mutator):
    """Reads of `fn` at the point written (`old`) and at the previous point
    along the scan (`prev`) replaced by what the callbacks return; any other
    read of `fn` is kept in `elsewhere`."""

    def __init__(self, fn, lhs, prev_args, old, prev):
        super().__init__()
        self.fn, self.lhs, self.prev_args = fn, lhs, prev_args
        self.old, self.prev, self.elsewhere, self.prev_seen = old, prev, [], False

    def visit_Call(self, c):
        if c.call_type == ir.FUNC and (c.func is self.fn or c.name == self.fn.name):
            if _same(c.args, self.lhs):
                return self.old(c.value_index)
            if _same(c.args, self.prev_args):
                self.prev_seen = True
                return self.prev(c.value_index)
            self.elsewhere.append(c)
            return c
        return self.mutate_children(c)


def _same(a, b) -> bool:
    return len(a) == len(b) and all(ir.equal(x, y) for x, y in zip(a, b))


def func_call(fn: ir.Function, args, i: int) -> ir.Call:
    """The read of value i of Func `fn` at `args`."""
    return ir.Call(fn.output_types[i], fn.name, tuple(args), ir.FUNC, i, fn)


def _name_of(v) -> str:
    if isinstance(v, str):
        return v
    from .var import RDom
    if isinstance(v, RDom) and v.dimensions() == 1:
        v = v.x
    n = getattr(v, "name", None)
    if callable(n):
        return n()
    raise TypeError(f"parallel_scan expects an RVar, got {type(v).__name__}")


class ScanContext:
    def __init__(self, stage):
        from .func import Stage
        if not isinstance(stage, Stage):
            raise TypeError("parallel_scan is a method of an update stage: "
                            "f.update(i).parallel_scan(r, chunk_size)")
        self.stage = stage
        self.fn: ir.Function = stage.function()
        self.loc = user_location()
        self.label = f"Func {stage.name()}"

    def fail(self, msg: str, d: ir.Definition = None):
        src = d.source if d is not None else None
        update = ""
        if src is not None and (self.loc is None or (src.file, src.line) !=
                                (self.loc.file, self.loc.line)):
            update = at(src, "the update is at")
        raise CompileError(f"{self.label}: cannot parallel_scan: {msg}{at(self.loc)}{update}")


class _Scan:
    """What parallel_scan reads off the update: the scanned RVar, its
    dimension of f, its range, the values with their checks set aside."""

    def __init__(self, ctx: ScanContext, d: ir.Definition, rvar, chunk_size):
        fn = ctx.fn
        self.rname = _name_of(rvar)
        dims = d.schedule.dims
        if not any(dim.var == self.rname and dim.is_rvar for dim in dims):
            loops = ", ".join(dim.var for dim in dims)
            ctx.fail(f"{self.rname} is not an RVar loop of this stage; its loops are "
                     f"(innermost first): {loops}")
        if d.schedule.splits or any(dim.kind != "serial" for dim in dims):
            ctx.fail("the stage is already scheduled (split, fused, parallel, vectorized or "
                     "unrolled); call parallel_scan before any other directive of the stage")
        others = [rv.name for rv in d.schedule.rvars if rv.name != self.rname]
        if others:
            ctx.fail(f"the update also runs over {', '.join(others)}; parallel_scan scans "
                     f"along one RVar (write each axis of a multi-dimensional scan as its own "
                     f"update over a one-dimensional RDom)", d)
        if d.predicates:
            ctx.fail("the update has an RDom predicate (a where clause); a scan over every "
                     "point of its RDom is needed", d)
        if d.exit is not None:
            ctx.fail("the update leaves its loop early (a break)", d)
        self.rv = next(rv for rv in d.schedule.rvars if rv.name == self.rname)
        self.axis = None
        for pos, a in enumerate(d.args):
            if isinstance(a, ir.Variable) and a.kind == "rvar" and a.name == self.rname:
                if self.axis is not None:
                    ctx.fail(f"it writes at {self.rname} in two dimensions", d)
                self.axis = pos
            elif not (isinstance(a, ir.Variable) and a.kind == "" and a.name == fn.args[pos]):
                ctx.fail(f"it writes {fn.name} at {ir.expr_to_str(a)} in dimension {pos}: a "
                         f"scan writes at {self.rname} in one dimension and at f's own pure "
                         f"Vars in the others", d)
        if self.axis is None:
            ctx.fail(f"it does not write at {self.rname} alone in any dimension", d)
        from .lowering.interval import BoundsOf
        if not all(BoundsOf({})(e).bounded() for e in (self.rv.min, self.rv.extent)):
            ctx.fail(f"the range of {self.rname} (from {ir.expr_to_str(self.rv.min)}, extent "
                     f"{ir.expr_to_str(self.rv.extent)}) has no bounds in the sizes of the "
                     f"inputs (a product of extents, as for a flattened array, or a 64-bit "
                     f"scalar narrowed to an index), so the compiler cannot bound its chunks; "
                     f"scan along one axis of an array, over its own extent", d)
        self.chunk = _chunk_node(ctx, chunk_size)
        self.lhs = tuple(d.args)
        prev = list(d.args)
        prev[self.axis] = ir.Sub(d.args[self.axis], ir.index(1))
        self.prev_args = tuple(prev)
        self.values, self.checks = strip_checks(d.values)
        from .parallel_scan_seed import unseed
        got = unseed(self.values, fn, self.rname, self.rv.min, self.prev_args, self.axis)
        if got is None:
            ctx.fail(f"it reads the value before the scan in two ways (a seeded read "
                     f"`select({self.rname} == first, seed, previous)` and a plain read of "
                     f"the previous point, or two different seeds)", d)
        self.values, self.seeds = got
        if self.seeds and set(self.seeds) != set(range(len(fn.output_types))):
            ctx.fail("it seeds only some of its values; seed all or none", d)
        if any(c.call_type == ir.FUNC and c.name == fn.name for c in ir.find_calls(list(self.checks))):
            ctx.fail(f"a run-time check (of an index, a division or a Python int's overflow) "
                     f"reads {fn.name}, so whether it raises depends on the partial result; a "
                     f"NumPy-typed value (np.int64(0) for a Python int 0) has no such check", d)

    def rewrite(self, ctx, d, old, prev) -> tuple:
        """The values with f's reads at the point replaced by old(i), at the
        previous point by prev(i); refuses any other read of f."""
        refs = _Refs(ctx.fn, self.lhs, self.prev_args, old, prev)
        out = tuple(refs.mutate(v) for v in self.values)
        if refs.elsewhere:
            c = refs.elsewhere[0]
            ctx.fail(f"it reads {ir.expr_to_str(c)}, a value of {ctx.fn.name} other than the "
                     f"one it writes and the previous one along {self.rname}", d)
        if not refs.prev_seen:
            ctx.fail(f"it does not read {ctx.fn.name} at the previous point along "
                     f"{self.rname}, so it is not a scan (its iterations are independent: "
                     f"parallel({self.rname}) applies)", d)
        return out


def _chunk_node(ctx, chunk_size) -> ir.Expr:
    from .expr import cast_node, to_node
    n = to_node(chunk_size)
    if not n.type.is_integer():
        ctx.fail(f"the chunk size must be an integer, not {n.type}")
    n = cast_node(ir.INDEX, n)
    if not isinstance(n, ir.Const):
        ctx.fail("the chunk size must be a constant (a Python int)")
    if n.value < 1:
        ctx.fail(f"the chunk size must be at least 1, got {n.value}")
    return n


VARIANTS = ("rescan", "apply")


def parallel_scan(stage, rvar, chunk_size, variant="rescan"):
    ctx = ScanContext(stage)
    if variant not in VARIANTS:
        ctx.fail(f"unknown variant {variant!r}; choose \"rescan\" (each chunk reduced to its "
                 f"state, then scanned again from its carry: reads the input twice, stores "
                 f"nothing more) or \"apply\" (the local scans stored, the carries applied to "
                 f"them vectorized)")
    d, scan, pre, form = analyze(ctx, stage, rvar, chunk_size)
    from .parallel_scan_seed import peel_first
    if peel_first(ctx.fn, d, scan, stage.index()):
        # (now the Func-API form: analyzed again, it must apply as before)
        d, scan, pre, form = analyze(ctx, stage, rvar, chunk_size)
    from .parallel_scan_phases import build
    build(ctx, d, scan, pre, form, variant)
    return stage


def refusal(stage, rvar, chunk_size):
    """None when parallel_scan(stage, rvar, chunk_size) applies, else its
    reason; the stage is not changed."""
    try:
        analyze(ScanContext(stage), stage, rvar, chunk_size)
    except CompileError as e:
        return str(e).split(": cannot parallel_scan: ", 1)[-1].split("\n")[0]
    return None


def analyze(ctx, stage, rvar, chunk_size):
    """(the update, its _Scan, `<f>_scan_pre`, its Lift) without changing
    the stage; a CompileError with the reason when it is no parallel scan."""
    if stage.index() == 0:
        ctx.fail("it is the pure definition; parallel_scan applies to an update")
    d = stage.definition()
    scan = _Scan(ctx, d, rvar, chunk_size)
    pre = _pre_func(ctx.fn, stage.index())
    scan.xs = [ir.Variable(t, f"scan$x{i}") for i, t in enumerate(ctx.fn.output_types)]
    scan.v_x = scan.rewrite(ctx, d, lambda i: func_call(pre.function(), scan.lhs, i),
                            lambda i: scan.xs[i])
    from .parallel_scan_forms import lift
    return d, scan, pre, lift(ctx, d, scan, pre)


def _pre_func(fn: ir.Function, index: int):
    """`<f>_scan_pre`: f's pure definition and the updates before `index`,
    reading themselves instead of f."""
    import dataclasses

    from .func import Func, set_pure_vars
    from .var import Var
    pre = Func(f"{fn.name}_scan_pre")
    pfn = pre.function()
    pfn.args, pfn.output_types, pfn.source = fn.args, fn.output_types, fn.source
    pfn.factored_from = fn.factored_from

    class Rename(ir.Mutator):
        def visit_Call(self, c):
            c = self.mutate_children(c)
            if c.call_type == ir.FUNC and (c.func is fn or c.name == fn.name):
                return func_call(pfn, c.args, c.value_index)
            return c

    def copy(defn: ir.Definition) -> ir.Definition:
        r = Rename()
        s = defn.schedule
        sched = ir.StageSchedule(dims=list(s.dims), splits=list(s.splits), rvars=list(s.rvars),
                                 allow_race_conditions=s.allow_race_conditions)
        return dataclasses.replace(defn, args=tuple(r.mutate(a) for a in defn.args),
                                   values=tuple(r.mutate(v) for v in defn.values),
                                   predicates=[r.mutate(p) for p in defn.predicates],
                                   schedule=sched)

    pfn.pure = copy(fn.pure)
    pfn.updates = [copy(u) for u in fn.updates[:index - 1]]
    if pfn.updates:
        pre.compute_root()
    set_pure_vars(pre, [Var(a) for a in fn.args])
    return pre
