"""numpy-benchmarks forms made faster in session 24, compared with plain
Python/NumPy bit for bit (values, dtypes, exception types).

- mandelbrot's step loop (`N[I] = n; Z[I] = Z[I]**2 + C[I]` with a mask of
  the array's shape): the masked store covers whole axes (no clamps), and the
  step runs in vector lanes (frontend_ast/carried_vector.py);
- a mask whose size is not provably the array's (another argument's shape):
  the step runs over the region the mask's size bounds, the mask kept as the
  select's condition there (carried_region.region_step);
- np.roll with tuples of shifts and axes, and without an axis on n-D arrays
  (the C-order flattening), with NumPy's values, dtypes and memory orders;
- hand-written periodic loops (`a[(i + 1) % n]`): split where every `%` is the
  identity (lowering/split_mod_loops.py, int32 terms), with Python's
  ZeroDivisionError / IndexError and partial writes where Python raises;
- complex arguments: their parts (stride 2) read at that constant stride, the
  imaginary part through the real part's buffer (pyhalide/realize.PAIRED):
  layouts, views, complex64, parts passed as real arguments of their own.
"""
import numpy as np
import pytest

import pyhalide as ph


def mandel(xn, yn, maxiter, horizon):
    X = np.linspace(-2.0, 1.0, xn)
    Y = np.linspace(-1.5, 1.5, yn)
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, np.complex128)
    for n in range(maxiter):
        I = np.less(np.abs(Z), horizon)
        N[I] = n
        Z[I] = Z[I] * Z[I] + C[I]      # (test_carried_masks.py has the ** 2 form)
    N[N == maxiter - 1] = 0
    return Z, N


def other_mask(a0, b, k):
    a = a0.copy()
    for n in range(k):
        I = b > n * 0.1
        a[I] = a[I] * 0.5 + b[I]
    return a


def f32_mask(a0, k):
    a = a0.copy()
    for n in range(k):
        I = a < 3.0
        a[I] = a[I] * a[I] + np.float32(0.5)
    return a


def given_mask(a0, m, k):
    a = a0.copy()
    for n in range(k):
        a[m] = a[m] + 1.0
    return a


def rolls(a, k):
    return (np.roll(a, (1, -2), axis=(0, 1)), np.roll(a, k), np.roll(a, -k), np.roll(a, (k, 2)),
            np.roll(a, 3, axis=(0, 1)), np.roll(a, (1, 2), axis=0),
            np.roll(a, (1, 2, -5), axis=(1, 0, 1)), np.roll(a, k, axis=(-1,)), np.roll(a.T, 2))


def rolls3(a, k):
    return np.roll(a, k), np.roll(a, (1, k), axis=(2, 0))


def periodic(a):
    n = a.shape[0]
    b = np.empty_like(a)
    for i in range(n):
        b[i] = a[(i + 1) % n] + a[(i - 1) % n] - 2.0 * a[i]
    return b


def periodic2(a):
    n, m = a.shape
    b = np.empty_like(a)
    for i in range(n):
        for j in range(m):
            b[i, j] = a[(i + 1) % n, j] + a[i, (j + 1) % m] + a[i, (j - 1 + m) % m] - 3.0 * a[i, j]
    return b


def periodic_parity(a):
    n = a.shape[0]
    b = np.empty_like(a)
    for i in range(n):
        if i % 2 == 0:          # (a constant divisor: not split on)
            b[i] = a[(i + 1) % n]
        else:
            b[i] = -a[i]
    return b


def periodic_into(out, a, m, k):
    for i in range(out.shape[0]):
        out[i] = a[(i + k) % m] * 2.0
    return out


def normalize(a):
    a_oo = a - a.real.min() - 1j * a.imag.min()
    return a_oo / np.abs(a_oo).max()


def parts(a, b):
    return a.real.min(), a.imag.max(), np.abs(a) + b * 2.0, a.imag * 3.0 - a.real


def two_reals(x, y):
    return x * 2.0 + y, np.minimum(x, y).sum()


def _run(f, args):
    args = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    try:
        with np.errstate(all="ignore"):
            return f(*args)
    except Exception as e:          # the exception's type is compared
        return type(e)


def _same(x, y):
    if isinstance(x, tuple):
        return isinstance(y, tuple) and len(x) == len(y) and all(map(_same, x, y))
    if isinstance(x, type):
        return x is y
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y, equal_nan=True)


# one compiled pipeline per kernel, shared by the tests
(_MANDEL, _OTHER, _F32, _GIVEN, _ROLLS, _ROLLS3, _PERIODIC, _PERIODIC2, _PARITY, _INTO,
 _NORMALIZE, _PARTS, _TWO_REALS) = map(ph.pipeline, (
    mandel, other_mask, f32_mask, given_mask, rolls, rolls3, periodic, periodic2,
    periodic_parity, periodic_into, normalize, parts, two_reals))


@pytest.mark.parametrize("args", [(13, 7, 30, 2.0), (1, 1, 5, 2.0), (0, 3, 5, 2.0),
                                  (9, 5, 0, 2.0), (21, 3, 12, np.inf), (17, 2, 6, np.nan)])
def test_mandelbrot_steps(args):
    want = _run(mandel, args)
    assert _same(want, _run(_MANDEL, args))


def test_masks_of_other_sizes():
    rng = np.random.default_rng(24)
    for a, b, k in [(rng.random((4, 9)), rng.random((4, 9)), 7),
                    (rng.random((4, 9)), rng.random((4, 8)), 7),     # NumPy's IndexError
                    (rng.random((0, 9)), rng.random((0, 9)), 3),
                    (rng.random((3, 17)), rng.random((3, 17)), 0)]:
        assert _same(_run(other_mask, (a, b, k)), _run(_OTHER, (a, b, k)))


def test_float32_steps_and_given_masks():
    rng = np.random.default_rng(7)
    for n in (1, 5, 37):
        a = (rng.random((5, n)) * 2).astype(np.float32)
        assert _same(_run(f32_mask, (a, 5)), _run(_F32, (a, 5)))
    # (a mask of another shape in a loop that runs no iteration: Python runs,
    # compiled code raises NumPy's IndexError at call time, as before session 24)
    for m, ks in ((np.ones((3, 4), bool), (0, 2)), (rng.random((3, 4)) < 0.5, (0, 2)),
                  (np.ones((3, 5), bool), (2,))):
        for k in ks:
            args = (np.zeros((3, 4)), m, k)
            assert _same(_run(given_mask, args), _run(_GIVEN, args))


def _layout(x):
    return x.flags.c_contiguous, x.flags.f_contiguous


def test_roll_tuples_and_flat():
    rng = np.random.default_rng(1)
    for a in [np.arange(12.0).reshape(3, 4), np.asfortranarray(rng.random((4, 3))),
              rng.random((6, 8))[::2, ::-3]]:
        for k in (0, 5, -7, 2 ** 40, 2 ** 63 - 1, 1 - 2 ** 63):
            want, got = rolls(a, k), _ROLLS(a, k)
            assert _same(want, got)
            assert [_layout(x) for x in want] == [_layout(x) for x in got]
    b = rng.random((3, 4, 5))
    for k in (0, 2, -61):
        assert _same(rolls3(b, k), _ROLLS3(b, k))


def test_hand_written_periodic_loops():
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 3, 17, 300):
        a = rng.random(n)
        assert _same(periodic(a), _PERIODIC(a))
        assert _same(periodic_parity(a), _PARITY(a))
    for shape in ((1, 1), (2, 5), (6, 9), (0, 4)):
        a = rng.random(shape)
        assert _same(periodic2(a), _PERIODIC2(a))


@pytest.mark.parametrize("m,k", [(5, 2), (5, -7), (9, 1), (12, 3), (0, 1), (1, 0), (7, -1)])
def test_periodic_errors_and_partial_writes(m, k):
    a = np.arange(8.0)
    want_out, got_out = np.full(10, -1.0), np.full(10, -1.0)
    want = _run(periodic_into, (want_out, a, m, k))
    try:
        got = _INTO(got_out, a, m, k)
    except Exception as e:
        got = type(e)
    assert _same(want, got)
    if isinstance(want, type):      # (_run copied the arrays: Python's writes again)
        ref = np.full(10, -1.0)
        with pytest.raises(want):
            periodic_into(ref, a, m, k)
        assert np.array_equal(ref, got_out)


@pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_complex_parts_at_stride_two(every):
    """(complex64 and a transposed view compile kernels of their own: the slow run's case)"""
    rng = np.random.default_rng(5)
    z = rng.random((6, 10)) + 1j * rng.random((6, 10))
    for a in (z, z.astype(np.complex64), z.T) if every else (z,):
        b = rng.random(a.shape[-1]).astype(a.real.dtype)
        assert _same(_run(parts, (a, b)), _run(_PARTS, (a, b)))
    for a in (z.ravel(), z.ravel()[::-1]):
        assert _same(_run(normalize, (a,)), _run(_NORMALIZE, (a,)))
    # the parts of one complex array passed as two real arguments, then other
    # arrays of the same strides (not parts of one array) through the same kernel
    w = rng.random(40) + 1j * rng.random(40)
    for x, y in ((w.real, w.imag), (w.imag, w.real), (rng.random(80)[::2], rng.random(80)[1::2]),
                 (w.real, (w * 2).imag)):
        assert _same(two_reals(x, y), _TWO_REALS(x, y))
