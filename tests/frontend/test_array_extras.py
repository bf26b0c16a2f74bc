"""np.flip/fliplr/flipud, np.count_nonzero, np.ptp, np.round with decimals
(also the .round method) and .astype(copy=...) (frontend_ast/array_extras.py),
each compared with plain Python (values, dtypes and types exactly)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(1016)
A = RNG.standard_normal((4, 5)) * 100
INTS = RNG.integers(-500, 900, (4, 5))


def flips(a):
    return (np.flip(a), np.flip(a, axis=1), np.flip(a, 0), np.fliplr(a), np.flipud(a),
            np.flip(a, axis=(0, 1)))


def flip_is_a_view(a):
    a = a.copy()
    f = np.flip(a, axis=0)
    a[0, 0] = 5.0
    return f * 1


def counts(a):
    return (np.count_nonzero(a > 0), np.count_nonzero(a > 0, axis=1),
            np.count_nonzero(np.floor(a / 50), axis=(0, 1), keepdims=True))


def count_ints(a):
    return np.count_nonzero(a % 3), np.count_nonzero(a, axis=0)


def peak_to_peak(a):
    return np.ptp(a), np.ptp(a, axis=1), np.ptp(a, axis=0, keepdims=True)


def rounds(a):
    return np.round(a, 2), np.around(a, -1), np.round(a, decimals=3), a.round(1), np.round(a, 0)


def round_scalars(x):
    return np.round(x, 2), np.round(12345, -2), np.round(7, 1), np.round(-0.25, 1)


def astype_copies(a):
    b = a.copy()
    c = b.astype(np.float64, copy=False)       # the same array: writes reach b
    c[0, 0] = 1.0
    return b, a.astype(np.int32, copy=False), a.astype(np.float64, copy=True) + 1


@pytest.mark.parametrize("fn,args", [
    (flips, (A,)), (flip_is_a_view, (A,)), (counts, (A,)), (count_ints, (INTS,)),
    (peak_to_peak, (A,)), (peak_to_peak, (INTS.astype(np.int8),)), (rounds, (A,)),
    (rounds, ((A / 7).astype(np.float32),)), (rounds, (INTS,)), (round_scalars, (2.675,)),
    (astype_copies, (A,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_equals_plain_python(fn, args):
    check(ph.pipeline(fn), *args)


def round_bool(a):
    return np.round(a > 0, 1)


def round_runtime_decimals(a, d):
    return np.round(a, d)


def test_refusals_are_located():
    expect_error(round_bool, (A,), "np.round(a > 0, 1)", "not supported")
    expect_error(round_runtime_decimals, (A, 2), "d)", "constant integer")


def norms_along_axes(a):
    return (np.linalg.norm(a, axis=1), np.linalg.norm(a, ord=1, axis=0),
            np.linalg.norm(a, np.inf, axis=1), np.linalg.norm(a, -np.inf, 1),
            np.linalg.norm(a, 0, axis=1), np.linalg.norm(a, axis=(0, 1), keepdims=True),
            np.linalg.norm(a, "fro", axis=(1, 0)))


def norm_whole(a):
    return np.linalg.norm(a), np.linalg.norm(a, "fro", keepdims=True)


@pytest.mark.slow
def test_norm_along_axes_equals_numpy():
    check(ph.pipeline(norms_along_axes), A)
    check(ph.pipeline(norms_along_axes), INTS[:3, :4])
    check(ph.pipeline(norms_along_axes), (A / 9).astype(np.float32))


def test_norm_of_the_whole_array_is_the_c_order_dot():
    """NumPy takes sqrt(x.ravel() @ x.ravel()) (BLAS's order); compiled code
    sums x * x in C order, as its np.dot does."""
    a = RNG.standard_normal((30, 41))
    got, kept = ph.pipeline(norm_whole)(a)
    s = 0.0
    for v in a.ravel():
        s += v * v
    assert type(got) is np.float64 and got == np.sqrt(s)
    assert kept.shape == (1, 1) and kept[0, 0] == got
    assert np.isclose(got, np.linalg.norm(a), rtol=1e-13)
    assert ph.pipeline(norm_whole)(INTS)[0] == np.linalg.norm(INTS)      # exact integers


def norm_ord3(a):
    return np.linalg.norm(a, 3, axis=1)


def test_norm_refusals_are_located():
    expect_error(norm_ord3, (A,), "np.linalg.norm(a, 3", "ord=3")


def nan_reductions(a):
    return (np.nansum(a), np.nansum(a, axis=1), np.nanmean(a), np.nanmean(a, axis=0, keepdims=True),
            np.nansum(a, dtype=np.float64))


def nanmean_rows(a):
    return np.nanmean(a, axis=1)


def nan_reductions_ints(a):
    return np.nansum(a), np.nanmean(a, axis=1)


def test_nansum_nanmean_equal_numpy():
    a = RNG.standard_normal((5, 300))
    a[1, 3] = a[4] = np.nan
    a[:, 7] = np.nan                # a column of NaNs: nanmean 0/0 is NaN
    with np.errstate(all="ignore"):
        check(ph.pipeline(nan_reductions), a)


@pytest.mark.slow
def test_nan_reductions_of_integers_equal_numpy():
    check(ph.pipeline(nan_reductions_ints), INTS)


@pytest.mark.slow
def test_nanmean_of_float32_rows_equals_numpy():
    a = np.random.default_rng(132).standard_normal((5, 300)).astype(np.float32)
    a[1, 3] = a[4] = np.nan
    a[:, 7] = np.nan
    with np.errstate(all="ignore"):
        check(ph.pipeline(nanmean_rows), a)
