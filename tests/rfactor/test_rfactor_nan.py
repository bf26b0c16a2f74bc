"""Float min/max reductions written as selects keep the serial loop's
answer with NaN values and a NaN initial value when rfactored: the
intermediate and the merge use the update's own form (Python's `max` skips
a NaN value and keeps a NaN start), not the table's canonical `max`. ph.max
and ph.min of a NaN are unspecified (API.md) and are not tested here."""
import numpy as np
import pytest

import pyhalide as ph


def _python_max_loop(a, start):
    s = start
    for v in a:
        s = v if v > s else s           # Python's max(s, v)
    return s


def _reduction(a, start, inner: bool):
    A = ph.Buffer(a, "nan_in")
    r = ph.RDom([(0, a.size)], "r")
    f = ph.Func("nan_max")
    f[()] = ph.cast(ph.Float(32), start)
    f[()] = ph.select(A[r.x] > f[()], A[r.x], f[()])
    if inner is not None:
        rxo, rxi, u = ph.RVar("rxo"), ph.RVar("rxi"), ph.Var("u")
        f.update().split(r.x, rxo, rxi, 16)
        intm = f.update().rfactor(rxi if inner else rxo, u)
        intm.compute_root().vectorize(u, 8) if inner else intm.compute_root().parallel(u)
    return float(np.asarray(f.realize([]))[()])


@pytest.mark.parametrize("start", [float("-inf"), 0.5, float("nan")])
def test_select_max_with_nan_equals_the_serial_loop(start):
    # over chunks in order (interleaved lanes are refused: of -0.0 and +0.0 the
    # loop keeps the first, tests/rfactor/test_rfactor_nan_tuples.py)
    inner = False
    rng = np.random.default_rng(3)
    a = rng.standard_normal(256).astype(np.float32)
    a[[0, 17, 100, 255]] = np.nan
    want = _python_max_loop(a.tolist(), np.float32(start))
    serial = _reduction(a, start, None)
    got = _reduction(a, start, inner)
    np.testing.assert_array_equal(np.float32(serial), np.float32(want))
    np.testing.assert_array_equal(np.float32(got), np.float32(want))


def test_pipeline_builtin_max_with_nan_data_and_start():
    @ph.pipeline
    def biggest(a, start):
        s = np.float64(start)
        for i in range(len(a)):
            s = max(s, a[i])
        return s

    def schedule(p):
        s = p.funcs["s"]
        rxo, rxi, u = ph.RVar("rxo"), ph.RVar("rxi"), ph.Var("u")
        s.update(0).split(p.vars["i"], rxo, rxi, 16)
        s.update(0).rfactor(rxo, u).compute_root().parallel(u)

    fast = ph.pipeline(biggest.py_func, schedule=schedule)
    a = np.random.default_rng(4).standard_normal(300)
    a[[5, 77, 299]] = np.nan
    for start in (float("-inf"), float("nan"), 1.0):
        want = biggest.py_func(a, start)
        got = fast(a, start)
        assert (np.isnan(want) and np.isnan(got)) or got == want, (start, want, got)
