"""Guarded updates reach the proven operator (issue 20 item 1).

`if b[i] > 0 and a[i] > m: m = a[i]` is `select(x < a && 0 < b, a, x)`:
tables/match_guards.py takes the x-free guard out of the mixed condition
(Shannon's expansion, exact), the matcher folds it into y =
`select(P, a, fill)` where the fill keeps every value of f bit for bit
(proven: tables.float_domain.fill_keeps; a float sum takes -0.0), and
rfactor_nan checks the update's own form where the guard holds. Every
result is compared with the plain Python loop, NaN, infinities, signed
zeros, ties and all-false masks included."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.nan_cases import nan_inputs, same_float


def guarded_max(a, b):
    m = -np.inf
    for i in range(a.shape[0]):
        if b[i] > 0 and a[i] > m:
            m = a[i]
    return m


def guarded_max_from_first(a, b):
    m = a[0]
    for i in range(a.shape[0]):
        if b[i] > 0 and a[i] >= m:
            m = a[i]
    return m


def guarded_argmax(a, b):
    m = -np.inf
    k = -1
    for i in range(a.shape[0]):
        if b[i] > 0 and a[i] > m:
            m = a[i]
            k = i
    return k, m


def guarded_argmin_last(a, b):
    m = np.inf
    k = -1
    for i in range(a.shape[0]):
        if b[i] > 0 and a[i] <= m:
            m = a[i]
            k = i
    return k, m


def compare_first_guarded_max(a, b):
    m = -np.inf
    for i in range(a.shape[0]):
        if a[i] > m and b[i] > 0:
            m = a[i]
    return m


def guarded_sum(a, b):
    s = 0.0
    for i in range(a.shape[0]):
        if b[i] > 0:
            s += a[i]
    return s


def guarded_int_sum(a, b):
    s = 0
    for i in range(a.shape[0]):
        if b[i] > 0 and a[i] > 3:
            s += a[i]
    return s


def guarded_int_product(a, b):
    s = 1
    for i in range(a.shape[0]):
        if b[i] > 0:
            s *= a[i]
    return s


def guarded_int_max(a, b):
    m = a[0]
    for i in range(a.shape[0]):
        if b[i] > 0 and not b[i] > 2 and a[i] > m:
            m = a[i]
    return m


def guarded_histogram(a, b):
    h = np.zeros(8, np.int64)
    for i in range(a.shape[0]):
        if b[i] > 0:
            h[a[i] & 7] += 1
    return h


FUNC = {guarded_max: "m", guarded_max_from_first: "m", guarded_argmax: "m_k",
        guarded_argmin_last: "m_k"}


def _chunks(name):
    def schedule(p):
        f = p.funcs[name]
        ro, ri, u = ph.RVar("ro"), ph.RVar("ri"), ph.Var("u")
        f.update(0).split(p.vars["i"], ro, ri, 16)
        f.update(0).rfactor(ro, u).compute_root().parallel(u)
    return schedule


def _float_inputs(n):
    rng = np.random.default_rng(5)
    masks = [rng.standard_normal(n), np.full(n, -1.0), np.full(n, 1.0)]
    masks[0][::5] = np.nan                  # NaN in the guard: the condition is false
    return [(a, masks[k % 3]) for k, a in enumerate(nan_inputs(n))]


@pytest.mark.parametrize("fn", list(FUNC), ids=lambda f: f.__name__)
def test_guarded_compare_and_copy_rfactored_equals_python(fn):
    p = ph.pipeline(fn, schedule=_chunks(FUNC[fn]))
    for case, (a, b) in enumerate(_float_inputs(301)):
        want, got = fn(a, b), p(a, b)
        assert same_float(want, got), (fn.__name__, case, want, got)


def test_auto_rfactors_a_guarded_max_and_argmax():
    n = 1 << 18
    for fn in (guarded_max, guarded_argmax):
        p = ph.pipeline(fn, schedule="auto")
        for case, (a, b) in enumerate(_float_inputs(n)[:4]):
            want, got = fn(a, b), p(a, b)
            assert same_float(want, got), (fn.__name__, case, want, got)
        assert "rfactor(" in p.schedule_source()


@pytest.mark.parametrize("fn", [guarded_int_sum, guarded_int_product, guarded_int_max,
                                guarded_histogram], ids=lambda f: f.__name__)
def test_guarded_integer_updates_rfactored_equal_python(fn):
    rng = np.random.default_rng(2)
    a = rng.integers(-5, 9, 1 << 18)
    b = rng.integers(-3, 4, 1 << 18)
    p = ph.pipeline(fn, schedule="auto")
    assert np.array_equal(p(a, b), fn(a, b))
    assert "rfactor(" in p.schedule_source()
    assert np.array_equal(p(a, -np.abs(b) - 1), fn(a, -np.abs(b) - 1))


def test_guarded_float_sum_folds_with_negative_zero():
    # y = select(b > 0, a, -0.0): x + -0.0 == x for every x; x + 0.0 is not
    p = ph.pipeline(guarded_sum, schedule=_chunks("s"))
    a = np.full(64, -0.0)
    b = np.where(np.arange(64) % 2 == 0, 1.0, -1.0)
    assert same_float(guarded_sum(a, b), p(a, b))
    rng = np.random.default_rng(0)
    a, b = rng.integers(-8, 8, 301).astype(np.float64), rng.standard_normal(301)
    assert guarded_sum(a, b) == p(a, b)          # small integers: every order is exact


def test_compare_first_guard_stays_serial_and_equals_python():
    # `a[i] > m and b[i] > 0`: the frontend reads m in the first iteration as
    # its initial value (a Python float) under a flag inside the lazy `and`;
    # the update compares with select(flag, m, -inf), which is not an
    # operator of m's values alone: refused, kept serial by auto
    p = ph.pipeline(compare_first_guarded_max, schedule="auto")
    for a, b in _float_inputs(1 << 18)[:3]:
        assert same_float(compare_first_guarded_max(a, b), p(a, b))
    with pytest.raises(ph.CompileError, match="not provably associative"):
        ph.pipeline(compare_first_guarded_max, schedule=_chunks("m"))(np.ones(40), np.ones(40))


def elif_sum(a, b):
    s = a[0] * 0
    for i in range(a.shape[0]):
        if b[i] > 1:
            s += a[i]
        elif b[i] < -1:
            s -= 3 * a[i]
    return s


def elif_histogram(a, b):
    h = np.zeros(8, np.int64)
    for i in range(a.shape[0]):
        if b[i] > 1:
            h[a[i] & 7] += 1
        elif b[i] > 0:
            h[a[i] & 7] += 2
    return h


def elif_skip_max(a, b):
    m = a[0]
    for i in range(a.shape[0]):
        if b[i] > 1:
            pass
        elif a[i] > m:
            m = a[i]
    return m


def elif_float_sum(a, b):
    s = a[0] * 0.0
    for i in range(a.shape[0]):
        if b[i] > 1:
            s += a[i]
        elif b[i] > 0:
            s += 2 * a[i]
    return s


@pytest.mark.parametrize("fn", [elif_sum, elif_histogram, elif_skip_max],
                         ids=lambda f: f.__name__)
def test_elif_chains_rfactored_equal_python(fn):
    # each branch applies the same operator: y is the chain of the branches'
    # values, the identity where none applies
    rng = np.random.default_rng(4)
    a = rng.integers(-50, 50, 1 << 18)
    b = rng.integers(-3, 4, 1 << 18)
    p = ph.pipeline(fn, schedule="auto")
    assert np.array_equal(p(a, b), fn(a, b))
    assert "rfactor(" in p.schedule_source()


def test_elif_float_sum_rfactored():
    p = ph.pipeline(elif_float_sum, schedule=_chunks("s"))
    rng = np.random.default_rng(1)
    a, b = rng.integers(-8, 8, 301).astype(np.float64), rng.integers(-1, 3, 301)
    assert elif_float_sum(a, b) == p(a, b)       # small integers: every order is exact
    a = np.full(64, np.nan)
    a[0] = 1.0
    assert same_float(elif_float_sum(a, np.zeros(64, np.int64)), p(a, np.zeros(64, np.int64)))
    # (a sum of -0.0 values from s = -0.0 gives +0.0 under rfactor: its
    # partial results start from the tables' identity +0.0, fold or not)


def guarded_running_max(x, b):
    out = np.empty(x.shape[0], x.dtype)
    best = x[0]
    for i in range(x.shape[0]):
        if b[i] > 0 and x[i] > best:
            best = x[i]
        out[i] = best
    return out


def guarded_argmax_so_far(x, b):
    out = np.empty(x.shape[0], np.int64)
    best, k = x[0], 0
    for i in range(x.shape[0]):
        if b[i] > 0 and x[i] > best:
            best, k = x[i], i
        out[i] = k
    return out


@pytest.mark.parametrize("fn, name", [(guarded_running_max, "out"),
                                      (guarded_argmax_so_far, "best")],
                         ids=["running_max", "argmax_so_far"])
def test_guarded_parallel_scan_equals_python(fn, name):
    def schedule(p):
        p.funcs[name].update(0).parallel_scan(p.vars[name, "i"], 16)
    p = ph.pipeline(fn, schedule=schedule)
    for case, (a, b) in enumerate(_float_inputs(200)):
        want, got = fn(a, b), p(a, b)
        assert np.array_equal(want, got, equal_nan=True), case
        assert np.array_equal(np.signbit(want), np.signbit(got)), case


def test_guarded_max_and_argmax_on_dask_equal_python():
    da = pytest.importorskip("dask.array")
    dask = pytest.importorskip("dask")
    for fn in (guarded_max, guarded_argmax):
        p = ph.pipeline(fn)
        for case, (a, b) in enumerate(_float_inputs(120)):
            got = p.dask(da.from_array(a, chunks=25), da.from_array(b, chunks=25))
            got = dask.compute(*got, scheduler="synchronous") if isinstance(got, tuple) else \
                got.compute(scheduler="synchronous")
            assert same_float(fn(a, b), got), (fn.__name__, case)


def two_guards_second_checked(a, b, c):
    m = a[0]
    for i in range(a.shape[0]):
        if b[i] > 0 and c[i] > 0 and a[i] > m:
            m = a[i]
    return m


def test_a_later_guard_keeps_its_check_lazy():
    # c[i] is read (and its index checked) only where b[i] > 0: with c shorter
    # than a and b[i] <= 0 past c's end, Python never reads past it; the
    # guards combine as a lazy `and`, so the compiled code does not raise
    p = ph.pipeline(two_guards_second_checked, schedule=_chunks("m"))
    rng = np.random.default_rng(8)
    a, b, c = rng.integers(-9, 9, 64), rng.integers(-2, 3, 64), rng.integers(-2, 3, 32)
    b[32:] = -1
    assert p(a, b, c) == two_guards_second_checked(a, b, c)
    b[40] = 1                                   # now Python reads c[40]
    with pytest.raises(IndexError):
        two_guards_second_checked(a, b, c)
    with pytest.raises(IndexError):
        p(a, b, c)
