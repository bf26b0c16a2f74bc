"""The three phases of a parallel scan (see parallel_scan.py): the local
scans of the chunks, the serial scan of what comes before each chunk, and
the update of f that combines the two."""
from __future__ import annotations

import dataclasses

from . import ir
from .parallel_scan import _call
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


def _rdom(name: str, lo, extent, tag):
    """(ReductionVariable, its Variable) of a new RDom (tag: its name) or
    of the RDom of another RVar (tag: that RVar's Variable)."""
    rv = ir.ReductionVariable(name, lo, extent)
    domain = tag.param if isinstance(tag, ir.Variable) else _DomainTag(tag)
    return rv, ir.Variable(ir.INDEX, name, "rvar", domain)


def _new_func(name: str, args: tuple, types: tuple, source):
    from .func import Func, set_pure_vars
    from .var import Var
    f = Func(name)
    fn = f.function()
    fn.args, fn.output_types, fn.source = args, types, source
    set_pure_vars(f, [Var(a) for a in args])
    return f


def _pure_zero(f, source, parallel: str):
    """A pure definition of zeros (the updates write every point read)."""
    fn = f.function()
    args = tuple(ir.Variable(ir.INDEX, a) for a in fn.args)
    dims = [ir.Dim(a, "parallel" if a == parallel else "serial") for a in fn.args]
    fn.pure = ir.Definition(args, tuple(ir.zero(t) for t in fn.output_types), [],
                            ir.StageSchedule(dims=dims), source)


def _update(f, lhs, values, rv, preds, inner: list, outer: list, source):
    """An update of f over the one RVar `rv`, its loop inside `inner`'s
    (Dims) and those inside `outer`'s."""
    fn = f.function()
    dims = inner + [ir.Dim(rv.name, is_rvar=True)] + outer
    fn.updates.append(ir.Definition(tuple(lhs), tuple(values), list(preds),
                                    ir.StageSchedule(dims=dims, rvars=[rv]), source,
                                    f"{fn.name}$r"))


def build(ctx, d: ir.Definition, scan, pre, lift):
    """Builds the local and carry Funcs and replaces the update of f by the
    third phase, split into chunks run in parallel and vectorized inside.

    Every read of the phases is inside an update whose RDom is empty when
    the scan is (the pure definitions are zeros): bounds inference then
    gives them no region, and an empty scan reads nothing, as the serial
    loop does."""
    fn = ctx.fn
    taken = set(fn.args) | {rv.name for rv in d.schedule.rvars}
    jn, cn, r0n, rjn, c0n, rcn, on, inn = (_fresh(taken, p) for p in (
        "scan_j", "scan_c", "scan_r0", "scan_rj", "scan_c0", "scan_rc", "scan_o", "scan_i"))
    K = scan.chunk
    lo, n = scan.rv.min, ir.Max(scan.rv.extent, ir.index(0))
    one = ir.index(1)
    chunks = ir.Div(ir.Add(n, ir.Sub(K, one)), K)
    axis = scan.axis
    pure_dims = [ir.Dim(dim.var) for dim in d.schedule.dims if not dim.is_rvar]
    types = fn.output_types
    nt, ns = range(len(types)), range(len(lift.types))
    c = ir.Variable(ir.INDEX, cn)

    def point(j, chunk):
        return ir.Add(lo, ir.Add(ir.Mul(chunk, K), j))

    def at_axis(args, *items):
        out = list(args)
        out[axis:axis + 1] = list(items)
        return tuple(out)

    # 1. local scans of the chunks: each from its first element's y, then
    # the update's own value along the chunk
    local = _new_func(f"{fn.name}_scan_local", at_axis(fn.args, jn, cn), lift.types, d.source)
    lfn = local.function()
    _pure_zero(local, d.source, cn)
    par_c = [ir.Dim(cn, "parallel")]
    r0_rv, r0 = _rdom(r0n, ir.index(0), ir.Min(n, one), f"{lfn.name}$r0")
    q = point(r0, c)
    _update(local, at_axis(scan.lhs, r0, c), lift.first(q), r0_rv, [], [], pure_dims + par_c,
            d.source)
    rj_rv, rj = _rdom(rjn, one, ir.Max(ir.Sub(ir.Min(K, n), one), ir.index(0)),
                      f"{lfn.name}$r")
    q = point(rj, c)
    # the predicate keeps the last chunk inside the RDom; the reads are
    # clamped to it too, so that the regions bounds inference gives them
    # (which ignores predicates) stay inside the inputs
    q_read = ir.Min(q, ir.Sub(ir.Add(lo, n), one))
    prev = at_axis(scan.lhs, ir.Sub(rj, one), c)
    values = lift.step([_call(lfn, prev, i) for i in range(len(lift.types))], q_read)
    _update(local, at_axis(scan.lhs, rj, c), values, rj_rv, [ir.LT(q, ir.Add(lo, n))],
            [], pure_dims + par_c, d.source)
    local.compute_root()

    # 2. the serial scan of what comes before each chunk: the value before
    # the scan, then each chunk's total combined in order
    carry = _new_func(f"{fn.name}_scan_carry", at_axis(fn.args, cn), types, d.source)
    cfn = carry.function()
    _pure_zero(carry, d.source, "")
    c0_rv, c0 = _rdom(c0n, ir.index(0), ir.Min(chunks, one), f"{cfn.name}$r0")
    seed = at_axis(scan.lhs, ir.Add(ir.Sub(lo, one), c0))
    _update(carry, at_axis(scan.lhs, c0), [_call(pre.function(), seed, i) for i in nt],
            c0_rv, [], [], pure_dims, d.source)
    rc_rv, rc = _rdom(rcn, one, ir.Max(ir.Sub(chunks, one), ir.index(0)), f"{cfn.name}$r")
    last = at_axis(scan.lhs, ir.Sub(K, one), ir.Sub(rc, one))
    before = at_axis(scan.lhs, ir.Sub(rc, one))
    _update(carry, at_axis(scan.lhs, rc),
            lift.apply([_call(cfn, before, i) for i in nt], [_call(lfn, last, i) for i in ns]),
            rc_rv, [], [], pure_dims, d.source)
    carry.compute_root()

    # 3. f's update: the chunk's carry combined with the local scan, over
    # (j, c) with the point clamped to the RDom as in the local scans; its
    # iterations write distinct points and read neither f nor each other's
    ij_rv, ij = _rdom(inn, ir.index(0), K, d.rdom_name)
    oc_rv, oc = _rdom(on, ir.index(0), chunks, ij)
    q = point(ij, oc)
    q_write = ir.Min(q, ir.Sub(ir.Add(lo, n), ir.index(1)))
    values = lift.apply([_call(cfn, at_axis(scan.lhs, oc), i) for i in nt],
                        [_call(lfn, at_axis(scan.lhs, ij, oc), i) for i in ns])
    lanes = max(4, 32 // max(t.bytes() for t in lift.types))
    dims = [ir.Dim(inn, "serial", True)] + pure_dims + [ir.Dim(on, "parallel", True)]
    sched = ir.StageSchedule(dims=dims, rvars=[ij_rv, oc_rv])
    fn.updates[ctx.stage.index() - 1] = ir.Definition(
        at_axis(scan.lhs, q_write), values, [ir.LT(q, ir.Add(lo, n))], sched, d.source,
        d.rdom_name)
    vec = _fresh(taken, "scan_v")
    ctx.stage.split(inn, inn, vec, lanes)
    dims = fn.updates[ctx.stage.index() - 1].schedule.dims
    dims[:] = [dataclasses.replace(dim, kind="vectorized") if dim.var == vec else dim
               for dim in dims]
