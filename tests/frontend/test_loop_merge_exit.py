"""Merged loops (frontend_ast/loop_merge.py) whose last inner loop stops
early (`while`, `break`): the slot loop is left once that loop has stopped
and the statements after it have run, so the slots after an exit cost
nothing. Each program must return what plain Python returns; the lowered
code must leave the slot loop (`exit loop`) where the rewrite applies."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_array_fuzz import compare


def escape_count(lim, maxiter):
    total = 0.0
    for r in range(len(lim)):
        total = total * 0.5
        i = 0
        while i < maxiter and total < lim[r]:
            total += 1.0
            i += 1
    return total


def statements_after(lim, maxiter):
    total = 0.0
    n = 0
    for r in range(len(lim)):
        total = total * 0.5 + n
        i = 0
        while i < maxiter and total < lim[r]:
            total += 1.5
            i += 1
        n = (n + i) % 5
        if n > 2:
            total -= 1.0
        else:
            n += 1
    return total, n


def loop_under_if(lim, maxiter):
    s = 0
    for r in range(len(lim)):
        s = s % 17
        if lim[r] > 1:
            for j in range(maxiter):
                s += j
                if s > lim[r] * 3:
                    break
        else:
            s += 100
    return s


def two_outer_loops(lim, maxiter):
    s = 1
    for q in range(3):
        for r in range(len(lim)):
            s = (s * 3 + q) % 101
            j = 0
            while j < maxiter and s % 7 != 0:
                s += r + 1
                j += 1
    return s


def plain_loop_first(lim, maxiter):
    s = 0
    for r in range(len(lim)):
        for j in range(3):
            s += j
        k = 0
        while k < maxiter and s < lim[r]:
            s += 2
            k += 1
        s = s // 2
    return s


def outer_continue(lim, maxiter):
    s = 0
    for r in range(len(lim)):
        s += 1
        if lim[r] < 3:
            continue
        j = 0
        while j < maxiter and s < lim[r]:
            s += 1
            j += 1
        s = s % 11
    return s


def break_in_for(lim, maxiter):
    t = 0.0
    for r in range(len(lim)):
        t = t * 0.25
        for j in range(maxiter):
            if t > lim[r]:
                break
            t += lim[(r + j) % len(lim)]
    return t


EXITS = [escape_count, statements_after, loop_under_if, two_outer_loops, plain_loop_first,
         break_in_for]


@pytest.mark.parametrize("fn", EXITS + [outer_continue])
def test_merged_loop_exit_equals_python(fn):
    p = ph.pipeline(fn)
    rng = np.random.default_rng(17)
    for size in (0, 1, 3, 8):
        lim = rng.integers(-2, 30, size).astype(np.float64)
        for maxiter in (0, 1, 5, 40):
            assert compare(p, [lim, maxiter], fn.__name__)


@pytest.mark.parametrize("fn", EXITS)
def test_slot_loop_is_left(fn):
    p = ph.pipeline(fn)
    p(np.ones(4), 3)
    assert "exit loop" in p.lower()


def test_outer_continue_keeps_every_slot():
    # a `continue` of the outer loop skips the slots with a flag of its own:
    # those slots are not left early (the results above are still Python's)
    p = ph.pipeline(outer_continue)
    p(np.ones(4), 3)
    assert "exit loop" not in p.lower()
