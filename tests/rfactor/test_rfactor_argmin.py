"""Argmin and argmax, in every form the tables recognize, rfactored: the
result is exactly the serial loop's (first occurrence for a strict
comparison, last for a non-strict one), whatever the schedule, because
rfactor rewrites them to a lexicographic operator on (value, position)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.rfactor_util import same_as_serial, same_definitions

rng = np.random.default_rng(11)
DATA = rng.integers(0, 4, (6, 37)).astype(np.int32)      # many ties

# (name, takes the new point when, tie rule): conditions over v (new value)
# and b (the best so far), written as the user would; "keep" forms are
# select(cond, best, new).
ARGMIN_FORMS = [
    ("v < b", lambda v, b: v < b, "take", "first"),
    ("v <= b", lambda v, b: v <= b, "take", "last"),
    ("b > v", lambda v, b: b > v, "take", "first"),
    ("b >= v", lambda v, b: b >= v, "take", "last"),
    ("b <= v", lambda v, b: b <= v, "keep", "first"),
    ("b < v", lambda v, b: b < v, "keep", "last"),
    ("v >= b", lambda v, b: v >= b, "keep", "first"),
    ("v > b", lambda v, b: v > b, "keep", "last"),
]


def serial_arg(data, better, rule):
    """The serial loop's (value, x, y), rows of `data` outer."""
    flat = data.ravel()
    best = flat.max() if better == "min" else flat.min()
    pos = None
    for i, v in enumerate(flat):
        wins = v < best if better == "min" else v > best
        tie = v == best
        if wins or (tie and (rule == "last" or pos is None)):
            best, pos = v, i
    return best, pos % data.shape[1], pos // data.shape[1]


def argmin_func(cond, kind, value_form="min", better="min", index_first=False,
                tuple_select=False, data=DATA):
    A = ph.Buffer(data, "am_in")
    r = ph.RDom([(0, data.shape[1]), (0, data.shape[0])], "r")
    f = ph.Func("am")
    worst = ph.Int(32).max() if better == "min" else ph.Int(32).min()
    init = (worst, -1, -1)
    f[()] = init[1:] + init[:1] if index_first else init
    s = [f[()][i] for i in range(3)]
    b, i1, i2 = (s[2], s[0], s[1]) if index_first else s
    v = A[r.x, r.y]
    c = cond(v, b)
    new, old = (v, r.x, r.y), (b, i1, i2)
    if kind == "keep":
        new, old = old, new
    if tuple_select:
        order = (lambda t: t[1:] + t[:1]) if index_first else (lambda t: t)
        f[()] = ph.select(c, order(new), order(old))
        return f, r
    if value_form == "min":
        value = ph.min(b, v) if better == "min" else ph.max(b, v)
    else:
        value = ph.select(c, new[0], old[0])
    idx = tuple(ph.select(c, new[k], old[k]) for k in (1, 2))
    f[()] = idx + (value,) if index_first else (value,) + idx
    return f, r


def _expected(better, rule, index_first=False, data=DATA):
    v, xx, yy = serial_arg(data, better, rule)
    return [xx, yy, v] if index_first else [v, xx, yy]


@pytest.mark.parametrize("name,cond,kind,rule", ARGMIN_FORMS, ids=[f[0] for f in ARGMIN_FORMS])
def test_every_comparison_keeps_the_serial_index(name, cond, kind, rule):
    def build(schedule):
        f, r = argmin_func(cond, kind, value_form="select")
        if schedule:                    # a preserved loop inside another: the merge Func
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            f.update().split(r.x, rxo, rxi, 8)
            f.update().rfactor(rxi, ph.Var("u"))
        return f
    got = same_definitions(build, [])
    assert [int(g) for g in got] == [int(e) for e in _expected("min", rule)]


@pytest.mark.parametrize("rule,cond", [("first", lambda v, b: v > b),
                                       ("last", lambda v, b: v >= b)])
def test_argmax_outer_preserved_jit(rule, cond):
    def build(schedule):
        f, r = argmin_func(cond, "take", better="max")
        if schedule:                    # slices in serial order: merged straight into f
            u = ph.Var("u")
            intm = f.update().rfactor(r.y, u)
            intm.compute_root().update().parallel(u)
        return f
    got = same_as_serial(build, [])
    assert [int(g) for g in got] == [int(e) for e in _expected("max", rule)]


@pytest.mark.parametrize("rule,cond", [("first", lambda v, b: v < b),
                                       ("last", lambda v, b: b >= v)])
def test_index_first_inner_preserved_jit(rule, cond):
    def build(schedule):
        f, r = argmin_func(cond, "take", index_first=True)
        if schedule:
            rxo, rxi, u = ph.RVar("rxo"), ph.RVar("rxi"), ph.Var("u")
            f.update().split(r.x, rxo, rxi, 4)
            intm = f.update().rfactor([(rxi, u), (r.y, ph.Var("w"))])
            intm.compute_root().vectorize(u)
        return f
    got = same_as_serial(build, [])
    assert [int(g) for g in got] == [int(e) for e in _expected("min", rule, index_first=True)]


def test_tuple_select_form_nested_and_vectorized():
    def build(schedule):
        f, r = argmin_func(lambda v, b: v < b, "take", tuple_select=True)
        if schedule:
            u, v = ph.Var("u"), ph.Var("v")
            intm = f.update().rfactor(r.y, u)
            intm.compute_root().update().parallel(u)
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            intm2 = intm.update().split(r.x, rxo, rxi, 8).rfactor(rxi, v)
            intm2.compute_at(intm, u).vectorize(v).update().vectorize(v)
        return f
    got = same_as_serial(build, [])
    assert [int(g) for g in got] == [int(e) for e in _expected("min", "first")]


@pytest.mark.parametrize("rule,cond", [("first", lambda v, b: v < b),
                                       ("last", lambda v, b: v <= b)])
def test_empty_preserved_list_and_guarded_split(rule, cond):
    def build(schedule):
        f, r = argmin_func(cond, "take")
        if schedule:
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            f.update().split(r.x, rxo, rxi, 5)          # 37 = 7 * 5 + 2: a guarded tail
            f.update().rfactor([])
        return f
    got = same_definitions(build, [])
    assert [int(g) for g in got] == [int(e) for e in _expected("min", rule)]


@pytest.mark.parametrize("rule,cond", [("first", lambda v, b: v < b),
                                       ("last", lambda v, b: v <= b)])
def test_one_dimensional_argmin_keeps_value_and_key(rule, cond):
    data = DATA[:1]

    def build(schedule):
        A = ph.Buffer(data, "am1_in")
        r = ph.RDom([(0, data.shape[1])], "r")
        f = ph.Func("am1")
        f[()] = (ph.Int(32).max(), -1)
        b, i = f[()][0], f[()][1]
        v = A[r.x, 0]
        f[()] = (ph.min(b, v), ph.select(cond(v, b), r.x, i))
        if schedule:
            rxo, rxi, u = ph.RVar("rxo"), ph.RVar("rxi"), ph.Var("u")
            f.update().split(r.x, rxo, rxi, 4)
            intm = f.update().rfactor(rxi, u)
            assert len(intm.types()) == 2          # the value and the key: payloads are decoded
        return f
    got = same_definitions(build, [])
    v, xx, _ = serial_arg(data, "min", rule)
    assert [int(g) for g in got] == [v, xx]
