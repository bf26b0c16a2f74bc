"""Reading arrays through slices, None, ... and integer indices: views
(index arithmetic over the same array, aliasing its later writes), with
NumPy's slice normalization over sizes known only at call time; integer
arrays as gathers; compared with plain Python on the same inputs."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

DTYPES = [np.uint8, np.int16, np.int64, np.float32, np.float64]


@ph.pipeline
def basic_1d(a):
    return a[1:-1] * 2, a[::2] + 1, a[::-1] - 1, a[-3:] * 1, a[5:1:-2] * 1


@ph.pipeline
def basic_2d(a):
    return a[2:, :-3] + a[:-2, 3:], a[..., 0] * 1, a[1] * 1, a[-1, ::-2] * 1


@ph.pipeline
def basic_3d(a):
    return a[:, 1:, ::2] * 1, a[..., -1] * 1, a[1, ..., 1:] * 1, a[:, None, 0, :] * 1


@ph.pipeline
def stencil(u):
    return u[1:-1] + u[:-2] + u[2:]


@ph.pipeline
def outer(a, b):
    return a[:, None] * b[None, :] + a[:, np.newaxis]


@ph.pipeline
def views_of_views(a):
    v = a[1:]
    w = v[::2]
    x = w[::-1]
    return x[1:] - x[:-1], w * 1


@ph.pipeline
def symbolic_bounds(a, k, m):
    return a[k:] * 1, a[:m] * 1, a[k:m:2] * 1, a[-k:] * 1


@ph.pipeline
def shape_of_view(a):
    v = a[1:-1, ::3]
    return v.shape[0], v.shape[1], v.size, v.ndim


@ph.pipeline
def int_index(a, i):
    return a[i, 1:] + a[-1, :-1]


@ph.pipeline
def loop_through_view(a):
    v = a[2:]
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * (i + 1)
    return s


@ph.pipeline
def loop_view_2d(a):
    v = a[::-1, 1:]
    out = np.zeros((v.shape[0],), np.float64)
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            out[i] += v[i, j]
    return out


@ph.pipeline
def element_of_view(a, i):
    v = a[1:]
    return v[i]


@ph.pipeline
def aliasing(a):
    b = a.copy()
    v = b[1:]
    b[1] = 100
    return v * 1


@ph.pipeline
def slice_of_expression(a):
    return (a * 2 + 1)[::2]


@ph.pipeline
def gather(a, idx):
    return a[idx]


@ph.pipeline
def gather_axis(a, idx):
    return a[:, idx] * 2, a[idx, 1:] * 1


@ph.pipeline
def gather_pairs(a, i, j):
    return a[i, j] * 1, a[i, :, j] * 1


@ph.pipeline
def gather_then_slice(a, idx):
    g = a[idx]
    return g[::-1] * 1


@ph.pipeline
def mismatched(a):
    return a[1:] + a


@pytest.mark.parametrize("dt", DTYPES)
def test_slices_1d_dtypes(dt):
    for n in (0, 1, 2, 3, 7, 12):          # one specialization, several sizes
        check(basic_1d, np.arange(n).astype(dt))
        check(stencil, (np.arange(n) * 3 % 7).astype(dt))


@pytest.mark.parametrize("dt", [np.int32, np.float64])
def test_slices_2d_3d(dt):
    for shape in ((2, 4), (3, 5), (4, 7)):
        check(basic_2d, np.arange(np.prod(shape)).reshape(shape).astype(dt))
    for shape in ((2, 2, 3), (3, 4, 5)):
        check(basic_3d, np.arange(np.prod(shape)).reshape(shape).astype(dt))


def test_empty_results():
    check(basic_2d, np.zeros((1, 3)))          # a[2:, :-3] is empty
    check(basic_1d, np.zeros(0, np.float32))


def test_newaxis_outer():
    check(outer, np.arange(3.0), np.arange(4.0))
    check(outer, np.arange(1.0), np.arange(5.0))


def test_views_of_views():
    for n in (1, 4, 9, 10):
        check(views_of_views, np.arange(n) ** 2)


def test_symbolic_bounds():
    a = np.arange(10.0)
    for k, m in ((2, 8), (-3, 4), (0, 0), (12, -20), (5, 3)):
        check(symbolic_bounds, a, k, m)


def test_shape_of_view():
    for shape in ((5, 7), (2, 3), (1, 1)):
        check(shape_of_view, np.zeros(shape))


def test_integer_indices_count_from_the_end():
    a = np.arange(12).reshape(3, 4)
    for i in (0, 2, -1, -3):
        check(int_index, a, i)


def test_integer_index_out_of_range_raises_index_error():
    a = np.arange(12).reshape(3, 4)
    for i in (3, -4):
        check(int_index, a, i)
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
            int_index(a, i)


def test_loops_read_through_views():
    check(loop_through_view, np.arange(7.0))
    check(loop_through_view, np.arange(2.0))
    check(loop_view_2d, np.arange(12.0).reshape(3, 4))


def test_element_of_view_checked_against_the_view():
    a = np.arange(5)
    for i in (0, 3, -1, -4):
        check(element_of_view, a, i)
    with pytest.raises(IndexError):
        element_of_view(a, 4)            # in a, but not in a[1:]
    check(element_of_view, a, 4)


def test_views_alias_later_writes():
    check(aliasing, np.arange(4))


def test_slice_of_expression():
    check(slice_of_expression, np.arange(9, dtype=np.int16))


@pytest.mark.parametrize("dt", [np.int8, np.uint16, np.int64, np.float32])
def test_gathers(dt):
    a = (np.arange(10) * 3).astype(dt)
    check(gather, a, np.array([3, -1, 0, 3]))
    check(gather, a, np.array([[1, 2], [9, -10]], dtype=np.int16))
    check(gather, a, np.array([], dtype=np.int64))
    check(gather, a, np.array([10]))             # IndexError, as NumPy
    with pytest.raises(IndexError, match="out of bounds"):
        gather(a, np.array([0, -11]))


def test_gathers_with_slices():
    a = np.arange(20).reshape(4, 5)
    check(gather_axis, a, np.array([0, 3, -4]))
    check(gather_pairs, np.arange(24).reshape(2, 3, 4), np.array([0, 1, 1]), np.array([3, 0, 2]))
    check(gather_pairs, np.arange(24).reshape(2, 3, 4), np.array([[1], [0]]),
          np.array([3, 0, 2]))
    check(gather_then_slice, np.arange(6.0), np.array([5, 4, 0]))


def test_mismatched_slice_sizes_raise_value_error():
    check(mismatched, np.arange(4))
    with pytest.raises(ValueError):
        mismatched(np.arange(4))


def _in_loop(a):
    s = 0
    for i in range(3):
        s += a[i:].sum()
    return s


def _mask_read(a):
    return a[a > 0] * 2


def _mask_read_returned(a):
    return a[a > 0]


def _step(a, k):
    return a[::k]


def _bool_float_index(a):
    return a[1.5:]


@pytest.mark.parametrize("fn,args,words", [
    (_in_loop, (np.arange(4),), "slice bounds must be known when the function is called"),
    (_mask_read, (np.arange(4),), "boolean-mask read has a size that depends on the data"),
    (_mask_read_returned, (np.arange(4.0),),
     "boolean-mask read has a size that depends on the data"),
    (_step, (np.arange(4), 2), "a slice step must be an integer constant"),
    (_bool_float_index, (np.arange(4.0),), "slice indices must be integers or None"),
])
def test_refused_with_located_errors(fn, args, words):
    with pytest.raises(ph.CompileError) as info:
        ph.pipeline(fn)(*args)
    msg = str(info.value)
    assert words in msg and "test_array_slicing.py:" in msg and "^" in msg, msg


def test_mask_read_hint_names_np_where():
    with pytest.raises(ph.CompileError, match="np.where"):
        ph.pipeline(_mask_read)(np.arange(4))
