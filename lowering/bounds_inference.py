"""Bounds inference by interval arithmetic.

For every Func with storage, consumers first, the computed region in each
dimension is the union of the intervals of every access that extends it
(access_rules): its consumers' calls (over their own loop bounds), its updates'
writes and self-reads, and for an output the region asked for. The result is
a chain of LetStmts `f.bD.min/max/extent` above the loop nest, plus assertions
that each input covers the region read from it statically (ValueError before
any computation)."""
from __future__ import annotations

from pyhalide import ir

from . import access_rules as rules
from .context import (LoweringContext, region_min, region_max, region_extent, geometry,
                      index_var)
from .interval import Interval, BoundsOf, union
from .simplify import simplify


def stage_scope(fn: ir.Function, d: ir.Definition, regions: dict) -> dict:
    """Intervals of a stage's variables: pure Vars span the Func's region,
    RVars their RDom."""
    scope = {}
    for pos, a in enumerate(d.args):
        if isinstance(a, ir.Variable) and a.kind == "":
            scope[a.name] = regions[fn.name][pos]
    for rv in d.schedule.rvars:
        hi = simplify(ir.Sub(ir.Add(rv.min, rv.extent), ir.index(1)), assume_no_overflow=True)
        scope[rv.name] = Interval(rv.min, hi)
    return scope


def _stage_exprs(d: ir.Definition) -> list:
    return list(d.args) + list(d.values) + list(d.predicates)


def _symbolic_region(name: str, dims: int) -> list:
    return [Interval(index_var(region_min(name, i)), index_var(region_max(name, i)))
            for i in range(dims)]


class _Accumulator:
    """The union, per dimension, of the intervals that extend a region."""

    def __init__(self, dims: int):
        self.dims = [None] * dims
        self.extended = False       # anything beyond the output box / pure Vars

    def add(self, d: int, iv: Interval, extends_output: bool = True):
        self.dims[d] = iv if self.dims[d] is None else union(self.dims[d], iv)
        self.extended = self.extended or extends_output


def _is_own_pure_var(arg, lhs) -> bool:
    return isinstance(lhs, ir.Variable) and lhs.kind == "" and ir.equal(arg, lhs)


def _consumer_accesses(ctx, name, acc, regions, consumers):
    """Add the calls to `name` made by already-bounded Funcs."""
    kind = rules.func_kind(ctx.is_output(name))
    for cname in consumers:
        cfn = ctx.env[cname]
        for d in cfn.definitions():
            calls = [c for c in ir.find_calls(_stage_exprs(d))
                     if c.call_type == ir.FUNC and c.name == name]
            if not calls:
                continue
            bounds = BoundsOf(stage_scope(cfn, d, regions))
            for c in calls:
                for i, a in enumerate(c.args):
                    iv = bounds(a)
                    if rules.extends_region(kind, iv):
                        acc.add(i, iv)


def _own_accesses(ctx, fn, acc, regions):
    """Add an update's writes and self-reads."""
    kind = rules.func_kind(ctx.is_output(fn.name))
    provisional = {fn.name: [acc.dims[i] if acc.dims[i] is not None else Interval(None, None)
                             for i in range(fn.dimensions())]}
    for d in fn.updates:
        bounds = BoundsOf(stage_scope(fn, d, provisional))
        accesses = [d.args]
        accesses += [c.args for c in ir.find_calls(list(d.values) + list(d.predicates))
                     if c.call_type == ir.FUNC and c.name == fn.name]
        for args in accesses:
            for i, (a, lhs) in enumerate(zip(args, d.args)):
                if _is_own_pure_var(a, lhs):
                    continue
                iv = bounds(a)
                if rules.extends_region(kind, iv):
                    acc.add(i, iv)


def _image_requirements(ctx, regions) -> list:
    """AssertStmts: each input covers what is read from it statically."""
    needed = {}
    for name in ctx.order:
        fn = ctx.env[name]
        for d in fn.definitions():
            calls = [c for c in ir.find_calls(_stage_exprs(d)) if c.call_type == ir.IMAGE]
            if not calls:
                continue
            bounds = BoundsOf(stage_scope(fn, d, regions))
            for c in calls:
                for i, a in enumerate(c.args):
                    iv = bounds(a)
                    if rules.extends_region(rules.IMAGE, iv):
                        key = (c.name, i)
                        needed[key] = iv if key not in needed else union(needed[key], iv)
    asserts = []
    for (img, i), iv in sorted(needed.items(), key=lambda kv: kv[0]):
        lo, hi = iv.lo, iv.hi
        bmin = geometry(img, "min", i)
        bmax = ir.Sub(ir.Add(bmin, geometry(img, "extent", i)), ir.index(1))
        ok = ir.Or(ir.LT(hi, lo), ir.And(ir.LE(bmin, lo), ir.LE(hi, bmax)))
        asserts.append(ir.AssertStmt(
            simplify(ok), "ValueError",
            f"input buffer {img} is read over [{{}}, {{}}] in dimension {i}, "
            f"but it covers only [{{}}, {{}}]", (lo, hi, bmin, bmax)))
    return asserts


def infer_bounds(stmt: ir.Stmt, ctx: LoweringContext) -> ir.Stmt:
    regions = {}
    lets = []
    done = []
    for name in reversed(ctx.order):          # consumers first
        fn = ctx.env[name]
        dims = fn.dimensions()
        acc = _Accumulator(dims)
        if ctx.is_output(name):
            for i in range(dims):
                lo = geometry(name_of_output(fn, 0), "min", i)
                hi = ir.Sub(ir.Add(lo, geometry(name_of_output(fn, 0), "extent", i)), ir.index(1))
                acc.add(i, Interval(lo, simplify(hi)), extends_output=False)
        _consumer_accesses(ctx, name, acc, regions, done)
        _own_accesses(ctx, fn, acc, regions)
        if ctx.is_output(name):
            ctx.in_place[name] = not acc.extended
        for i in range(dims):
            iv = acc.dims[i]
            if iv is None:
                raise ir.CompileError(
                    f"cannot bound the region of Func {name} in dimension {i}: it is only "
                    f"accessed at data-dependent positions of a type wider than 16 bits; "
                    f"clamp the index (ph.clamp) or cast it to a narrow type")
            lo = simplify(iv.lo, assume_no_overflow=True)
            hi = simplify(iv.hi, assume_no_overflow=True)
            ext = simplify(ir.Add(ir.Sub(hi, lo), ir.index(1)), assume_no_overflow=True)
            if not (ctx.in_place.get(name) or isinstance(ext, ir.Const)):
                ext = ir.Max(ext, ir.index(0))
            lets.append((region_min(name, i), lo))
            lets.append((region_max(name, i), hi))
            lets.append((region_extent(name, i), simplify(ext)))
        regions[name] = _symbolic_region(name, dims)
        done.append(name)
    body = ir.block(*_image_requirements(ctx, regions), stmt)
    for name, value in reversed(lets):
        body = ir.LetStmt(name, value, body)
    return body


def name_of_output(fn: ir.Function, index: int) -> str:
    from .context import buffer_name
    return buffer_name(fn.name, index, len(fn.output_types))
