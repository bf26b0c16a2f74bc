"""Reads, inside a loop nest, of an array the same nest writes (frontend_ast/deps.py):
each definition runs over all its iterations before the next, so a read by
another definition sees the array after the nest. Reads that Python makes
before the location is written are located errors; reads after it compile
and equal plain Python. The refused forms returned the array's final values
before (a read under an `if` whose value went through a union of types was
rebuilt by simplification and escaped the check)."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check
from .test_frontend_errors import expect

B = np.array([9.33, 5.22, -0.19, 5.35, -2.72, 8.42, -0.04, 4.67])


def mirror_read_under_if(b):
    n = len(b)
    u = -1.25                      # a Python float, then an np.float64: a union
    out = np.zeros(n)
    for i in range(n):
        out[i] = b[i]
        if b[i] > 9:
            u = out[n - 1 - i]     # not written yet when i < n/2
    return u, out


def mirror_read_under_loop_condition(b):
    n = len(b)
    u = -1.25
    out = np.zeros(n)
    for i in range(n):
        out[i] = b[i]
        if i < 2:
            u += out[n - 1 - i]
    return u, out


def mirror_read(b):
    n = len(b)
    u = -1.25
    out = np.zeros(n)
    for i in range(n):
        out[i] = b[i]
        u = out[n - 1 - i]
    return u, out


@pytest.mark.parametrize("fn, snippet", [
    (mirror_read_under_if, "out[n - 1 - i]"),
    (mirror_read_under_loop_condition, "out[n - 1 - i]"),
    (mirror_read, "out[n - 1 - i]"),
])
def test_read_before_write_is_refused(fn, snippet):
    expect(fn, snippet, "'out' is read here but written", "copy the array before the loop",
           args=(B,))


@ph.pipeline
def previous_under_if(b):
    n = len(b)
    u = -1.25
    out = np.zeros(n)
    for i in range(1, n):
        out[i] = b[i] * 2
        if b[i] > 0:
            u = out[i - 1]         # written in the previous iteration (or before the loop)
    return u, out


@ph.pipeline
def after_conditional_write(b, t):
    n = len(b)
    s = 0.0
    out = np.zeros(n)
    for i in range(n):
        if b[i] > t:
            out[i] = b[i] - t
        if b[i] < 9:
            s += out[i]            # after this iteration's (conditional) write
    return s, out


def test_reads_after_the_write_compile():
    check(previous_under_if, B)
    check(previous_under_if, -B)
    for t in (-10.0, 0.0, 5.0):
        check(after_conditional_write, B, t)
