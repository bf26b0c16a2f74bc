"""A shifting `while` loop's state (stop flags, counter, key) is carried
from one iteration to the next in registers (lowering/carry_loop_state.py):
the loads of the merged Func's state members at the previous iteration's
position become loads of one-element scratches, and the members, then
never loaded, are not stored at all. Plain Python is the oracle (NaN, -0.0,
integers, empty, sorted, reversed, ties). The counter compared with
integer constants reads as the loop variable (loop_counter_index.py), so
the carried counter itself is dead."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both
from .test_insertion_sort import isort
from .test_shifting_while21 import KERNELS

isort_up, gap2 = KERNELS["isort_up"], KERNELS["gap2_down"]


@ph.pipeline
def isort_stop_at(a):
    # the counter compared with constants in another conjunct too (loop_counter_index
    # reads it there as the loop variable)
    n = a.shape[0]
    for i in range(1, n):
        key = a[i]
        j = i - 1
        while -1 < j and a[j] > key and j != 3:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def _inputs(rng, n, dtype):
    a = rng.standard_normal(n)
    yield a.astype(dtype)
    yield np.sort(a).astype(dtype)
    yield np.sort(a)[::-1].astype(dtype)
    yield rng.integers(-2, 3, n).astype(dtype)
    if np.dtype(dtype).kind == "f":
        b = a.astype(dtype)
        b[::3] = np.nan
        yield b
        yield np.where(rng.random(n) < 0.5, 0.0, -0.0).astype(dtype)


@pytest.mark.parametrize("p", [isort, isort_up])
def test_state_in_registers(p):
    a = np.random.default_rng(1).random(9)
    run_both(p, a)
    text = p.lower("final")
    assert ".acc_carry" in text, text
    # only the array member of the merged Func is still stored
    stored = set(re.findall(r"([\w$.]+)\[[^\]]*\] = ", text))
    members = {s for s in stored if re.fullmatch(r"[\w$]+\.\d+", s)}
    assert len(members) == 1, stored
    # the loop tests the position it reads (`j >= 0`, `j < n` as the loop
    # variable's expression), not a counter loaded from a scratch (the key,
    # the other scratch compared, is on the right of `a[j] > key`)
    loop = text[text.index("exit loop"):]
    assert not re.search(r"acc_carry\d+\[0\]\)*\s*(<|>|<=|>=|==|!=)\s", loop), loop


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 33])
def test_against_python(n, dtype):
    rng = np.random.default_rng(n)
    for a in _inputs(rng, n, dtype):
        for p in (isort, isort_up, isort_stop_at, gap2):
            run_both(p, a)
