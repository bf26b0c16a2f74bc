"""The automatic schedule of a 1-D stage splits its loop into parallel
chunks; a Func the default schedule computes at that loop (a scalar local to
the Python loop: a row's maximum in `m`) stayed computed at a loop the split
had removed, so the automatic schedule did not compile and the call fell
back to the default schedule (compare-and-copy fuzz seed 0). The chunk loop
now keeps the loop's name, so the local Func is computed per chunk."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.autoschedule import plan
from tests.frontend.frontend_check import check


def row_max(a):
    om = np.zeros(a.shape[0])
    for r in range(a.shape[0]):
        m = -np.inf
        for i in range(1, a.shape[1]):
            if m <= a[r, i]:
                m = a[r, i]
        om[r] = m
    return om


def row_argmin(a):
    om = np.zeros(a.shape[0])
    ok = np.zeros(a.shape[0], np.int64)
    for r in range(a.shape[0]):
        m = np.inf
        k = -1
        for i in range(a.shape[1]):
            if a[r, i] < m:
                m = a[r, i]
                k = i
        om[r] = m
        ok[r] = k
    return om, ok


@pytest.mark.parametrize("fn", [row_max, row_argmin], ids=lambda f: f.__name__)
def test_local_scalar_of_a_split_loop_keeps_the_automatic_schedule(fn, monkeypatch):
    monkeypatch.setattr(plan, "MIN_PARALLEL", 8)
    p = ph.pipeline(fn, schedule="auto")
    rng = np.random.default_rng(4)
    for rows, cols in [(37, 9), (8, 1), (100, 3)]:
        a = rng.choice([-1.0, -0.0, 0.0, 2.0, np.nan, np.inf], (rows, cols))
        check(p, a)
    text = p.schedule_source()          # raises where the automatic schedule fell back
    assert ".parallel(ph.Var('r'))" in text, text
