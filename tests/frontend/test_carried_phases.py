"""Loops that carry arrays and whose body makes reductions (phase mode,
frontend_ast/carried_phases.py): every result is compared with plain
Python (bit for bit where the reduction order is Python's sequential one),
also the argument arrays the function writes; what is not compiled is a
located error."""
import os
import sys

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples"))
from numpy_kernels.k_loops import power_iteration  # noqa: E402

RNG = np.random.default_rng(1610)


def sequential_power_iteration(a, iters):
    """power_iteration with every product summed in index order (the
    order of the compiled reduction)."""
    n = a.shape[0]
    v = [1.0] * n
    for _ in range(iters):
        w = []
        for i in range(n):
            s = 0.0
            for j in range(n):
                s += float(a[i, j]) * v[j]
            w.append(s)
        s = 0.0
        for x in w:
            s += x * x
        r = float(np.sqrt(s))
        v = [x / r for x in w]
    return np.array(v)


def test_power_iteration_bit_exact_sequential_order():
    a = RNG.standard_normal((7, 7))
    a = a + a.T
    got = ph.pipeline(power_iteration)(a, 9)
    assert np.array_equal(got, sequential_power_iteration(a, 9))
    assert np.allclose(got, power_iteration(a, 9), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("iters", [0, 1, 3])
def test_power_iteration_trip_counts(iters):
    a = np.arange(16.0).reshape(4, 4) % 5       # small integers: every order is exact
    assert np.array_equal(ph.pipeline(power_iteration)(a, iters), power_iteration(a, iters))


def int_sum_step(u, steps):
    u = u.copy()
    for _ in range(steps):
        s = u.sum()
        u[1:-1] = u[1:-1] + (u[:-2] - u[2:]) // 2 + s % 3
    return u


def test_integer_sum_then_stencil_reads_old_values():
    check(ph.pipeline(int_sum_step), RNG.integers(-50, 50, 11).astype(np.int64), 4)
    check(ph.pipeline(int_sum_step), RNG.integers(-50, 50, 6).astype(np.int32), 0)


def arg_written(u, steps):
    for t in range(steps):
        m = u.max()
        u -= m - t
        u[0] = u.min()


def test_argument_written_with_min_max():
    p = ph.pipeline(arg_written)
    u = RNG.integers(-9, 9, 8).astype(np.int32)
    v = u.copy()
    arg_written(v, 5)
    p(u, 5)
    assert np.array_equal(u, v)


def swap_with_sum(a, steps):
    b = a[::-1] * 1
    for _ in range(steps):
        a, b = b, a + b.sum()
    return a, b


def test_swap_and_rebinding_with_reduction():
    a = RNG.integers(0, 20, 5)
    check(ph.pipeline(swap_with_sum), a, 6)


def scalar_snapshot(v, steps):
    v = v.copy()
    for _ in range(steps):
        s = v[0] + v.max()
        v[0] = -3
        v = v * 2 + s
    return v


def test_scalar_read_before_a_write_keeps_its_value():
    check(ph.pipeline(scalar_snapshot), RNG.integers(-5, 5, 4).astype(np.int64), 3)


def matrix_steps(a, steps):
    m = a.copy()
    for _ in range(steps):
        m = m @ a
        m[0, :] = m.sum(axis=0) % 7
    return m


def test_matrix_products_and_axis_sums():
    a = RNG.integers(-2, 3, (3, 3))
    check(ph.pipeline(matrix_steps), a, 4)


def argmax_track(x, steps):
    x = x.copy()
    for _ in range(steps):
        k = x.argmax()
        x[k] = x[k] - 10
        x = x + (x.argmin() % 3)
    return x


def test_argmax_argmin_in_phases():
    check(ph.pipeline(argmax_track), RNG.integers(0, 30, 9), 5)


def float_sum_in_body(u, steps):
    u = u.copy()
    for _ in range(steps):
        u = u - u.sum() / u.size
    return u


def test_float_sum_in_body_in_numpy_order():
    """A 1-D float sum in phase mode: NumPy's pairwise order
    (carried_sums.py), bit for bit (serial, one block with a rest)."""
    p = ph.pipeline(float_sum_in_body)
    for n in (4, 13):
        check(p, RNG.random(n), 3)


def test_float_sum_2d_in_body_is_located_error():
    """Two axes of an array the loop rebinds: NumPy sums it in its memory
    order, which phase mode does not track (an F-ordered argument)."""
    expect_error(float_sum_in_body, (RNG.random((2, 3)), 2), "u.sum()", "not supported")


def float32_max(u, steps):
    x = np.float32(0)
    for _ in range(steps):
        x = x + u.max()
        u = u * np.float32(0.5)
    return u, x


def test_float_max_in_phases_is_the_serial_result():
    u = RNG.standard_normal(9).astype(np.float32)
    check(ph.pipeline(float32_max), u, 4)
    u[3] = np.nan
    check(ph.pipeline(float32_max), u, 2)


def masked_steps(u, steps):
    u = u.copy()
    for _ in range(steps):
        m = u > u.max() // 2
        u[m] -= 3
        u[1:] = u[:-1] + u.min()
    return u


def reversed_view(u, steps):
    w = u * 1
    for _ in range(steps):
        s = w.sum()
        w = w[::-1] + s % 5
    return w


def test_masks_and_views_in_phases():
    check(ph.pipeline(masked_steps), RNG.integers(0, 30, 7), 4)
    check(ph.pipeline(reversed_view), RNG.integers(0, 30, 7), 4)


def heat_with_time(u, dt, steps):
    u = u.copy()
    t = 0.0
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.1 * (u[:-2] - 2 * u[1:-1] + u[2:]) + dt * np.sin(t)
        t += dt
    return u, t


def fibonacci_scalars(u, steps):
    a, b = 1, 2
    for _ in range(steps):
        a, b = b, a + b
        u = u * 2 % 1000 + a
    return u, a, b


def test_scalars_carried_with_arrays():
    check(ph.pipeline(heat_with_time), RNG.standard_normal(8), 0.1, 5)
    check(ph.pipeline(fibonacci_scalars), RNG.integers(0, 9, 5), 6)
    with pytest.raises(OverflowError):          # Python ints beyond int64
        ph.pipeline(fibonacci_scalars)(np.arange(3), 100)


def scalar_changes_type(u, steps):
    c = 0
    for _ in range(steps):
        c = c + 0.5
        u = u + 1
    return u, c


def aliased_then_rebound(u, steps):
    a = u.copy()
    b = a
    for _ in range(steps):
        b[0] = b.sum()
        a = a + 1
    return a, b


def test_phase_mode_refusals_are_located():
    expect_error(scalar_changes_type, (np.ones(3), 2), "for _ in range(steps)", "keeps its type")
    expect_error(aliased_then_rebound, (np.arange(4), 2), "for _ in range(steps)",
                 "copy it first")


def python_int_divisor(u, steps):
    u = u.copy()
    for _ in range(steps):
        s = int(u.max() - u.min()) + 1
        u = u + 10 // s
    return u


def python_int_index(u, steps):
    u = u.copy()
    for _ in range(steps):
        s = int(u.max() - u.min()) + 1
        u = (u + u[s - 1]) % 4
    return u


def test_checks_run_only_in_their_own_phase():
    """A phase's checks (a Python int division by zero, an int64 overflow of
    `int(max - min) + 1` while max/min hold their identities, an index)
    do not fire while other phases run: no spurious exception."""
    check(ph.pipeline(python_int_divisor), np.array([3, 9, 1, 4]), 3)
    check(ph.pipeline(python_int_index), np.array([3, 2, 1, 4, 5, 6]), 3)
    check(ph.pipeline(python_int_index), np.array([3, 2, 1, 9]), 2)     # IndexError
