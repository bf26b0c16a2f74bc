"""The operator an rfactor intermediate applies, with argmin/argmax made
exact.

An argmin or argmax the tables recognize (a value element `min/max(x_v, y_v)`
and payload elements `select(c, x_p, y_p)` whose condition compares x_v with
y_v) keeps, on a tie, either the older payload (first occurrence: `v < best`,
`best <= v`, ...) or the newer one (last occurrence). Such an operator is
neither commutative nor has a two-sided identity, so splitting the reduction
would change which point wins. `plan` therefore always rewrites it to a
lexicographic min/max on (value, key), where the key is the linearized index
of the reduction point (its position in the serial loop order; RVar 0
innermost): ties go to the smaller key for first occurrence, the larger for
last. That operator is commutative, has the two-sided identity (worst value,
worst key), and picks exactly the point the serial loop picks.

The intermediate therefore holds, per argmin, only the value and a key (one
per tie rule its payloads use): its tuple ("slots") is f's elements without
the payloads, then the keys. Its update visits each slice in the serial
order, so keys only grow there, and it keeps the argmin form itself with the
key as payload (`ops`): the lexicographic operator (`combine_ops`) is needed
only where partial results of interleaved slices are combined. The merge
computes each payload at the winning point, decoded from its key (`r_i =
min_i + (key / stride_i) % extent_i`, always inside the RDom, even for an
empty partial's key), so it is the value the serial loop stored there.

`merge_values` writes the merge into f: a partial result replaces f's value
only when it is strictly better, or, for last occurrence, equally good and
not empty (the partials come after what f holds).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import ir

_CMP = (ir.LT, ir.LE, ir.GT, ir.GE)


@dataclass
class LexGroup:
    value: int                      # f's element of the value
    better: str                     # "min" | "max"
    rules: dict = field(default_factory=dict)   # payload element -> "first" | "last"
    keys: dict = field(default_factory=dict)    # rule -> slot of its key
    positions: dict = field(default_factory=dict)   # rule -> payload that is f's own key
    value_rule: str = ""            # the rule of the value's own tie (float values)


@dataclass
class Plan:
    """The intermediate's slots (types, ops over Variables x<s>/y<s>,
    identities, ys over the update's variables) and how f's elements map to
    them."""

    types: list
    ops: list                       # the intermediate's update (slices in serial order)
    identities: list
    ys: list
    slot_of: dict                   # f's element -> slot (argmin payloads have none)
    commutative: bool
    identity_side: str
    n: int                          # f's elements
    unchanged: frozenset            # f's elements the update leaves as they are
    negated: frozenset              # f's elements updated as x - y
    groups: list = field(default_factory=list)          # [LexGroup]
    payload_ys: dict = field(default_factory=dict)      # payload element -> its y
    rvars: list = field(default_factory=list)           # the RDom the keys index
    predicate: object = None
    combine_ops: list = field(default_factory=list)     # partials in any order
    order_note: str = ""            # why the operator does not commute, when not the table's

    def combining(self) -> list:
        return self.combine_ops or self.ops

    def unchanged_slots(self) -> frozenset:
        return frozenset(self.slot_of[i] for i in self.unchanged)

    def merges_in_any_order(self) -> bool:
        """Whether partial results may be merged into f in any order: every
        argmin tie rule has a key of f's own to compare positions with."""
        return all(rule in g.positions for g in self.groups for rule in g.keys)

    def key_rules(self) -> dict:
        """slot -> tie rule, for the intermediate's key slots."""
        return {k: rule for g in self.groups for rule, k in g.keys.items()}


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
    if value is None or len(block.elements) < 2:
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


def _key_type(rvars: list) -> ir.Type:
    """Int(32) when the RDom provably has fewer than 2^31 - 1 points: its
    extents are constants, or distinct dimensions of one input buffer (the
    runtime refuses buffers of 2^31 elements or more); else Int(64)."""
    total = 1
    symbolic = []
    for rv in rvars:
        if isinstance(rv.extent, ir.Const):
            total *= max(rv.extent.value, 1)
        else:
            symbolic.append(rv.extent)
    if not symbolic:
        return ir.Int(32) if total < 2 ** 31 - 1 else ir.Int(64)
    return ir.Int(32) if total == 1 and _dims_of_one_buffer(symbolic) else ir.Int(64)


def _dims_of_one_buffer(extents: list) -> bool:
    """Whether `extents` are the extents of distinct dimensions of one
    ImageParam (their product is at most its element count)."""
    from .buffer import ImageParam
    owner, dims = None, set()
    for e in extents:
        p = e.param if isinstance(e, ir.Variable) and e.kind == "param" else None
        if not isinstance(p, ImageParam) or (owner is not None and p is not owner):
            return False
        owner = p
        prefix = f"{p.name()}.extent."
        if not e.name.startswith(prefix) or not e.name[len(prefix):].isdigit():
            return False
        dims.add(int(e.name[len(prefix):]))
    return len(dims) == len(extents)


def _in(t: ir.Type, e):
    return e if e.type == t else ir.Cast(t, e)


def _strides(rvars: list, t: ir.Type) -> list:
    out, stride = [], ir.const(t, 1)
    for rv in rvars:
        out.append(stride)
        ext = _in(t, rv.extent)
        if isinstance(stride, ir.Const) and isinstance(ext, ir.Const):
            stride = ir.const(t, stride.value * ext.value)
        else:
            stride = ir.Mul(stride, ext)
    return out


def linear_index(rvars: list):
    """(the position of a reduction point in the serial loop order, its type)."""
    t = _key_type(rvars)
    pos = None
    for rv, stride in zip(rvars, _strides(rvars, t)):
        term = _in(t, ir.Sub(ir.Variable(ir.INDEX, rv.name, "rvar"), rv.min))
        if not (isinstance(stride, ir.Const) and stride.value == 1):
            term = ir.Mul(term, stride)
        pos = term if pos is None else ir.Add(pos, term)
    return pos, t


def decode(key, rvars: list) -> dict:
    """RVar name -> its value at the point of position `key` (inside the
    RDom for any key)."""
    t = key.type
    out = {}
    for rv, stride in zip(rvars, _strides(rvars, t)):
        q = key if isinstance(stride, ir.Const) and stride.value == 1 else ir.Div(key, stride)
        out[rv.name] = ir.Add(rv.min, _in(ir.INDEX, ir.Mod(q, _in(t, rv.extent))))
    return out


def _extreme(t: ir.Type, which: str) -> ir.Const:
    return ir.Const(t, t.max_value() if which == "max" else t.min_value())


def _xy(types):
    return ([ir.Variable(t, f"x{i}") for i, t in enumerate(types)],
            [ir.Variable(t, f"y{i}") for i, t in enumerate(types)])


def _strictly(better: str, a, b):
    """a strictly better than b."""
    return ir.LT(a, b) if better == "min" else ir.LT(b, a)


def plan(match, rvars: list, keys_of_f=None) -> Plan:
    """The intermediate's operator for a MatchResult over an update whose
    RDom is `rvars` (the stage's ReductionVariables, RVar 0 innermost).
    `keys_of_f`: f's elements that are keys of an earlier rfactor (element ->
    tie rule): positions in the serial order, which the merge compares."""
    n = len(match.ops)
    types = [o.type for o in match.ops]
    groups = {}
    sides, commutative = [], True
    for b in match.blocks:
        sel = _selection(b)
        if sel is None or (b.commutative and b.identity_side == "both"):
            sides.append(b.identity_side)
            commutative = commutative and b.commutative
            continue
        v, better, rules = sel
        grp = groups.setdefault(v, LexGroup(v, better))
        grp.rules.update(rules)
        for pl, rule in rules.items():
            if (keys_of_f or {}).get(pl) == rule:
                grp.positions.setdefault(rule, pl)
    if not match.blocks:
        commutative, sides = match.commutative, [match.identity_side]
    payloads = {pl for g in groups.values() for pl in g.rules}
    slot_of = {}
    for i in range(n):
        if i not in payloads:
            slot_of[i] = len(slot_of)
    rename = {f"x{i}": ir.Variable(types[i], f"x{s}") for i, s in slot_of.items()}
    rename.update({f"y{i}": ir.Variable(types[i], f"y{s}") for i, s in slot_of.items()})
    p = Plan([types[i] for i in slot_of], [ir.substitute(match.ops[i], rename) for i in slot_of],
             [match.identities[i] for i in slot_of], [match.ys[i] for i in slot_of], slot_of,
             commutative, "both", n, match.unchanged, match.negated, [],
             {pl: match.ys[pl] for pl in payloads}, list(rvars), match.predicate)
    for grp in groups.values():
        for rule in sorted(set(grp.rules.values())):
            pos, t = linear_index(rvars)
            grp.keys[rule] = len(p.types)
            p.types.append(t)
            p.ops.append(None)
            p.identities.append(_extreme(t, "max" if rule == "first" else "min"))
            p.ys.append(pos)
        p.groups.append(grp)
    xs, ys = _xy(p.types)
    if p.groups:
        p.combine_ops = list(p.ops)
    for grp in p.groups:
        v = slot_of[grp.value]
        x_wins, y_wins = _strictly(grp.better, xs[v], ys[v]), _strictly(grp.better, ys[v], xs[v])
        for rule, k in grp.keys.items():
            pick = ir.Min if rule == "first" else ir.Max
            p.combine_ops[k] = ir.Select(x_wins, xs[k], ir.Select(y_wins, ys[k],
                                                                  pick(xs[k], ys[k])))
            # y comes after x: first occurrence takes it only when strictly better
            p.ops[k] = ir.Select(y_wins if rule == "first" else ir.Not(x_wins), ys[k], xs[k])
    if any(s != "both" for s in sides):
        p.identity_side = "left" if all(s in ("left", "both") for s in sides) else \
            ("right" if all(s in ("right", "both") for s in sides) else "none")
    return p


def merge_values(p: Plan, current: list, partial: list) -> list:
    """f's values after merging a partial result (the intermediate's slots
    `partial`) into f's values `current`. Where f has a key of its own for a
    tie rule, ties are decided by position; otherwise the partial must come
    after what f holds (it wins a tie only for last occurrence, and only if
    it is not empty)."""
    out = [None] * p.n
    for grp in p.groups:
        v, sv = grp.value, p.slot_of[grp.value]
        strictly = _strictly(grp.better, partial[sv], current[v])
        # a NaN value of f is never replaced (rfactor_nan checked the update)
        tie = ir.EQ(partial[sv], current[v]) if p.types[sv].is_float() else \
            ir.Not(_strictly(grp.better, current[v], partial[sv]))
        payload = {pl: ir.substitute(p.payload_ys[pl], decode(partial[grp.keys[rule]], p.rvars))
                   for pl, rule in grp.rules.items()}
        takes = {}
        for rule, k in grp.keys.items():
            pos = grp.positions.get(rule)
            if pos is not None:
                before = ir.LT(payload[pos], current[pos]) if rule == "first" else \
                    ir.LT(current[pos], payload[pos])
                takes[rule] = ir.Or(strictly, ir.And(tie, before))
            elif rule == "first":
                takes[rule] = strictly
            else:
                takes[rule] = ir.Or(strictly, ir.And(tie, ir.NE(partial[k], p.identities[k])))
        out[v] = ir.Select(takes.get(grp.value_rule, strictly), partial[sv], current[v])
        for pl, rule in grp.rules.items():
            out[pl] = ir.Select(takes[rule], payload[pl], current[pl])
    cur_slots = [None] * len(p.types)
    for i, s in p.slot_of.items():
        cur_slots[s] = current[i]
    for i in range(p.n):
        if out[i] is not None:
            continue
        s = p.slot_of[i]
        if i in p.unchanged:
            out[i] = current[i]
        elif i in p.negated:
            out[i] = ir.Sub(current[i], partial[s])
        else:
            out[i] = instantiate(p.ops[s], cur_slots, partial)
    return out


def instantiate(op, xs: list, ys: list):
    """op with x<i> -> xs[i], y<i> -> ys[i]."""
    m = {f"x{i}": x for i, x in enumerate(xs) if x is not None}
    m.update({f"y{i}": y for i, y in enumerate(ys) if y is not None})
    return ir.substitute(op, m)
