"""Issue 16's remaining array gaps, compared with plain Python on the same
inputs (values, dtypes, shapes, exceptions): masked expressions as
assignment values, masks combined with other indices, ..."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


def refused(fn, args, words, at):
    with pytest.raises(ph.CompileError) as info:
        fn(*args)
    msg = str(info.value)
    assert words in msg and "hint:" in msg and at in msg, msg


# masked expressions: a[m] = f(a[m], b[m], scalars) -------------------------------------------
@ph.pipeline
def periodic(x, L, periodic_x):
    n = len(x)
    t = np.tile(x, (n, 1))
    dx = t - t.T
    if periodic_x:
        dx[dx>L/2]=dx[dx > L/2]-L          # noqa: E225  (two spellings of one mask)
        dx[dx < -L / 2] = dx[dx < -L / 2] + L
    d = np.sqrt(dx**2)
    d[d == 0] = -1
    return d, dx


@ph.pipeline
def masked_functions(a, b, s):
    out = a.copy()
    m = b > 0
    out[m] = np.sqrt(np.abs(out[m])) * s + np.where(b[m] > 2, b[m], -b[m])
    out[out > 1] = abs(out[out > 1] - 2).astype(np.float32)
    return out


@ph.pipeline
def masked_augmented(a, b):
    out = a.copy()
    out[b > 0] += b[b > 0] * 2
    out[out < 3] *= out[out < 3]
    out[b < 0] -= 1
    return out


@ph.pipeline
def masked_rows(a, r, c):
    out = a.copy()
    m = a[:, 0] > 0
    out[m] = out[m] * 2 + r + c[m]
    return out


@ph.pipeline
def masked_int_from_float(a, f):
    out = a.copy()
    out[f > 0.5] = f[f > 0.5] * 10
    return out


@ph.pipeline
def masked_other_shape(a, c):
    out = a.copy()
    out[a > 0] = c[a > 0] * 2
    return out


def test_periodic_distance():
    x = np.arange(0.0, 20.0, 0.1)
    check(periodic, x, 4, True)
    check(periodic, x, 4, False)
    check(periodic, np.array([0.0, 3.0, -1.5, 2.0]), 3, True)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_masked_functions(dt):
    a = np.array([-4.0, 9.0, 0.25, 16.0, -1.0, 3.0]).astype(dt)
    b = np.array([1.0, 3.0, -2.0, 0.5, 4.0, 0.0]).astype(dt)
    check(masked_functions, a, b, 2.0)
    check(masked_functions, a, -b, 2.0)            # an empty selection


@pytest.mark.parametrize("dt", [np.int32, np.float64])
def test_masked_augmented(dt):
    a = np.array([[1, 5, -2], [0, 7, 3]]).astype(dt)
    b = np.array([[2, -1, 0], [3, 1, -4]]).astype(dt)
    check(masked_augmented, a, b)


def test_masked_rows_broadcast():
    a = np.array([[1, 2, 3], [-1, 5, 6], [4, 0, 1]])
    check(masked_rows, a, np.array([10, 20, 30]), np.arange(9).reshape(3, 3))
    check(masked_rows, a, np.array([10]), np.arange(3).reshape(3, 1))


def test_masked_float_into_int():
    check(masked_int_from_float, np.arange(5), np.array([0.1, 0.7, 0.9, 0.2, 2.25]))


def test_masked_read_of_another_shape_is_index_error():
    check(masked_other_shape, np.arange(4) - 1, np.arange(4.0))
    with pytest.raises(IndexError, match="boolean index did not match"):
        masked_other_shape(np.arange(4) - 1, np.arange(5.0))


@ph.pipeline
def masked_other_mask_in_expression(a, c):
    b = a.copy()
    b[a > 0] = c[c > 0] + 1
    return b


@ph.pipeline
def masked_with_full_array(a, c):
    b = a.copy()
    b[a > 0] = b[a > 0] + c
    return b


@ph.pipeline
def masked_sum(a):
    b = a.copy()
    b[a > 0] = np.sum(a[a > 0])
    return b


@ph.pipeline
def masked_read_named(a):
    v = a[a > 0] * 2
    return v


@ph.pipeline
def masked_other_spelling(a):
    b = a.copy()
    b[a > 0] = b[0 < a] + 1
    return b


@pytest.mark.parametrize("fn,words,at", [
    (masked_other_mask_in_expression, "a boolean-mask read has a size that depends",
     "c[c > 0]"),
    (masked_with_full_array, "needs as many values as the mask selects", "b[a > 0] = b[a > 0] + c"),
    (masked_sum, "a boolean-mask read has a size that depends", "a[a > 0]"),
    (masked_read_named, "a boolean-mask read has a size that depends", "a[a > 0]"),
    (masked_other_spelling, "a boolean-mask read has a size that depends", "b[0 < a]"),
])
def test_masked_reads_refused(fn, words, at):
    refused(fn, (np.arange(4), np.arange(4)) if fn.py_func.__code__.co_argcount == 2 else
            (np.arange(4),), words, at)
