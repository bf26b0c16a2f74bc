"""The three phases of a parallel scan (see parallel_scan.py): the local
scans of the chunks, the serial scan of what comes before each chunk, and
the update of f that combines the two."""
from __future__ import annotations

import dataclasses

from . import ir
from .parallel_scan import _call, combine, guarded
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


def _rdom(name: str, lo, extent, tag: str):
    rv = ir.ReductionVariable(name, lo, extent)
    return rv, ir.Variable(ir.INDEX, name, "rvar", _DomainTag(tag))


def _new_func(name: str, args: tuple, types: tuple, source):
    from .func import Func, set_pure_vars
    from .var import Var
    f = Func(name)
    fn = f.function()
    fn.args, fn.output_types, fn.source = args, types, source
    set_pure_vars(f, [Var(a) for a in args])
    return f


def _pure(f, values, source, kinds=None):
    fn = f.function()
    args = tuple(ir.Variable(ir.INDEX, a) for a in fn.args)
    dims = [ir.Dim(a, (kinds or {}).get(a, "serial")) for a in fn.args]
    fn.pure = ir.Definition(args, tuple(values), [], ir.StageSchedule(dims=dims), source)


def build(ctx, d: ir.Definition, scan, pre, op):
    """Builds the local and carry Funcs and replaces the update of f by the
    third phase, split into chunks run in parallel and vectorized inside."""
    fn = ctx.fn
    taken = set(fn.args) | {rv.name for rv in d.schedule.rvars}
    jn, cn, rjn, rcn, on, inn = (_fresh(taken, p) for p in (
        "scan_j", "scan_c", "scan_rj", "scan_rc", "scan_o", "scan_i"))
    K = scan.chunk
    lo, n = scan.rv.min, scan.rv.extent
    chunks = ir.Div(ir.Add(n, ir.Sub(K, ir.index(1))), K)
    axis, rname = scan.axis, scan.rname
    pure_dims = [dim.var for dim in d.schedule.dims if not dim.is_rvar]
    types = fn.output_types
    c = ir.Variable(ir.INDEX, cn)

    def point(j, chunk):
        return ir.Add(lo, ir.Add(ir.Mul(chunk, K), j))

    def at_axis(args, *items):
        out = list(args)
        out[axis:axis + 1] = list(items)
        return tuple(out)

    def at_r(e, q):
        return ir.substitute(e, {rname: q})

    ys = [y.node for y in op.ys]

    # 1. local scans of the chunks
    local = _new_func(f"{fn.name}_scan_local", at_axis(fn.args, jn, cn), types, d.source)
    lfn = local.function()
    first = point(ir.index(0), c)
    _pure(local, guarded([at_r(k, first) for k in scan.checks], [at_r(y, first) for y in ys]),
          d.source, {cn: "parallel"})
    rj_rv, rj = _rdom(rjn, ir.index(1), ir.Sub(K, ir.index(1)), f"{lfn.name}$r")
    q = point(rj, c)
    # the predicate keeps the last chunk inside the RDom; the reads are
    # clamped to it too, so that the regions bounds inference gives them
    # (which ignores predicates) stay inside the inputs
    q_read = ir.Min(q, ir.Sub(ir.Add(lo, n), ir.index(1)))
    lhs = at_axis(scan.lhs, rj, c)
    prev = at_axis(scan.lhs, ir.Sub(rj, ir.index(1)), c)
    pre_at = at_axis(scan.lhs, q_read)
    values = scan.rewrite(ctx, d, lambda i: _call(pre.function(), pre_at, i),
                          lambda i: _call(lfn, prev, i))
    values = guarded([at_r(k, q_read) for k in scan.checks], [at_r(v, q_read) for v in values])
    dims = [ir.Dim(rjn, is_rvar=True)] + [ir.Dim(p) for p in pure_dims] + [ir.Dim(cn, "parallel")]
    lfn.updates = [ir.Definition(lhs, values, [ir.LT(q, ir.Add(lo, n))],
                                 ir.StageSchedule(dims=dims, rvars=[rj_rv]), d.source,
                                 f"{lfn.name}$r")]
    local.compute_root()

    # 2. the serial scan of what comes before each chunk
    carry = _new_func(f"{fn.name}_scan_carry", at_axis(fn.args, cn), types, d.source)
    cfn = carry.function()
    seed = at_axis(scan.lhs, ir.Sub(lo, ir.index(1)))
    _pure(carry, [_call(pre.function(), seed, i) for i in range(len(types))], d.source)
    rc_rv, rc = _rdom(rcn, ir.index(1), ir.Max(ir.Sub(chunks, ir.index(1)), ir.index(0)),
                      f"{cfn.name}$r")
    last = at_axis(scan.lhs, ir.Sub(K, ir.index(1)), ir.Sub(rc, ir.index(1)))
    before = at_axis(scan.lhs, ir.Sub(rc, ir.index(1)))
    values = combine(op, [_call(cfn, before, i) for i in range(len(types))],
                     [_call(lfn, last, i) for i in range(len(types))])
    dims = [ir.Dim(rcn, is_rvar=True)] + [ir.Dim(p) for p in pure_dims]
    cfn.updates = [ir.Definition(at_axis(scan.lhs, rc), values, [],
                                 ir.StageSchedule(dims=dims, rvars=[rc_rv]), d.source,
                                 f"{cfn.name}$r")]
    carry.compute_root()

    # 3. f's update: the chunk's carry combined with the local scan, over
    # (j, c) with the point clamped to the RDom as in the local scans; its
    # iterations write distinct points and read neither f nor each other's
    ij_rv, ij = _rdom(inn, ir.index(0), K, d.rdom_name)
    oc_rv, oc = _rdom(on, ir.index(0), chunks, d.rdom_name)
    q = point(ij, oc)
    q_write = ir.Min(q, ir.Sub(ir.Add(lo, n), ir.index(1)))
    values = combine(op, [_call(cfn, at_axis(scan.lhs, oc), i) for i in range(len(types))],
                     [_call(lfn, at_axis(scan.lhs, ij, oc), i) for i in range(len(types))])
    lanes = max(4, 32 // max(t.bytes() for t in types))
    dims = [ir.Dim(inn, "serial", True)] + [ir.Dim(p) for p in pure_dims] + \
        [ir.Dim(on, "parallel", True)]
    sched = ir.StageSchedule(dims=dims, rvars=[ij_rv, oc_rv])
    fn.updates[ctx.stage.index() - 1] = ir.Definition(
        at_axis(scan.lhs, q_write), values, [ir.LT(q, ir.Add(lo, n))], sched, d.source,
        d.rdom_name)
    vec = _fresh(taken, "scan_v")
    ctx.stage.split(inn, inn, vec, lanes)
    dims = fn.updates[ctx.stage.index() - 1].schedule.dims
    dims[:] = [dataclasses.replace(dim, kind="vectorized") if dim.var == vec else dim
               for dim in dims]
