"""The operator an rfactor intermediate applies, with argmin/argmax made
exact.

An argmin or argmax the tables recognize (a value element `min/max(x_v, y_v)`
and payload elements `select(c, x_p, y_p)` whose condition compares x_v with
y_v) keeps, on a tie, either the older payload (first occurrence: `v < best`,
`best <= v`, ...) or the newer one (last occurrence). Such an operator is
neither commutative nor has a two-sided identity, so splitting the reduction
would change which index wins. `plan` therefore always rewrites it to a
lexicographic min/max on (value, key), where the key is the linearized index
of the reduction point (its position in the serial loop order): ties go to
the smaller key for first occurrence, the larger for last. That operator is
commutative, has the two-sided identity (worst value, worst key), and returns
exactly the payload the serial loop returns. The key is an extra element of
the intermediate, unless a payload already is the position (the only RVar of
a one-dimensional RDom).

The Func whose update is factored has no key element; `merge_values` writes
its merge so that a partial result replaces the Func's value only when it is
strictly better, or, for last occurrence, equally good and not empty.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ir

_CMP = (ir.LT, ir.LE, ir.GT, ir.GE)


@dataclass
class LexGroup:
    value: int                      # element index of the value
    better: str                     # "min" | "max"
    rules: dict = field(default_factory=dict)   # payload element -> "first" | "last"
    keys: dict = field(default_factory=dict)    # rule -> element index of its key


@dataclass
class Plan:
    """The intermediate's operator: elements 0..n-1 are the Func's, the rest
    are keys."""

    types: list
    ops: list                       # over Variables x<i>, y<i> of `types`
    identities: list
    ys: list                        # over the update's variables (None: unchanged)
    commutative: bool
    identity_side: str
    n: int                          # elements of the Func
    unchanged: frozenset
    negated: frozenset
    groups: list                    # [LexGroup]
    predicate: object = None

    def key_identity(self, group: LexGroup, rule: str) -> ir.Expr:
        return self.identities[group.keys[rule]]


def _var(e, prefix: str):
    if isinstance(e, ir.Variable) and e.name[0] == prefix and e.name[1:].isdigit():
        return int(e.name[1:])
    return None


def _selection(block) -> tuple | None:
    """(value element, "min"/"max", {payload: rule}) if the block's operator
    is an argmin/argmax form, else None."""
    value, better, rules = None, None, {}
    for g in block.elements:
        op = block.ops[g]
        if isinstance(op, (ir.Min, ir.Max)) and {_var(op.a, "x"), _var(op.b, "x")} == {g, None} \
                and {_var(op.a, "y"), _var(op.b, "y")} == {g, None}:
            if value is not None:
                return None
            value, better = g, "min" if isinstance(op, ir.Min) else "max"
    if value is None:
        return None
    for g in block.elements:
        if g == value:
            continue
        op = block.ops[g]
        if not isinstance(op, ir.Select) or not isinstance(op.condition, _CMP):
            return None
        sides = (_var(op.true_value, "x"), _var(op.true_value, "y"),
                 _var(op.false_value, "x"), _var(op.false_value, "y"))
        if sides not in ((g, None, None, g), (None, g, g, None)):
            return None
        c = op.condition
        ca, cb = (_var(c.a, "x"), _var(c.a, "y")), (_var(c.b, "x"), _var(c.b, "y"))
        if {ca, cb} != {(value, None), (None, value)}:
            return None

        def picks_x(xv, yv):
            a, b = (xv, yv) if ca == (value, None) else (yv, xv)
            holds = {ir.LT: a < b, ir.LE: a <= b, ir.GT: a > b, ir.GE: a >= b}[type(c)]
            return holds == (sides[0] == g)
        # x strictly better must keep x, y strictly better must take y
        x_better = (0, 1) if better == "min" else (1, 0)
        if not picks_x(*x_better) or picks_x(*reversed(x_better)):
            return None
        rules[g] = "first" if picks_x(0, 0) else "last"
    return value, better, rules


def _linear_index(rvars: list):
    """The position of a reduction point in the serial loop order (RVar 0
    innermost) and its type."""
    total = 1
    for rv in rvars:
        total = total * rv.extent.value if isinstance(rv.extent, ir.Const) and total else None
    t = ir.Int(32) if total is not None and total < 2 ** 31 - 1 else ir.Int(64)
    pos, stride = None, ir.const(t, 1)
    for rv in rvars:
        term = ir.Sub(ir.Variable(ir.INDEX, rv.name, "rvar"), rv.min)
        term = term if t == ir.INDEX else ir.Cast(t, term)
        term = term if isinstance(stride, ir.Const) and stride.value == 1 else ir.Mul(term, stride)
        pos = term if pos is None else ir.Add(pos, term)
        ext = rv.extent if t == ir.INDEX else ir.Cast(t, rv.extent)
        stride = ir.Mul(stride, ext) if not isinstance(stride, ir.Const) or \
            not isinstance(ext, ir.Const) else ir.const(t, stride.value * ext.value)
    return pos, t


def _xy(types):
    return ([ir.Variable(t, f"x{i}") for i, t in enumerate(types)],
            [ir.Variable(t, f"y{i}") for i, t in enumerate(types)])


def _strictly(better: str, a, b):
    """a strictly better than b."""
    return ir.LT(a, b) if better == "min" else ir.LT(b, a)


def _rewrite(plan: Plan, grp: LexGroup):
    xs, ys = _xy(plan.types)
    v = grp.value
    x_wins, y_wins = _strictly(grp.better, xs[v], ys[v]), _strictly(grp.better, ys[v], xs[v])
    for rule, k in grp.keys.items():
        pick = ir.Min if rule == "first" else ir.Max
        plan.ops[k] = ir.Select(x_wins, xs[k], ir.Select(y_wins, ys[k], pick(xs[k], ys[k])))
    for p, rule in grp.rules.items():
        if p in grp.keys.values():
            continue
        k = grp.keys[rule]
        before = ir.LT(xs[k], ys[k]) if rule == "first" else ir.LT(ys[k], xs[k])
        plan.ops[p] = ir.Select(x_wins, xs[p], ir.Select(y_wins, ys[p],
                                                          ir.Select(before, xs[p], ys[p])))


def plan(match, rvars: list) -> Plan:
    """The intermediate's operator for a MatchResult over an update whose
    RDom is `rvars` (the stage's ReductionVariables, RVar 0 innermost)."""
    n = len(match.ops)
    types = [o.type for o in match.ops]
    p = Plan(types, list(match.ops), list(match.identities), list(match.ys), match.commutative,
             match.identity_side, n, match.unchanged, match.negated, [], match.predicate)
    if not match.blocks:
        return p
    p.commutative, p.identity_side = True, "both"
    sides = []
    groups = {}
    for b in match.blocks:
        sel = _selection(b)
        if sel is None or (b.commutative and b.identity_side == "both"):
            sides.append(b.identity_side)
            p.commutative = p.commutative and b.commutative
            continue
        v, better, rules = sel
        grp = groups.setdefault(v, LexGroup(v, better))
        grp.rules.update(rules)
    for grp in groups.values():
        _add_keys(p, grp, rvars)
        _rewrite(p, grp)
        p.groups.append(grp)
    if any(s != "both" for s in sides):
        p.identity_side = "left" if all(s in ("left", "both") for s in sides) else \
            ("right" if all(s in ("right", "both") for s in sides) else "none")
    return p


def _add_keys(p: Plan, grp: LexGroup, rvars: list):
    for rule in sorted(set(grp.rules.values())):
        extreme = "max" if rule == "first" else "min"
        if len(rvars) == 1:
            only = rvars[0].name
            for pl, r in grp.rules.items():
                y = p.ys[pl]
                if r == rule and isinstance(y, ir.Variable) and y.kind == "rvar" and \
                        y.name == only and y.type == ir.INDEX and pl not in grp.keys.values():
                    grp.keys[rule] = pl
                    p.identities[pl] = _extreme(y.type, extreme)
                    break
        if rule in grp.keys:
            continue
        pos, t = _linear_index(rvars)
        grp.keys[rule] = len(p.types)
        p.types.append(t)
        p.ops.append(None)
        p.identities.append(_extreme(t, extreme))
        p.ys.append(pos)


def _extreme(t: ir.Type, which: str) -> ir.Const:
    return ir.Const(t, t.max_value() if which == "max" else t.min_value())


def merge_values(p: Plan, current: list, partial: list) -> list:
    """The merge of a partial result (intermediate values `partial`, keys
    included) into a Func without keys (its values `current`), where the
    partial comes after what the Func holds."""
    out = [None] * p.n
    in_group = {}
    for grp in p.groups:
        v = grp.value
        strictly = _strictly(grp.better, partial[v], current[v])
        conds = {"first": strictly}
        if "last" in grp.keys:
            k = grp.keys["last"]
            real = ir.NE(partial[k], p.key_identity(grp, "last"))
            tie = ir.Not(_strictly(grp.better, current[v], partial[v]))
            conds["last"] = ir.Or(strictly, ir.And(tie, real))
        out[v] = ir.Select(strictly, partial[v], current[v])
        for pl, rule in grp.rules.items():
            out[pl] = ir.Select(conds[rule], partial[pl], current[pl])
            in_group[pl] = True
        in_group[v] = True
    for i in range(p.n):
        if i in in_group:
            continue
        if i in p.unchanged:
            out[i] = current[i]
            continue
        op = ir.Sub(ir.Variable(p.types[i], f"x{i}"), ir.Variable(p.types[i], f"y{i}")) \
            if i in p.negated else p.ops[i]
        out[i] = instantiate(op, current, partial)
    return out


def instantiate(op, xs: list, ys: list):
    """op with x<i> -> xs[i], y<i> -> ys[i]."""
    m = {f"x{i}": x for i, x in enumerate(xs)}
    m.update({f"y{i}": y for i, y in enumerate(ys) if y is not None})
    return ir.substitute(op, m)
