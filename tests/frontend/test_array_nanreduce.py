"""np.nanmin, np.nanmax, np.nanargmin, np.nanargmax
(frontend_ast/array_nanreduce.py) compared with NumPy: NaNs skipped,
all-NaN slices (NaN for nanmin/nanmax, ValueError for nanargmin/nanargmax,
as NumPy), empty axes (ValueError), integer arrays, dtypes and keepdims."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

RNG = np.random.default_rng(1619)


def nan_extremes(a):
    return (np.nanmin(a), np.nanmax(a), np.nanmin(a, axis=0), np.nanmax(a, axis=1, keepdims=True),
            np.nanmin(a, axis=(0, 1)))


def nan_args(a):
    return (np.nanargmin(a), np.nanargmax(a), np.nanargmin(a, axis=1),
            np.nanargmax(a, axis=0, keepdims=True))


def with_nans(shape, dtype=np.float64):
    x = RNG.standard_normal(shape).astype(dtype)
    x.flat[::3] = np.nan
    x.flat[1] = np.inf
    return x


def all_nan_row():
    x = with_nans((3, 4))
    x[1] = np.nan
    return x


# one pipeline of each for every case: the float64 cases run one kernel (the
# values differ, not the types)
NAN_EXTREMES, NAN_ARGS = ph.pipeline(nan_extremes), ph.pipeline(nan_args)


@pytest.mark.parametrize("a", [
    with_nans((4, 5)), with_nans((3, 6), np.float32), all_nan_row(), np.full((2, 3), np.nan),
    RNG.integers(-9, 9, (4, 3)).astype(np.int16), np.zeros((0, 3)),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_equal_numpy(a):
    check(NAN_EXTREMES, a)
    check(NAN_ARGS, a)


def nanarg_of_rows(a):
    return np.nanargmax(a[0]), np.nanargmin(a[2])


def test_all_nan_slice_raises_only_where_it_is_computed():
    check(ph.pipeline(nanarg_of_rows), all_nan_row())
    x = all_nan_row()
    x[2] = np.nan
    check(ph.pipeline(nanarg_of_rows), x)
