"""Loops that carry whole arrays from one iteration to the next (time
stepping, carried_arrays.py): every result is compared with plain Python,
also the argument arrays the function writes into; what is not compiled is
a located error."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError

RNG = np.random.default_rng(16)


def heat_1d(u, r, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[:-2] - 2 * u[1:-1] + u[2:])
    return u


def euler(x, v, k, dt, steps):
    for _ in range(steps):
        x = x + dt * v
        v = v - dt * k * x
    return x, v


def diffusion(u, tempU, iterNum):
    mu = .1
    for n in range(iterNum):
        tempU[1:-1, 1:-1] = u[1:-1, 1:-1] + mu * (
            u[2:, 1:-1] - 2 * u[1:-1, 1:-1] + u[0:-2, 1:-1] +
            u[1:-1, 2:] - 2 * u[1:-1, 1:-1] + u[1:-1, 0:-2])
        u[:, :] = tempU[:, :]
        tempU[:, :] = 0.0


def double_buffer(a, steps):
    a = a.copy()
    b = np.zeros_like(a)
    for _ in range(steps):
        b[1:-1] = (a[:-2] + a[2:]) * 0.5
        a, b = b, a
    return a, b


def views_in_place(ru, rv, counts):
    n = ru.shape[0]
    U = np.zeros((n + 2, n + 2))
    V = np.zeros((n + 2, n + 2))
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
    u[:] = 1.0
    u += 0.15 * ru
    v += 0.15 * rv
    for i in range(counts):
        Lu = U[0:-2, 1:-1] + U[1:-1, 0:-2] - 4 * U[1:-1, 1:-1] + U[1:-1, 2:] + U[2:, 1:-1]
        Lv = V[0:-2, 1:-1] + V[1:-1, 0:-2] - 4 * V[1:-1, 1:-1] + V[1:-1, 2:] + V[2:, 1:-1]
        uvv = u * v * v
        u += 0.16 * Lu - uvv + 0.04 * (1 - u)
        v += 0.08 * Lv + uvv - 0.1 * v
    return U, V


def self_overlap(v, steps):
    v = v.copy()
    for _ in range(steps):
        v[1:-1] = v[:-2] + v[2:]
    return v


def loop_variable_and_step(u, n):
    u = u.copy()
    for t in range(2, n, 3):
        u[1:] = u[1:] + t * 0.01 * u[:-1]
    return u


def periodic_boundary(u, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
        u[0] = u[-2]
        u[-1] = u[1]
    return u


def count_inside(x, steps):
    count = np.zeros(x.shape, dtype=np.int32)
    for _ in range(steps):
        x = x * x - 0.5
        count = count + (np.abs(x) < 1.0)
    return count, x


def reversed_strided(u, steps):
    u = u.copy()
    for _ in range(steps):
        u[::2] = u[::-2] * 0.5 + 1.0
    return u


def run_both(fn, args):
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    got = ph.pipeline(fn)(*got_args)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got):
        if w is None:
            assert g is None
            continue
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
    for w, g in zip(want_args, got_args):       # writes into arguments are seen
        if isinstance(w, np.ndarray):
            np.testing.assert_array_equal(g, w)


def _heat_grid():
    u = np.zeros((9, 7))
    u[4, 3] = 1000.0
    return u


CASES = [
    (heat_1d, lambda: (RNG.standard_normal(11), 0.25, 5)),
    (heat_1d, lambda: (RNG.standard_normal(11), 0.25, 0)),
    (heat_1d, lambda: (RNG.standard_normal(3), 0.25, 1)),
    (euler, lambda: (RNG.standard_normal(6), RNG.standard_normal(6), 2.0, 0.1, 4)),
    (diffusion, lambda: (_heat_grid(), np.zeros((9, 7)), 6)),
    (double_buffer, lambda: (RNG.standard_normal(8), 3)),
    (double_buffer, lambda: (RNG.standard_normal(8), 4)),
    (views_in_place, lambda: (RNG.random((6, 6)), RNG.random((6, 6)), 3)),
    (self_overlap, lambda: (RNG.standard_normal(7), 3)),
    (loop_variable_and_step, lambda: (RNG.standard_normal(6), 11)),
    (periodic_boundary, lambda: (RNG.standard_normal(8), 4)),
    (count_inside, lambda: (RNG.uniform(-1.5, 1.5, (3, 4)), 5)),
    (reversed_strided, lambda: (RNG.standard_normal(7), 3)),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[f"{c[0].__name__}{k}" for k, c in
                                                 enumerate(CASES)])
def test_carried_arrays_equal_python(fn, make):
    run_both(fn, make())


def carries_a_scalar_too(u, steps):
    t = 0.0
    for _ in range(steps):
        u = u + t
        t += 0.5
    return u


def changes_dtype(a, steps):
    for _ in range(steps):
        a = a * 0.5
    return a


def index_store(u, steps):
    u = u.copy()
    idx = np.array([0, 2])
    for _ in range(steps):
        u[idx] = 0.0
        u = u * 2.0
    return u


def reduction_in_body(u, steps):
    for _ in range(steps):
        u = u / u.sum()
    return u


def test_reduction_in_body_1d():
    """A 1-D float sum in the body: phase mode, NumPy's pairwise order."""
    p = ph.pipeline(reduction_in_body)
    for n in (3, 20):
        u = RNG.random(n)
        np.testing.assert_array_equal(p(u.copy(), 3), reduction_in_body(u.copy(), 3))


def writes_argument_then_rebinds(u, steps):
    for _ in range(steps):
        u[0] = 1.0
        u = u * 2.0
    return u


ERRORS = [
    (changes_dtype, (np.arange(4), 3), "keeps its dtype"),
    (index_store, (RNG.standard_normal(4), 3), "through an integer array"),
    (reduction_in_body, (RNG.random((2, 2)), 3), "not supported yet"),
    (writes_argument_then_rebinds, (RNG.random(4), 3), "then binds 'u' to another array"),
]


@pytest.mark.parametrize("fn,args,message", ERRORS, ids=[c[0].__name__ for c in ERRORS])
def test_refused_forms_are_located_errors(fn, args, message):
    with pytest.raises(FrontendError, match=message) as e:
        ph.pipeline(fn)(*args)
    assert "test_carried_arrays.py:" in str(e.value)


def masked_in_place(a, steps):
    out = a * 3.0
    for i in range(steps):
        out[out > 1.0] -= 1.0
    return out


def test_a_loop_carrying_no_name_keeps_its_region_updates():
    # a mask store is not a recurrence yet; no name carries an array, so the
    # store compiles as an update over the region and the loop, as before
    run_both(masked_in_place, (RNG.random(6), 3))


def test_a_carried_scalar_compiles_in_phase_mode():
    """(a located error before session 10: carried_phases.py carries it)"""
    u = RNG.standard_normal(4)
    assert np.array_equal(ph.pipeline(carries_a_scalar_too)(u, 3), carries_a_scalar_too(u, 3))
