"""A call that fails with a limit of the compiled code (not a failure
Python has) leaves the caller's arrays bit for bit as they were, while the
plain function run that tells which exception Python raises first
(check_order.raise_plain) writes them; where Python itself fails, the
arguments hold Python's writes up to its failure, as the plain call leaves
them."""
import numpy as np
import pytest

import pyhalide as ph

from .test_carried_loops25 import lms_cast


def wrap_near_int32_max(a, out, lo, hi):
    n = a.shape[0]
    for i in range(n):
        out[i] = out[i] * 0.5
        for j in range(hi, i + lo, -1):
            out[i] += a[j - lo - i - 1] * (i + 1)
    return out


@pytest.fixture(scope="module")
def kernels():
    return ph.pipeline(lms_cast), ph.pipeline(wrap_near_int32_max)


def _copies(args):
    return [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]


def _unchanged(args, before):
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            assert a.tobytes(order="A") == b.tobytes(order="A")


def _cast_args(k, n, d_len):
    rng = np.random.default_rng(k)
    x = rng.standard_normal(n + k).astype(np.float32)
    return (x, rng.standard_normal(d_len), (rng.standard_normal(k) * 0.1).astype(np.float32),
            0.01, np.zeros(n))


def test_cast_sum_limit_leaves_arguments(kernels):
    """A cast sum past one buffer piece: NotImplementedError at call time;
    Python completes (it writes e and w), the arguments stay as they were."""
    args = _cast_args(8193, 3, 3)
    before = _copies(args)
    lms_cast(*_copies(args))                       # Python runs to the end
    with pytest.raises(NotImplementedError, match="pieces of 8192"):
        kernels[0](*args)
    _unchanged(args, before)


def test_python_failure_under_the_cast_sum_limit_keeps_its_writes(kernels):
    """d one element short: Python raises IndexError at the last iteration
    after writing e and w twice; the compiled call raises it with those writes."""
    args = _cast_args(8193, 3, 2)
    want = _copies(args)
    with pytest.raises(IndexError):
        lms_cast(*want)
    with pytest.raises(IndexError):
        kernels[0](*args)
    assert not np.array_equal(want[4], np.zeros(3))
    for g, w in zip(args, want):
        if isinstance(g, np.ndarray):
            np.testing.assert_array_equal(g, w)


def test_descending_hull_near_int32_max_runs(kernels):
    """The hull of `range(hi, i + lo, -1)` near 2**31 - 1 is taken with its
    extent in int64 (emit._wide_extent): Python's result, where session 25
    raised OverflowError for the index arithmetic."""
    a, out = np.arange(3) + 1.0, np.ones(3)
    want = wrap_near_int32_max(a.copy(), out.copy(), 2**31 - 5, 2**31 - 2)
    got = kernels[1](a, out, 2**31 - 5, 2**31 - 2)
    assert np.array_equal(got, want) and np.array_equal(out, want)


@pytest.mark.parametrize("n,lo,hi,match", [
    (6, 2**31 - 5, 2**31 - 2, "does not fit in 32 bits"),   # a range bound past int32
])
def test_int32_limits_leave_arguments(kernels, n, lo, hi, match):
    """Python runs (int indices are unbounded); the kernel's int32 index
    arithmetic would wrap: OverflowError, the arguments as they were."""
    a, out = np.arange(n) + 1.0, np.ones(n)
    want = wrap_near_int32_max(a.copy(), out.copy(), lo, hi)
    assert not np.array_equal(want, out)
    before = _copies((a, out))
    with pytest.raises(OverflowError, match=match):
        kernels[1](a, out, lo, hi)
    _unchanged((a, out), before)


def test_python_failure_in_the_wrapping_loop_keeps_its_writes(kernels):
    """hi past a's end at i = 0 (j - lo - 1 >= n): Python raises IndexError
    at the first read, after out[0] *= 0.5; the compiled call as well."""
    n, lo, hi = 3, 2**31 - 5, 2**31 - 1
    a, out = np.arange(n) + 1.0, np.ones(n)
    want = out.copy()
    with pytest.raises(IndexError):
        wrap_near_int32_max(a.copy(), want, lo, hi)
    with pytest.raises(IndexError):
        kernels[1](a, out, lo, hi)
    np.testing.assert_array_equal(out, want)


def trapezoid_after_write(a, x, y, out):
    out[:] = a[5] * 2.0
    return np.trapezoid(y, x)


def trapezoid_after_two_writes(a, x, y, out):
    out[0] = 7.0
    out[1] = a[5]
    return np.trapezoid(y, x)


@pytest.fixture(scope="module")
def trapezoids():
    return ph.pipeline(trapezoid_after_write), ph.pipeline(trapezoid_after_two_writes)


@pytest.mark.parametrize("which", [0, 1])
def test_limit_after_a_prefix_leaves_arguments(trapezoids, which):
    """x and y of different lengths, one of them 2: NumPy broadcasts (12.5),
    the compiled call raises NotImplementedError at call time. a[5] before
    it may raise, so the prefix runs on the caller's arrays to look for
    Python's failure (check_order.raise_first); it finds none and the
    arguments are as they were, bit for bit."""
    fn = (trapezoid_after_write, trapezoid_after_two_writes)[which]
    args = (np.arange(8.), np.arange(2.), np.arange(6.), np.zeros(3))
    before = _copies(args)
    plain = _copies(args)
    assert fn(*plain) == 12.5
    assert not np.array_equal(plain[3], args[3])
    with pytest.raises(NotImplementedError, match="np.trapezoid of x and y"):
        trapezoids[which](*args)
    _unchanged(args, before)


def test_python_failure_in_the_prefix_keeps_its_writes(trapezoids):
    """a too short for a[5]: Python writes out[0] and raises IndexError
    before the trapezoid; the compiled call raises it with that write."""
    args = (np.arange(4.), np.arange(2.), np.arange(6.), np.zeros(3))
    want = _copies(args)
    with pytest.raises(IndexError):
        trapezoid_after_two_writes(*want)
    with pytest.raises(IndexError):
        trapezoids[1](*args)
    assert want[3][0] == 7.0
    for g, w in zip(args, want):
        np.testing.assert_array_equal(g, w)


def range_past_int32_after_write(a, out, lo, hi):
    out[:] = a[5] * 2.0
    s = 0.0
    for j in range(lo, hi):
        s += a[j - lo]
    return s


def test_range_bound_limit_after_a_prefix_leaves_arguments():
    """range() bounds past int32: Python sums (3.0) after writing out; the
    compiled call raises OverflowError at call time, out as it was."""
    args = (np.arange(8.), np.zeros(3), 2**31 + 1, 2**31 + 4)
    plain = _copies(args)
    assert range_past_int32_after_write(*plain) == 3.0
    assert not np.array_equal(plain[1], args[1])
    before = _copies(args)
    with pytest.raises(OverflowError, match="does not fit in 32 bits"):
        ph.pipeline(range_past_int32_after_write)(*args)
    _unchanged(args, before)
