"""Time-stepped updates (a loop carrying arrays: one update over the state's
points and the steps, read at slot `t % 2`, written at slot `(t + 1) % 2`):
the race check (pyhalide/schedule.py) proves the points of a step
independent, so a user schedule may vectorize or parallelize them and
schedule="auto" vectorizes them (autoschedule/stepped.py). Results equal
plain Python / NumPy bit for bit; reads of the slot being written, or a
step loop inside the point loops, stay refused."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError
from tests.frontend.test_carried_arrays import diffusion
from tests.frontend.test_gray_scott import gray_scott
from tests.vectorize.vectorize_util import check_schedule

grayscott = gray_scott.__wrapped__          # the plain Python function


def _diffusion_args(shape):
    u = np.zeros(shape)
    u[shape[0] // 2, shape[1] // 2] = 1000.0
    u[1, 2] = -3.5
    return u, np.zeros(shape)


@pytest.mark.parametrize("shape,steps", [((37, 29), 7), ((5, 3), 3), ((2, 9), 2)] + [
    pytest.param((9, 9), 0, marks=pytest.mark.slow)])
def test_diffusion_auto_vectorizes_the_points_of_a_step_and_is_exact(shape, steps):
    p = ph.pipeline(diffusion, schedule="auto")
    want, got = _diffusion_args(shape), _diffusion_args(shape)
    diffusion(*want, steps)
    p(*got, steps)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    if shape == (37, 29):
        src = p.schedule_source()
        assert re.search(r"\.update\(0\)\.vectorize\([^)]*\$x[^)]*, 8\)", src), src
        assert "time-stepped" in src


def padded_float32(counts, D, ru):
    n = ru.shape[0]
    U = np.zeros((n + 2, n + 2), dtype=np.float32)
    u = U[1:-1, 1:-1]
    u[:] = 0.5
    u += 0.15 * ru
    for i in range(counts):
        Lu = (U[0:-2, 1:-1] + U[1:-1, 0:-2] - 4 * U[1:-1, 1:-1] + U[1:-1, 2:] + U[2:, 1:-1])
        u += D * Lu - u * u * u
    return U


@pytest.mark.parametrize("explicit", [False, True])
def test_padded_float32_views_are_bit_exact_under_auto(explicit, monkeypatch):
    # its reads are dense: auto leaves the point loop to LLVM's vectorizer;
    # `explicit` plans the explicit vectors all the same (their exactness)
    if explicit:
        monkeypatch.setattr("pyhalide.autoschedule.stepped.dense_reads", lambda d, var: False)
    ru = np.random.default_rng(4).random((37, 37))
    want = padded_float32(6, 0.16, ru)
    p = ph.pipeline(padded_float32, schedule="auto")
    got = p(6, 0.16, ru)
    assert got.dtype == want.dtype == np.float32
    assert got.tobytes() == want.tobytes()
    src = p.schedule_source()
    if explicit:
        assert re.search(r"\.update\(0\)\.vectorize\([^)]*, 16\)", src), src
    else:
        assert "vectorize(" not in src and "LLVM's vectorizer (dense reads)" in src, src


@pytest.mark.slow
def test_grayscott_float32_is_bit_exact_under_auto():
    rng = np.random.default_rng(3)
    n = 40
    ru, rv = rng.random((n, n)), rng.random((n, n))
    want = grayscott(5, 0.16, 0.08, 0.04, 0.06, ru, rv)
    p = ph.pipeline(grayscott, schedule="auto")
    got = p(5, 0.16, 0.08, 0.04, 0.06, ru, rv)
    assert got.dtype == want.dtype == np.float32
    assert got.tobytes() == want.tobytes()
    assert "LLVM's vectorizer (dense reads)" in p.schedule_source()


# the Func API: a state f(x, slot) stepped T times over an RDom (x, t)
W, T = 45, 6
src = ph.Buffer(np.random.default_rng(5).standard_normal(W).astype(np.float32), "stepped_src")


def _stepped(read_slot, write_slot, shift=1):
    x = ph.Var("x")
    s = ph.Var("s")
    r = ph.RDom([(0, W), (0, T)], "r")
    f = ph.Func("stepped")
    f[x, s] = src[ph.clamp(x, 0, W - 1)] + ph.cast(ph.Float(32), s)
    left = f[ph.clamp(r.x - shift, 0, W - 1), read_slot(r.y)]
    right = f[ph.clamp(r.x + shift, 0, W - 1), read_slot(r.y)]
    f[r.x, write_slot(r.y)] = (left + right) * 0.5 + f[r.x, read_slot(r.y)] * 0.25
    return f


def test_func_api_step_vectorized_and_parallel_equals_reference():
    def make():
        return _stepped(lambda t: t % 2, lambda t: (t + 1) % 2)

    def schedule(f):
        f.update(0).vectorize(ph.RVar("r$x"), 8).parallel(ph.RVar("r$x"))

    final = check_schedule(make, schedule, [W, 2]).text("final")
    assert re.search(r"stepped\S*\[ramp\(", final)


@pytest.mark.parametrize("read_slot,write_slot", [
    (lambda t: t % 2, lambda t: t % 2),             # the slot being written
    (lambda t: (t + 2) % 2, lambda t: t % 2),       # the same slot, written otherwise
    (lambda t: t % 3, lambda t: (t + 1) % 2),       # slots that may meet
], ids=["same", "same-offset", "other-modulus"])
def test_func_api_reads_of_the_written_slot_stay_serial(read_slot, write_slot):
    f = _stepped(read_slot, write_slot)
    with pytest.raises(CompileError, match="must stay serial"):
        f.update(0).vectorize(ph.RVar("r$x"), 8)


def test_func_api_step_loop_itself_stays_serial():
    f = _stepped(lambda t: t % 2, lambda t: (t + 1) % 2)
    with pytest.raises(CompileError):
        f.update(0).parallel(ph.RVar("r$y"))


# the step runs over the region its members write when they keep their values
# elsewhere (frontend_ast/carried_region.py); other regions keep the whole box
def regions(a, b, steps, k):
    A = np.zeros(a.shape[0] + 3)
    B = np.zeros(a.shape[0] + 3)
    A[2:-1] = a
    B[2:-1] = b
    for i in range(steps):
        A[2:-1] += 0.5 * (A[1:-2] - B[3:])      # one region for both members
        B[2:-1] += 0.25 * A[2:-1]
    for i in range(steps):
        A[1:] = A[1:] * 0.5 + B[:-1]            # different regions: the whole box
        B[2::2] += 1.0                          # a strided region: the whole box
    for i in range(steps):
        A[k:] += 1.0                            # a region known at the call
        B[k:] -= A[k:] * 0.125
    return A, B


@pytest.mark.parametrize("n,steps,k", [(9, 4, 3), (4, 2, -2)] + [
    pytest.param(*c, marks=pytest.mark.slow) for c in ((1, 2, 1), (5, 0, 2), (3, 3, 9))])
def test_regions_of_steps_equal_python(n, steps, k):
    rng = np.random.default_rng(n)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    want = regions(a, b, steps, k)
    got = ph.pipeline(regions)(a, b, steps, k)
    assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want))
