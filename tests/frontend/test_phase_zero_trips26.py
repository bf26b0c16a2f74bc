"""A loop carrying arrays (carried_arrays.py, phase mode) that runs no
iteration evaluates nothing, as in Python: the call-time checks of its body
(a reduction over an empty axis, array_reduce.require_nonempty; a constant
column out of range, arrays.StaticIndexCheck) raised for n = 0 (false
errors found by a fuzz of phase-mode loops). Where the loop runs, the error
stays: the same exception type, its text containing NumPy's. Compared with
plain Python (values bit for bit: small integers)."""
import numpy as np
import pytest

import pyhalide as ph


def max_rows(a, n):
    out = np.zeros(a.shape[1])
    for i in range(n):
        out += a.max(axis=0)
    return out


def argmin_cols_and_sum(a, n):
    out = np.zeros(a.shape[0])
    t = np.zeros(a.shape[1])
    for i in range(n):
        out += a.argmin(axis=1)
        s = a.min(axis=0).sum()
        t += s
    return out, t


def max_plus_column(a, n, k):
    out = np.zeros(a.shape[0])
    for i in range(n):
        out += a.max(axis=1) + a[:, k]
    return out


def column(a, n, k):
    out = np.zeros(a.shape[0])
    for i in range(n):
        out += a[:, k]
    return out


def _outcome(f, *args):
    try:
        r = f(*args)
    except (ValueError, IndexError) as e:
        return type(e), str(e)
    return None, [np.asarray(x) for x in (r if isinstance(r, tuple) else (r,))]


def _same(f, k, *args):
    (wt, want), (gt, got) = _outcome(f, *args), _outcome(k, *args)
    assert gt is wt, (f.__name__, args, want, got)
    if wt is not None:
        assert want in got, (f.__name__, args, want, got)
        return
    for w, g in zip(want, got):
        assert g.shape == w.shape and np.array_equal(g, w), (f.__name__, args, w, g)


CASES = [(max_rows, [(0, 4), (3, 2)], (None,)),
         (argmin_cols_and_sum, [(3, 0), (0, 3), (2, 5)], (None,)),
         (max_plus_column, [(5, 2), (0, 3)], (1, 2, -3)),
         (column, [(5, 2), (4, 0)], (1, 2))]
# argmin_cols_and_sum (~6 s CPU) in the slow run: the default run's budget
KERNELS = [pytest.param(f, ph.pipeline(f), shapes, ks, id=f.__name__,
                        marks=[pytest.mark.slow] if f is argmin_cols_and_sum else [])
           for f, shapes, ks in CASES]


@pytest.mark.parametrize("f,k,shapes,ks", KERNELS)
def test_zero_trips_check_nothing_against_python(f, k, shapes, ks):
    rng = np.random.default_rng(5)
    for shape in shapes:
        a = rng.integers(-3, 4, shape).astype(np.float64)
        for n in (0, 2):
            for kk in ks:
                _same(f, k, a, n, *(() if kk is None else (kk,)))
