"""The automatic scheduler's second rfactor (over vector lanes) of a
reduction it split into parallel chunks: for an operator that is not
commutative (a float max or min keeps the first of -0.0 and +0.0) each lane
reduces a consecutive run of the loop, the runs merged in order; and where
the first rfactor is refused (a NaN reaches a partial result), the second is
not attempted (it once raised NameError on the missing intermediate). Every
result equals the plain loop's, bit for bit (the sign of zero too)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.autoschedule import plan


@pytest.fixture
def small_thresholds(monkeypatch):
    monkeypatch.setattr(plan, "MIN_REDUCTION", 2)
    monkeypatch.setattr(plan, "CHUNKS", 4)
    monkeypatch.setattr(plan, "MIN_CHUNK", 2)


def fmax(a):
    m = np.float32(-np.inf)
    for i in range(len(a)):
        m = max(m, a[i])
    return m


def fmin2d(a):
    m = np.inf
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            m = min(m, a[i, j])
    return m


def not_ge_min(a):
    m = np.float64(np.inf)
    for i in range(len(a)):
        if not (a[i] >= m):
            m = a[i]
    return m


def _same(got, want) -> bool:
    return np.asarray(got).tobytes() == np.asarray(want).tobytes() and \
        np.asarray(got).dtype == np.asarray(want).dtype


def _zeros_first_plus(n, dtype, lanes_apart):
    """Negative values with +0.0 at 1 and -0.0 `lanes_apart` later: the first
    zero (the serial loop's result) is +0.0; lanes taking every k-th value
    would merge the -0.0 of lane 0 first."""
    a = -np.linspace(1, 2, n).astype(dtype)
    a[1] = 0.0
    a[1 + lanes_apart - 1] = -0.0
    a[lanes_apart] = -0.0
    return a


def test_float_max_lanes_keep_the_first_zero(small_thresholds):
    p = ph.pipeline(fmax, schedule="auto")
    for lanes_apart in (8, 16):
        a = _zeros_first_plus(4096, np.float32, lanes_apart)
        got = p(a)
        assert _same(got, fmax(a)), (got, fmax(a))
        assert not np.signbit(got)
    src = p.schedule_source()
    assert "m_intm.update(0).split(m_ri, m_rio, m_rii, " in src
    assert ".rfactor(m_rio, m_v)" in src and "not applied" not in src, src
    rng = np.random.default_rng(3)
    b = rng.standard_normal(3000).astype(np.float32)
    b[rng.integers(0, 3000, 40)] = np.nan
    assert _same(p(b), fmax(b))


def test_float_min_over_rows_keeps_the_order(small_thresholds):
    p = ph.pipeline(fmin2d, schedule="auto")
    a = np.linspace(1, 2, 64 * 40).reshape(64, 40)
    a[3, 5], a[40, 1], a[9, 39] = -0.0, 0.0, -0.0
    a[0, 0] = 0.0
    got = p(a)
    assert _same(got, fmin2d(a)) and not np.signbit(got)
    a[0, 0] = 5.0
    assert _same(p(a), fmin2d(a)) and np.signbit(p(a))
    src = p.schedule_source()
    assert ".rfactor(m_rio, m_v)" in src and "not applied" not in src, src


def test_refused_first_rfactor_skips_the_second(small_thresholds):
    p = ph.pipeline(not_ge_min, schedule="auto")
    rng = np.random.default_rng(1)
    a = rng.random(1000)
    a[[10, 500, 900]] = np.nan
    assert _same(p(a), not_ge_min(a))
    src = p.schedule_source()
    assert "NameError" not in src, src
    assert "builds on was not applied" in src, src


def argmax_f(a):
    m = a[0]
    k = 0
    for i in range(len(a)):
        if a[i] > m:
            m = a[i]
            k = i
    return m, k


def fsum(a):
    s = np.float32(0)
    for i in range(len(a)):
        s += a[i]
    return s


def test_auto_exact_rfactors_float_max_and_argmax_not_sums(small_thresholds):
    """A float max or argmax rounds nothing: auto-exact rfactors it (the
    result is the serial one bit for bit); a float sum stays serial."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(3000).astype(np.float32)
    a[[7, 100, 2000]] = a.max() + 1         # ties: the first is kept
    for fn in (fmax, argmax_f):
        p = ph.pipeline(fn, schedule="auto-exact")
        got, want = p(a), fn(a)
        if fn is argmax_f:
            assert _same(got[0], want[0]) and got[1] == want[1] == 7, (got, want)
        else:
            assert _same(got, want)
        assert ".rfactor(" in p.schedule_source(), p.schedule_source()
    z = _zeros_first_plus(4096, np.float32, 16)
    p = ph.pipeline(fmax, schedule="auto-exact")
    assert _same(p(z), fmax(z)) and not np.signbit(p(z))
    s = ph.pipeline(fsum, schedule="auto-exact")
    assert _same(s(a), fsum(a))
    assert ".rfactor(" not in s.schedule_source() and "reassociation is off" in s.schedule_source()
