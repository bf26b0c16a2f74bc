"""Every entry of every shipped table, rewritten the way users write it
(operands commuted, comparisons flipped, select conditions negated with the
branches swapped, min/max as selects, subtractions as additions of a
negation, negated && / || conditions by De Morgan's laws, and random mixes
of these), is recognized by the matcher, and the operator it returns
computes the rewritten value: `op(x, ys)` equals the value on random points
(NumPy, wrapping integers, IEEE floats), so no variant is matched to a wrong
operator. (test_handwritten_variants.py rfactors a hand-written set.)"""
import dataclasses
import random
import warnings

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.tables import store
from pyhalide.tables.entry import TableEntry
from pyhalide.tables.match_canon import self_var
from pyhalide.tables.matcher import match_update
from pyhalide.tables.npeval import evaluate

_CMP_FLIP = {ir.LT: ir.GT, ir.LE: ir.GE}
_NOT_CMP = {ir.LT: ir.GE, ir.LE: ir.GT}
_COMMUTATIVE = (ir.Add, ir.Mul, ir.Min, ir.Max, ir.BitAnd, ir.BitOr, ir.BitXor, ir.And, ir.Or,
                ir.EQ, ir.NE)


def _rule(kind, e):
    """`e` rewritten at its root by `kind`, or None."""
    if kind == "commute" and isinstance(e, _COMMUTATIVE):
        return type(e)(e.b, e.a)
    if kind == "flip" and type(e) in _CMP_FLIP:
        return _CMP_FLIP[type(e)](e.b, e.a)
    if kind == "negate" and isinstance(e, ir.Select):
        c = e.condition
        c = _NOT_CMP[type(c)](c.a, c.b) if type(c) in _NOT_CMP else ir.Not(c)
        return ir.Select(c, e.false_value, e.true_value)
    if kind == "de_morgan" and isinstance(e, ir.Select) and isinstance(e.condition, (ir.And, ir.Or)):
        c = e.condition
        dual = ir.Or if isinstance(c, ir.And) else ir.And
        return ir.Select(dual(ir.Not(c.a), ir.Not(c.b)), e.false_value, e.true_value)
    if kind in ("min_select", "min_select_new") and isinstance(e, (ir.Min, ir.Max)) and \
            not e.type.is_float():
        a, b = (e.a, e.b) if kind == "min_select" else (e.b, e.a)
        return ir.Select((ir.LT if isinstance(e, ir.Min) else ir.GT)(a, b), a, b)
    if kind == "negation" and isinstance(e, ir.Sub):
        return ir.Add(e.a, ir.Sub(ir.zero(e.type), e.b))
    return None


KINDS = ["commute", "flip", "negate", "de_morgan", "min_select", "min_select_new", "negation"]
MIXES = 4


def _rewrite(e, kinds, p, rng, count):
    kids = {}
    for f in ir.node_fields(type(e)):
        v = getattr(e, f)
        if isinstance(v, ir.Expr):
            kids[f] = _rewrite(v, kinds, p, rng, count)
        elif isinstance(v, tuple) and v and isinstance(v[0], ir.Expr):
            kids[f] = tuple(_rewrite(c, kinds, p, rng, count) for c in v)
    e = dataclasses.replace(e, **kids) if kids else e
    for kind in rng.sample(kinds, len(kinds)):
        if rng.random() < p:
            out = _rule(kind, e)
            if out is not None:
                count[0] += 1
                return out
    return e


def _variants(entry: TableEntry, rng):
    """(kind, values) of the user-style variants of `entry`: x -> the Func's
    own value, y -> Variables v<i>, k -> a Variable."""
    sub = {f"x{i}": self_var(t, i) for i, t in enumerate(entry.types)}
    sub.update({f"y{i}": ir.Variable(t, f"v{i}") for i, t in enumerate(entry.types)})
    sub["k0"] = ir.Variable(entry.types[0], "kk")
    base = [ir.substitute(o, sub) for o in entry.ops]
    for kind in KINDS + ["mix"] * MIXES:
        count = [0]
        kinds, p = (KINDS, 0.5) if kind == "mix" else ([kind], 1.0)
        values = [_rewrite(b, kinds, p, rng, count) for b in base]
        if count[0]:
            yield kind, values


def _random(t: ir.Type, n: int, g):
    if t.is_bool():
        return g.random(n) < 0.5
    if t.is_float():
        return g.integers(-5, 6, n).astype(np.float64 if t.bits == 64 else np.float32)
    dt = np.dtype(f"{'u' if t.is_uint() else ''}int{t.bits}")
    info = np.iinfo(dt)
    small = g.integers(max(info.min, -6), min(info.max, 6) + 1, n)
    big = g.integers(info.min, info.max, n, endpoint=True, dtype=dt)
    return np.where(g.integers(0, 3, n) == 0, big, small).astype(dt)


def _check_operator(entry, values, m, g, n=300):
    """op(x, ys) == values at n random points (an element updated as x - e
    merges by subtraction: its y is e)."""
    names = [f"x{i}" for i in range(entry.size)] + [f"v{i}" for i in range(entry.size)]
    env = {nm: _random(entry.types[int(nm[1:])], n, g) for nm in names}
    env["kk"] = _random(entry.types[0], n, g)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = [evaluate(v, env, exact_floats=False) for v in values]
        env_y = dict(env)
        for i, y in enumerate(m.ys):
            if y is not None:
                yv = evaluate(y, env, exact_floats=False)
                env_y[f"y{i}"] = np.zeros_like(yv) - yv if i in m.negated else yv
        got = [evaluate(o, env_y, exact_floats=False) for o in m.ops]
    for w, r in zip(want, got):
        w, r = np.broadcast_to(w, (n,)), np.broadcast_to(r, (n,))
        assert np.array_equal(w, r, equal_nan=w.dtype.kind == "f"), \
            ([ir.expr_to_str(v) for v in values], [ir.expr_to_str(o) for o in m.ops])


# the other tables hold the same entries at other widths
DEFAULT_TYPES = ("bool", "float32", "int32", "uint8")


@pytest.mark.parametrize("type_name", [
    t if t in DEFAULT_TYPES else pytest.param(t, marks=pytest.mark.slow)
    for t in store.table_names()])
def test_table_entries_written_by_hand(type_name):
    rng, g = random.Random(20), np.random.default_rng(20)
    missed, total = [], 0
    for rec in store.merged_records(type_name):
        entry = TableEntry.from_record(rec)
        for kind, values in _variants(entry, rng):
            total += 1
            m = match_update(values)
            if not m.associative:
                missed.append((kind, entry.op_texts, [ir.expr_to_str(v) for v in values]))
                continue
            _check_operator(entry, values, m, g)
    assert total > 100
    assert not missed, f"{len(missed)} of {total} not recognized, e.g. {missed[:3]}"
