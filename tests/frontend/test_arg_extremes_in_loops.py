"""np.argmin / np.argmax of a whole array inside a loop over elements (one
reduction per iteration: numpy-benchmarks' make_decision) run as a vector of
iterations, each reducing serially (array_reduce._across_iterations; the
vector state held in registers: promote_accumulators' vector accesses). Each
result equals plain Python's: first occurrence of ties, the first NaN, float32
and float64, iteration counts around the vector width, the complex
|E[i] - symbols| ** 2 of make_decision bit for bit."""
import numpy as np
import pytest

import pyhalide as ph


def make_decision(E, symbols):
    L = E.shape[0]
    syms_out = np.zeros(L, dtype=E.dtype)
    for i in range(L):
        im = np.argmin(abs(E[i] - symbols) ** 2)
        syms_out[i] = symbols[im]
    return syms_out


def nearest(x, c):
    out = np.empty(x.shape[0], dtype=np.int64)
    for i in range(x.shape[0]):
        out[i] = np.argmin(np.abs(x[i] - c))
    return out


def farthest_rows(m, c):
    out = np.zeros(m.shape[0], dtype=np.int64)
    for i in range(m.shape[0]):
        out[i] = np.argmax((m[i, 0] - c) * (m[i, 1] + c))
    return out


def row_extremes(m, c):
    lo = np.empty(m.shape[0], dtype=m.dtype)
    hi = np.empty(m.shape[0], dtype=m.dtype)
    for i in range(m.shape[0]):
        lo[i] = np.min(m[i] * c)
        hi[i] = (m[i] * c).max()
    return lo, hi


@pytest.fixture(scope="module")
def compiled():
    return {f.__name__: ph.pipeline(f)
            for f in (make_decision, nearest, farthest_rows, row_extremes)}


def _make_decision_args(n, m, seed):
    rng = np.random.default_rng(seed)
    s = rng.standard_normal(n) + rng.standard_normal(n) * 1j
    sc = rng.choice(s, m) if n else rng.standard_normal(m) + 0j
    return s, sc


@pytest.mark.parametrize("n", [0, 1, 5, 8, 17, 1003])
def test_make_decision(compiled, n):
    E, sym = _make_decision_args(n, 32, n)
    np.testing.assert_array_equal(compiled["make_decision"](E, sym), make_decision(E, sym))


def test_make_decision_ties_nan_and_strides(compiled):
    E, sym = _make_decision_args(203, 13, 1)
    sym[5] = sym[9]                      # equal distances: the first wins
    E[7] = complex(np.nan, 0.0)
    sym2 = sym.copy()
    sym2[3] = complex(0.0, np.nan)      # a NaN distance in every row: the first NaN
    E_strided = np.repeat(E, 2)[::2]
    for e, s in ((E, sym), (E, sym2), (E_strided, sym), (E[:9], sym[:1])):
        np.testing.assert_array_equal(compiled["make_decision"](e, s), make_decision(e, s))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 7, 16, 33])
def test_nearest(compiled, dt, n):
    rng = np.random.default_rng(n)
    x = rng.integers(0, 6, n).astype(dt)
    c = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], dtype=dt)     # ties: first
    if n > 3:
        x[2] = np.nan
        x[3] = np.inf
    exp = nearest(x, c)
    np.testing.assert_array_equal(compiled["nearest"](x, c), exp)


def test_argmax_rows(compiled):
    rng = np.random.default_rng(3)
    m = rng.standard_normal((37, 2))
    c = rng.standard_normal(21)
    c[4] = np.nan
    np.testing.assert_array_equal(compiled["farthest_rows"](m, c[:4].copy()),
                                  farthest_rows(m, c[:4].copy()))
    np.testing.assert_array_equal(compiled["farthest_rows"](m, c), farthest_rows(m, c))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_min_max_rows(compiled, dt):
    rng = np.random.default_rng(4)
    m = rng.standard_normal((21, 6)).astype(dt)
    m[3] = 0.0
    m[5, 2] = np.nan
    c = np.array([1.0, -1.0, 2.0, -0.0, 0.5, 1.0], dtype=dt)     # +-0 ties: the later one
    got, exp = compiled["row_extremes"](m, c), row_extremes(m, c)
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(e))


def test_auto_schedule_same_result():
    p = ph.pipeline(make_decision, schedule="auto")
    E, sym = _make_decision_args(1003, 32, 9)
    np.testing.assert_array_equal(p(E, sym), make_decision(E, sym))


def test_vector_state_kept_in_registers():
    """The lowered loop of make_decision: the vector of iterations' states
    and their elements of E are one-vector scratch copies outside the loop
    over the symbols (promote_accumulators' vector accesses), loaded only
    where that loop runs."""
    import re
    text = ph.pipeline(make_decision).lower(
        stage="final", arg_specs=[("E", np.dtype(np.complex128), (4096,)),
                                  ("symbols", np.dtype(np.complex128), (32,))])
    scratch = re.findall(r"allocate (\S+\.accv?\d+)\[(\w+) \* 8\]", text)
    assert {name.split(".")[0].split("$")[0] for name, _ in scratch} >= \
        {"argmin", "E_real", "E_imag"}
    assert "if ((0 < symbols_real.extent.0))" in text
