"""Insertion sort from a position `lo` given as an int argument (session 25,
issue 17): `while j >= lo and a[j] > key` compiles with the int arguments
assumed >= 0 (frontend_ast/nonneg_params.py); a call with a negative one
raises NotImplementedError at the `while` line, naming the argument and its
value, and leaves the arrays as they were (the fast paths too); one >= 2**30
runs the build with lo an int64 value. Every other
call is compared with plain Python on a copy: the result, the array after
the call and the exception type."""
import re

import numpy as np
import pytest

from pyhalide.frontend_ast.errors import FrontendError
from tests.runtime.test_in_place24 import _compiled, _same_as_python


def insertion_from(a, lo):
    for i in range(lo + 1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= lo and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def insertion_between(a, lo, hi):
    for i in range(lo + 1, hi):
        key, j = a[i], i - 1
        while lo <= j and key < a[j]:
            a[j + 1] = a[j]
            j = j - 1
        a[j + 1] = key


def argsort_from(a, idx, lo):
    # two arrays shifted together, gap 2
    for i in range(lo + 2, a.shape[0]):
        key, k = a[i], idx[i]
        j = i - 2
        while j >= lo and a[j] > key:
            a[j + 2] = a[j]
            idx[j + 2] = idx[j]
            j -= 2
        a[j + 2] = key
        idx[j + 2] = k


def sort_then_read(a, lo, m):
    for i in range(lo + 1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= lo and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a[m] + 1.0


def float_bound(a, t):
    # no int argument: still the located refusal
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j] = key * t
        if a[i] > t:
            break
    return a


def _sorted_as_python(fn, extra, seed, n=20):
    a = np.random.default_rng(seed).random(n)
    a[3] = a[7]                  # a tie: stable as Python's
    _same_as_python(fn, a, *extra, calls=2)      # (the second call: the fast path)


def _negative_refused(p, fn, args, name, value, line):
    """p(*args) raises the located NotImplementedError for `name`=`value`
    (the `while` at `line` of fn) and writes no argument."""
    before = [a.copy() for a in args if isinstance(a, np.ndarray)]
    file = fn.__code__.co_filename
    first = fn.__code__.co_firstlineno
    where = re.escape(f"{file}:{first + line}:9: {fn.__name__}() called with {name}={value}:")
    with pytest.raises(NotImplementedError, match=where) as e:
        p(*args)
    msg = str(e.value)
    assert f"`while j >= {name}" in msg or f"`while {name} <= j" in msg
    assert f"Pass {name} >= 0" in msg and "negative-index wrap of `a[j + " in msg
    for a, b in zip([a for a in args if isinstance(a, np.ndarray)], before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("lo", [0, 3, 19, 20, 25, 2**30 - 1])
def test_insertion_from_lo(lo):
    _sorted_as_python(insertion_from, (lo,), lo % 97)


@pytest.mark.parametrize("lo", [2**30, 2**31 - 1, 2**40])
def test_insertion_from_lo_past_32_bits(lo):
    # (session 26) the fast build takes lo as an int32 value in [0, 2**30);
    # a larger lo runs the build with lo an int64 value (Specialization.wide),
    # also once the fast paths have an entry for lo = 2: Python's result
    # (the array unchanged; IndexError for a range past the array's end)
    a = np.random.default_rng(9).random(20)
    p = _compiled(insertion_from)
    for _ in range(12):
        np.testing.assert_array_equal(p(a.copy(), 2), insertion_from(a.copy(), 2))
    assert p._entry is not None
    _same_as_python(insertion_from, a.copy(), lo, calls=2)
    _same_as_python(insertion_between, a.copy(), lo, lo + 3, calls=2)
    _same_as_python(insertion_between, a.copy(), lo, lo, calls=1)
    np.testing.assert_array_equal(p(a.copy(), 2), insertion_from(a.copy(), 2))


@pytest.mark.parametrize("lo", [-1, -20, -2**40])
def test_insertion_from_negative_lo(lo):
    a = np.random.default_rng(7).random(20)
    for _ in range(2):          # (the second call: the fast path, which has no entry)
        _negative_refused(_compiled(insertion_from), insertion_from, (a, lo), "lo", lo, 4)


def test_insertion_between():
    for k, (lo, hi) in enumerate([(0, 20), (2, 15), (5, 25), (5, 3), (0, 2**33)]):
        _sorted_as_python(insertion_between, (lo, hi), k)
    a = np.random.default_rng(8).random(20)
    for lo, hi in [(-3, 10), (-25, -2)]:
        _negative_refused(_compiled(insertion_between), insertion_between, (a, lo, hi),
                          "lo", lo, 3)


@pytest.mark.parametrize("lo", [0, 5, 19])
def test_argsort_gap_two_from_lo(lo):
    a = np.random.default_rng(lo + 50).random(20)
    a[4] = a[10]
    _same_as_python(argsort_from, a, np.arange(20), lo, calls=2)


def test_argsort_negative_lo():
    a = np.random.default_rng(51).random(20)
    _negative_refused(_compiled(argsort_from), argsort_from, (a, np.arange(20), -3),
                      "lo", -3, 5)


def test_negative_lo_after_the_fast_paths():
    # lo >= 0 runs the kernel: the hot key's compiled entry (dispatch.py)
    # computes Python's result; once the fast paths (direct_call.py, the
    # compiled entry) have lo = 4, a negative lo still raises without
    # touching the array
    p = _compiled(insertion_from)
    a = np.random.default_rng(5).random(50)
    for _ in range(12):
        np.testing.assert_array_equal(p(a.copy(), 4), insertion_from(a.copy(), 4))
    assert p._entry is not None
    np.testing.assert_array_equal(p._entry(a.copy(), 4), insertion_from(a.copy(), 4))
    for lo in [4, -4, 4, 0, -1, 4, -50, 4]:
        if lo < 0:
            _negative_refused(p, insertion_from, (a.copy(), lo), "lo", lo, 4)
        else:
            np.testing.assert_array_equal(p(a.copy(), lo), insertion_from(a.copy(), lo))
    assert p.last_specialization.pipeline() is not None


def test_refusal_without_int_arguments_unchanged():
    with pytest.raises(FrontendError):
        _compiled(float_bound)(np.random.default_rng(6).random(20), 0.5)


def test_prefix_of_the_int32_build_is_cut():
    # (session 26) a[50] raises after the sort: the sorted array and the
    # IndexError, as Python; the prefix check_order runs (the function cut
    # before `return`) is built from that cut, also in the build whose
    # source is parsed again with lo known to be an int
    a = np.random.default_rng(10).random(20)
    for m in (50, 3):
        _same_as_python(sort_then_read, a.copy(), 2, m, calls=1)
    spec = _compiled(sort_then_read).last_specialization
    assert len(spec.prefix(1).builder.pf.tree.body) == 1
