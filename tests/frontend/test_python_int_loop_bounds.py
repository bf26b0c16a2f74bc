"""Loops and carried regions over a size known only at call time as a Python
int (`range(1, n)`, `range(n - 1)` with n a Python-int argument, a size
`int(xn)` of a float argument). Their bound is an int32 parameter of its
own, computed at call time and checked there to fit int32
(frontend_ast/loop_bounds.py index_param), so bounds inference bounds the
loop: arrays computed at root and read in the loop get a region (they were
refused: "cannot bound the region of Func ..."). Reads that only happen
under a guard stay exact. Plain Python is the oracle."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


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


def minus_one(x, n):
    out = np.zeros(n - 1)
    for i in range(n - 1):
        out[i] = x[i + 1] - x[i]
    return out


def of_computed(x, n):
    a = x * 2.0
    out = np.zeros(n)
    for i in range(1, n):
        out[i] = a[i] - a[i - 1]
    return out


def nested(n, m):
    a = np.arange(n * m).reshape(n, m) * 1.0
    s = 0.0
    for i in range(1, n):
        for j in range(m - 1):
            s += a[i, j] * a[i - 1, j + 1]
    return s


def descending(x, n):
    a = x + 1.0
    s = 0.0
    for i in range(n - 1, 0, -2):
        s = s * 0.5 + a[i]
    return s


def _physics(masspoints, dt, plunk, which):
    ppos = masspoints[1]
    cpos = masspoints[0]
    N = cpos.shape[0]
    force = np.zeros((N, 2))
    for i in range(1, N):
        dx, dy = cpos[i] - cpos[i - 1]
        dist = np.sqrt(dx**2 + dy**2)
        assert dist != 0
        fmag = -2100000.0 * dist
        fvec = np.array([fmag * dx / dist, fmag * dy / dist])
        force[i - 1] -= fvec
        force[i] += fvec
    force[0] = force[-1] = 0, 0
    force[which][1] += plunk
    accel = force / 0.01
    npos = (2 - 0.0001) * cpos - (1 - 0.0001) * ppos + accel * (dt**2)
    masspoints[1] = cpos
    masspoints[0] = npos


def wave(count):
    # numpy-benchmarks wave: a helper's loop over the rows of a view of an
    # array of `count` rows, two writes per iteration
    masspoints = np.empty((2, count, 2), np.float64)
    initpos = np.zeros(count, np.float64)
    for i in range(1, count):
        initpos[i] = initpos[i - 1] + 1200.0 / count
    masspoints[:, :, 0] = initpos
    masspoints[:, :, 1] = 200.0
    _physics(masspoints, 1.0 / 18000, 15, count // 2)
    return masspoints


def escape(xn, yn, maxiter):
    # numpy-benchmarks mandelbrot's shape: sizes int(xn) of float arguments,
    # complex arrays carried by a loop through masks
    X = np.linspace(-2.0, 1.0, int(xn))
    Y = np.linspace(-1.0, 1.0, int(yn))
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, np.complex128)
    for n in range(maxiter):
        inside = np.less(np.abs(Z), 2.0)
        N[inside] = n
        Z[inside] = Z[inside] ** 2 + C[inside]
    return Z, N


@pytest.mark.parametrize("n", [0, 1, 2, 7])
@pytest.mark.parametrize("fn", [differences, running])
def test_array_of_an_argument_size_read_in_a_loop(fn, n):
    check(ph.pipeline(fn), n)


@pytest.mark.parametrize("n", [0, 1, 4, 6, 8])
def test_range_of_n_minus_one(n):
    # n > len(x): Python's IndexError, not a read outside x
    check(ph.pipeline(minus_one), np.arange(6.0) ** 2, n)


@pytest.mark.parametrize("n", [1, 6, 7])
def test_computed_array_read_over_a_python_int_range(n):
    check(ph.pipeline(of_computed), np.arange(6.0) * 3, n)


@pytest.mark.parametrize("n, m", [(3, 4), (1, 5), (4, 1)])
def test_nested_python_int_ranges(n, m):
    check(ph.pipeline(nested), n, m)


@pytest.mark.parametrize("n", [0, 2, 7, 9])
def test_descending_python_int_range(n):
    check(ph.pipeline(descending), np.arange(7.0), n)


@pytest.mark.parametrize("count", [1, 2, 9])
def test_view_of_an_argument_sized_array(count):
    check(ph.pipeline(wave), count)


ESCAPE = ph.pipeline(escape)      # one compiled function for every case (float arguments)


@pytest.mark.parametrize("xn, yn, maxiter", [(7.0, 5.0, 6), (1.0, 3.0, 2), (6.5, 4.2, 0)])
def test_sizes_from_float_arguments_in_a_carried_loop(xn, yn, maxiter):
    got = ESCAPE(xn, yn, maxiter)
    exp = escape(xn, yn, maxiter)
    np.testing.assert_array_equal(got[1], exp[1])
    assert got[0].dtype == exp[0].dtype
    # z*z + c: within 2 ulp of NumPy's complex multiply (FRONTEND.md)
    np.testing.assert_allclose(got[0], exp[0], rtol=1e-15, atol=0)


def guarded(x, n):
    s = 0.0
    for i in range(1, n):
        if i < len(x):
            s += x[i]
    return s


def stopped(x, n):
    s = 0.0
    for i in range(n):
        if i >= len(x):
            break
        s += x[i]
    return s


def window(x, n, k):
    y = np.zeros(n)
    for j in range(n):
        s = 0.0
        for jj in range(j, min(j + k, len(x))):
            s += x[jj]
        y[j] = s
    return y


def written(n, m):
    out = np.zeros(m)
    for i in range(n):
        out[i] = i
    return out


@pytest.mark.parametrize("n", [-2, 3, 5, 9])
def test_reads_under_a_guard_stay_exact(n):
    # the loop runs past len(x); the guarded reads never leave x
    x = np.arange(5.0) + 1
    check(ph.pipeline(guarded), x, n)
    check(ph.pipeline(stopped), x, n)
    check(ph.pipeline(window), x, n, 2)


@pytest.mark.parametrize("n, m", [(3, 5), (5, 3), (-1, 3), (2**40, 3)])
def test_writes_past_the_end_raise_as_python(n, m):
    check(ph.pipeline(written), n, m)


def shifted(n):
    s = 0
    for i in range(n, n + 2):
        s += i
    return s


LINE = shifted.__code__.co_firstlineno + 2


def test_a_bound_that_does_not_fit_is_a_located_error():
    # FRONTEND.md: out-of-range loop bounds are run-time errors
    p = ph.pipeline(shifted)
    assert p(10) == shifted(10)
    with pytest.raises(OverflowError, match=rf"test_python_int_loop_bounds.py:{LINE}:14: this range\(\): "
                                            r"its bound 1099511627776 does not fit in 32 bits"):
        p(2**40)
