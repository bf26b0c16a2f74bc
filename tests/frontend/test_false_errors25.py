"""False errors and wrong results from loop bounds (session 25), compared
with plain Python, including inputs where Python raises (the exception type
stays Python's)."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same
from tests.frontend.test_false_errors24 import _BOUND_AFTER_LOOP, bound_after_loop


# -- trip counts whose int32 difference wraps (frontend_ast/loop_trips.py) --
def div_down(lo, hi):
    # Python raises ZeroDivisionError at the first iteration; a wrapped
    # extent ran no iteration (0, a wrong result)
    s = 0
    for i in range(hi, lo, -2):
        s += 10 // (i - hi)
    return s


def div_up(lo, hi):
    s = 0
    for i in range(lo, hi):
        s += 10 // (i - lo - 1) + i % 3
    return s


def write_span(a, lo, hi):
    for i in range(lo, hi):
        a[i] = 1.0
    return a


_DIV_DOWN = pipeline(div_down)
_DIV_UP = pipeline(div_up)
_WRITE_SPAN = pipeline(write_span)
_M = 2**31


@pytest.mark.parametrize("lo,hi", [(-_M, _M - 1), (-_M + 5, _M - 1), (0, 5), (5, 0), (-_M, -_M)])
def test_trip_count_past_int32_runs_as_python(lo, hi):
    _same(_DIV_DOWN, div_down, lo, hi)


@pytest.mark.parametrize("lo,hi", [(-_M, _M - 1), (-3, 4), (_M - 1, -_M), (2, -_M)])
def test_ascending_trip_count_past_int32(lo, hi):
    # ZeroDivisionError at the second iteration where the range runs
    _same(_DIV_UP, div_up, lo, hi)


@pytest.mark.parametrize("lo,hi", [(-_M, _M - 1), (5, -_M + 2), (1, 3)])
def test_write_over_a_wrapping_span(lo, hi):
    _same(_WRITE_SPAN, write_span, np.arange(4.0), lo, hi)


@pytest.mark.parametrize("n", [-_M, -_M - 1, -2**40, 0, 30])
def test_empty_range_at_int32_low_end_is_quick(n):
    # the sieve's `range(2, n)` with n = -2**31: `n - 2` wrapped to 2**31 - 2
    # iterations of an empty inner loop (5 s a call)
    import time
    _BOUND_AFTER_LOOP(np.arange(48.0), 30)      # (compiled before the timing)
    t = time.process_time()
    _same(_BOUND_AFTER_LOOP, bound_after_loop, np.arange(48.0), n)
    # (CPU time of this process, not wall; the call takes < 1 ms)
    assert time.process_time() - t < 2.0


# -- a broadcast under a branch whose condition is known at call time
# (arrayexpr.Broadcastable gated by call_time_reach.call_time_reach) --
def branch_add(a, b, n):
    if n > 2:
        a = a + b
    return a * 2.0


_BRANCH_ADD = pipeline(branch_add)


@pytest.mark.parametrize("na,nb,n", [(3, 4, 1), (3, 4, 3), (4, 3, 3), (3, 1, 1), (1, 3, 3),
                                     (3, 3, 1)])
def test_broadcast_in_a_branch_not_taken(na, nb, n):
    # (na > nb with the branch not taken is still a false IndexError: the
    # branch's sum is computed whole and selected, reading b past its end)
    _same(_BRANCH_ADD, branch_add, np.arange(na) + 1.0, np.arange(nb) + 0.5, n)


# -- call-time shape checks in loops of no iteration (call_time_reach.add_loop_gated) --
def shapes_in_loop(a, b, n):
    s = 0.0
    for k in range(n):
        s += np.dot(a, b) + np.stack([a, b]).sum() + np.gradient(a)[0]
        s += np.trapezoid(a, b) + np.convolve(a, b, mode="valid").sum()
    return s


_SHAPES_IN_LOOP = pipeline(shapes_in_loop)


@pytest.mark.parametrize("na,nb,n", [(3, 4, 0), (3, 4, 2), (1, 1, 0), (1, 1, 1), (4, 4, 0),
                                     (4, 4, 2), (0, 2, 0)])
def test_shape_checks_of_a_loop_that_does_not_run(na, nb, n):
    _same(_SHAPES_IN_LOOP, shapes_in_loop, np.arange(na) + 1.0, np.arange(nb) * 0.5, n)


# -- a guarded loop trimmed to [lo, hi] whose hi is near -2**31 (lowering/
# trim_no_ops._loop: the extent hi - lo + 1 wrapped; found by the 3-level fuzz) --
def trimmed_empty(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(hi - i, i + lo):
            for k in range(j + 1, n):
                s += a[k]
    return s


def trimmed_read(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(hi - i, i + lo):
            s += a[j] * (i + 1)
    return s


_TRIMMED_EMPTY = pipeline(trimmed_empty)
_TRIMMED_READ = pipeline(trimmed_read)


@pytest.mark.parametrize("n,lo,hi", [(4, -_M + 2, 5), (7, -_M + 2, 5), (4, -_M + 20, 5), (5, 3, 1),
                                     (6, 4, -2)])
def test_trimmed_loop_near_int32_low_end(n, lo, hi):
    # (main: 21.0 for the first, Python 0.0)
    _same(_TRIMMED_EMPTY, trimmed_empty, np.arange(n) * 1.0, lo, hi)
    _same(_TRIMMED_READ, trimmed_read, np.arange(n) * 1.0, lo, hi)
