"""Assigning into arrays through slices, integer arrays and boolean masks
(`=` and augmented assignment, np.add.at): NumPy's broadcasting of the
value, its order (the right side is read before anything is written), its
repeated-index rules; compared with plain Python on the same inputs."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def laplacian(u):
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return out


@ph.pipeline
def column_zero(a):
    b = a.copy()
    b[:, 0] = 0
    b[-1] = 9
    return b


@ph.pipeline
def fill_all(a, v):
    b = a.copy()
    b[...] = v
    c = np.zeros_like(a)
    c[:] = b
    return b, c


@ph.pipeline
def broadcast_rows(a, r):
    b = a.copy()
    b[1:, ::2] = r
    return b


@ph.pipeline
def step_region(a, v):
    b = a.copy()
    b[::-2] = v
    return b


@ph.pipeline
def overlap_stencil(u):
    u = u.copy()
    u[1:-1] = u[:-2] + u[2:]
    return u


@ph.pipeline
def overlap_shift(u):
    u = u.copy()
    u[1:] = u[:-1] * 2
    return u


@ph.pipeline
def overlap_reverse(u):
    u = u.copy()
    u[:] = u[::-1]
    return u


@ph.pipeline
def same_elements(u):
    u = u.copy()
    u[1:] = u[1:] * 3 + 1
    return u


@ph.pipeline
def readers_keep_old(a):
    b = a.copy()
    c = b[1:] * 1
    v = b[:2]
    b[1:] = 7
    return b, c, v * 1


@ph.pipeline
def through_view(a):
    b = a.copy()
    v = b[1:, ::-1]
    v[0] = -1
    v[1:, 1] = 5
    v[-1, -1] = 8
    return b


@ph.pipeline
def view_in_loop(a):
    b = a.copy()
    v = b[::-1]
    for i in range(3):
        v[i] = i * 10
    return b


@ph.pipeline
def bad_broadcast(a, v):
    b = a.copy()
    b[:2] = v
    return b


@ph.pipeline
def aug_whole(a, c):
    b = a.copy()
    v = b[1:]
    b += c
    return b, v * 1


@ph.pipeline
def aug_region(a):
    b = a.copy()
    b[1:] *= 2
    b[:, ::2] -= b[0]
    return b


@ph.pipeline
def aug_through_view(a):
    b = a.copy()
    v = b[::2]
    v += 10
    return b


@ph.pipeline
def aug_float_into_int(a):
    b = a.copy()
    b += 1.5
    return b


@ph.pipeline
def aug_int_into_narrow(a, c):
    b = a.copy()
    b += c
    return b


@ph.pipeline
def scatter(a, idx, v):
    b = a.copy()
    b[idx] = v
    return b


@ph.pipeline
def scatter_increment(a, idx):
    b = a.copy()
    b[idx] += 1
    return b


@ph.pipeline
def histogram(x, n):
    h = np.zeros(n, np.int64)
    np.add.at(h, x, 1)
    return h


@ph.pipeline
def add_at_values(a, idx, v):
    b = a.copy()
    np.add.at(b, idx, v)
    np.subtract.at(b, idx, 1)
    return b


@ph.pipeline
def mask_scalar(a):
    b = a.copy()
    b[b > 2] = 0
    return b


@ph.pipeline
def mask_same(a, c):
    b = a.copy()
    m = c > 0
    b[m] = c[m]
    return b


@ph.pipeline
def mask_increment(a):
    b = a.copy()
    b[a % 2 == 0] += 1
    return b


@ph.pipeline
def mask_rows(a, m):
    b = a.copy()
    b[m] = -1
    return b


@ph.pipeline
def mask_array_value(a, c):
    b = a.copy()
    b[a > 0] = c
    return b


@ph.pipeline
def mask_read_other_mask(a, c):
    b = a.copy()
    b[a > 0] = c[c > 0]
    return b


@pytest.mark.parametrize("dt", [np.int16, np.int64, np.float32, np.float64])
def test_laplacian(dt):
    for shape in ((4, 5), (2, 2), (1, 3), (6, 3)):
        u = (np.arange(np.prod(shape)).reshape(shape) ** 2 % 11).astype(dt)
        check(laplacian, u)


def test_regions():
    a = np.arange(12).reshape(3, 4)
    check(column_zero, a)
    check(fill_all, np.arange(4.0), 2.5)
    check(fill_all, np.arange(4, dtype=np.uint8), 7)
    check(broadcast_rows, np.zeros((3, 4)), np.arange(2.0))
    check(broadcast_rows, np.zeros((3, 4)), np.float32(3))
    check(broadcast_rows, np.zeros((1, 5)), np.arange(3.0))     # an empty region
    check(step_region, np.arange(7), 3)
    check(step_region, np.arange(7), np.arange(4)[::-1].copy())


def test_value_that_does_not_broadcast_is_value_error():
    check(bad_broadcast, np.arange(5), np.arange(3))
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) "
                                         r"into shape \(2,\)"):
        bad_broadcast(np.arange(5), np.arange(3))
    check(bad_broadcast, np.arange(5), np.arange(2))
    check(broadcast_rows, np.zeros((3, 4)), np.arange(3.0))


@pytest.mark.parametrize("fn", [overlap_stencil, overlap_shift, overlap_reverse, same_elements])
def test_right_side_is_read_before_the_write(fn):
    for n in (0, 1, 2, 5, 8):
        check(fn, np.arange(n) * 3 + 1)


def test_earlier_readers_keep_the_old_values():
    check(readers_keep_old, np.arange(5))


def test_writes_through_views():
    check(through_view, np.arange(12).reshape(3, 4))
    check(view_in_loop, np.arange(5))


@pytest.mark.parametrize("dt", [np.int8, np.int32, np.float64])
def test_augmented_assignment(dt):
    a = np.arange(12).reshape(3, 4).astype(dt)
    check(aug_region, a)
    check(aug_through_view, np.arange(7).astype(dt))
    check(aug_whole, np.arange(4).astype(dt), np.arange(4).astype(dt))
    check(aug_whole, np.arange(4).astype(dt), 3)


def test_augmented_assignment_casting_rule():
    check(aug_float_into_int, np.arange(3))              # UFuncTypeError, as NumPy
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        aug_float_into_int(np.arange(3))
    check(aug_int_into_narrow, np.arange(4, dtype=np.int8), np.arange(4) * 100)   # wraps
    check(aug_float_into_int, np.arange(3.0))


def test_scatter_last_write_wins():
    a = np.zeros(6)
    check(scatter, a, np.array([0, 4, 0, -1]), np.array([1.0, 2.0, 3.0, 4.0]))
    check(scatter, a, np.array([[1, 2], [2, 5]]), 7.0)
    check(scatter, a, np.array([6]), 1.0)                 # IndexError, as NumPy


def test_scatter_increment_counts_repeats_once():
    for dt in (np.uint8, np.float32):
        check(scatter_increment, np.arange(5).astype(dt), np.array([0, 0, 3, -1, 3]))
    check(scatter_increment, np.arange(5), np.array([-6]))


def test_add_at_accumulates_repeats():
    check(histogram, np.array([0, 1, 1, 4, -1, 2, 1]), 5)
    check(histogram, np.array([], dtype=np.int64), 3)
    check(histogram, np.array([0, 5]), 5)                 # IndexError, as NumPy
    check(add_at_values, np.arange(4.0), np.array([1, 1, 3]), np.array([0.5, 0.25, 2.0]))
    check(add_at_values, np.arange(4, dtype=np.int32), np.array([1, 1, 3]), 2)


@pytest.mark.parametrize("dt", [np.int16, np.float64])
def test_masks(dt):
    check(mask_scalar, np.arange(6).astype(dt))
    check(mask_same, np.arange(5).astype(dt), np.array([1, -1, 2, 0, 3]).astype(dt))
    check(mask_increment, np.arange(12).reshape(3, 4).astype(dt))
    check(mask_rows, np.arange(6).reshape(3, 2).astype(dt), np.array([True, False, True]))


def test_mask_of_another_shape_is_index_error():
    check(mask_rows, np.arange(6).reshape(3, 2), np.array([True, False]))
    with pytest.raises(IndexError, match="boolean index did not match"):
        mask_rows(np.arange(6).reshape(3, 2), np.array([True, False]))


@pytest.mark.parametrize("fn,args,words,at", [
    (mask_array_value, (np.arange(4), np.arange(4)),
     "needs as many values as the mask selects", "b[a > 0] = c"),
    (mask_read_other_mask, (np.arange(4), np.arange(4)),
     "only as the value of an assignment through the same mask", "c[c > 0]"),
])
def test_refused_with_located_errors(fn, args, words, at):
    with pytest.raises(ph.CompileError) as info:
        fn(*args)
    msg = str(info.value)
    assert words in msg and "hint:" in msg and at in msg, msg


@ph.pipeline
def conditional_stores(a, k, idx):
    b = a.copy()
    if k > 0:
        b[1:] = 0
    if a[0] > 3:
        b[0] = -1
        b[-1] += 5
        np.add.at(b, idx, 2.0)
    return b


@ph.pipeline
def conditional_needs_shape_check(a, c, k):
    b = a.copy()
    if k > 0:
        b[1:] = c
    return b


@ph.pipeline
def mask_rows_of_other(a, c):
    b = a.copy()
    m = a[:, 0] > 0
    b[m] = c[m]
    return b


def test_assignments_inside_if_are_predicated():
    for a, k in ((np.arange(5.0), 1), (np.arange(5.0), 0), (np.arange(5.0) + 4, 0),
                 (np.arange(5.0) + 4, 3)):
        check(conditional_stores, a, k, np.array([0, 0]))


def test_shape_check_inside_if_is_refused():
    with pytest.raises(ph.CompileError, match="not made inside an `if`"):
        conditional_needs_shape_check(np.arange(5.0), np.arange(4.0), 1)


def test_mask_rows_from_another_array():
    a = np.array([[1, 2], [-1, 3], [2, 2]])
    check(mask_rows_of_other, a, np.arange(6).reshape(3, 2) * 10)
    check(mask_rows_of_other, a, np.arange(3).reshape(3, 1) * 10)
    check(mask_rows_of_other, a, np.arange(9).reshape(3, 3))     # ValueError, as NumPy


@ph.pipeline
def first_write_whole(a):
    out = np.empty_like(a)
    out[:] = a * 2
    part = np.zeros_like(a)
    part[1:] = a[1:]
    return out, part


def test_first_whole_write_is_the_pure_definition():
    check(first_write_whole, np.arange(5.0))
    assert len(first_write_whole.funcs["out"].function().updates) == 0
    assert len(first_write_whole.funcs["part"].function().updates) == 1


@ph.pipeline
def stretch_at_call_time(a):
    b = a.copy()
    b[1:] = a[:1]
    b[:, 0] += a[-1:, 1]
    return b


def test_value_axis_of_size_one_at_call_time_stretches():
    for shape in ((3, 2), (1, 2), (4, 3)):
        check(stretch_at_call_time, np.arange(np.prod(shape)).reshape(shape))


def test_input_values_of_empty_regions():
    check(bad_broadcast, np.arange(1), np.arange(1))       # b[:2] is a[:1]: sizes 1 and 1
    check(scatter, np.zeros(3), np.array([], dtype=np.int64), np.array([]))


@ph.pipeline
def converted(a, f):
    b = a.copy()
    b[::2] = f
    return b


@ph.pipeline
def strided_3d(a, v):
    b = a.copy()
    b[1:, ::-2, 1] = v
    b[..., :1] *= 3
    return b


@ph.pipeline
def add_at_view(n, idx):
    h = np.zeros(n, np.int32)
    np.add.at(h[1:], idx, 2)
    return h


@ph.pipeline
def scatter_reversed_gather(a, idx):
    b = a.copy()
    b[idx] = b[idx][::-1]
    return b


def test_values_convert_as_numpy_stores_them():
    check(converted, np.arange(5), 2.7)                          # truncates
    check(converted, np.arange(5, dtype=np.uint8), -1)           # OverflowError
    check(converted, np.arange(5, dtype=np.int32), np.arange(3.0) + 0.5)
    check(converted, np.arange(5, dtype=np.float32), np.arange(3))


def test_strided_regions_3d():
    check(strided_3d, np.zeros((3, 4, 2)), np.arange(2.0))
    check(strided_3d, np.ones((3, 5, 2), np.int16), 7)


def test_add_at_through_a_view():
    check(add_at_view, 5, np.array([0, 3, 3, -1]))


def test_scatter_of_its_own_gather_reads_old_values():
    check(scatter_reversed_gather, np.arange(6.0), np.array([0, -1, 2]))
    check(scatter_reversed_gather, np.arange(6.0), np.array([1, 1, 4]))


@ph.pipeline
def read_then_write_in_if(a, k):
    b = a.copy()
    c = np.zeros_like(a)
    if k > 0:
        c[1:] = b[1:]
        b[1:] = 7
    return b, c


@ph.pipeline
def element_read_then_write_in_if(a, k):
    b = a.copy()
    c = np.zeros_like(a)
    if k > 0:
        c[1] = b[1]
        b[1] = 7
    return b, c


def test_readers_inside_if_keep_the_old_values():
    for k in (1, 0):
        check(read_then_write_in_if, np.arange(4), k)
        check(element_read_then_write_in_if, np.arange(4), k)
