"""A loop bound narrowed from int64 to int32 (`int32(n)` of a Python-int
argument: @pipeline loops over range(1, n)) is bounded by bounds inference
as the cast of n's bounds (or as itself, where n is fixed for the run: a
size computed from a float argument), an obligation checked at run time in
int64 (lowering/interval.py, index_overflow.py): a Func computed at root and
read in that loop gets a region instead of a refusal, and an n that does not
fit int32 raises OverflowError instead of looping over the wrapped count."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


def _sum_at_root(n_value, from_float=False):
    n = ph.Param(ph.Int(64), "n", n_value)
    if from_float:          # int32(int64(v)) of a float Param: fixed for the run
        v = ph.Param(ph.Float(64), "v", float(n_value))
        n = ph.cast(ph.Int(64), v)
    x = ph.Var("x")
    a = ph.Func("a")
    a[x] = x * 2
    a.compute_root()
    r = ph.RDom([(0, ph.cast(ph.Int(32), n))])
    s = ph.Func("s")
    s[()] = 0
    s[()] += a[r.x] + a[r.x + 1]
    return s


@pytest.mark.parametrize("from_float", [False, True])
def test_func_read_over_a_narrowed_extent(from_float):
    got = np.asarray(_sum_at_root(10, from_float).realize([]))
    assert int(got) == sum(2 * k + 2 * (k + 1) for k in range(10))


@pytest.mark.parametrize("from_float", [False, True])
def test_narrowed_extent_that_does_not_fit_raises(from_float):
    with pytest.raises(OverflowError):
        _sum_at_root(2**32 + 5, from_float).realize([])


def differences(n):
    a = np.ones(n) * np.arange(n)
    out = np.zeros(n)
    for i in range(1, n):
        out[i] = a[i] * a[i - 1] - a[i - 1]
    return out


def running(n):
    a = np.arange(n) * 0.5
    s = 0.0
    for i in range(1, n):
        s = s * 0.25 + a[i] - a[i - 1] * a[i]
    return s


@pytest.mark.parametrize("fn", [differences, running])
def test_array_of_an_argument_size_read_in_a_loop(fn):
    for n in (1, 2, 7):
        check(ph.pipeline(fn), n)


def linspace_products(xn):
    x = np.linspace(0.0, 1.0, int(xn))
    s = 0.0
    for i in range(1, len(x)):
        s = s * 0.5 + x[i] * x[i - 1]
    return s


def test_array_of_a_size_from_a_float_argument():
    for xn in (7.0, 2.5, 1.0):
        check(ph.pipeline(linspace_products), xn)
