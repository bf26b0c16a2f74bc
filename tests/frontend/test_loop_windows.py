"""Windows that move with a loop (frontend_ast/array_windows.py):
`x[i*s : i*s + k]` with k known at call time is a view at Python's
normalized start; where NumPy's window is shorter or wrapped (past the end,
negative bounds that do not wrap to a whole window) every use raises
ValueError, as NumPy's broadcasting of the shorter window does, instead of
a value. Each kernel compiles once; results equal plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError


def window_dot(E, w, s: int, off: int, out):
    for i in range(out.shape[0]):
        X = E[:, i * s + off:i * s + off + w.shape[0]]
        out[i] = np.sum(X * w)
    return out


def trailing_max(x, k: int, out):
    for i in range(k, k + out.shape[0]):
        out[i - k] = x[i - k:i].max()
    return out


def window_sum(x, k: int, out):
    for i in range(out.shape[0]):
        out[i] = x[i:i + k].sum()
    return out


def apply_filter(E, wx):
    return np.sum(E * np.conj(wx))


def cma_err(E, wxy, R, os: int):
    """numpy-benchmarks' cma_pt without its update of wxy (a helper
    function, complex conj/abs, a complex sum of a moving window)."""
    pols, L = E.shape
    ntaps = wxy.shape[-1]
    N = (L // os // ntaps - 1) * ntaps
    err = np.zeros((pols, L), dtype=np.complex128)
    for k in range(pols):
        for i in range(N):
            X = E[:, i * os:i * os + ntaps]
            Xest = apply_filter(X, wxy[k])
            err[k, i] = (R - abs(Xest) ** 2) * Xest
    return err


def _outcome(fn, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return fn(*args)
    except ValueError:
        return ValueError


@pytest.fixture(scope="module")
def dot():
    return ph.pipeline(window_dot)


# s, off, iterations: inside, touching the end, past the end, negative
# starts that wrap to whole windows, negative starts whose stop is 0
# (empty in Python), starts below -n, a step of 0 and a negative step
@pytest.mark.parametrize("s, off, m", [(2, 0, 9), (3, 1, 6), (2, 0, 10), (1, -20, 17),
                                       (1, -20, 18), (0, -4, 2), (0, -3, 2), (1, -25, 3),
                                       (-1, 17, 6), (-1, 2, 4)])
def test_window_dot(dot, s, off, m):
    E = np.arange(40.0).reshape(2, 20)
    w = np.array([1.0, 2.0, -1.0])
    want, got = _outcome(window_dot, E, w, s, off, np.zeros(m)), \
        _outcome(dot, E, w, s, off, np.zeros(m))
    if want is ValueError:
        assert got is ValueError
    else:
        np.testing.assert_array_equal(got, want)


def test_trailing_window():
    p = ph.pipeline(trailing_max)
    x = np.array([3.0, 1, 4, 1, 5, 9, 2, 6])
    for k, m in [(2, 6), (2, 7), (1, 8), (3, 1)]:
        np.testing.assert_array_equal(p(x, k, np.zeros(m)), trailing_max(x, k, np.zeros(m)))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        p(x, 0, np.zeros(3))          # x[i:i] is empty: NumPy's message


def test_shorter_window_raises():
    """Python sums the shorter window at the end; the compiled code raises
    (a window of another size than the call-time length), never a value."""
    p = ph.pipeline(window_sum)
    x = np.arange(20.0)
    np.testing.assert_array_equal(p(x, 3, np.zeros(18)), window_sum(x, 3, np.zeros(18)))
    np.testing.assert_array_equal(p(x, 25, np.zeros(1)), window_sum(x, 25, np.zeros(1)))
    np.testing.assert_array_equal(p(x, 0, np.zeros(4)), window_sum(x, 0, np.zeros(4)))
    with pytest.raises(ValueError, match="array 'x': in this iteration the window along "
                                         "axis 0 is not wholly inside the array"):
        p(x, 3, np.zeros(19))


def window_len(x, k: int, out):
    for i in range(out.shape[0]):
        out[i] = len(x[i:i + k])
    return out


def test_size_of_a_window_past_the_end_raises():
    """The check runs where the window is made, so its size alone is
    never the full length where NumPy's window is shorter."""
    p = ph.pipeline(window_len)
    x = np.zeros(6)
    np.testing.assert_array_equal(p(x, 3, np.zeros(4)), window_len(x, 3, np.zeros(4)))
    assert window_len(x, 3, np.zeros(5))[-1] == 2
    with pytest.raises(ValueError, match="not wholly inside the array"):
        p(x, 3, np.zeros(5))


def test_cma_err_bit_exact():
    rng = np.random.default_rng(3)
    E = rng.standard_normal((2, 130)) + 1j * rng.standard_normal((2, 130))
    wxy = rng.standard_normal((2, 2, 7)) + 1j * rng.standard_normal((2, 2, 7))
    got, want = ph.pipeline(cma_err)(E, wxy, 1.0, 2), cma_err(E, wxy, 1.0, 2)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def stepped(x, k: int, out):
    for i in range(out.shape[0]):
        out[i] = x[i:i + k:2].sum()
    return out


def growing(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i:2 * i].sum()
    return out


def stored(x, k: int):
    for i in range(3):
        x[i:i + k] = 0.0
    return x


@pytest.mark.parametrize("fn, extra", [(stepped, (2, np.zeros(3))), (growing, (np.zeros(3),))])
def test_refused(fn, extra):
    """Steps other than 1 and lengths that change with the loop stay
    refused."""
    with pytest.raises(FrontendError, match="slice bounds must be known when the function "
                                            "is called"):
        ph.pipeline(fn)(np.arange(10.0), *extra)


@pytest.mark.parametrize("k", [2, 0, -1, 12])
def test_window_assigned_into_equals_python(k):
    """A window assigned into (`x[i:i + k] = 0.0`) is an element loop
    (moving_slices.py) with Python's slice rules."""
    x = np.arange(10.0)
    np.testing.assert_array_equal(STORED(x.copy(), k), stored(x.copy(), k))


STORED = ph.pipeline(stored)
