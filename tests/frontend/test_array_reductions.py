"""Reductions of whole arrays (np.sum, prod, min, max, mean, var, std,
argmin, argmax, any, all and the methods) against plain Python: values,
dtypes, shapes and exceptions; integer results exactly, float sums within
a tolerance (their summation order is NumPy's pairwise one, made elsewhere)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError
from tests.frontend.frontend_check import check, run_plain, same

DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float32, np.float64]
SHAPES = [(7,), (3, 4), (2, 3, 4), (0,), (0, 3), (3, 0), (1, 5)]


def sample(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    if np.dtype(dt).kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -100), min(info.max, 250), shape).astype(dt)


def close(p, *args):
    """Like check, with float values compared within a relative tolerance
    (a float sum's order may differ from NumPy's pairwise one)."""
    exp = run_plain(p, *args)
    got = p(*args)
    _close(got, exp, p.__name__)
    return got


def _close(got, exp, name):
    if isinstance(exp, tuple):
        assert isinstance(got, tuple) and len(got) == len(exp)
        for g, e in zip(got, exp):
            _close(g, e, name)
        return
    assert type(got) is type(exp), f"{name}: {type(got)} != {type(exp)}"
    if isinstance(exp, np.ndarray):
        assert got.dtype == exp.dtype and got.shape == exp.shape, \
            f"{name}: {got.dtype}{got.shape} != {exp.dtype}{exp.shape}"
    g, e = np.asarray(got), np.asarray(exp)
    if e.dtype.kind == "f":
        tol = 1e-5 if e.dtype == np.float32 else 1e-12
        assert np.allclose(g, e, rtol=tol, atol=tol, equal_nan=True), f"{name}: {got} != {exp}"
    else:
        assert same(got, exp), f"{name}: {got!r} != {exp!r}"


def _exact_kinds(dt):
    return np.dtype(dt).kind != "f"


# every reduction with one axis argument ---------------------------------------------------
def _pipelines(ax, kd):
    @ph.pipeline
    def sums(a):
        return (np.sum(a, axis=ax, keepdims=kd), a.prod(axis=ax, keepdims=kd),
                a.any(axis=ax, keepdims=kd), np.all(a, axis=ax, keepdims=kd))

    @ph.pipeline
    def moments(a):
        return (np.mean(a, axis=ax, keepdims=kd), a.var(axis=ax, keepdims=kd),
                np.std(a, axis=ax, ddof=1, keepdims=kd))

    @ph.pipeline
    def extremes(a):
        return np.min(a, axis=ax, keepdims=kd), a.max(ax, keepdims=kd)

    return sums, moments, extremes


CASES = {(ax, kd): _pipelines(ax, kd) for ax in (0, -1) for kd in (False, True)}


@ph.pipeline
def sums_all(a):
    return np.sum(a), a.prod(keepdims=True), a.any(), np.all(a, axis=None, keepdims=True)


@ph.pipeline
def moments_all(a):
    return np.mean(a, keepdims=True), a.var(axis=None), np.std(a, ddof=1)


@ph.pipeline
def extremes_all_kd(a):
    return np.min(a), a.max(None, keepdims=True)


CASES[None, False] = (sums_all, moments_all, extremes_all_kd)


@ph.pipeline
def sums01(a):
    return (np.sum(a, axis=(0, 1)), a.prod(axis=(1, 0), keepdims=True), a.any(axis=(0, 1)),
            np.all(a, axis=(0, 1), keepdims=True))


@ph.pipeline
def moments01(a):
    return (np.mean(a, axis=(0, -1), keepdims=True), a.var(axis=(0, -1)),
            np.std(a, axis=(-1, 0), ddof=1))


@ph.pipeline
def extremes01(a):
    return np.min(a, axis=(0, -1)), a.max((0, 1), keepdims=True)


CASES[(0, 1), False] = (sums01, moments01, extremes01)


def _axis_fits(ax, ndim):
    items = ax if isinstance(ax, tuple) else (() if ax is None else (ax,))
    ks = [k % ndim for k in items if -ndim <= k < ndim]
    return len(ks) == len(items) and len(set(ks)) == len(ks)


def _run_case(dt, shape, ax, kd):
    if not _axis_fits(ax, len(shape)):
        pytest.skip("axis not valid for this shape (tested in test_bad_axis)")
    sums, moments, extremes = CASES[ax, kd]
    a = sample(shape, dt)
    (check if _exact_kinds(dt) else close)(sums, a)
    close(moments, a)
    check(extremes, a)


# the default run covers a few dtypes and shapes; every one runs with -m slow
_QUICK_DTYPES = (np.float32,)
_QUICK_SHAPES = ((3, 0),)


def _marked(values, quick):
    return [v if v in quick else pytest.param(v, marks=pytest.mark.slow) for v in values]


def _marked_cases(cases, quick):
    return [pytest.param(*c, marks=() if c in quick else pytest.mark.slow) for c in cases]


# float reductions compile in 1-4 s each since the row path and blocked extremes
# (session 7): the default run keeps one axis case of each kind
@pytest.mark.parametrize("dt", _marked(DTYPES, _QUICK_DTYPES))
@pytest.mark.parametrize("ax,kd", _marked_cases([(None, False), (-1, True), ((0, 1), False)],
                                                [(None, False), ((0, 1), False)]))
def test_reductions_of_every_dtype(dt, ax, kd):
    _run_case(dt, (2, 3, 4), ax, kd)


@pytest.mark.parametrize("shape", _marked(SHAPES, _QUICK_SHAPES))
@pytest.mark.parametrize("ax,kd", _marked_cases(list(CASES), [(0, False), (0, True),
                                                              ((0, 1), False)]))
def test_reductions_of_every_shape(shape, ax, kd):
    _run_case(np.int16, shape, ax, kd)
    if shape == (3, 0):
        _run_case(np.float32, shape, ax, kd)


def test_bad_axis_is_a_located_error():
    with pytest.raises(CompileError, match="out of bounds"):
        sums01(np.ones(3))


# dtypes -------------------------------------------------------------------------------------
@ph.pipeline
def sum_dtypes(a):
    return (a.sum(), np.sum(a, dtype=np.int8), a.sum(axis=0, dtype=np.float64),
            np.prod(a, dtype=np.uint16), a.mean(dtype=np.float32))


@pytest.mark.parametrize("dt", [np.uint8, np.int8, np.bool_, np.int32, np.uint64])
def test_result_dtypes_follow_numpy(dt):
    a = sample((5, 3), dt, 3)
    got = close(sum_dtypes, a)
    assert got[0].dtype == np.sum(a).dtype      # uint8 -> uint64, int8/bool -> int64


def test_integer_sums_wrap_as_numpy():
    a = np.full((4, 100), 200, np.uint8)
    check(sum_dtypes, a)
    check(sum_dtypes, np.full((3, 70), 127, np.int8))


@ph.pipeline
def var_float32(a):
    return a.var(), a.std(axis=0), a.mean(axis=1), np.var(a, dtype=np.float64)


def test_float32_moments_stay_float32():
    a = sample((6, 5), np.float32, 4)
    got = close(var_float32, a)
    assert [type(got[0]), got[1].dtype, got[2].dtype, type(got[3])] == \
        [np.float32, np.float32, np.float32, np.float64]


# NaN, first occurrence, empty -------------------------------------------------------------
@ph.pipeline
def extremes_all(a):
    return a.min(), a.max(), a.argmin(), np.argmax(a), np.argmin(a, axis=0), a.argmax(axis=-1)


@ph.pipeline
def arg_keepdims(a):
    return np.argmin(a, keepdims=True), a.argmax(axis=0, keepdims=True)


_NANS = np.array([[3.0, np.nan, 1.0], [np.nan, 0.5, 0.5], [2.0, 2.0, -1.0]])


def test_nan_propagates_and_first_nan_wins():
    check(extremes_all, _NANS)


@pytest.mark.slow
def test_nan_propagates_and_first_nan_wins_in_float32_and_keepdims():
    check(extremes_all, _NANS.astype(np.float32))
    check(arg_keepdims, _NANS)


def test_first_occurrence_and_signed_zero():
    check(extremes_all, np.array([[1, 0, 0, 1], [0, 1, 1, 0]], np.int16))
    check(extremes_all, np.array([[0.0, -0.0], [-0.0, 0.0]]))
    check(extremes_all, np.array([[True, False], [True, True]]))
    check(extremes_all, np.full((2, 3), np.inf))
    check(extremes_all, np.full((2, 3), np.iinfo(np.int64).max))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_empty_min_argmin_raise_value_error(shape):
    a = np.zeros(shape)
    with pytest.raises(ValueError):
        extremes_all(a)
    check(extremes_all, a)


@ph.pipeline
def min_axis1(a):
    return a.min(axis=1), np.argmax(a, axis=1)


def test_empty_result_of_nonempty_axis():
    check(min_axis1, np.zeros((0, 3)))
    with pytest.raises(ValueError, match="zero-size array"):
        min_axis1(np.zeros((3, 0)))


# scalars, keywords, errors --------------------------------------------------------------------
@ph.pipeline
def of_scalars(x, y):
    return np.sum(x), np.mean(y), np.max(x), np.argmin(y), np.any(x), np.prod(np.float32(y))


def test_reductions_of_scalars():
    check(of_scalars, 3, 2.5)
    check(of_scalars, 0, -1.0)


@ph.pipeline
def with_out(a, b):
    return np.sum(a, out=b)


@ph.pipeline
def with_where(a):
    return a.sum(where=a > 0)


@ph.pipeline
def unknown_kw(a):
    return a.sum(axes=0)


@pytest.mark.parametrize("p,what", [(with_out, "out="), (with_where, "where="),
                                    (unknown_kw, "unexpected argument 'axes'")])
def test_unsupported_arguments_are_located_errors(p, what):
    with pytest.raises(CompileError, match=what) as e:
        p(*([np.ones(3)] * (2 if p is with_out else 1)))
    assert "test_array_reductions.py" in str(e.value)


@ph.pipeline
def ddof_float(a):
    return a.var(ddof=1.5), np.std(a, axis=0, ddof=3), a.var(ddof=10)


def test_ddof():
    close(ddof_float, sample((3, 4), np.float64, 5))


@pytest.mark.slow
def test_ddof_of_integers():
    close(ddof_float, sample((3, 4), np.int32, 5))


# composed with array expressions and loops --------------------------------------------------
@ph.pipeline
def normalize(a):
    m = a.mean(axis=0)
    s = a.std(axis=0)
    z = (a - m) / s
    t = 0.0
    for i in range(z.shape[0]):
        t += z[i, 0]
    return z, t, z.sum(axis=1).max()


def test_reductions_compose_with_array_code():
    close(normalize, sample((5, 4), np.float64, 6))


@ph.pipeline
def snapshot(a):
    b = a.copy()
    s = b.sum()
    m = b.max(axis=0)
    b[0, 0] = 100
    return s, m, b


@ph.pipeline
def write_into_result(a):
    s = a.sum(axis=0)
    s[0] = 7
    return s, s.sum(), (a > 2).sum(axis=1), np.sum(a * 2 + 1, axis=-1, keepdims=True)


def test_reductions_read_the_values_before_later_writes():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    check(snapshot, a)
    check(write_into_result, a)


# schedules --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dts", [(np.int32,), pytest.param((np.uint8, np.int64),
                                                            marks=pytest.mark.slow)])
def test_rfactor_schedule_on_a_reduction(dts):
    @ph.pipeline
    def total(a):
        s = a.sum(axis=1)
        return s, a.max()

    @total.schedule
    def _(p):
        f = p.funcs["s"]
        ro, ri = ph.RVar("ro"), ph.RVar("ri")
        u = ph.Var("u")
        f.update(0).split(p.vars["s", "axis1"], ro, ri, 16)
        f.update(0).rfactor(ro, u).compute_root()
        m = p.funcs["max"]
        mo, mi = ph.RVar("mo"), ph.RVar("mi")
        v = ph.Var("v")
        m.update(0).split(p.vars["max", "axis1"], mo, mi, 8)
        m.update(0).rfactor(mo, v).compute_root()

    for dt in dts:
        check(total, sample((5, 100), dt, 7))
