"""Whether a float operator that compares and copies (min, max, select)
gives the serial loop's result when a reduction is split, NaN included.

The tables prove such operators for non-NaN values. A loop's update as the
user wrote it (its "own form", `op(x, y)` over Variables x<i>/y<i>) has an
exact meaning for NaN too: `select(y > x, y, x)` skips a NaN y and keeps a
NaN x. rfactor folds each slice from the identity e and merges the partial
results p into f's value x in order; that equals the serial fold for every
x and data y when, for a set S of states holding e and closed under op
(S(op(x, y)) for x in S and any y),

- op(x, e) == x for every x (NaN included: f's initial value may be NaN);
- op(op(x, p), y) == op(x, op(p, y)) for every x, p in S and any y
  (by induction, folding from x equals merging x with the fold from e);
- `commutes`: op(p, q) == op(q, p) for p, q in S, bit for bit (+0 and -0
  differ), where the schedule combines partial results out of the serial
  order (vector lanes): `if a[i] > m` keeps the first of -0.0 and +0.0, so
  it does not commute.

Where a slice starts from its first value instead of e (Dask's seeded
blocks), the partial results can be anything: only S = every value holds,
and the identity is not needed. `check` tries S = "no float element is
NaN", then S = every value. Values are equal when both are NaN or they
compare equal (+0 == -0) in these laws, where the serial order is kept; a
+0/-0 pair never meets a law that changes which comes first.

Queries are deterministic, as the tables' (prove.SEED, prove.RLIMIT): a
query that exhausts its limit refuses, whatever the machine's load.
"""
from __future__ import annotations

import z3

from pyhalide import ir

from .grammar import FP
from .prove import RLIMIT, SEED
from .z3model import Model, order_only


def check(ops: list, identities: list, types: list,
          partials_from_identity: bool = True) -> str | None:
    """None if splitting a reduction by `ops` (over x<i>, y<i>; None for a
    slot the operator leaves to others) keeps the serial result for every
    float value; else why not, with a counterexample. Without
    `partials_from_identity` (a slice may start from its first value, NaN
    or not), only S = every value is tried, and the identity is not used."""
    model = Model(FP, small_fp=order_only([o for o in ops if o is not None]))
    reasons = []
    for restricted in (True, False)[0 if partials_from_identity else 1:]:
        why = _failure(model, ops, identities, types, restricted, partials_from_identity)
        if why is None:
            return None
        reasons.append(why)
    return reasons[0]


def commutes(ops: list, types: list, partials_from_identity: bool = True) -> bool:
    """Whether op(p, q) == op(q, p) bit for bit for partial results p, q
    with no NaN element (as `check` proves them to be when they start from
    the identity) or any."""
    model = Model(FP, small_fp=order_only([o for o in ops if o is not None]))
    p, q = _vars(model, types, "p"), _vars(model, types, "q")
    active = [o is not None for o in ops]
    pq, qp = _apply(model, ops, p, q), _apply(model, ops, q, p)
    differ = z3.Or(*[u != v for u, v, on in zip(pq, qp, active) if on])
    for restricted in (True, False)[0 if partials_from_identity else 1:]:
        given = z3.And(*[z3.Not(z3.fpIsNaN(v)) for v, t, on in zip(p + q, types + types,
                                                                   active + active)
                         if on and t.is_float() and restricted])
        if _solve(given, differ)[0] == z3.unsat:
            return True
    return False


def _vars(model, types, prefix):
    return [model.var(t, f"{prefix}{i}") for i, t in enumerate(types)]


def _apply(model, ops, xs, ys):
    env = {f"x{i}": v for i, v in enumerate(xs)}
    env.update({f"y{i}": v for i, v in enumerate(ys)})
    return [xs[i] if o is None else model.term(o, env) for i, o in enumerate(ops)]


def _failure(model, ops, identities, types, restricted, from_identity):
    active = [o is not None for o in ops]

    def apply(xs, ys):
        return _apply(model, ops, xs, ys)

    def in_s(vs):
        conds = [model.not_nan(t, v) for t, v, on in zip(types, vs, active)
                 if restricted and on and t.is_float()]
        return z3.And(*conds) if conds else z3.BoolVal(True)

    def same(a, b):
        return z3.And(*[model.equal(t, u, v) for t, u, v, on in zip(types, a, b, active) if on])

    x, p, y = _vars(model, types, "x"), _vars(model, types, "p"), _vars(model, types, "y")
    e = [model.const(t, c.value) for t, c in zip(types, identities)]
    laws = [
        ("the identity is NaN", z3.BoolVal(True), in_s(e)),
        ("a NaN value reaches a partial result", in_s(x), in_s(apply(x, y))),
        ("f's value merged with the identity changes",
         z3.BoolVal(True) if restricted or from_identity else z3.BoolVal(False),
         same(apply(x, e), x)),
        ("merging a partial result and then a value differs from the serial order",
         in_s(p), same(apply(apply(x, p), y), apply(x, apply(p, y)))),
    ]
    return _first_broken(laws, types)


def fill_keeps(forms: dict, fills: dict) -> str | None:
    """None if every form leaves its element as it is, bit for bit (both NaN,
    or equal with the same sign), once the Variables named in `fills`
    (name -> Const) take those values, for every value of the others; else
    why not, with a counterexample. `forms`: name of the element's previous
    value -> its update over it. This is what folding a guard into y needs
    (`select(P, op(x, e), x) == op(x, select(P, e, fill))`): exact IEEE
    arithmetic, no reassociation."""
    exprs = list(forms.values())
    model = Model(FP, small_fp=order_only(exprs))
    env = {}
    for e in exprs:
        for name, v in ir.free_vars(e).items():
            if name not in env:
                c = fills.get(name)
                env[name] = model.const(v.type, c.value) if c is not None else \
                    model.var(v.type, name)
    for x_name, e in forms.items():
        x, got = env.get(x_name), model.term(e, env)
        if x is None:
            return f"its update with the guard false does not read {x_name}"
        if e.type.is_float():
            same = z3.Or(z3.And(z3.fpIsNaN(got), z3.fpIsNaN(x)),
                         z3.And(z3.fpEQ(got, x), z3.fpIsNegative(got) == z3.fpIsNegative(x)))
        else:
            same = got == x
        r, m = _solve(z3.BoolVal(True), z3.Not(same))
        if r == z3.sat:
            return f"{x_name} changes where the guard is false (e.g. {_example(m, [])})"
        if r != z3.unsat:
            return f"Z3 could not decide whether {x_name} is kept where the guard is false"
    return None


def check_skip(members: list, forms: list, types: list, value: int) -> str | None:
    """None if the argmin group `members` (f's elements; `forms` over
    X<i>/Y<i>, `value` the element compared) leaves f's elements as they are
    for a point whose value is NaN, and never replaces a NaN value of f."""
    model = Model(FP, small_fp=order_only(forms))
    env = {}
    for i, t in zip(members, types):
        env[f"X{i}"], env[f"Y{i}"] = model.var(t, f"X{i}"), model.var(t, f"Y{i}")
    xv, yv = env[f"X{value}"], env[f"Y{value}"]
    unchanged = z3.And(*[model.equal(t, model.term(f, env), env[f"X{i}"])
                         for i, t, f in zip(members, types, forms)])
    laws = [("a point whose value is NaN changes the result",
             z3.And(z3.Not(z3.fpIsNaN(xv)), z3.fpIsNaN(yv)), unchanged),
            ("a NaN value of the result is replaced", z3.fpIsNaN(xv), unchanged)]
    return _first_broken(laws, types)


def _solve(given, negated_goal):
    s = z3.Solver()
    s.set("random_seed", SEED)
    s.set("rlimit", RLIMIT)
    s.add(given, negated_goal)
    r = s.check()
    return r, (s.model() if r == z3.sat else None)


def _first_broken(laws, types) -> str | None:
    """The first of `laws` ((name, given, holds)) that fails, as a reason
    with a counterexample, or None when every one is proven."""
    for name, given, holds in laws:
        r, model = _solve(given, z3.Not(holds))
        if r == z3.sat:
            return f"with NaN values {name} (e.g. {_example(model, types)})"
        if r != z3.unsat:
            return f"with NaN values, Z3 could not decide whether {name}"
    return None


def takes_later_on_tie(form, t, value: int) -> bool:
    """Whether the value element's own form (over X<value>/Y<value>) takes
    the newer value y over an equal x (+0.0 over -0.0)."""
    model = Model(FP, small_fp=order_only([form]))
    x, y = model.const(t, -0.0), model.const(t, 0.0)
    got = z3.simplify(model.term(form, {f"X{value}": x, f"Y{value}": y}))
    return isinstance(got, z3.FPNumRef) and got.isZero() and not got.isNegative()


def _example(m, types) -> str:
    out = []
    for d in sorted(m.decls(), key=lambda d: d.name()):
        v = m[d]
        if isinstance(v, z3.FPNumRef):
            out.append(f"{d.name()}={_fp_text(v)}")
        elif not isinstance(v, z3.FuncInterp):
            out.append(f"{d.name()}={v}")
    return ", ".join(out[:8])


def _fp_text(v) -> str:
    if v.isNaN():
        return "nan"
    if v.isInf():
        return "-inf" if v.isNegative() else "inf"
    if v.isZero():
        return "-0.0" if v.isNegative() else "0.0"
    return str(float(z3.simplify(z3.fpToReal(v)).as_fraction()))

