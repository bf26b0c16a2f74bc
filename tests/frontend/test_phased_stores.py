"""Several slice assignments into one array in one loop nest
(frontend_ast/array_store_loops.py: one update in phases, each statement's
stores after the previous statement's in every iteration), compared with
plain Python; numpy-benchmarks wave's physics step."""
import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(3)
POS = RNG.random((7, 2))


def springs(cpos):
    n = cpos.shape[0]
    force = np.zeros((n, 2))
    for i in range(1, n):
        fvec = cpos[i] - cpos[i - 1]
        force[i - 1] -= fvec          # the order of the two updates matters for floats
        force[i] += fvec * 0.3
    return force


def three_rows(a):
    out = np.ones((a.shape[0] + 2, a.shape[1]))
    for i in range(a.shape[0]):
        out[i + 2] *= a[i]
        out[i] = out[i] - a[i] * 0.5
        out[i + 1] += 1.0
    return out


def rows_of_two_lengths(a):
    out = np.zeros((a.shape[0] + 1, 3))
    for i in range(a.shape[0]):
        out[i, :2] += a[i]
        out[i + 1, :] -= 0.25 * i
    return out


def in_branches(a):
    out = np.zeros((a.shape[0] + 1, a.shape[1]))
    for i in range(a.shape[0]):
        if a[i, 0] > 0.5:
            out[i] += a[i]
        else:
            out[i + 1] -= a[i] * 2.0
        out[i] *= 1.5
    return out


def physics(masspoints, dt, plunk, which):
    ppos = masspoints[1]
    cpos = masspoints[0]
    N = cpos.shape[0]
    HOOKE_K = 2100000.
    DAMPING = 0.0001
    MASS = .01
    force = np.zeros((N, 2))
    for i in range(1, N):
        dx, dy = cpos[i] - cpos[i - 1]
        dist = np.sqrt(dx**2 + dy**2)
        assert dist != 0
        fmag = -HOOKE_K * dist
        cosine = dx / dist
        sine = dy / dist
        fvec = np.array([fmag * cosine, fmag * sine])
        force[i - 1] -= fvec
        force[i] += fvec
    force[0] = force[-1] = 0, 0
    force[which][1] += plunk
    accel = force / MASS
    npos = (2 - DAMPING) * cpos - (1 - DAMPING) * ppos + accel * (dt**2)
    masspoints[1] = cpos
    masspoints[0] = npos


def wave_step(masspoints, dt, plunk, which):
    m = masspoints.copy()
    physics(m, dt, plunk, which)
    return m


def element_and_row(a):
    out = np.zeros((a.shape[0] + 1, 2))
    for i in range(a.shape[0]):
        out[i, 0] = a[i, 0]
        out[i + 1] += a[i]
    return out


def test_two_row_updates_in_order():
    check(ph.pipeline(springs), POS)


def test_three_phases():
    check(ph.pipeline(three_rows), POS)


def test_regions_of_two_lengths():
    check(ph.pipeline(rows_of_two_lengths), POS)


def test_phases_under_conditions():
    check(ph.pipeline(in_branches), RNG.random((6, 3)))


def test_wave_physics_step():
    m = np.stack([POS, POS * 0.99])
    check(ph.pipeline(wave_step), m, 1.0 / 18000, 15, 3)


def test_element_and_row_writes_are_refused():
    expect_error(element_and_row, (POS,), "out[i + 1] += a[i]", "two places")


def helper_writes_twice(force, i):
    force[i - 1] -= 1.0
    force[i] += 1.5


def calls_helper(a):
    f = np.zeros(a.shape)
    for i in range(1, a.shape[0]):
        helper_writes_twice(f, i)
    return f


def test_phases_from_an_inlined_helper():
    check(ph.pipeline(calls_helper), POS)
