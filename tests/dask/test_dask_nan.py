"""Float max/argmax/argmin reductions on Dask with NaN values and signed
zeros equal the one-machine loop: blocks' partial results are merged by the
update's own form (NaN values skipped as the loop skips them), not the
table's canonical max, which took a NaN (argmax returned the last block's
index, argmin a block's index where the loop's NaN start keeps 0). A form
whose result depends on the order with NaN values is refused."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import pyhalide as ph  # noqa: E402
from pyhalide import CompileError  # noqa: E402


@ph.pipeline
def sel_max(a):
    m = -np.inf
    for i in range(a.shape[0]):
        if a[i] > m:
            m = a[i]
    return m


@ph.pipeline
def argmax_first(a):
    m = -np.inf
    k = -1
    for i in range(a.shape[0]):
        if a[i] > m:
            m = a[i]
            k = i
    return k


@ph.pipeline
def argmin_from_first(a):
    m = a[0]
    k = 0
    for i in range(1, a.shape[0]):
        if a[i] < m:
            m = a[i]
            k = i
    return k


@ph.pipeline
def not_ge_min(a):
    m = np.inf
    for i in range(a.shape[0]):
        if not (a[i] >= m):
            m = a[i]
    return m


def _cases(n):
    rng = np.random.default_rng(5)
    out = []
    for case in range(5):
        a = rng.standard_normal(n)
        if case == 0:
            a[[3, 40, n - 1]] = np.nan
        elif case == 1:
            a[:] = np.nan
            a[5] = 1.0
        elif case == 2:
            a[:] = np.nan
            a[n - 3], a[n // 3] = 1.0, -2.0
        elif case == 3:
            a[0] = np.nan
        else:
            a[:] = 0.0
            a[::7] = -0.0
        out.append(a)
    return out


def _same(want, got):
    w, g = np.float64(want), np.float64(np.asarray(got)[()])
    return bool(np.isnan(g)) if np.isnan(w) else (w == g and np.signbit(w) == np.signbit(g))


@pytest.mark.parametrize("fn", [sel_max, argmax_first, argmin_from_first],
                         ids=lambda f: f.py_func.__name__)
def test_nan_reductions_on_dask_equal_python(fn):
    for case, a in enumerate(_cases(120)):
        got = fn.dask(da.from_array(a, chunks=25)).compute(scheduler="synchronous")
        want = fn.py_func(a)
        assert _same(want, got), (case, want, got)


def test_order_dependent_nan_form_refused_on_dask():
    with pytest.raises(CompileError, match="NaN values"):
        not_ge_min.dask(da.from_array(np.ones(40), chunks=10))
