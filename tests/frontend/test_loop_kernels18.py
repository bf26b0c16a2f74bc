"""Loop kernels refused before session 18 (issue 17), compared with plain
Python under the default and the automatic schedule.

Counters: an integer total stepped inside a loop that can stop early
(`while`, `break`) whose other variables start anew in the enclosing loop
(frontend_ast/loop_exit_carries.py counts into a local from 0 and adds it
after the loop: exact for Python ints only, so a float total keeps its
located error)."""
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


@pytest.mark.parametrize("sched", [None, "auto"])
@pytest.mark.parametrize("n", [0, 1, 9])
def test_counters_in_exiting_loops(sched, n):
    rng = np.random.default_rng(n)
    a, a2 = rng.random(n) * 3, rng.random((n, 4)) * 3
    opts = {} if sched is None else {"schedule": sched}
    check(ph.pipeline(**opts)(halvings), a)
    check(ph.pipeline(**opts)(halvings_two_counters), a)
    check(ph.pipeline(**opts)(counted_breaks), a2)
    check(ph.pipeline(**opts)(halvings_in_a_nest), a2)


@pytest.mark.parametrize("fn", [float_total, total_read_inside])
def test_counters_that_are_not_int_steps_keep_their_error(fn):
    with pytest.raises(ph.CompileError, match="carried over different loops"):
        ph.pipeline(fn)(np.ones(3))
