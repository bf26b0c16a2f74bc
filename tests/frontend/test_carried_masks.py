"""Assignments through a boolean mask made each iteration, in a loop that
carries arrays (frontend_ast/carried_body.py, carried_arrays._body_mask):
written where the mask holds, masked reads element by element; compared
with plain Python."""
import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check

C = np.linspace(-1.7, 0.6, 20).reshape(4, 5)


def escape_time(c, maxiter, horizon):
    # numpy-benchmarks mandelbrot's loop (over a float or complex argument)
    z = np.zeros(c.shape, c.dtype)
    n = np.zeros(c.shape, np.int64)
    for k in range(maxiter):
        inside = np.less(np.abs(z), horizon)
        n[inside] = k
        z[inside] = z[inside] ** 2 + c[inside]
    n[n == maxiter - 1] = 0
    return z, n


def masked_increment(a, steps):
    u = a.copy()
    for k in range(steps):
        big = u > 0.5
        u[big] -= 0.25 * a[big]
        u[big] *= 0.75
        u += 0.125
    return u


def mask_store(u, steps):
    u = u.copy()
    for _ in range(steps):
        u[u > 1.0] = 0.0
        u = u * 2.0
    return u


def test_mask_of_a_rebound_name():
    check(ph.pipeline(mask_store), C.ravel() * 2.0, 3)


def test_escape_time_with_a_mask_per_iteration():
    check(ph.pipeline(escape_time), C, 12, 2.0)
    check(ph.pipeline(escape_time), C, 0, 2.0)


def test_augmented_masked_updates():
    check(ph.pipeline(masked_increment), np.abs(C), 7)


def test_complex_array_carried_as_its_parts():
    grid = np.linspace(-2.0, 0.5, 9) + np.linspace(-1.1, 1.1, 6)[:, None] * 1j
    got = ph.pipeline(escape_time)(grid, 25, 2.0)
    exp = escape_time(grid, 25, 2.0)
    assert got[1].dtype == exp[1].dtype and np.array_equal(got[1], exp[1])
    assert got[0].dtype == exp[0].dtype and got[0].shape == exp[0].shape
    # complex * is within 2 ulp of NumPy's (FRONTEND.md); escaped points stop early
    np.testing.assert_allclose(got[0], exp[0], rtol=1e-12, atol=0)
