"""One contribution of propagate_adjoints: a definition of the current Func
reads `target` at `lhs` with adjoint `adjoint`, so `d_target[lhs] +=
adjoint` for every point of the current Func's region (Halide's
propagate_halide_function_call).

An argument of `lhs` that uses one pure Var of the current Func with
coefficient +1 or -1 (`x + 1`, `x - r.x`, `c - x`) is inverted: the update
becomes a gather over the target's pure Var (`d_f[u] += d_g[u + 1]`), with
the other reads of that Var clamped to the current region. The remaining
pure Vars (in arguments that cannot be inverted, or in the adjoint only)
are replaced by RVars over the current region: a scatter. All RVars of the
update (these and those of the consumer's own RDom, predicates included)
become one RDom."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import simplify
from pyhalide.var import RDom, unique_name

from .rvars import rdom_predicates, rvar_bounds


class Reader:
    """The definition being differentiated: the current adjoint Func (its
    pure Var names `args`) and its region (one Interval per dimension)."""

    def __init__(self, current, region: list):
        self.current = current
        self.args = current.args
        self.region = region


def scatter(reader: Reader, target, lhs: list, adjoint, index: int, overwrite: bool,
            flip: bool = False) -> None:
    """Add `target[lhs][index] += adjoint` (`=` when overwrite) over the
    reader's region to the AdjointFunc `target`; `flip`: the reader's own
    RVars run backwards (the adjoint of a scan)."""
    lhs = list(lhs)
    preds = rdom_predicates(lhs + [adjoint])
    u = [ir.Variable(ir.INDEX, unique_name(f"u{i}_")) for i in range(len(lhs))]
    solved = {}
    for i, arg in enumerate(lhs):
        used = [k for k, v in enumerate(reader.args) if ir.uses_var(arg, v)]
        if len(used) != 1 or reader.args[used[0]] in solved:
            continue
        k = used[0]
        name = reader.args[k]
        inverse = _invert(arg, name, u[i])
        if inverse is None:
            continue
        iv = reader.region[k]
        var = ir.Variable(ir.INDEX, name)
        clamped = ir.Max(ir.Min(var, iv.hi), iv.lo)
        adjoint = _ClampOutsideCurrent(reader.current, k, name, clamped).mutate(adjoint)
        adjoint = ir.substitute(adjoint, {name: inverse})
        preds = [ir.substitute(p, {name: inverse}) for p in preds]
        lhs[i] = u[i]
        solved[name] = u[i]
    lhs = [ir.substitute(a, solved) for a in lhs]
    # the pure Vars left: RVars over the current region
    fresh = {}
    for k, name in enumerate(reader.args):
        if name not in solved and ir.uses_var(lhs + [adjoint], name):
            iv = reader.region[k]
            ext = simplify(ir.Add(ir.Sub(iv.hi, iv.lo), ir.one(iv.lo.type)))
            fresh[name] = (simplify(iv.lo), ext)
    old = rvar_bounds(lhs + [adjoint])
    dims = list(fresh.items()) + sorted(old.items(), key=lambda kv: kv[0])
    back = {v.name: ir.Variable(ir.INDEX, a) for v, a in zip(u, target.args)}
    if dims:
        r = RDom([b for _, b in dims])
        mapping = {name: rv.node for (name, _), rv in zip(dims, r)}
        if flip:            # r -> min + extent - 1 - r for the reader's RVars
            for name, (lo, ext) in old.items():
                last = simplify(ir.Sub(ir.Add(lo, ext), ir.one(lo.type)))
                mapping[name] = ir.Sub(last, mapping[name])
        lhs = [ir.substitute(a, mapping) for a in lhs]
        adjoint = ir.substitute(adjoint, mapping)
        for p in preds:
            r.where(_expr(simplify(ir.substitute(ir.substitute(p, mapping), back))))
    lhs = [simplify(ir.substitute(a, back)) for a in lhs]
    adjoint = simplify(ir.substitute(adjoint, back))
    target.add(lhs, adjoint, index, overwrite)


def _expr(node):
    from pyhalide.expr import Expr
    return Expr.wrap(node)


def _invert(arg, name: str, u):
    """v such that arg(v) == u, when arg is name + c or c - name (c free of
    name); None otherwise."""
    var = ir.Variable(ir.INDEX, name)
    if arg.type != ir.INDEX:
        return None
    rest = simplify(ir.Sub(arg, var))
    if not ir.uses_var(rest, name):
        return simplify(ir.Sub(u, rest))
    rest = simplify(ir.Add(arg, var))
    if not ir.uses_var(rest, name):
        return simplify(ir.Sub(rest, u))
    return None


class _ClampOutsideCurrent(ir.Mutator):
    """The Var `name` replaced by `clamped`, except as argument k of a call to
    the current adjoint Func (which is 0 outside the region, and must stay
    so: Halide's substitute_call_arg_with_pure_arg)."""

    def __init__(self, current, k: int, name: str, clamped):
        super().__init__()
        self.fn = current.func.function()
        self.k, self.name, self.clamped = k, name, clamped

    def visit_Variable(self, v):
        return self.clamped if v.name == self.name and v.kind == "" else v

    def visit_Call(self, c):
        if c.call_type == ir.FUNC and c.func is self.fn:
            args = tuple(a if i == self.k and isinstance(a, ir.Variable) and a.name == self.name
                         else self.mutate(a) for i, a in enumerate(c.args))
            return ir.Call(c.type, c.name, args, c.call_type, c.value_index, c.func)
        return self.mutate_children(c)
