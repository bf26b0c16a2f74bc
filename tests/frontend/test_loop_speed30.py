"""Session 30 (issue 17 speed): a loop left by a `break` at a bound read from
an array runs to that bound only (lowering/invariant_exit.py), the results
equal to plain Python's (bit for bit: the sums are in Python's order)."""
import numpy as np
import pytest

import pyhalide as ph

RNG = np.random.default_rng(30)


def row_sums(lo, hi, vals):
    out = np.zeros(lo.shape[0])
    for i in range(lo.shape[0]):
        s = 0.0
        for k in range(vals.shape[0]):
            if k >= hi[i] - lo[i]:
                break
            s += vals[lo[i] + k] * (k + 1)
        out[i] = s
    return out


def past_limit(lim, vals):
    out = np.zeros(lim.shape[0])
    for i in range(lim.shape[0]):
        s = 0.0
        for k in range(vals.shape[0]):
            if k > lim[i]:
                break
            s += vals[k]
        out[i] = s
    return out


def outcome(f, *args):
    try:
        return f(*[a.copy() for a in args])
    except Exception as e:        # noqa: BLE001 (the type is compared)
        return type(e)


def same(a, b) -> bool:
    if isinstance(a, type) or isinstance(b, type):
        return a is b
    return a.dtype == b.dtype and np.array_equal(a, b)


def test_break_at_an_array_bound_runs_to_it():
    f = ph.pipeline(row_sums)
    vals = RNG.random(9)
    cases = [
        (np.array([0, 2, 5, 9]), np.array([2, 5, 9, 9])),        # rows of a CSR
        (np.array([3, 0, 7, 1]), np.array([1, 0, 30, 1])),       # negative, empty, past the end
        (np.array([-4, 2, 0]), np.array([-1, 3, 9])),            # negative positions
        (np.array([0, 5], np.int32), np.array([4, 20], np.int32)),
        (np.array([8, 9]), np.array([12, 9])),                   # IndexError at k = 1
    ]
    for lo, hi in cases:
        assert same(outcome(f, lo, hi, vals), outcome(row_sums, lo, hi, vals)), (lo, hi)
    assert same(outcome(f, cases[0][0], cases[0][1], vals[:0]),
                outcome(row_sums, cases[0][0], cases[0][1], vals[:0]))
    # the pass took the loop: its extent reads the bound named `.lim`
    assert ".lim" in f.lower("final")


def test_break_past_a_limit_at_int64_extremes():
    f = ph.pipeline(past_limit)
    vals = RNG.random(7)
    big = np.iinfo(np.int64)
    lim = np.array([-5, -1, 0, 3, 6, 7, 2**40, -2**40, big.max, big.min])
    assert same(f(lim, vals), past_limit(lim, vals))
    assert same(f(lim[:0], vals), past_limit(lim[:0], vals))
    assert same(f(lim, vals[:0]), past_limit(lim, vals[:0]))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_break_at_an_array_bound_random(seed):
    rng = np.random.default_rng(seed)
    f = ph.pipeline(row_sums)
    for _ in range(30):
        m, n = int(rng.integers(0, 5)), int(rng.integers(0, 8))
        lo = rng.integers(-n - 2, n + 3, m)
        hi = rng.integers(-n - 2, n + 3, m)
        vals = rng.random(n)
        assert same(outcome(f, lo, hi, vals), outcome(row_sums, lo, hi, vals)), (lo, hi, n)
