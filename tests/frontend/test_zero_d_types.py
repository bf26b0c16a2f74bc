"""0-d arrays and NumPy scalars have NumPy's result types: a ufunc or operator
of 0-d operands is a NumPy scalar, a 0-d argument's .copy() / .astype() /
a[...] are 0-d arrays, a NumPy scalar's array methods return
scalars (found by the array fuzzer: values were right, types were not)."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


def _pos(a): return +a
def _neg(a): return -a
def _astype(a): return a.astype(np.float32)
def _copy(a): return a.copy()
def _index_empty(a): return a[()]
def _ellipsis(a): return a[...]
def _sum(a): return a.sum()
def _max(a): return a.max()
def _real(a): return a.real
def _transpose(a): return a.T
def _reshape(a): return a.reshape(1)
def _plus_one(a): return a + 1
def _times_self(a): return a * a
def _compare(a): return a > 1
def _ufunc(a): return np.sqrt(np.abs(a))
def _builtin_abs(a): return abs(a)
def _maximum(a): return np.maximum(a, 0)
def _clip(a): return np.clip(a, 0, 3)
def _dtype_call(a): return np.float32(a)
def _astype_then_sum(a): return a.astype(np.int32).sum() * 2


ZERO_D = [_pos, _neg, _astype, _copy, _index_empty, _ellipsis, _sum, _max, _real, _transpose,
          _reshape, _plus_one, _times_self, _compare, _ufunc, _builtin_abs, _maximum,
          _clip, _dtype_call, _astype_then_sum]


@pytest.mark.parametrize("fn", ZERO_D, ids=lambda f: f.__name__)
@pytest.mark.parametrize("value", [np.array(3.5), np.array(7, dtype=np.int16)],
                         ids=["float64", "int16"])
def test_zero_d_array_argument(fn, value):
    check(ph.pipeline(fn), value)


def _conj(z): return z.conj()
def _imag_plus(z): return z.imag + 1
def _complex_copy(z): return z.copy()
def _complex_index(z): return z[()]


@pytest.mark.parametrize("fn", [_pos, _neg, _conj, _imag_plus, _complex_copy, _complex_index,
                                _real], ids=lambda f: f.__name__)
def test_zero_d_complex_argument(fn):
    check(ph.pipeline(fn), np.array(1 + 2j))


def _made_plus(x): return np.asarray(x) + 1
def _made_sqrt(x): return np.sqrt(np.zeros(()) + x)
def _made_compare(x): return np.asarray(x) > 1
def _scalar_sum(x): return np.float64(x).sum()
def _scalar_reshape(x): return np.float64(x).reshape(1)
def _scalar_index(x): return np.float64(x)[()]
def _scalar_ellipsis(x): return np.float64(x)[...]
def _scalar_copy(x): return np.float64(x).copy()
def _scalar_transpose(x): return np.float64(x).T
def _made_sum(x): return (np.asarray(x) * 2).sum()


@pytest.mark.parametrize("fn", [_made_plus, _made_sqrt, _made_compare, _scalar_sum,
                                _scalar_reshape, _scalar_index, _scalar_ellipsis, _scalar_copy,
                                _scalar_transpose, _made_sum], ids=lambda f: f.__name__)
def test_zero_d_values_made_inside(fn):
    check(ph.pipeline(fn), 2.5)


def test_zero_d_argument_and_scalar_argument_are_separate_specializations():
    p = ph.pipeline(_copy)
    check(p, np.array(3.5))
    check(p, np.float64(3.5))       # a NumPy scalar's .copy() is a scalar
    check(p, np.array(4.5))


def _add_in_place(a):
    a += 1
    return a


def _alias_in_place(a):
    s = 0.0
    x = a
    for _ in range(3):
        x *= 2
        s += x
    return s


def _store_ellipsis(a, b):
    a[...] = b
    return a.sum()


@pytest.mark.parametrize("fn, line", [(_add_in_place, "a += 1"), (_alias_in_place, "x *= 2"),
                                      (_store_ellipsis, "a[...] = b")],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_in_place_update_of_zero_d_argument_is_refused(fn, line):
    """Python updates the caller's 0-d array; compiled code refuses (it used to
    drop the update and return a scalar)."""
    a = np.array(3.5)
    with pytest.raises(ph.CompileError) as e:
        ph.pipeline(fn)(*((a,) if fn is not _store_ellipsis else (a, 2.0)))
    assert line in str(e.value) and "0-d array argument" in str(e.value)
    assert a == 3.5


def test_rebinding_a_scalar_argument_is_fine():
    check(ph.pipeline(_add_in_place), np.float64(3.5))
    check(ph.pipeline(_alias_in_place), 3.5)
