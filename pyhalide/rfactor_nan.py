"""rfactor of float updates that compare and copy (min, max, select): the
serial loop's result for NaN values too.

The tables prove such operators for non-NaN values, in a canonical form
(`max(x, y)`). A `@pipeline` loop's update has an exact meaning for NaN:
`if a[i] > m: m = a[i]` skips a NaN value and keeps a NaN start, which the
canonical `max(m, a[i])` (codegen: `select(m > a[i], m, a[i])`) does not.
`exact_float_ops` rewrites the plan so that NaN values give what the serial
loop gives, or refuses:

- elements outside argmin groups: the intermediate and the merge apply the
  update's own form, once tables.float_domain has proven that splitting by
  it keeps the serial result with NaN values;
- an argmin/argmax group whose value is a float: its own form must skip a
  point whose value is NaN and keep a NaN value of f (proven likewise); the
  intermediate then leaves such a point out, and the merge keeps a NaN
  value of f (rfactor_lex.merge_values).

`exact_merge_ops` is the same rule for an operator applied to f's elements
as they are (Dask merges blocks' partial results in order with it).

Updates written with `ph.min`/`ph.max` on floats keep the canonical form:
API.md leaves their result for a NaN operand unspecified.
"""
from __future__ import annotations

from . import ir
from .checks import strip as strip_checks
from .expr import intrinsic
from .ir.ops import substitute_exprs
from .tables import float_domain
from .tables.grammar import FP, float_theory, walk
from .tables.match_guards import unguarded

UNCHECKABLE = ("its operator compares float values, and the update is not written as a "
               "function of f's values and the values it combines, so what it does with "
               "NaN values cannot be checked")


def exact_float_ops(p, d: ir.Definition, fn: ir.Function, match) -> str | None:
    """Rewrites plan `p` of update `d` of `fn` (MatchResult `match`) as
    above; returns None, or the reason rfactor must refuse."""
    if not any(t.is_float() for t in p.types):
        return None
    values = strip_checks(d.values)[0]
    own = _own_forms(values, own_calls(values, fn), match)
    why = _fill_refusal(own, match)
    if why is not None:
        return why
    in_groups = {g.value for g in p.groups} | {pl for g in p.groups for pl in g.rules}
    for grp in p.groups:
        if p.types[p.slot_of[grp.value]].is_float():
            why = _exact_group(p, grp, own)
            if why is not None:
                return why
    slots = _float_order_slots(p, in_groups)
    forms, why = _proven_forms(own, slots, p.slot_of, p.identities, p.types, seeded=False,
                               judged=slots.values())
    if forms is None:
        return why
    if p.commutative and not float_domain.commutes(forms, p.types):
        p.commutative = False
        p.order_note = " (of two equal values, such as -0.0 and +0.0, the update keeps one by " \
                       "its position)"
    for s in slots:
        p.ops[s] = forms[s]
    return None


def exact_merge_ops(values, states: list, op, seeded: bool):
    """(ops over x<i>/y<i> for f's elements, or None to keep `op.ops`; the
    reason to refuse, or None; whether they commute) for merging partial
    results in order of an update whose `values` (checks stripped) read f's
    element i as the nodes `states` pairs with i. `seeded`: a partial result
    may start from a point's value rather than the identity."""
    types = [o.type for o in op.match.ops]
    elems = [i for i, o in enumerate(op.match.ops) if types[i].is_float()
             and i not in op.match.unchanged and i not in op.match.negated
             and float_theory([o]) == FP]
    own = _own_forms(values, states, op.match) if elems else []
    why = _fill_refusal(own, op.match) if elems else None
    if why is not None:
        return None, why, False
    every = {i: i for i in range(len(types))}
    forms, why = _proven_forms(own, every if elems else {}, every, list(op.match.identities),
                               types, seeded, judged=elems)
    if forms is None:
        return None, why, op.commutative and why is None
    return forms, None, op.commutative and float_domain.commutes(forms, types, not seeded)


def _proven_forms(own: list, chosen: dict, slot_of: dict, identities, types, seeded: bool,
                  judged):
    """(the own forms of the `chosen` elements (slot -> element) over
    x<s>/y<s>, None elsewhere; None) once float_domain proved them, else
    (None, the reason to refuse or None to keep the table's operator: where
    an element of `judged` is written with float ph.min/ph.max)."""
    if not chosen:
        return None, None
    if any(own[i] is None for i in chosen.values()):
        return None, UNCHECKABLE
    if any(_uses_float_minmax(own[i]) for i in judged):
        return None, None                       # ph.min/ph.max: NaN results unspecified
    forms = [None] * len(types)
    for s, i in chosen.items():
        forms[s] = _in_slots(own[i], slot_of)
    why = float_domain.check(forms, identities, types, partials_from_identity=not seeded)
    return (None, why) if why is not None else (forms, None)


def _fill_refusal(own: list, match) -> str | None:
    """None if every element the matcher folded a guard into keeps f's value
    bit for bit where the guard is false (its own form with each folded y
    at its fill: tables.float_domain.fill_keeps), else why not."""
    if not match.folded:
        return None
    if any(own[i] is None for i in match.folded):
        return UNCHECKABLE
    why = float_domain.fill_keeps({f"X{i}": own[i] for i in match.folded},
                                  {f"Y{j}": fill for j, (_, fill) in match.folded.items()})
    return None if why is None else f"it is guarded by a condition, and {why}"


def own_calls(values, fn: ir.Function) -> list:
    """(call, element) for the reads of f's own values in `values`."""
    return [(c, c.value_index) for v in values for c in ir.find_calls(v) if c.name == fn.name]


def _own_forms(values, states: list, match) -> list:
    """Per element of f, its update as an expression of Variables X<i> (f's
    element i, read as the nodes `states` pairs with i) and Y<i> (the value
    element i combines), or None where it reads anything else that varies."""
    xs = [(node, ir.Variable(node.type, f"X{i}")) for node, i in states]
    state_names = {node.name for node, _ in states if isinstance(node, ir.Variable)}
    folded = match.folded
    if match.guarded:           # a guard folded into y or made the RDom's predicate:
        values = unguarded(values, states, match.guarded, match.split)  # where it holds
    own_ys = [folded[j][0] if j in folded else y for j, y in enumerate(match.ys)]
    out = []
    for i, value in enumerate(values):
        ys = [(own_ys[i], ir.Variable(own_ys[i].type, f"Y{i}"))] if own_ys[i] is not None \
            else []
        ys += [(y, ir.Variable(y.type, f"Y{j}")) for j, y in enumerate(own_ys)
               if y is not None and j != i]
        form = substitute_exprs(value, xs + ys)
        names = ir.free_vars(form)
        if any(ir.equal(c, node) for c in ir.find_calls(form) for node, _ in states) or \
                any(v.kind == "rvar" or n in state_names for n, v in names.items()):
            out.append(None)
        else:
            out.append(form)
    return out


def _float_order_slots(p, in_groups: set) -> dict:
    """slot -> f's element, for the float elements outside argmin groups
    whose operator only compares and copies, and the elements their
    operators read."""
    elem_of = {s: i for i, s in p.slot_of.items()}
    chosen = {s for s, i in elem_of.items()
              if i not in in_groups and i not in p.unchanged and i not in p.negated
              and p.types[s].is_float() and p.ops[s] is not None
              and float_theory([p.ops[s]]) == FP}
    todo = list(chosen)
    while todo:
        s = todo.pop()
        for name in ir.free_vars(p.ops[s]):
            k = int(name[1:]) if name[:1] in "xy" and name[1:].isdigit() else None
            if k is not None and k in elem_of and k not in chosen and p.ops[k] is not None:
                chosen.add(k)
                todo.append(k)
    return {s: elem_of[s] for s in sorted(chosen)}


def _in_slots(form, slot_of: dict):
    """An own form over X<i>/Y<i> (f's elements) over x<s>/y<s> (slots)."""
    m = {}
    for name, v in ir.free_vars(form).items():
        if name[:1] in "XY" and name[1:].isdigit():
            i = int(name[1:])
            m[name] = ir.Variable(v.type, f"{name[0].lower()}{slot_of[i]}")
    return ir.substitute(form, m)


def _uses_float_minmax(e) -> bool:
    return any(isinstance(n, (ir.Min, ir.Max)) and n.type.is_float() for n in walk(e))


def _exact_group(p, grp, own: list) -> str | None:
    """An argmin group with a float value: prove that its own form skips a
    point whose value is NaN and keeps a NaN value of f; then guard the
    intermediate's operators of the group against a NaN value."""
    members = [grp.value] + sorted(grp.rules)
    if any(own[i] is None for i in members):
        return ("it picks a point by comparing float values, and the update is not written "
                "as a function of f's values and the point's, so what it does with NaN values "
                "cannot be checked")
    why = float_domain.check_skip(members, [own[i] for i in members],
                                  [own[i].type for i in members], grp.value)
    if why is not None:
        return why
    sv = p.slot_of[grp.value]
    value_form = _in_slots(own[grp.value], p.slot_of)
    if set(ir.free_vars(value_form)) <= {f"x{sv}", f"y{sv}"}:
        p.ops[sv] = value_form          # its own tie rule keeps the serial zero's sign
        _value_follows_keys(p, grp, own[grp.value])
    y_nan = intrinsic("is_nan", ir.Bool(), ir.Variable(p.types[sv], f"y{sv}"))
    x_of = {s: ir.Variable(t, f"x{s}") for s, t in enumerate(p.types)}
    for s in [sv] + list(grp.keys.values()):
        p.ops[s] = ir.Select(y_nan, x_of[s], p.ops[s])
    return None


def _value_follows_keys(p, grp, form) -> None:
    """On a tie (-0.0 == +0.0) the value comes from the point the serial
    loop's value takes: the first or the last of the tied points, decided
    by that rule's key where partial results are combined."""
    sv = p.slot_of[grp.value]
    rule = "last" if float_domain.takes_later_on_tie(form, p.types[sv], grp.value) else "first"
    grp.value_rule = rule
    k = grp.keys.get(rule)
    if k is None or not p.combine_ops:
        return
    x, y = ir.Variable(p.types[sv], f"x{sv}"), ir.Variable(p.types[sv], f"y{sv}")
    xk, yk = ir.Variable(p.types[k], f"x{k}"), ir.Variable(p.types[k], f"y{k}")
    x_first = ir.LT(xk, yk) if rule == "first" else ir.LT(yk, xk)
    better = ir.LT if grp.better == "min" else ir.GT
    p.combine_ops[sv] = ir.Select(better(x, y), x, ir.Select(better(y, x), y,
                                                             ir.Select(x_first, x, y)))
