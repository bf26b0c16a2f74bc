"""NumPy's element among ±0 ties of float max/min/nanmax/nanmin in phase mode
(loops that carry arrays: frontend_ast/carried_zero_ties.py), compared with
NumPy itself (values and sign bits). Each test also checks that its arrays
hold a tie where the serial loop's zero (the last for max/min, the first
for nanmax/nanmin) is not NumPy's, so it fails where the pass is missing."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.numpy_zero_ties import MODELLED

pytestmark = pytest.mark.skipif(not MODELLED, reason="NumPy does not run its AVX-512 loops")


def _rows(seed, shape=(6, 40), base=1.0, count=10, dtype=np.float64):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        x = np.full(shape, base, dtype)
        x[rng.random(shape) < 0.1] = -0.0
        x[rng.random(shape) < 0.1] = 0.0
        out.append(x)
    return out


def _serial(x, first, axis):
    """The serial loop's zero of each line along `axis` where it has one."""
    x = np.moveaxis(x, axis, -1)
    out = np.ones(x.shape[:-1], x.dtype)
    for i in np.ndindex(*x.shape[:-1]):
        z = x[i][x[i] == 0]
        if z.size:
            out[i] = z[0] if first else z[-1]
    return out


def _same(want, got):
    want, got = np.asarray(want), np.asarray(got)
    return want.dtype == got.dtype and want.shape == got.shape and \
        np.array_equal(want, got, equal_nan=True) and \
        np.array_equal(np.signbit(want), np.signbit(got))


def _check(fn, arrays, reduce, first, axis):
    """fn compiled against NumPy on every array; some array's reduction
    (reduce(x)) differs from the serial zero somewhere."""
    P = ph.pipeline(fn)
    differs = False
    for x in arrays:
        assert _same(fn(x), P(x))
        r = reduce(x)
        zero = r == 0
        differs |= bool((np.signbit(r[zero]) != np.signbit(_serial(x, first, axis)[zero])).any())
    assert differs


def k_min_rows(a):
    out = np.ones(a.shape[0])
    for i in range(3):
        out = out * a.min(axis=1)
    return out


def k_add_max(a):
    out = -np.zeros(a.shape[0])
    for i in range(2):
        out += a.max(axis=1)
    return out


def k_nanmin_rows(a):
    out = np.ones(a.shape[0], a.dtype)
    for i in range(3):      # (an odd count: the product keeps the zero's sign)
        out = out * np.nanmin(a, axis=1)
    return out


def k_row_max(a):
    s = np.ones(3)
    for i in range(a.shape[0]):
        s = s * a[i].max()
    return s


def test_min_of_rows_in_a_loop():
    # (rows of 8 elements or fewer: NumPy's loop is the serial one, the
    # phases do not run; 9: one lane)
    short = [x[:, :n] for x, n in zip(_rows(5, count=2), (5, 9))]
    _check(k_min_rows, _rows(1) + short, lambda x: x.min(axis=1), False, 1)


def test_add_max_of_rows_in_a_loop():
    _check(k_add_max, _rows(2, base=-1.0), lambda x: x.max(axis=1), False, 1)


def test_nanmin_of_rows_in_a_loop_float32():
    arrays = _rows(3, dtype=np.float32)
    for x in arrays[::2]:
        x[0, 3] = np.nan
    _check(k_nanmin_rows, arrays, lambda x: np.nanmin(x, axis=1), True, 1)


def test_whole_max_of_each_row():
    # (each row's max: the sign of the product shows every row's zero)
    arrays = [x[:, :37] for x in _rows(4, shape=(1, 40), base=-1.0, count=40)]
    P = ph.pipeline(k_row_max)
    differs = False
    for x in arrays:
        assert _same(k_row_max(x), P(x))
        if x.max() == 0:
            differs |= bool(np.signbit(x.max()) != np.signbit(_serial(x, False, 1)[0]))
    assert differs


def test_loop_not_run_reads_nothing():
    # an empty reduced axis in a loop that does not run: no error, as NumPy
    P = ph.pipeline(k_min_rows_n)
    x = np.zeros((3, 0))
    assert _same(k_min_rows_n(x, 0), P(x, 0))
    with pytest.raises(ValueError):
        P(x, 1)


def k_min_rows_n(a, n):
    out = np.ones(a.shape[0])
    for i in range(n):
        out = out * a.min(axis=1)
    return out
