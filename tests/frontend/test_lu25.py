"""LU factorisation as people write it (session 25, issue 17): computed in
the caller's array (lowering/in_place_checks.py hoists the row loops'
index checks before the first store; where the hoisted check fails the call
runs again on a copy). Every call is compared with plain Python on a copy:
the array after the call and the exception type (Python's partial writes
on a raise)."""
import numpy as np
import pytest

from pyhalide.frontend_ast import in_place_args
from tests.frontend.test_hoisted_reads22 import lu_row_from_k as lu
from tests.runtime.test_in_place24 import _compiled, _matrix, _same_as_python


def lu_rect(a):
    # rows > columns + 1: IndexError at k = columns (a[i, k]) after the
    # earlier rows changed; rows == columns + 1: the last k runs no i and
    # Python raises nothing, which the hoisted check cannot tell (a copy)
    n, m = a.shape
    for k in range(n):
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k, m):
                a[i, j] -= f * a[k, j]


def _in_place_entries(fn):
    spec = _compiled(fn).last_specialization
    assert spec.in_place_pairs and not spec.in_place_refused
    return [e.in_place for e in spec.direct.entries.values()]


def test_lu_in_place():
    a = _matrix((100, 100), 1)          # 80 KB: in place
    assert a.nbytes >= in_place_args.MIN_BYTES
    _same_as_python(lu, a, calls=2)     # (the second call: the fast path)
    assert all(_in_place_entries(lu))
    _same_as_python(lu, _matrix((100, 130), 2), calls=2)    # wider: in place too
    assert all(_in_place_entries(lu))
    _same_as_python(lu, _matrix((20, 20), 3))        # small: copied


@pytest.mark.parametrize("shape", [(101, 100), (110, 100)])
def test_lu_taller_than_wide_raises_as_python(shape):
    # j runs to the row count: IndexError at k = 0 after row 1 changed
    _same_as_python(lu, _matrix(shape, 4))


@pytest.mark.slow       # ~9 s: the slow run (CI) checks it
def test_lu_hoisted_check_fails_then_copies():
    p = _compiled(lu_rect)
    _same_as_python(lu_rect, _matrix((100, 100), 5), calls=2)
    assert all(_in_place_entries(lu_rect))
    a = _matrix((101, 100), 6)           # Python raises nothing: on a copy
    _same_as_python(lu_rect, a, calls=2)
    _same_as_python(lu_rect, _matrix((103, 100), 7), calls=2)    # IndexError, partial writes
    b = a.copy()
    assert p(b) is None
    want = a.copy()
    lu_rect(want)
    np.testing.assert_array_equal(b, want)


def test_lu_compiled_entry_in_place():
    p = _compiled(lu)
    a = _matrix((100, 100), 8)
    want = a.copy()
    lu(want)
    for _ in range(12):
        b = a.copy()
        assert p(b) is b
        np.testing.assert_array_equal(b, want)
