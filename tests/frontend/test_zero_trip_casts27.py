"""A call-time check in a loop of no iteration is not made, as in Python:
a loop whose bounds are constants of the specialization (`range(1, n)`
with n = X.shape[0] specialized to 1) was not counted by
Context.loops_run_at_call, so NumPy's UFuncTypeError of `T[:a, a] *= 2.0`
on an int64 T (array_store._same_kind) and the IndexError of a boolean
mask of the wrong size (array_masks.MaskShape) were raised although the
loop runs nothing. Where the loop runs, the same exception type as
NumPy's stays. Compared with plain Python (values and arguments bit for
bit). A loop whose bounds are affine in an enclosing loop's variable
(`for j in range(i + 1, m)`; `range(2 * i - 1)` with i in
range(X.shape[0]) specialized to range(1): a bound of a single value) that runs in no iteration of it gates its
checks the same way (loop_trip_reach.runs_somewhere)."""
import numpy as np
import pytest

import pyhalide as ph


def scale_column(X, T, a):
    n = X.shape[0]
    s = 0.0
    for i in range(1, n):
        T[:a, a] *= 2.0
    return s


def scale_column_nested(X, T, k, a):
    s = 0.0
    for i in range(1, X.shape[0]):
        for j in range(k):
            T[:a, a] *= 2.0
    return s


def mask_store(X, M):
    for i in range(1, X.shape[0]):
        X[M] = 0.0
    return 0.0


def dot_sum(X, A, B):
    s = 0.0
    for i in range(1, X.shape[0]):
        s += np.dot(A, B).sum()
    return s


def scale_column_triangle(T, m, a):
    s = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            T[:a, a] *= 2.0
        for j in range(i, 0, -1):
            T[:a, a] += 0.5
    return s


def mask_store_triangle(X, M, m):
    for i in range(m):
        for j in range(2 * i - 1):
            X[M] = 0.0
    return 0.0


def mask_store_point(X, M):
    for i in range(X.shape[0]):
        for j in range(2 * i - 1):
            X[M] = 0.0
    for j in range(-1):
        X[M] = 1.0
    return 0.0


def _outcome(f, args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        r = f(*args)
    except (TypeError, ValueError, IndexError) as e:
        return type(e), str(e)
    return None, [np.asarray(r)] + [a for a in args if isinstance(a, np.ndarray)]


def _same(f, k, args):
    (wt, want), (gt, got) = _outcome(f, args), _outcome(k, args)
    assert gt is wt, (f.__name__, args, want, got)
    if wt is not None:
        assert want.split(" with casting")[0] in got, (f.__name__, args, want, got)
        return
    for w, g in zip(want, got):
        assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w), \
            (f.__name__, args, w, g)


def _i64(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


CASES = [
    (scale_column, [(np.zeros(1, np.float32), _i64(1, 5), 4),
                    (np.zeros(3, np.float32), _i64(1, 5), 4),
                    (np.zeros(2, np.float32), _i64(3, 5), 2)]),
    (scale_column_nested, [(np.zeros(1), _i64(1, 5), 2, 4),
                           (np.zeros(3), _i64(1, 5), 0, 4),
                           (np.zeros(3), _i64(2, 5), 2, 4)]),
    (mask_store, [(np.ones(1), np.ones(4, bool)), (np.ones(3), np.ones(4, bool)),
                  (np.arange(3.0), np.array([True, False, True]))]),
    (dot_sum, [(np.ones(1), np.ones(3), np.ones(4)), (np.ones(2), np.ones(3), np.ones(4)),
               (np.ones(3), np.arange(3.0), np.arange(3.0))]),
    (scale_column_triangle, [(_i64(1, 5), 1, 4), (_i64(1, 5), 0, 4), (_i64(1, 5), 2, 4)]),
    (mask_store_triangle, [(np.ones(3), np.ones(4, bool), 1), (np.ones(3), np.ones(4, bool), 2),
                           (np.arange(3.0), np.array([True, False, True]), 3)]),
    (mask_store_point, [(np.ones(1), np.ones(4, bool)), (np.ones(2), np.ones(4, bool)),
                        (np.arange(3.0), np.array([True, False, True]))]),
]


@pytest.mark.parametrize("f,argss", CASES, ids=[f.__name__ for f, _ in CASES])
def test_empty_loop_checks_nothing(f, argss):
    k = ph.pipeline(f)
    for args in argss:
        _same(f, k, args)
