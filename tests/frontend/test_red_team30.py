"""Wrong results found by session 30's red team (docs/red_team30.md), each
against plain Python."""
import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def times_constant_bool(xa):
    x = int(xa[0])
    return x * (1 < 2) * 2 ** 40, x * int(1 % 3.0) + (3 == 3) * x


def test_product_with_a_constant_comparison():
    """`x * (1 < 2)` is x: the constant True's range is [0, 1], and the
    product's affine bounds were scaled by its low end 0, so the next
    product was taken to be 0 and wrapped (0 where Python's int is 2**70)
    instead of raising the int64 limit's OverflowError; `x * int(1 % 3.0)`
    (a constant without a range) crashed the compiler (TypeError)."""
    for v in (3, -7, 2 ** 22):
        x = int(v)
        assert times_constant_bool(np.array([v])) == (x * 2 ** 40, 2 * x)
    for v in (2 ** 30, 2 ** 31 + 5, -2 ** 40):
        with pytest.raises(OverflowError):
            times_constant_bool(np.array([v]))


@ph.pipeline
def add_flipped_prefix(r):
    y = np.zeros(r.shape[0])
    for k in range(1, r.shape[0]):
        y[:k] += 0.5 * np.flip(r[:k])
    return y


def test_flipped_moving_slice_of_another_array():
    """`np.flip(r[:k])` read at position k - 1 - p for p < k: the compiled
    loop's bounds took p and k apart and raised an IndexError of r read
    from -(n - 2) where Python returns (a false error)."""
    big = np.arange(100.0, 120.0)
    for n in (0, 1, 3, 6):
        r = big[5:5 + n]
        want = np.zeros(n)
        for k in range(1, n):
            want[:k] += 0.5 * r[:k][::-1]
        np.testing.assert_array_equal(add_flipped_prefix(r), want)


@ph.pipeline
def read_under_size_test(a, k):
    s = 0.0
    for i in range(k):
        if i < a.shape[0]:
            s += a[i]
    return s


def test_read_in_range_by_the_if_of_an_empty_array():
    """`if i < a.shape[0]: a[i]` needs no index check, but the read was not
    made lazy where `a` is empty: Halide's bounds query saw the clamped
    read a[0] of the empty input and raised an IndexError where Python
    returns."""
    assert read_under_size_test(np.zeros(0), 3) == 0.0
    assert read_under_size_test(np.arange(1.0, 3.0), 3) == 3.0


@ph.pipeline
def read_before_an_empty_inner_loop(r, x, y):
    n = r.shape[0]
    for k in range(1, n + 1):
        s = r[k]
        for p in range(n - k):
            x[k + p] += s * y[k + p]
        y[0] = 0.5
    return x


def test_lost_index_error_of_a_loop_run_in_phases():
    """The loop runs in phases (it reads y in the inner loop and writes it
    after): `r[k]` at k = n raises in Python, and its value is read only by
    the inner loop, which runs no iteration there; the compiled code
    returned x. The index now gets the call-time check over the loop."""
    r, x, y = np.arange(1.0, 4.0), np.zeros(3), np.ones(3)
    with pytest.raises(IndexError):
        read_before_an_empty_inner_loop(r, x, y)
    np.testing.assert_array_equal(x, [0.0, 2.0, 5.0])   # as Python leaves it


def _moving_slice_read(r, x, y, stop):
    n = r.shape[0]
    for k in range(1, stop):
        x[k:] += r[k] * y[k:]
        y[k % n] = 0.5
    return x


moving_slice_read = ph.pipeline(_moving_slice_read)


def test_lost_index_error_of_a_slice_statement_in_phases():
    """The slice rewrite evaluates `r[k]` once before the element loop of
    x[k:], inside its guard `if` (known when the function is compiled); at
    k = n the element loop is empty and the read's run-time check was never
    reached: x was returned where Python raises. The guard is now entered
    when asking whether the read runs every iteration, so the index gets
    the call-time check over the loop (Python's writes kept: check_order)."""
    r, x, y = np.arange(1.0, 4.0), np.zeros(3), np.ones(3)
    with pytest.raises(IndexError):
        moving_slice_read(r, x, y, 4)
    np.testing.assert_array_equal(x, [0.0, 2.0, 5.0])   # as Python leaves it
    args = [np.arange(1.0, 5.0), np.zeros(4), np.ones(4)]
    want = _moving_slice_read(*[a.copy() for a in args], 4)
    np.testing.assert_array_equal(moving_slice_read(*args, 4), want)


def _raise_then_moving_slice(r, x, y):
    n = r.shape[0]
    for k in range(1, n + 1):
        if k == n - 1:
            raise ValueError("stop")
        x[k:] += r[k] * y[k:]
        y[k % n] = 0.5
    return x


raise_then_moving_slice = ph.pipeline(_raise_then_moving_slice)


def test_lost_index_error_beside_a_raise_in_phases():
    """A `raise` in the body ends the call, so the read still runs every
    iteration until then: n = 1 raises Python's IndexError (it was lost:
    the raise kept the call-time check away); n = 3 raises the body's
    ValueError at k = 2, before the read past the end at k = 3 (the plain
    function tells, with Python's writes)."""
    with pytest.raises(IndexError):
        raise_then_moving_slice(np.ones(1), np.zeros(1), np.ones(1))
    r, x, y = np.arange(1.0, 4.0), np.zeros(3), np.ones(3)
    with pytest.raises(ValueError, match="stop"):
        raise_then_moving_slice(r, x, y)
    np.testing.assert_array_equal(x, [0.0, 2.0, 2.0])
    np.testing.assert_array_equal(y, [1.0, 0.5, 1.0])


def _division_read_by_an_empty_loop(r, x, y):
    n = r.shape[0]
    for k in range(1, n + 1):
        s = k // (n - k)                  # k = n: ZeroDivisionError
        for p in range(n - k):            # no iteration at k = n
            x[k + p] += s * y[k + p]
        y[0] = 0.5
    return x


division_read_by_an_empty_loop = ph.pipeline(_division_read_by_an_empty_loop)


def test_lost_zero_division_of_a_bound_scalar_in_phases():
    """In a loop run in phases, a scalar bound to a name kept its checks in
    its value, computed only where an inner loop read it (no iteration at
    k = n): x was returned where Python raises ZeroDivisionError. The
    binding's checks are now computed where Python evaluates it
    (carried_operands.bound_scalar)."""
    r, x, y = np.arange(1.0, 4.0), np.zeros(3), np.ones(3)
    with pytest.raises(ZeroDivisionError):
        division_read_by_an_empty_loop(r, x, y)
    want = [np.arange(1.0, 4.0), np.zeros(3), np.ones(3)]
    with pytest.raises(ZeroDivisionError):
        _division_read_by_an_empty_loop(*want)
    np.testing.assert_array_equal(x, want[1])
    np.testing.assert_array_equal(y, want[2])


def _empty_reversed_slice_at_the_end(r, alpha):
    n = r.shape[0]
    y = np.zeros(n) + 1.0
    s = 0.0
    for k in range(1, n):
        y[n - k:1] -= alpha * r[k + 1:k - 1][::-1]
        s += np.dot(r[0:k - 1][::-1], np.flip(r[k + 1:0]))
    return y, s


empty_reversed_slice_at_the_end = ph.pipeline(_empty_reversed_slice_at_the_end)


def test_empty_reversed_slice_at_the_end_of_the_array():
    """`r[2:0][::-1]` of a 2-element r is empty: the element loop reads
    nothing, but its position start + max(length - 1 - p, 0) put r[2] in
    the bounds query (a false IndexError, flip fuzzer seed 37, after this
    session's _elem change); the position is now clamped to the axis."""
    for n in (0, 1, 2):                 # (n = 3: a dot of lengths 1 and 0)
        r = np.arange(1.0, n + 1.0)
        got, want = empty_reversed_slice_at_the_end(r, 0.5), _empty_reversed_slice_at_the_end(r, 0.5)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]


def _flipped_tail(r):
    n = r.shape[0]
    y = np.zeros(n)
    for k in range(1, n):
        y[:n - k] += 0.5 * np.flip(r[k:])
    return y


flipped_tail = ph.pipeline(_flipped_tail)


def test_flipped_tail_of_another_array():
    """`np.flip(r[k:])`: the position start + length - 1 - p was bounded
    with start, length and p taken apart (main: r read over [-(n-3), 2n-3],
    a false IndexError); clamped to the axis it stays inside r."""
    for n in (0, 1, 3, 5):
        r = np.arange(1.0, n + 1.0)
        np.testing.assert_array_equal(flipped_tail(r), _flipped_tail(r))
