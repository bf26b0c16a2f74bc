"""Array arguments of the other byte order (big-endian on this host): NumPy
computes on them, so @pipeline accepts them (it refused them with a
TypeError before session 16). The kernel computes on native copies of the
same layout; a written argument gets its final values back, a returned
argument is the caller's own array. Results NumPy makes are native (a ufunc
of a big-endian array gives a native one); a copy of the argument
(`a.copy()`) keeps the argument's byte order in NumPy, here it is native."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import same


@ph.pipeline
def affine(a):
    return a * 2 + 1


@ph.pipeline
def scaled_then_summed(a):
    a[0] = 5
    a *= 3
    return a.sum()


@ph.pipeline
def doubled_into(a, out):
    out[:] = a * 2
    return out


@ph.pipeline
def column_sums(m):
    return (m * m).sum(axis=0), m.sum()


def _same_values(got, want):
    """Equal values and types, the dtype compared in native order."""
    if isinstance(want, tuple):
        return all(_same_values(g, w) for g, w in zip(got, want))
    if isinstance(want, np.ndarray) and not want.dtype.isnative:
        want = want.astype(want.dtype.newbyteorder("="))
    return same(got, want)


@pytest.mark.parametrize("dtype", [">f8", ">i4", ">c16"])
def test_big_endian_elementwise(dtype):
    a = (np.arange(7) - 3).astype(dtype)
    got = affine(a)
    assert got.dtype.isnative and _same_values(got, affine.py_func(a))
    assert same(affine(a.astype(np.dtype(dtype).newbyteorder("="))), got)   # both keys alike


@pytest.mark.parametrize("n", [0, 1, 9])
def test_big_endian_written_argument(n):
    a = np.linspace(-2.0, 3.0, n).astype(">f8")
    if n == 0:
        a = np.zeros(0, ">f8")
        with pytest.raises(IndexError):
            scaled_then_summed.py_func(a.copy())
        with pytest.raises(IndexError):
            scaled_then_summed(a.copy())
        return
    mine, theirs = a.copy(), a.copy()
    assert _same_values(scaled_then_summed(mine), scaled_then_summed.py_func(theirs))
    assert mine.dtype == np.dtype(">f8") and same(mine, theirs)


def test_big_endian_output_argument_is_returned():
    a = np.arange(6, dtype=">i8")
    out, theirs = np.zeros(6, ">f4"), np.zeros(6, ">f4")
    got = doubled_into(a, out)
    assert got is out and same(out, doubled_into.py_func(a, theirs))
    strided = np.zeros(12, ">f4")[::2]          # a view, written through
    doubled_into(a, strided)
    assert same(strided, theirs)


def test_big_endian_layouts():
    m = np.asfortranarray(np.linspace(0.1, 7.3, 24).reshape(4, 6)).astype(">f8", order="K")
    assert _same_values(column_sums(m), column_sums.py_func(m))
    t = np.linspace(0.1, 7.3, 24).reshape(4, 6).astype(">f8")[:, ::2]
    assert _same_values(column_sums(t), column_sums.py_func(t))


def test_big_endian_written_alias_is_refused():
    a = np.arange(5, dtype=">f8")
    with pytest.raises(ValueError, match="shares memory"):
        doubled_into(a, a)


def test_native_calls_after_big_endian_ones():
    a = np.arange(5.0)
    for x in (a.astype(">f8"), a, a.astype(">f8"), a, a):      # fast paths take native only
        assert same(affine(x), affine.py_func(a))
