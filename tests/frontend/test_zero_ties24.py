"""Float max/min of every axis (a.max(), np.min, np.nanmax, np.nanmin)
return NumPy's element among 0.0 and -0.0 ties (frontend_ast/
numpy_zero_ties.py), compared with NumPy on this host bit for bit: zeros of
one sign with one of the other at every position of short arrays and at
the lane and tail edges of longer ones, random mixtures with smaller
elements, float64 and float32, C and Fortran arrays, a transposed view, a
view of columns, 1-D views with a step or reversed, an expression of the
argument (a new array in NumPy). Where this NumPy does not run the AVX-512
loops the rule models (numpy_zero_ties.MODELLED false), the serial loop's
rule is checked instead. A reduction in a branch not taken reads nothing
of an empty array."""
import numpy as np

from frontend_ast.numpy_zero_ties import MODELLED
from pyhalide import pipeline


@pipeline
def _four(a):
    return a.max(), np.min(a), np.nanmax(a), np.nanmin(a)


@pipeline
def _scaled(a):
    b = a * 2.0
    return b.max(), b.min()


@pipeline
def _min_or_zero(a):
    return 0.0 if a.size == 0 else a.min()


def _serial(xs, fm, is_min):
    """The serial loop's result: max/min keep the later of a tie, fmax/fmin
    (nanmax/nanmin) the earlier."""
    m = None
    for x in np.ravel(xs, order="C"):
        if m is None or (x < m if is_min else x > m) or (x == m and not fm):
            m = x
    return m


def _same(g, w):
    return g == w and np.signbit(g) == np.signbit(w)


def _check(z, strided_nan=False):
    got = _four(z)
    if MODELLED:
        want = (z.max(), np.min(z), np.nanmax(z), np.nanmin(z))
    else:
        want = (_serial(z, False, False), _serial(z, False, True),
                _serial(z, True, False), _serial(z, True, True))
    for k, (g, w) in enumerate(zip(got, want)):
        if strided_nan and k >= 2:
            # a 1-D strided nanmax/nanmin: NumPy's loop is not modelled (the
            # serial rule: docs/numpy_zero_ties24.md); the value still equal
            assert g == w and _same(g, _serial(z, True, k == 3)), (z, got, want)
            continue
        assert _same(g, w), (z.shape, z.dtype, z.strides, k, got, want)


def _zeros(n, dt, base, odd, p):
    z = np.full(n, base, dt)
    z[p] = odd
    return z


def test_every_position_1d():
    for dt in (np.float64, np.float32):
        for n in list(range(1, 36)) + [47, 64, 65, 129, 300]:
            ats = range(n) if n <= 35 else {0, 1, 2, 9, 17, n // 2, n - 17, n - 9, n - 2, n - 1}
            for p in sorted(ats):
                for base, odd in ((0.0, -0.0), (-0.0, 0.0)):
                    _check(_zeros(n, dt, base, odd, p))


def _mixed(rng, shape, dt):
    """Zeros of both signs among elements below and above zero, in ways
    where the extreme of max and of min is a zero."""
    s = rng.integers(0, 4, shape)
    z = np.zeros(shape, dt)
    z[s == 1] = -0.0
    z[s == 2] = -1.0
    return z, -z


def test_random_mixtures_1d_and_strided_views():
    rng = np.random.default_rng(24)
    for dt in (np.float64, np.float32):
        for n in (3, 8, 9, 16, 17, 18, 33, 100, 257):
            for _ in range(6):
                for z in _mixed(rng, n, dt):
                    if not (z == 0).any():
                        continue
                    _check(z)
                    w = np.repeat(z, 2)         # a view with a step, reversed
                    _check(w[::2], strided_nan=True)
                    _check(w[::-2], strided_nan=True)


def test_2d_layouts_and_views():
    rng = np.random.default_rng(25)
    for dt in (np.float64, np.float32):
        for shape in ((3, 5), (5, 17), (9, 33), (2, 100), (40, 41)):
            for _ in range(4):
                for z in _mixed(rng, shape, dt):
                    if not (z[:, 1:] == 0).any():
                        continue
                    _check(z)
                    _check(np.asfortranarray(z))
                    _check(z.T)
                    _check(z[:, 1:])


def test_expression_is_a_new_array():
    rng = np.random.default_rng(26)
    for n in (17, 40, 130):
        for z in _mixed(rng, n, np.float64):
            for v in (z, np.repeat(z, 2)[::2]):
                got, want = _scaled(v), ((v * 2.0).max(), (v * 2.0).min())
                if not MODELLED:
                    want = (_serial(v * 2.0, False, False), _serial(v * 2.0, False, True))
                assert all(_same(g, w) for g, w in zip(got, want)), (v, got, want)


def test_empty_array_in_a_branch_not_taken():
    assert _min_or_zero(np.zeros(0)) == 0.0
    z = _zeros(17, np.float64, 0.0, -0.0, 16)
    assert _same(_min_or_zero(z), z.min() if MODELLED else -0.0)
