"""Argsort by insertion (issue 17): several arrays shifted by one `while`
loop. The element writes after the loop are all made in its last iteration
(frontend_ast/while_exit_write.py), and every array the loop writes at the
loop's element joins the keys' array and the loop state in one tuple Func
(frontend_ast/loop_cycles.py, _partners). Plain Python is the oracle (the
result and the arrays after the call): NaN, -0.0, ties (the stable order),
sizes 0..33, integer and float keys, a payload of another dtype, three
arrays shifted together."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def argsort_ins(a):
    idx = np.arange(a.shape[0])
    for i in range(1, a.shape[0]):
        key = a[i]; k = idx[i]; j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]; idx[j + 1] = idx[j]; j -= 1
        a[j + 1] = key; idx[j + 1] = k
    return idx


@ph.pipeline
def sort_with_payload(a, p):
    """(keys and payload both arguments, shifted by tuple assignments)"""
    for i in range(1, len(a)):
        key, v, j = a[i], p[i], i - 1
        while j >= 0 and a[j] > key:
            a[j + 1], p[j + 1] = a[j], p[j]
            j -= 1
        a[j + 1] = key
        p[j + 1] = v
    return p


@ph.pipeline
def sort_three(a, p, q):
    for i in range(1, a.shape[0]):
        key = a[i]; v = p[i]; w = q[i]; j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]; p[j + 1] = p[j]; q[j + 1] = q[j]; j -= 1
        a[j + 1] = key; p[j + 1] = v; q[j + 1] = w
    return a


@ph.pipeline
def payload_reads_keys(a, p):
    """(the payload's writes read the element of the keys the same
    iteration wrote, at another expression of its position)"""
    for i in range(1, len(a)):
        key = a[i]; v = p[i]; j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]; p[j + 1] = p[j] + a[j + 1]; j -= 1
        a[j + 1] = key; p[j + 1] = v + a[j + 1]
    return p


def _keys(n, kind, rng):
    if kind == "ties":
        return rng.integers(0, 4, n).astype(np.float64)
    if kind == "nan":
        a = rng.standard_normal(n)
        a[rng.random(n) < 0.3] = np.nan
        return a
    if kind == "zeros":
        return rng.choice(np.array([0.0, -0.0, 1.0, -1.0]), n)
    if kind == "int":
        return rng.integers(-5, 5, n).astype(np.int64)
    if kind == "sorted":
        return np.arange(n, dtype=np.float64)
    if kind == "reversed":
        return np.arange(n, 0, -1).astype(np.float64)
    return rng.standard_normal(n)


KINDS = ["random", "ties", "nan", "zeros", "int", "sorted", "reversed"]


@pytest.mark.parametrize("kind", KINDS)
def test_argsort_by_insertion(kind):
    rng = np.random.default_rng(len(kind))
    for n in range(34):
        a = _keys(n, kind, rng)
        got = run_both(argsort_ins, a)
        if kind != "nan":       # (NaN keys stay where insertion leaves them)
            assert np.array_equal(got, np.argsort(a, kind="stable"))


@pytest.mark.parametrize("pdtype", [np.int32] + [pytest.param(t, marks=pytest.mark.slow)
                                    for t in (np.float32, np.uint8)])
def test_payload_of_another_dtype(pdtype):
    rng = np.random.default_rng(7)
    for n in [0, 1, 2, 3, 8, 17, 33]:
        for kind in ["ties", "nan", "int"]:
            a = _keys(n, kind, rng)
            p = np.arange(n).astype(pdtype)[::-1].copy()
            run_both(sort_with_payload, a, p)


def test_three_arrays():
    rng = np.random.default_rng(3)
    for n in [0, 1, 2, 5, 16, 33]:
        a = _keys(n, "ties", rng)
        p = rng.integers(-100, 100, n).astype(np.int64)
        q = rng.standard_normal(n).astype(np.float32)
        run_both(sort_three, a, p, q)


def test_payload_reads_the_keys_just_written():
    """A read of the keys' element this iteration wrote sees the value
    written (loop_cycles: a read at another expression of the written
    position; it read the old value before: p = [p1, p0 + 0] for a = [2, 0]
    instead of [p1, p0 + 2])."""
    rng = np.random.default_rng(5)
    for n in [0, 1, 2, 3, 9, 33]:
        for kind in ["ties", "random"]:
            run_both(payload_reads_keys, _keys(n, kind, rng), rng.standard_normal(n))


@ph.pipeline
def grow_two(out, cnt, r, t):
    for i in range(1, out.shape[0]):
        out[i] = out[i - 1] * r
        cnt[i] = cnt[i - 1] + out[i]
        if out[i] > t:
            break
    return cnt


def test_second_array_of_a_loop_with_break():
    """A second array written at the loop's element of a loop left by
    `break` (it reads the stop flag: a partner of the merged Func too)."""
    for n in [1, 2, 5, 9]:
        for t in [0.5, 3.0, 100.0]:
            run_both(grow_two, np.ones(n), np.zeros(n), 1.5, t)
