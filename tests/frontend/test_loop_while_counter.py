"""A `while` loop whose counter indexes the arrays it writes and reads
(`while i < n and out[i - 1] < t: out[i] = ...; i += 1`): inside the
subscripts the counter is the loop's position (frontend_ast/
loop_counter_index.py), so the loop is a recurrence through the array with
an exit flag (loop_cycles.py). Plain Python is the oracle: values, dtypes,
the arrays after the call, the counter's final value."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def grow_until(a, t):
    n = len(a)
    out = np.zeros(n)
    out[0] = a[0]
    i = 1
    while i < n and out[i - 1] < t:
        out[i] = out[i - 1] + a[i]
        i += 1
    return out, i


@ph.pipeline
def step_two(a, t):
    n = a.shape[0]
    out = a.copy()
    i = 2
    while i < n and out[i - 2] < t:
        out[i] = out[i - 2] * 1.5 + a[i]
        i += 2
    return out, i


@ph.pipeline
def count_down(a, t):
    out = a.copy()
    i = len(a) - 2
    while i >= 0 and out[i + 1] < t:
        out[i] = out[i + 1] + a[i]
        i -= 1
    return out, i


@ph.pipeline
def index_after_step(a, t):
    n = len(a)
    out = np.zeros(n)
    i = 0
    while i < n - 1 and out[i] < t:
        i += 1
        out[i] = out[i - 1] + a[i] * i
    return out, i


@ph.pipeline
def in_place_argument(out, t):
    i = 1
    while i < out.shape[0] and out[i - 1] < t:
        out[i] += out[i - 1]
        i += 1
    return i


@ph.pipeline
def break_inside(a, t):
    n = len(a)
    out = np.zeros(n, dtype=np.int64)
    i = 1
    while i < n:
        if a[i] > t:
            break
        out[i] = out[i - 1] + 1
        i += 1
    return out, i


ARR = np.linspace(0.1, 2.0, 40)


@pytest.mark.parametrize("t", [-1.0, 0.05, 0.5, 3.0, 1e9])
@pytest.mark.parametrize("p", [grow_until, step_two, count_down, in_place_argument,
                               break_inside],
                         ids=lambda p: p.py_func.__name__)
def test_counter_indexes_the_array(p, t):
    run_both(p, ARR, t)


def test_short_inputs_and_index_error():
    for a in (np.array([0.5]), np.array([0.5, 0.25]), np.zeros(0)):
        for p in (grow_until, step_two, count_down, in_place_argument):
            run_both(p, a, 1.0)


def test_integer_arrays_keep_their_type():
    a = np.arange(1, 30, dtype=np.int32)
    got = run_both(grow_until, a, 100)
    assert got[0].dtype == np.float64 and isinstance(got[1], int)


def test_write_after_the_step():
    # out[i] after `i += 1` is out[v + 1]: loop_cycles.py merges a flag and
    # an array written at a constant offset from the loop's position (session 20)
    for t in (-1.0, 0.5, 5.0, 1e9):
        for a in (ARR, ARR[:2], ARR[:1], ARR[:0], -ARR):
            run_both(index_after_step, a, t)
