"""Loop kernels refused before session 18 (issue 17), compared with plain
Python under the default schedule (the automatic one in the slow run).

Counters: an integer total stepped inside a loop that can stop early
(`while`, `break`) whose other variables start anew in the enclosing loop
(frontend_ast/loop_exit_carries.py counts into a local from 0 and adds it
after the loop: exact for Python ints only, so a float total keeps its
located error).

Element updates: consecutive `a[...] op= e` statements of one array inside
a loop, at several index expressions (n-body's two accelerations under an
`if` with other statements, two histogram bins per element) run as a loop
over the run's slots (frontend_ast/loop_write_slots.py), one write per slot
in Python's order."""
import math
import re

import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


def halvings(a):
    tot = 0
    for i in range(a.size):
        x = a[i]
        while x > 0.1:
            x = x * 0.5
            tot += 1
    return tot


def halvings_two_counters(a):
    up = 0
    down = 5
    for i in range(a.size):
        x = a[i]
        while x > 0.1:
            x = x * 0.5
            up += 2
            down -= 1
    return up, down


def halvings_and_elements(a):
    # the enclosing loop steps the counter too
    up = 0
    for i in range(a.size):
        x = a[i]
        while x > 0.1:
            x = x * 0.5
            up += 2
        up += 1
    return up


def counted_breaks(a2):
    tot = 0
    for i in range(a2.shape[0]):
        s = 0.0
        for j in range(a2.shape[1]):
            s += a2[i, j]
            if s > 1.5:
                break
            tot += 1
    return tot


def halvings_in_a_nest(a2):
    # x starts anew in the j loop, tot carries over both loops
    tot = 0
    for i in range(a2.shape[0]):
        for j in range(a2.shape[1]):
            x = a2[i, j]
            while x > 0.1:
                x = x * 0.5
                tot += 1
    return tot


def counted_breaks_3d(a3):
    # s carries over the j loop, tot over all three: counted around the k loop
    tot = 0
    out = np.zeros(a3.shape[0])
    for i in range(a3.shape[0]):
        s = 0.0
        for j in range(a3.shape[1]):
            for k in range(a3.shape[2]):
                s += a3[i, j, k]
                if s > 2.0:
                    break
                tot += 1
        out[i] = s
    return out, tot


def float_total(a):
    tot = 0.0
    for i in range(a.size):
        x = a[i]
        while x > 0.1:
            x = x * 0.5
            tot += 1
    return tot


def total_read_inside(a):
    tot = 0
    for i in range(a.size):
        x = a[i]
        while x > 0.1 and tot < 50:
            x = x * 0.5
            tot += 1
    return tot


@pytest.mark.parametrize("sched", [None, pytest.param("auto", marks=pytest.mark.slow)])
@pytest.mark.parametrize("n", [0, 9])
def test_counters_in_exiting_loops(sched, n):
    rng = np.random.default_rng(n)
    a, a2 = rng.random(n) * 3, rng.random((n, 4)) * 3
    opts = {} if sched is None else {"schedule": sched}
    check(ph.pipeline(**opts)(halvings), a)
    check(ph.pipeline(**opts)(halvings_two_counters), a)
    check(ph.pipeline(**opts)(halvings_and_elements), a)
    check(ph.pipeline(**opts)(counted_breaks), a2)
    check(ph.pipeline(**opts)(halvings_in_a_nest), a2)
    check(ph.pipeline(**opts)(counted_breaks_3d), rng.random((n, 3, 5)))


@pytest.mark.parametrize("fn", [float_total, total_read_inside])
def test_counters_that_are_not_int_steps_keep_their_error(fn):
    with pytest.raises(ph.CompileError, match="carried over different loops"):
        ph.pipeline(fn)(np.ones(3))


def nbody_step(pos, vel):
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                r2 = dx * dx + dy * dy + 0.01
                inv = 1.0 / (r2 * math.sqrt(r2))
                acc[i, 0] += dx * inv
                acc[i, 1] += dy * inv
    return vel + 0.01 * acc


def two_bins(ai, b):
    # the two bins may be the same element: the second update reads the first's
    h = np.zeros(4, dtype=np.int64)
    for i in range(ai.size):
        h[ai[i]] += 2**60 + 1
        h[ai[(i + 1) % ai.size]] += b[i]          # int64 + float64, cast back
    return h


def three_planes(a2, w):
    out = np.zeros((3, a2.shape[0]), dtype=np.float32)
    for i in range(a2.shape[0]):
        t = a2[i, 0] * w
        if t > 0.2:
            out[0, i] -= t
            out[2, i] -= a2[i, 1]
            out[1, i] -= 1
    return out


def scatter_pairs(a):
    # neighbouring positions, under an `if` with another statement
    out = np.zeros(a.size + 1)
    for i in range(a.size):
        if a[i] > 0.2:
            t = 2.0 * a[i]
            out[i] += a[i]
            out[i + 1] += t
    return out


def arg_updates(a, out):
    # updates of an argument array, seen by the caller
    for i in range(a.size):
        k = i % out.shape[0]
        out[k, 1] *= a[i]
        out[(k + 1) % out.shape[0], 0] *= 2.0
    return out.sum()


@pytest.mark.parametrize("sched", [None, pytest.param("auto", marks=pytest.mark.slow)])
@pytest.mark.parametrize("n", [0, 6])
def test_element_updates_at_several_positions(sched, n):
    rng = np.random.default_rng(n + 10)
    opts = {} if sched is None else {"schedule": sched}
    check(ph.pipeline(**opts)(nbody_step), rng.random((n, 2)), rng.random((n, 2)))
    if n:
        check(ph.pipeline(**opts)(two_bins), rng.integers(0, 4, n), rng.random(n) * 3)
    check(ph.pipeline(**opts)(three_planes), rng.random((n, 2)), 0.7)
    check(ph.pipeline(**opts)(scatter_pairs), rng.random(n))


def test_element_updates_of_an_argument_reach_the_caller():
    a = np.linspace(0.5, 1.5, 7)
    want, got = np.ones((3, 2)), np.ones((3, 2))
    exp = arg_updates(a, want)
    assert ph.pipeline(arg_updates)(a, got) == exp
    assert np.array_equal(got, want)


def second_index_outside(a, k):
    # Python raises IndexError at the second update when k is outside acc
    acc = np.zeros((a.size, 2))
    for i in range(a.size):
        for j in range(i + 1):
            acc[i, 0] += a[j]
            acc[i, k] += 1.0 / a[j]
    return acc


@pytest.mark.parametrize("k", [1, -2, 2])
def test_element_updates_raise_where_python_raises(k):
    check(ph.pipeline(second_index_outside), np.linspace(0.5, 1.0, 4), k)


def updates_reading_each_other(a2):
    # each update reads the element the other one wrote just before
    acc = np.ones((a2.shape[0], 2))
    for i in range(a2.shape[0]):
        for j in range(a2.shape[1]):
            acc[i, 0] += acc[i, 1] * a2[i, j]
            acc[i, 1] += acc[i, 0]
    return acc


def index_read_after_update(ai):
    # the second update's index reads the element the first one wrote
    h = np.zeros(4, dtype=np.int64)
    for i in range(ai.size):
        h[ai[i]] += 1
        h[h[ai[i]] % 4] += 3
    return h


@pytest.mark.parametrize("sched", [None, pytest.param("auto", marks=pytest.mark.slow)])
def test_element_updates_in_python_order(sched):
    rng = np.random.default_rng(5)
    opts = {} if sched is None else {"schedule": sched}
    check(ph.pipeline(**opts)(updates_reading_each_other), rng.random((5, 4)))
    check(ph.pipeline(**opts)(index_read_after_update), rng.integers(0, 4, 12))


def nbody3_step(pos, vel):
    # three slots sharing the distance and its inverse cube
    n = pos.shape[0]
    acc = np.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                dx = pos[j, 0] - pos[i, 0]
                dy = pos[j, 1] - pos[i, 1]
                dz = pos[j, 2] - pos[i, 2]
                r2 = dx * dx + dy * dy + dz * dz + 0.01
                inv = 1.0 / (r2 * math.sqrt(r2))
                acc[i, 0] += dx * inv
                acc[i, 1] += dy * inv
                acc[i, 2] += dz * inv
    return vel + 0.01 * acc


def _slot_kinds(p):
    """The loop kinds of the slot RVars of p's last specialization."""
    kinds = []
    for _, f, _ in p.last_specialization.builder.funcs:
        for d in f.function().updates:
            kinds += [x.kind for x in d.schedule.dims if re.search(r"\?slot\d+\$x$", x.var)]
    return kinds


@pytest.mark.parametrize("n", [0, 1, 7])
def test_slot_loops_are_unrolled_by_the_default_schedule(n):
    # one update copy per slot (the shared values computed once per pair): the
    # same results as Python, bit for bit
    rng = np.random.default_rng(n)
    p = ph.pipeline(nbody3_step)
    check(p, rng.random((n, 3)), rng.random((n, 3)))
    assert _slot_kinds(p) == ["unrolled"]
    q = ph.pipeline(two_bins)
    if n:
        check(q, rng.integers(-4, 4, n), rng.random(n) * 3)
        assert _slot_kinds(q) == ["unrolled"]
    # an index outside the histogram still raises Python's IndexError
    check(q, np.array([1, 4, 2]), np.ones(3))
