"""Session 24, issue 17: windows whose length is decided on the simplified
IR (frontend_ast/window_length.py), not on the source text; windows and
float sums in NumPy's pairwise order in loops that carry arrays (phase
mode: frontend_ast/carried_sums.py), as in an LMS adaptive filter. Every
result is compared with plain Python (bit for bit); each kernel compiles
once per module."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError
from tests.frontend.test_loop_windows import _outcome


def reordered(x, k: int, out):
    for i in range(out.shape[0]):
        out[i] = x[2 * i + 1:k + 1 + i * 2].sum()
    return out


def cancelled(E, w, s: int, out):
    for i in range(out.shape[0]):
        X = E[:, i * s + 1 - i + i:s * i + w.shape[0] + 1]
        out[i] = np.sum(X * w)
    return out


def moving_length(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i:2 * i + 1].sum()
    return out


@pytest.fixture(scope="module")
def reordered_c():
    return ph.pipeline(reordered)


@pytest.mark.parametrize("k", [0, 1, 3, 11, 12])
def test_reordered_stop(reordered_c, k):
    """`x[2*i + 1 : k + 1 + i*2]`: the same length k in every iteration,
    written in another order than `start + k` (refused before)."""
    x = np.arange(20.0) ** 2
    want = _outcome(reordered, x, k, np.zeros(4))
    got = _outcome(reordered_c, x, k, np.zeros(4))
    if want is ValueError or got is ValueError:
        # where the window is shorter than k, Python sums it and the compiled
        # code raises (array_windows.py): only past the end of x
        assert got is ValueError and 2 * 3 + 1 + k > 20
        return
    np.testing.assert_array_equal(got, want)


def test_cancelled_terms():
    """Terms of the loop variable that cancel (`- i + i`) and a stop
    written with the product in the other order."""
    rng = np.random.default_rng(3)
    E, w = rng.standard_normal((2, 30)), rng.standard_normal(4)
    p = ph.pipeline(cancelled)
    for s in (1, 2, 6):
        want = _outcome(cancelled, E, w, s, np.zeros(5))
        got = _outcome(p, E, w, s, np.zeros(5))
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(got, want)
        else:
            assert got is want


def test_moving_length_refused():
    """A length that changes with the loop stays a located refusal."""
    with pytest.raises(FrontendError, match="slice bounds must be known when the function "
                                            "is called"):
        ph.pipeline(moving_length)(np.arange(10.0), np.zeros(3))


def lms(x, d, w, mu: float, e):
    k = w.shape[0]
    for i in range(e.shape[0]):
        X = x[i:i + k]
        e[i] = d[i] - np.sum(w * X)
        w += mu * e[i] * X
    return e, w


def lms_rows(x, d, w, mu: float, e):
    k = w.shape[1]
    for i in range(e.shape[0]):
        X = x[:, i:i + k]
        e[i] = d[i] - (w * X).sum()
        w -= mu * e[i] * X
    return e, w


def _run(fn, *args):
    args = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    try:
        return fn(*args)
    except (ValueError, NotImplementedError) as ex:
        return type(ex)


@pytest.fixture(scope="module")
def lms_c():
    return ph.pipeline(lms), ph.pipeline(lms_rows)


# serial (< 8 elements), one block of 8 accumulators with and without a rest,
# the largest block (128 floats)
@pytest.mark.parametrize("k", [1, 5, 8, 13, 64])
def test_lms_pairwise(lms_c, k):
    """The filter's np.sum in NumPy's pairwise order (serial below 8
    elements, 8 accumulators up to 128): bit for bit as Python, the 1-D and
    the (3, k) forms (3k elements: one block up to k = 42)."""
    rng = np.random.default_rng(k)
    n = 30
    x, d = rng.standard_normal(n + k), rng.standard_normal(n)
    want = _run(lms, x, d, rng.standard_normal(k) * 0.1, 0.01, np.zeros(n))
    rng = np.random.default_rng(k)
    x, d = rng.standard_normal(n + k), rng.standard_normal(n)
    got = _run(lms_c[0], x, d, rng.standard_normal(k) * 0.1, 0.01, np.zeros(n))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    x2, w2 = rng.standard_normal((3, n + k)), rng.standard_normal((3, k)) * 0.1
    want = _run(lms_rows, x2, d, w2, 0.01, np.zeros(n))
    got = _run(lms_c[1], x2, d, w2, 0.01, np.zeros(n))
    for g, w in zip(got, want):       # (3 * 64 elements: two blocks, NumPy's halves)
        np.testing.assert_array_equal(g, w)


def test_lms_window_past_the_end(lms_c):
    """Python's window at the end is shorter and `w * X` raises ValueError;
    the compiled window check raises it too, with the writes of the
    iterations before (e, w) as Python leaves them."""
    args = [np.arange(12.0), np.ones(10), np.zeros(4), 0.01, np.zeros(10)]
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with pytest.raises(ValueError):
        lms(*args)
    with pytest.raises(ValueError, match="window along axis 0 is not wholly inside"):
        lms_c[0](*mine)
    np.testing.assert_array_equal(mine[2], args[2])
    np.testing.assert_array_equal(mine[4], args[4])


def test_lms_larger_than_a_block(lms_c):
    """More than 128 elements: NumPy splits the pairwise sum in halves
    (session 25: built in phase mode; was NotImplementedError)."""
    rng = np.random.default_rng(0)
    x, d = rng.standard_normal(200), rng.standard_normal(10)
    args = (x, d, rng.standard_normal(129) * 0.1, 0.01, np.zeros(10))
    for g, w in zip(_run(lms_c[0], *args), _run(lms, *args)):
        np.testing.assert_array_equal(g, w)


def window_products(x, w, out):
    for i in range(out.shape[0]):
        out[i] = (w * x[:, i:i + w.shape[1]]).sum()
    return out


def test_window_sum_in_memory_order():
    """A window of a Fortran-ordered array is Fortran-ordered, so is its
    product with a Fortran-ordered w: NumPy sums it in that order (the
    window's clamp is no part of its layout: array_index.Indexed.
    layout_view). Was summed in C order (last bits differed)."""
    rng = np.random.default_rng(5)
    p = ph.pipeline(window_products)
    for order in ("C", "F"):
        x = np.asarray(rng.standard_normal((3, 40)), order=order)
        w = np.asarray(rng.standard_normal((3, 9)), order=order)
        np.testing.assert_array_equal(p(x, w, np.zeros(6)), window_products(x, w, np.zeros(6)))


def test_lms_rows_fortran(lms_c):
    """The filter on Fortran-ordered x and w: w * X is Fortran-ordered,
    its pairwise sum in phase mode follows that order."""
    rng = np.random.default_rng(6)
    x = np.asfortranarray(rng.standard_normal((3, 40)))
    w = np.asfortranarray(rng.standard_normal((3, 9)) * 0.1)
    d = rng.standard_normal(30)
    want = _run(lms_rows, x, d, w, 0.01, np.zeros(30))
    got = _run(lms_c[1], x, d, w, 0.01, np.zeros(30))
    assert got[1].flags.f_contiguous
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g, e)


def apply_filter_pt(E, wx):
    Xest = np.sum(E * np.conj(wx))
    return Xest


def cma_pt(E, wxy, mu, R, os: int):
    """numpy-benchmarks' cma_pt, unchanged but for `abs(Xest) * abs(Xest)`
    (`abs(Xest) ** 2` calls libm pow in Python, which is not correctly
    rounded on this host, while the compiled code multiplies:
    docs/loop_windows23.md)."""
    pols, L = E.shape
    assert wxy.shape[0] == pols
    assert wxy.shape[1] == pols
    ntaps = wxy.shape[-1]
    N = (L // os // ntaps - 1) * ntaps
    err = np.zeros((pols, L), dtype=np.complex128)
    for k in range(pols):
        for i in range(N):
            X = E[:, i * os:i * os + ntaps]
            Xest = apply_filter_pt(X, wxy[k])
            err[k, i] = (R - abs(Xest) * abs(Xest)) * Xest
            wxy[k] += mu * np.conj(err[k, i]) * X
    return err, wxy


@pytest.fixture(scope="module")
def cma_c():
    return ph.pipeline(cma_pt)


def _complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


# (the kernel's first compile takes ~3.5-4 s CPU, 21 s wall under a loaded
# -n 0 run; a second layout compiles again: all cases are slow, for the
# default run's 10-minute budget)
@pytest.mark.parametrize("ntaps, order", [pytest.param(21, "C", marks=pytest.mark.slow),
                                          pytest.param(5, "F", marks=pytest.mark.slow),
                                          pytest.param(3, "C", marks=pytest.mark.slow)])
def test_cma_pt(cma_c, ntaps, order):
    """The loop-carried complex update `wxy[k] += ...` (phase mode over the
    k, i nest: complex members, a complex pairwise sum of a moving window,
    a complex element store): err and wxy bit for bit as Python, for
    random complex data, also Fortran-ordered."""
    rng = np.random.default_rng(ntaps)
    E = np.asarray(_complex(rng, (2, 20 * ntaps)), order=order)
    w = np.asarray(_complex(rng, (2, 2, ntaps)) * 0.1, order=order)
    want = _run(cma_pt, E, w, 1e-3, 1.0, 2)
    got = _run(cma_c, E, w, 1e-3, 1.0, 2)
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g, e)


@pytest.mark.slow
def test_cma_pt_benchmark_setup(cma_c):
    """numpy-benchmarks' own setup (ones, a centre tap of 1), shortened."""
    s3 = np.ones((2, 300), dtype=np.complex128)
    w = np.zeros((2, 2, 21), dtype=np.complex128)
    w[0][0][21 // 2] = w[1][1][21 // 2] = 1
    want = _run(cma_pt, s3, w, 1e-3, 1.0, 2)
    got = _run(cma_c, s3, w, 1e-3, 1.0, 2)
    for g, e in zip(got, want):
        np.testing.assert_array_equal(g, e)
