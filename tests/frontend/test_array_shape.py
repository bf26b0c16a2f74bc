"""Shape operations on array values (.T, transpose, reshape, ravel,
flatten, squeeze, expand_dims, swapaxes, moveaxis), compared with plain
Python: values, dtypes, shapes, NumPy's errors, and NumPy's aliasing (a
view of a local array shows later writes to it; a copy does not)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

DTYPES = [np.uint8, np.int16, np.int64, np.float32, np.float64, np.bool_]
SHAPES = [(5,), (3, 4), (2, 3, 4), (2, 3, 1, 5)]


def _data(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 100, shape).astype(dt)


@ph.pipeline
def any_ndim(a):
    return (a.T, np.transpose(a), np.moveaxis(a, 0, -1), np.swapaxes(a, 0, -1),
            np.expand_dims(a, 1), np.squeeze(np.expand_dims(a, 0)), a.reshape(-1), a.ravel(),
            a.flatten(), np.ravel(a), a.squeeze())


@pytest.mark.parametrize("dt,shape", [(dt, SHAPES[k % len(SHAPES)]) for k, dt in enumerate(DTYPES)]
                         + [(np.float64, s) for s in SHAPES[2:]])
def test_shape_operations_any_ndim(dt, shape):
    check(any_ndim, _data(shape, dt))


@ph.pipeline
def three_d(a):
    return (a.transpose(1, 0, 2), a.transpose((2, 0, 1)), np.transpose(a, (1, 2, 0)),
            np.moveaxis(a, (0, 1), (2, 0)), np.expand_dims(a, (0, -1)), a.swapaxes(2, 1),
            np.reshape(a, (a.shape[0] * a.shape[1], -1)), a.reshape(a.shape[2], 1, -1).T)


@pytest.mark.parametrize("shape", [(2, 3, 4), (4, 1, 3), (3, 5, 2)])
def test_three_d_permutations_and_reshapes(shape):
    check(three_d, _data(shape, np.float32))


@ph.pipeline
def reshape_rows(a):
    b = a.reshape(2, -1)
    return b * 2, b.shape[1], b.ndim, b.size, a.T.shape[0]


def test_reshape_symbolic_sizes_one_specialization():
    for n in (6, 10, 14, 0):
        check(reshape_rows, np.arange(n, dtype=np.int32))
    assert len(reshape_rows._specs) == 1


def test_reshape_size_mismatch_is_value_error():
    with pytest.raises(ValueError, match=r"cannot reshape array of size 7 into shape \(2,newaxis\)"):
        reshape_rows(np.arange(7, dtype=np.int32))
    check(reshape_rows, np.arange(7, dtype=np.int32))


@ph.pipeline
def reshape_fixed(a):
    return a.reshape(2, 3)


@ph.pipeline
def two_unknown(a):
    return a.reshape(-1, -1)


def test_reshape_errors():
    with pytest.raises(ValueError, match=r"cannot reshape array of size 8 into shape \(2,3\)"):
        reshape_fixed(np.arange(8))
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        two_unknown(np.arange(6))


@ph.pipeline
def views_alias(a):
    c = a * 1
    t = c.T
    r = c.reshape(-1)
    v = c.ravel()
    e = np.expand_dims(c, 0)
    f = c.flatten()
    c[0, 1] = -5
    return t, r, v, e, f


@pytest.mark.parametrize("dt", [np.int32, np.float64])
def test_views_of_a_local_array_see_later_writes(dt):
    out = check(views_alias, _data((3, 4), dt))
    assert out[0][1, 0] == -5 and out[1][1] == -5 and out[4][1] != -5


@ph.pipeline
def transposed_reshape(k):
    c = np.zeros((3, 4))
    t = c.T
    copy = t.reshape(-1)         # NumPy copies: the transpose is not C-contiguous
    same = t.reshape(4, 3)       # same shape: a view
    ones = t.reshape(4, 1, 3)    # only size-1 axes added: a view
    rav = t.ravel()              # a copy
    c[0, 1] = k
    return copy, same, ones, rav


def test_reshape_of_a_transposed_view_copies_where_numpy_copies():
    copy, same, ones, rav = check(transposed_reshape, 7.0)
    assert copy.max() == 0 and rav.max() == 0 and same[1, 0] == 7 and ones[1, 0, 0] == 7


@ph.pipeline
def ambiguous_reshape(a):
    c = a * 1
    r = c.T.reshape(-1)
    return r


def test_reshape_of_a_view_that_numpy_may_copy_is_a_compile_error():
    with pytest.raises(ph.CompileError, match="depends on sizes known only at call time"):
        ambiguous_reshape(np.ones((3, 4)))


@ph.pipeline
def transposed_input_reshape(a):
    return a.T.reshape(-1), a.T.ravel()


def test_reshape_of_an_input_view():
    check(transposed_input_reshape, _data((3, 4), np.int16))


@ph.pipeline
def squeeze_axis(a):
    return np.squeeze(a, axis=0)


@ph.pipeline
def swap_bad(a):
    return np.swapaxes(a, 0, 3)


@ph.pipeline
def transpose_repeated(a):
    return a.transpose(0, 0)


@ph.pipeline
def transpose_short(a):
    return a.transpose(1)


@ph.pipeline
def expand_bad(a):
    return np.expand_dims(a, 3)


def test_axis_errors_as_numpy():
    check(squeeze_axis, np.ones((1, 4)))
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has size "
                                         "not equal to one"):
        squeeze_axis(np.ones((3, 4)))
    with pytest.raises(np.exceptions.AxisError, match="axis2: axis 3 is out of bounds for array "
                                                      "of dimension 2"):
        swap_bad(np.ones((3, 4)))
    with pytest.raises(ValueError, match="repeated axis in transpose"):
        transpose_repeated(np.ones((3, 4)))
    with pytest.raises(ValueError, match="axes don't match array"):
        transpose_short(np.ones((3, 4)))
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds for array of "
                                                      "dimension 2"):
        expand_bad(np.ones(3))
    for p in (swap_bad, transpose_repeated, transpose_short):
        check(p, np.ones((3, 4)))
