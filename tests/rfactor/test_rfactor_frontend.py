"""rfactor in schedules of @pipeline functions: the result stays exactly the
plain Python result, and the definitions of Python-number accumulators are
ones the associativity matcher can prove."""
import re

import numpy as np
import pytest

import pyhalide as ph

SEED = 20261122


def test_histogram_and_first_argmin_from_python_loops():
    def sched_hist(p):
        u = ph.Var("u")
        p.funcs["hist"].update(0).rfactor(p.vars["y"], u).compute_root().update(0).parallel(u)

    @ph.pipeline(schedule=sched_hist)
    def histogram(img):
        hist = np.zeros(256, np.int32)
        for y in range(img.shape[0]):
            for x in range(img.shape[1]):
                hist[img[y, x]] += 1
        return hist

    def sched_argmin(p):
        f = p.funcs["best"]
        io, ii = ph.RVar("io"), ph.RVar("ii")
        f.update(0).split(p.vars["i"], io, ii, 16)
        f.update(0).rfactor(ii, ph.Var("u"))

    @ph.pipeline(schedule=sched_argmin)
    def argmin(a):
        best = a[0]
        idx = 0
        for i in range(a.shape[0]):
            if a[i] < best:
                best = a[i]
                idx = i
        return best, idx

    img = np.random.default_rng(0).integers(0, 256, (40, 33), dtype=np.uint8)
    np.testing.assert_array_equal(histogram(img), histogram.py_func(img))
    a = np.random.default_rng(1).integers(0, 5, 500).astype(np.int32)
    assert argmin(a) == argmin.py_func(a)


# definitions the associativity matcher can prove ----------------------------------------------
def count_positive(a):
    c = 0
    for i in range(len(a)):
        if a[i] > 0:
            c += 1
    return c


def count_all(a):
    c = 0
    for i in range(len(a)):
        c += 1
    return c


def sum_positive(a):
    s = 0.0
    for i in range(len(a)):
        if a[i] > 0:
            s += a[i]
    return s


def kitchen_sink(a):
    s = 0.0
    c = 0
    mn = np.inf
    mx = -np.inf
    for i in range(len(a)):
        s += a[i]
        c += 1
        mn = min(mn, a[i])
        mx = max(mx, a[i])
    return s, c, mn, mx


def argmin_from_inf(a):
    best = np.inf
    idx = -1
    for i in range(len(a)):
        if a[i] < best:
            best = a[i]
            idx = i
    return best, idx


def _rfactor(name):
    def schedule(p):
        f = p.funcs[name]
        io, ii, u = ph.RVar("io"), ph.RVar("ii"), ph.Var("u")
        f.update().split(p.vars["i"], io, ii, 16)
        f.update().rfactor(io, u).compute_root().update().parallel(u)
    return schedule


@pytest.mark.parametrize("fn, name", [(count_positive, "c"), (count_all, "c"),
                                      (sum_positive, "s"), (kitchen_sink, "s"),
                                      (argmin_from_inf, "best")])
def test_python_number_accumulators_rfactor(fn, name):
    p = ph.pipeline(fn, schedule=_rfactor(name))
    rng = np.random.default_rng(SEED)
    for a in (rng.integers(-9, 9, 100).astype(np.float64), np.zeros(0), np.full(3, -1.0)):
        got, exp = p(a), fn(a.copy())
        for g, e in zip(got if isinstance(got, tuple) else (got,),
                        exp if isinstance(exp, tuple) else (exp,)):
            assert type(g) is type(e) and g == e, (fn.__name__, a, got, exp)


def test_count_definition_is_a_plain_int64_sum():
    p = ph.pipeline(count_positive)
    p(np.arange(3.0))
    text = p.lower("defs")
    assert re.search(r"(c[$\d]*)\(\) = \(\1\(\) \+ \(int64\)1\)\n", text), text
    assert "where (a(r_i$x) > 0.0)" in text, text
