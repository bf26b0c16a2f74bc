"""The updates whose adjoints propagate_adjoints cannot take (Halide's
forward overwrite detection): an update whose derivatives read values of
its Func that a later or earlier update overwrites, and updates over an
RDom that feed other Funcs while their reads of their own Func have a
derivative other than 0 or 1 (what Halide calls a non-overwriting scan
pyhalide does not differentiate; it says so)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError
from pyhalide.lowering.interval import Interval, bounds_of
from pyhalide.simplify import simplify
from pyhalide.source import at, user_location

from .expr_adjoints import expression_adjoints
from .rvars import rvar_bounds


def check_overwrites(order: list) -> None:
    """Raise for the first update of the Functions in `order` whose
    adjoints depend on overwritten values."""
    for fn in order:
        boxes = [_box(d) for d in fn.updates]
        for u, d in enumerate(fn.updates):
            _check_update(fn, u, d, boxes)


def _error(fn) -> CompileError:
    return CompileError(f"Can't take the gradients of {fn.name}, which depend on intermediate "
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
    zero_or_one = all(ir.is_const(s, 0) or ir.is_const(s, 1)
                      for s in (simplify(x) for x in self_adjoint[:n]))
    if zero_or_one or not rvar_bounds(list(d.args) + list(d.values)):
        return
    scan = bool(self_args) and all(
        ir.is_const(simplify(_any_differs(args, d.args)), True) for args in self_args)
    if scan:
        raise CompileError(f"propagate_adjoints: the update {u} of {fn.name} is a scan (it reads "
                           f"{fn.name} where it does not write, with a derivative other than 0 "
                           f"or 1); pyhalide does not differentiate scans{at(user_location())}")
    if used_by_others:
        raise _error(fn)


def _any_differs(a, b):
    out = ir.const(ir.Bool(), False)
    for x, y in zip(a, b):
        out = ir.Or(out, ir.NE(x, y))
    return out


def _box(d) -> list:
    """The region an update writes, RVars over their domains (Halide's
    interval [min, min + extent + 1]); pure Vars stand for themselves."""
    scope = {name: Interval(lo, simplify(ir.Add(ir.Add(lo, ext), ir.one(lo.type))))
             for name, (lo, ext) in rvar_bounds(list(d.args)).items()}
    return [bounds_of(a, scope) for a in d.args]


def _overlap(a: list, b: list) -> bool:
    """False only when some dimension is provably disjoint."""
    for x, y in zip(a, b):
        if x.bounded() and y.bounded() and (
                ir.is_const(simplify(ir.LT(x.hi, y.lo)), True) or
                ir.is_const(simplify(ir.LT(y.hi, x.lo)), True)):
            return False
    return True
