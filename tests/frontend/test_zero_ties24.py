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
import pytest

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


def _check(z):
    got = _four(z)
    if MODELLED:
        want = (z.max(), np.min(z), np.nanmax(z), np.nanmin(z))
    else:
        want = (_serial(z, False, False), _serial(z, False, True),
                _serial(z, True, False), _serial(z, True, True))
    for k, (g, w) in enumerate(zip(got, want)):
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
    for dt in (np.float64,):        # (the lanes of float32: test_every_position_1d)
        for n in (3, 8, 9, 16, 17, 18, 33, 100, 257):
            for _ in range(6):
                for z in _mixed(rng, n, dt):
                    if not (z == 0).any():
                        continue
                    _check(z)
                    w = np.repeat(z, 2)         # a view with a step, reversed
                    _check(w[::2])
                    _check(w[::-2])


# each layout compiles its kernel (~1 s CPU): the default run takes C and F
# arrays, the transposed and sliced views are in the slow run
@pytest.mark.parametrize("views", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_2d_layouts_and_views(views):
    rng = np.random.default_rng(25)
    for dt in (np.float64,):
        for shape in ((3, 5), (5, 17), (9, 33), (2, 100), (40, 41)):
            for _ in range(4):
                for z in _mixed(rng, shape, dt):
                    if not (z[:, 1:] == 0).any():
                        continue
                    if views:
                        _check(z.T)
                        _check(z[:, 1:])
                    else:
                        _check(z)
                        _check(np.asfortranarray(z))


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


@pipeline
def _lines(a):
    return a.max(axis=1), np.min(a, axis=-1), np.nanmax(a, axis=1), np.nanmin(a, axis=1), \
        a.max(axis=0), np.nanmin(a, axis=0)


def _lines_serial(z):
    """_lines by the serial loop's rule, each line in index order."""
    out = []
    for ax, fm, is_min in ((1, False, False), (1, False, True), (1, True, False),
                           (1, True, True), (0, False, False), (0, True, True)):
        lines = z if ax == 1 else z.T
        out.append(np.array([_serial(v, fm, is_min) for v in lines], z.dtype))
    return out


@pytest.mark.parametrize("layout", ["C", pytest.param("F", marks=pytest.mark.slow)])
def test_one_axis(layout):
    """Each line along an axis innermost in memory (the last of a C array,
    the first of a Fortran one: the lines are contiguous reduces) as NumPy;
    the others too: the serial rule for max/min (NumPy's op(out, row), the
    later row), NumPy's binary loop's for nanmax/nanmin (session 25). (Each
    layout compiles its kernel: F is the slow run's case.)"""
    rng = np.random.default_rng(27)
    for dt in (np.float32,):
        for shape in ((5, 17), (9, 33), (4, 300)):
            for _ in range(3):
                for z in _mixed(rng, shape, dt):
                    for a in ((np.asfortranarray(z),) if layout == "F" else (z,)):
                        got = _lines(a)
                        numpy = _lines.py_func(a)
                        serial = _lines_serial(a)
                        for k, g in enumerate(got):
                            w = numpy[k] if MODELLED else serial[k]
                            assert np.array_equal(g, w) and \
                                (np.signbit(g) == np.signbit(w)).all(), (a.flags, k, g, w)


def test_hoist_invariant_if_pass():
    """lowering/hoist_invariant_if.py: the loop's if moves out only where
    its condition does not change in the loop (no loop variable, no buffer
    the body stores to); an empty loop still evaluates nothing."""
    from lowering.hoist_invariant_if import hoist_invariant_if
    from pyhalide import ir

    f64, i32 = ir.Float(64), ir.index(0).type
    x, n = ir.Variable(i32, "x"), ir.Variable(i32, "n")

    def loop(cond, store_to="acc"):
        body = ir.Store(store_to, ir.Load(f64, "src", x), x)
        return ir.For("x", ir.index(0), n, ir.ForKind.SERIAL, ir.IfThenElse(cond, body, None))

    zero = ir.Const(f64, 0.0)
    invariant = ir.EQ(ir.Load(f64, "res", ir.index(0)), zero)
    out = hoist_invariant_if(loop(invariant))
    assert isinstance(out, ir.IfThenElse) and ir.equal(out.condition, ir.LT(ir.index(0), n))
    inner = out.then_case
    assert isinstance(inner, ir.IfThenElse) and inner.condition is invariant
    assert isinstance(inner.then_case, ir.For) and isinstance(inner.then_case.body, ir.Store)
    moving = ir.EQ(ir.Load(f64, "res", x), zero)
    for s in (loop(moving), loop(invariant, store_to="res")):
        assert hoist_invariant_if(s) is s or isinstance(hoist_invariant_if(s), ir.For)
    both = hoist_invariant_if(loop(ir.And(invariant, moving)))     # the invariant part out
    assert isinstance(both, ir.IfThenElse) and both.then_case.condition is invariant
    kept = both.then_case.then_case.body
    assert isinstance(kept, ir.IfThenElse) and kept.condition is moving
