"""Loop forms of @pipeline functions (frontend_ast/loop_forms.py): `for x in
arr`, enumerate, zip, reversed, tuple literals and tuple targets, compared
with the plain function; the forms still refused give located errors."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.test_frontend_errors import where


# for x in arr ----------------------------------------------------------------------------
@ph.pipeline
def sum_elements(a):
    s = 0
    for x in a:
        s += x
    return s


@ph.pipeline
def horner_reversed(a):
    s = 0.0
    for x in reversed(a):
        s = s * 0.5 + x
    return s


@ph.pipeline
def last_element(a):
    x = -1.0
    for x in a:
        pass
    return x


@ph.pipeline
def over_view(a):
    s = 0.0
    for x in a[::-2]:
        s = s * 0.5 + x
    return s


@ph.pipeline
def over_computed(a):
    s = 0.0
    for x in a * 2 + 1:
        s = s * 0.5 + x
    return s


@ph.pipeline
def over_arange(n):
    s = 0
    for x in np.arange(n):
        s = s * 3 + x
    return s


@ph.pipeline
def rebinds_iterable_name(a, n):
    s = 0.0
    for x in a[:n]:         # evaluated once, before the loop
        s += x
        n = 0
    return s, n


@ph.pipeline
def sees_own_writes(a):
    b = a.copy()
    for i, x in enumerate(b):
        if i + 1 < len(b):
            b[i + 1] = b[i + 1] + x
    return b


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_for_x_in_array(dtype, n):
    a = (np.arange(n) * 37 % 11).astype(dtype)
    check(sum_elements, a)
    check(horner_reversed, a)
    check(last_element, a)
    check(over_view, a)
    check(over_computed, a)
    check(sees_own_writes, a)


def test_for_x_in_other_iterables():
    check(over_arange, 0)
    check(over_arange, 6)
    check(rebinds_iterable_name, np.arange(5.0), 3)


# enumerate -------------------------------------------------------------------------------
@ph.pipeline
def doubled(a):
    out = np.zeros(len(a))
    for i, x in enumerate(a):
        out[i] = x * 2
    return out


@ph.pipeline
def weighted(a, start):
    s = 0
    for i, x in enumerate(a, start):
        s += i * x
    return s


@ph.pipeline
def weighted_kw(a):
    s = 0
    for i, x in enumerate(a, start=-2):
        s += i * x
    return s


@ph.pipeline
def count_rebound(a):
    s = 0.0
    for i, x in enumerate(a):
        i = i * 2
        s += i * x
    return s


@ph.pipeline
def pairs(a):
    s = 0.0
    for p in enumerate(a):
        s += p[0] * p[1]
    return s


@ph.pipeline
def enumerate_reversed(a):
    s = 0.0
    for i, x in enumerate(reversed(a)):
        s = s * 0.5 + x * i
    return s


@ph.pipeline
def enumerate_range(a):
    s = 0.0
    for k, i in enumerate(range(2, len(a))):
        s = s * 0.5 + a[i] * k
    return s


@ph.pipeline
def skip_odd(a):
    s = 0
    for i, x in enumerate(a):
        if i % 2:
            continue
        s += x
    return s


@pytest.mark.parametrize("n", [0, 1, 6])
def test_enumerate(n):
    a = np.arange(n, dtype=np.int64) * 3 - 4
    f = a.astype(np.float64)
    check(doubled, f)
    check(weighted, a, 0)
    check(weighted, a, 5)
    check(weighted, a, -3)
    check(weighted_kw, a)
    check(count_rebound, f)
    check(pairs, f)
    check(enumerate_reversed, f)
    check(enumerate_range, f)
    check(skip_odd, a)


# zip -------------------------------------------------------------------------------------
@ph.pipeline
def dot(a, b):
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    return s


@ph.pipeline
def dot3(a, b, c):
    s = 0.0
    for x, y, z in zip(a, b, c):
        s = s * 0.5 + x * y - z
    return s


@ph.pipeline
def enumerate_zip(a, b):
    s = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        s += i * x - y
    return s


@ph.pipeline
def zip_tuples(a, b):
    s = 0.0
    for t in zip(a, b):
        u, v = t
        s += u - v
    return s


@ph.pipeline
def zip_range(a):
    s = 0.0
    for i, x in zip(range(10, 0, -3), a):
        s = s * 0.5 + i * x
    return s


@ph.pipeline
def min_of_lengths(a, b):
    s = 0.0
    for i in range(min(len(a), len(b))):
        s += a[i] * b[i]
    return s


@pytest.mark.parametrize("na,nb", [(5, 7), (7, 5), (0, 3), (4, 4)])
def test_zip(na, nb):
    a = np.arange(na, dtype=np.float64) + 0.5
    b = np.arange(nb, dtype=np.float64) * 2 - 1
    c = np.arange(6, dtype=np.float64)
    check(dot, a, b)
    check(dot3, a, b, c)
    check(enumerate_zip, a, b)
    check(zip_tuples, a, b)
    check(zip_range, a)
    check(min_of_lengths, a, b)       # bounded by both lengths (no false IndexError)


# reversed ranges, steps, literals, targets -------------------------------------------------
@ph.pipeline
def reversed_range(a):
    s = 0.0
    for i in reversed(range(len(a))):
        s = s * 0.5 + a[i]
    return s


@ph.pipeline
def reversed_range_step(a, lo):
    s = 0.0
    for i in reversed(range(lo, len(a), 3)):
        s = s * 0.5 + a[i]
    return s


@ph.pipeline
def reversed_negative_range(a):
    s = 0.0
    for i in reversed(range(len(a) - 1, -1, -1)):
        s = s * 0.5 + a[i]
    return s


@ph.pipeline
def negative_step(n):
    v = 0
    for i in range(n, 0, -3):
        v = v * 3 + i
    return v


@ph.pipeline
def literal_loop(a):
    s = 0
    for d in (1, 2, 3):
        s = s * 10 + d * len(a)
    return s


@ph.pipeline
def stencil_offsets(a):
    out = np.zeros(len(a))
    for i in range(1, len(a) - 1):
        for dx, w in ((-1, 0.25), (0, 0.5), (1, 0.25)):
            out[i] += w * a[i + dx]
    return out


@ph.pipeline
def rebinds_loop_var(n):
    s = 0
    for i in range(n):
        i = i * i
        s += i
    return s


@pytest.mark.parametrize("n", [0, 1, 5, 8])
def test_reversed_and_literals(n):
    a = np.arange(n, dtype=np.float64) + 1
    check(reversed_range, a)
    check(reversed_range_step, a, 0)
    check(reversed_range_step, a, 2)
    check(reversed_negative_range, a)
    check(negative_step, n)
    check(literal_loop, a)
    check(stencil_offsets, a)
    check(rebinds_loop_var, n)


# rows of a 2-D array read element by element -------------------------------------------------
@ph.pipeline
def row_elements(a):
    s = 0.0
    for row in a:
        for x in row:
            s = s * 0.5 + x
    return s


@ph.pipeline
def enumerate_rows(a):
    out = np.zeros(a.shape[0])
    for i, row in enumerate(a):
        for j in range(len(row)):
            out[i] += row[j] * j + row[-1]
    return out


@ph.pipeline
def enumerate_row_of(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j, x in enumerate(a[i]):
            out[i] += x * j
    return out


@ph.pipeline
def write_rows(a):
    out = np.zeros(a.shape)
    for i, row in enumerate(out):
        row[-1] = a[i, 0] + i
    return out


@ph.pipeline
def row_as_array(a):
    s = 0.0
    for row in a:
        s += np.sum(row)
    return s


@pytest.mark.parametrize("shape", [(3, 4), (0, 2), (2, 1)])
def test_rows(shape):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    check(row_elements, a)
    check(enumerate_rows, a)
    check(enumerate_row_of, a)
    check(row_as_array, a)        # a row as an array value (lifted over the loop)
    if shape[1] > 1:
        check(write_rows, a)


# refused forms --------------------------------------------------------------------------------
def _refused(fn, snippet, *words, args=None):
    p = ph.pipeline(fn)
    with pytest.raises(ph.CompileError) as info:
        p(*(args if args is not None else (np.arange(6.0),)))
    msg = str(info.value)
    assert msg.startswith(where(fn, snippet) + ":"), msg
    for w in words:
        assert w in msg, msg
    assert "_ph_" not in msg, msg
    return msg


def uses_ndindex(a):
    s = 0.0
    for i, x in np.ndenumerate(a):
        s += a[i]
    return s


def uses_strict_zip(a):
    s = 0.0
    for x, y in zip(a, a, strict=True):
        s += x * y
    return s


def reverses_enumerate(a):
    s = 0.0
    for i, x in reversed(enumerate(a)):
        s += x
    return s


def unpacks_wrong(a):
    s = 0.0
    for i, x, y in enumerate(a):
        s += x
    return s


def attribute_target(a):
    s = 0.0
    for a.foo in a:
        s += 1
    return s


def variable_step(a, k):
    s = 0.0
    for i, x in enumerate(range(0, len(a), k)):
        s += x
    return s


def test_refused_forms():
    _refused(uses_ndindex, "np.ndenumerate", "ndenumerate", "hint:")
    _refused(uses_strict_zip, "strict=True", "zip(strict=...)")
    _refused(reverses_enumerate, "enumerate(a)", "cannot be reversed")
    _refused(unpacks_wrong, "i, x, y", "cannot unpack 2 values into 3 names")
    _refused(attribute_target, "a.foo", "loop variable must be a name")
    _refused(variable_step, "k)", "step of range() must be a constant", args=(np.arange(6.0), 2))
    # a row used as an array inside the loop: array code in loops is not compiled yet


def shadows_len(a):
    len = 3
    s = 0.0
    for x in a:
        s += x * len
    return s


def test_shadowed_builtin():
    _refused(shadows_len, "for x in a", "'len'", "rename")
