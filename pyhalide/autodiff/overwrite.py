"""The updates whose adjoints propagate_adjoints cannot take (Halide's
forward overwrite detection), and how each update reads its own Func.

Halide's checks: an update whose derivatives read values of its Func that
an earlier update overwrites (pyhalide: or it or a later one, where Halide
21 differentiates with the value written then and gives a wrong
derivative: `f[x] = 2.0; f[x] = f[x] * f[x]`), and an update over an RDom
that feeds other Funcs while its reads of its own Func, at the point it
writes, have a derivative other than 0 or 1, are refused with Halide's
error.

Where an update reads its own Func elsewhere than at the point it writes,
Halide 21 overwrites the adjoint of the point read with the update's
contribution, losing what other readers gave it (`f[0] = f[1] * 2` or a
running sum `f[r + 1] = f[r] + b[r]`, read by the output at more than the
last point, give wrong derivatives in Halide 21). pyhalide takes those
updates only where the result is right: reads at a point that differs from
the written one by a constant ("shift", no RDom: the contribution is added),
and scans along one RVar that read behind the point they write ("scan": the
adjoint runs the RVar backwards, adding); any other self-read elsewhere than
the written point is refused.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError
from pyhalide.lowering.interval import Interval, bounds_of
from pyhalide.simplify import simplify
from pyhalide.source import at, user_location

from .expr_adjoints import expression_adjoints
from .rvars import rvar_bounds


def check_overwrites(order: list) -> dict:
    """(name, update index) -> "shift" or "scan" for the updates that read
    their Func elsewhere than where they write (the others read it there or
    not at all); raises for an update whose adjoints cannot be taken."""
    kinds = {}
    for fn in order:
        boxes = [_box(d.args) for d in fn.updates]
        for u, d in enumerate(fn.updates):
            kind = _check_update(fn, u, d, boxes)
            if kind:
                kinds[(fn.name, u)] = kind
    return kinds


def _error(fn) -> CompileError:
    return CompileError(f"Error: Can't take the gradients of {fn.name}, which depend on intermediate "
                        f"values. Use a scan (which saves intermediate results) instead.{at(user_location())}")


def _calls_something(exprs, fn=None) -> bool:
    return any(c.call_type != ir.INTRINSIC and (fn is None or c.func is fn)
               for c in ir.find_calls(list(exprs)))


def _check_update(fn, u: int, d, boxes: list) -> None:
    n = len(fn.output_types)
    found = expression_adjoints(list(d.values), [ir.one(t) for t in fn.output_types])
    self_adjoint = [ir.zero(t) for t in fn.output_types]
    self_args, used_by_others = [], False
    for target, a in found:
        if not isinstance(target, ir.Call):
            continue
        if target.func is fn:
            self_adjoint[target.value_index] = ir.Add(self_adjoint[target.value_index], a)
            self_args.append(target.args)
        else:
            used_by_others = True
        if _calls_something([a], fn):
            if _calls_something(fn.pure.values) or \
                    any(_overlap(boxes[u], boxes[p]) for p in range(u)):
                raise _error(fn)
            # (not in Halide 21, which then differentiates with the value this
            # update or a later one wrote)
            reads = [_box(c.args) for c in ir.find_calls([a]) if c.func is fn]
            if any(_overlap(r, boxes[p]) for r in reads for p in range(u, len(boxes))):
                raise _error(fn)
    if any(not _same_point(args, d.args) for args in self_args):
        return _self_read_kind(fn, u, d, self_args)
    zero_or_one = all(ir.is_const(s, 0) or ir.is_const(s, 1)
                      for s in (simplify(x) for x in self_adjoint[:n]))
    if zero_or_one or not rvar_bounds(list(d.args) + list(d.values)):
        return
    if used_by_others:
        raise _error(fn)
    return None


def _difference(a, b):
    """a - b simplified, as a Python int when constant, else None."""
    v = ir.const_value(simplify(ir.Sub(a, b)))
    return v if isinstance(v, int) else None


def _same_point(read, write) -> bool:
    return all(_difference(a, b) == 0 for a, b in zip(read, write))


def _self_read_kind(fn, u: int, d, self_args: list) -> str:
    """"shift" (no RDom, every self-read at a constant nonzero offset in
    some dimension) or "scan" (one RVar r, written at r + c in one dimension
    and read behind it, the other dimensions read where written); raises
    otherwise."""
    rvars = rvar_bounds(list(d.args) + list(d.values))
    if not rvars:
        if all(any(_difference(a, b) not in (0, None) for a, b in zip(args, d.args))
               for args in self_args):
            return "shift"
    elif len(rvars) == 1:
        (r,) = rvars
        rdom = next(v.param for v in ir.free_vars(list(d.args)).values() if v.kind == "rvar") \
            if any(v.kind == "rvar" for v in ir.free_vars(list(d.args)).values()) else None
        dims = [i for i, a in enumerate(d.args) if ir.uses_var(a, r)]
        if rdom is not None and rdom.dimensions() == 1 and len(dims) == 1 and \
                _difference(d.args[dims[0]], ir.Variable(ir.INDEX, r, "rvar", rdom)) is not None:
            k = dims[0]
            if all((_difference(d.args[k], args[k]) or 0) > 0 and
                   all(_difference(a, b) == 0 for i, (a, b) in enumerate(zip(args, d.args))
                       if i != k) for args in self_args):
                return "scan"
    raise CompileError(f"propagate_adjoints: the update {u} of {fn.name} reads {fn.name} "
                       f"elsewhere than where it writes, in a form whose derivative pyhalide "
                       f"does not take (it takes a constant offset without an RDom, and a "
                       f"scan along one RVar reading behind the point it writes)"
                       f"{at(user_location())}")


def _box(args) -> list:
    """The region of the points `args` (an update's left side, or a read),
    RVars over their domains (Halide's interval [min, min + extent + 1]);
    pure Vars stand for themselves."""
    scope = {name: Interval(lo, simplify(ir.Add(ir.Add(lo, ext), ir.one(lo.type))))
             for name, (lo, ext) in rvar_bounds(list(args)).items()}
    return [bounds_of(a, scope) for a in args]


def _overlap(a: list, b: list) -> bool:
    """False only when some dimension is provably disjoint."""
    for x, y in zip(a, b):
        if x.bounded() and y.bounded() and (
                ir.is_const(simplify(ir.LT(x.hi, y.lo)), True) or
                ir.is_const(simplify(ir.LT(y.hi, x.lo)), True)):
            return False
    return True
