"""Reductions of a boolean-mask read of integers and bools (`x[x > 0].sum()`,
`np.min(a[m])`, `y[m].any()`: frontend_ast/mask_reduce.py) compile and equal
NumPy, dtype included: the unselected elements become the reduction's
identity; an empty selection's min/max raises NumPy's ValueError at run
time. Float sums and min/max of a selection stay a located error (NumPy's
result depends on the compacted positions)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError


def positive_sum(x):
    return x[x > 0].sum()


def nonzero_prod(x):
    return x[x != 0].prod()


def small_max(x):
    return x[x < 3].max()


def positive_min(x):
    return np.min(x[x > 0])


def sum_axis0(x):
    return x[x > 0].sum(axis=0)


def other_mask_sum(x, y):
    return np.sum(y[x > 0])


def any_selected(x, y):
    return y[x > 0].any()


def all_selected(x, y):
    return y[x > 0].all()


RNG = np.random.default_rng(22)
INPUTS = [RNG.integers(-9, 9, 10).astype(np.int16), RNG.integers(-9, 9, (4, 5)),
          np.array([-1, -2], np.int32), np.array([], np.int8),
          RNG.integers(0, 2, 6).astype(np.uint8), RNG.integers(-3, 3, (2, 3, 4)).astype(np.int8),
          np.array([True, False, True])]


def outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:       # the compiled call must raise the same type
        return None, type(e)


@pytest.mark.parametrize("fn", [positive_sum, nonzero_prod, small_max, positive_min, sum_axis0])
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_reductions_of_a_mask_read_equal_numpy(fn, k):
    x = INPUTS[k]
    expect, exc = outcome(fn, x)
    got, got_exc = outcome(ph.pipeline(fn), x)
    assert got_exc is exc
    if exc is None:
        assert type(got) is type(expect) and got == expect


def test_an_empty_selection_raises_numpys_error():
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        ph.pipeline(positive_min)(np.array([-1, 0, -5]))


@pytest.mark.parametrize("fn", [other_mask_sum, any_selected, all_selected])
@pytest.mark.parametrize("dt", [np.int64, np.uint16, np.bool_, np.float64])
def test_masks_of_another_array(fn, dt):
    for seed in range(3):
        r = np.random.default_rng(seed)
        x = r.integers(-2, 2, 9)
        y = r.integers(0, 3, 9).astype(dt)
        expect, exc = outcome(fn, x, y)
        if fn is other_mask_sum and dt is np.float64:
            with pytest.raises(FrontendError, match="boolean-mask read"):
                ph.pipeline(fn)(x, y)
            continue
        got, got_exc = outcome(ph.pipeline(fn), x, y)
        assert got_exc is exc and type(got) is type(expect) and got == expect


def test_a_mask_size_that_differs_raises_index_error():
    with pytest.raises(IndexError):
        ph.pipeline(other_mask_sum)(np.arange(3), np.arange(4))


@pytest.mark.parametrize("fn", [positive_sum, small_max])
def test_float_selections_stay_refused_with_a_hint(fn):
    with pytest.raises(FrontendError) as e:
        ph.pipeline(fn)(RNG.standard_normal(6))
    msg = str(e.value)
    assert "np.where(mask, x, " in msg and "test_mask_reductions22.py:" in msg
