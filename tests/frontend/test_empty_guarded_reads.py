"""False IndexErrors on empty arrays read under guards (session 17).

- A read inside a lazy branch whose condition names only arguments' sizes
  and scalar parameters (fixed for a call) is needed from its input only
  where that condition holds (lowering/bounds_inference.py,
  `_StageBounds.parts`): `a[0] if a.size else -1.0` of an empty `a`.
- An input read at an index checked at run time is evaluated only where each
  checked axis has an element (frontend_ast/arrays.py, `_unless_empty`): a
  binary search `while lo < hi: ... a[mid]` over an empty `a`.
- An update whose RDom predicates hold nowhere for a call (the tail of a sum
  of an empty array) accesses nothing (`_StageBounds.nonempty`):
  `np.outer(x, x)` of an empty `x` returned with its sum.

Before, the clamped index of such a read covered element 0 of the empty
axis, and the input-region check raised before anything ran. Unguarded reads
of an empty array still raise Python's IndexError. Each result is compared
with plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import same
from tests.frontend.test_while_unbounded import bisect_left

bsearch = bisect_left.py_func


def first_or(a):
    return a[0] if a.size else -1.0


def last_or(a):
    return a[-1] if len(a) > 0 else 0.0


def early_return(a):
    if a.shape[0] == 0:
        return -1.0
    return a[0] + a[a.shape[0] - 1]


def corner_or(m):
    if m.shape[0] > 0 and m.shape[1] > 0:
        return m[0, 0] * 2.0
    return 7.0


def indexed_or(a, i):
    return a[i] if a.shape[0] > 2 else -2.0


def first_unguarded(a):
    return a[0]


_CASES = [
    (first_or, [(0,), (1,), (5,)]),
    (last_or, [(0,), (1,), (4,)]),
    (early_return, [(0,), (1,), (3,)]),
    (corner_or, [(0, 0), (0, 3), (3, 0), (2, 3)]),
]


def _arg(shape, order="C"):
    a = np.arange(1.0, 1.0 + int(np.prod(shape))).reshape(shape)
    return np.asfortranarray(a) if order == "F" else a


@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("fn,shapes", _CASES, ids=[f.__name__ for f, _ in _CASES])
def test_guarded_read_of_empty_array(fn, shapes, schedule):
    p = ph.pipeline(fn) if schedule is None else ph.pipeline(schedule=schedule)(fn)
    for shape in shapes:
        a = _arg(shape)
        assert same(p(a), fn(a.copy())), shape


def test_guarded_read_of_empty_views():
    p = ph.pipeline(corner_or)
    base = np.arange(12.0).reshape(3, 4)
    for view in (base[:, 4:], base[3:, :], base[::2, 1:1], base.T[:0]):
        assert same(p(view), corner_or(view.copy())), view.shape


def test_guarded_read_with_index_argument():
    p = ph.pipeline(indexed_or)
    for n in (0, 2, 5):
        a = _arg((n,))
        for i in (0, 1, 4, -1):
            try:
                want = indexed_or(a, i)
            except IndexError:
                with pytest.raises(IndexError):
                    p(a, i)
                continue
            assert same(p(a, i), want), (n, i)


@pytest.mark.parametrize("shape", [(0,), (2,)])
def test_unguarded_read_of_empty_array_still_raises(shape):
    p = ph.pipeline(first_unguarded)
    a = _arg(shape)
    if shape[0] == 0:
        with pytest.raises(IndexError):
            first_unguarded(a)
        with pytest.raises(IndexError):
            p(a)
    else:
        assert same(p(a), first_unguarded(a))


def outer_and_sum(x):
    o = np.outer(x, x)
    return o, o.sum()


def gathered_sum(a, idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s += a[idx[i]]
    return s


def first_positive_column(m):
    for j in range(m.shape[1]):
        for i in range(m.shape[0]):
            if m[i, j] > 0.5:
                return j
    return -1


def row_first_over(m, t):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > t:
                out[i] = m[i, j]
                break
    return out


@pytest.mark.parametrize("schedule", [None, "auto"])
def test_read_under_a_data_guard(schedule):
    """A read at a data-dependent index (checked at run time) is evaluated
    only where its array has an element: a binary search over an empty
    array reads nothing (was a false IndexError)."""
    p = ph.pipeline(bsearch) if schedule is None else ph.pipeline(schedule=schedule)(bsearch)
    for n in (0, 1, 2, 7):
        a = np.sort(np.random.default_rng(n).random(n))
        for x in (-1.0, 0.5, 2.0):
            assert same(p(a, x), bsearch(a, x)), (n, x)


@pytest.mark.parametrize("schedule", [None, "auto"])
def test_outer_of_empty_vector_with_its_sum(schedule):
    p = ph.pipeline(outer_and_sum) if schedule is None else \
        ph.pipeline(schedule=schedule)(outer_and_sum)
    for n in (0, 1, 3):
        x = np.arange(1.0, n + 1.0)
        assert same(p(x), outer_and_sum(x)), n


def test_gather_from_empty_array():
    """idx empty: nothing is read; idx not empty: Python's IndexError."""
    p = ph.pipeline(gathered_sum)
    a = np.zeros(0)
    assert same(p(a, np.zeros(0, dtype=np.int64)), gathered_sum(a, np.zeros(0, dtype=np.int64)))
    with pytest.raises(IndexError):
        gathered_sum(a, np.zeros(2, dtype=np.int64))
    with pytest.raises(IndexError):
        p(a, np.zeros(2, dtype=np.int64))
    b = np.arange(4.0)
    idx = np.array([3, 0, -1, 2])
    assert same(p(b, idx), gathered_sum(b, idx))


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 3), (2, 3)])
def test_nested_exits_over_empty_axes(shape):
    m = np.random.default_rng(1).random(shape)
    p, q = ph.pipeline(first_positive_column), ph.pipeline(row_first_over)
    assert same(p(m), first_positive_column(m.copy()))
    assert same(q(m, 0.3), row_first_over(m.copy(), 0.3))
