"""Reads of iterations after a loop's exit must not raise (loop-fuzz seeds
3003/9, 3005/9, 3016/3, session 13): the exit flag of a loop whose body holds
an inner loop is a Func over every iteration, and the index checks of its
condition's reads run for the iterations after the `break` as well, so the
compiled call raised IndexError where Python returns. It passes on the
merged tree of session 13 (the exit flag's reads now run only at the
iterations the loops run)."""
import numpy as np

import pyhalide as ph

from .frontend_check import check


def break_after_inner_loop(a, n):
    N = len(a)
    iout = np.zeros(N, np.int64)
    k = 0
    for i1 in range(3):
        for i2 in range(n):
            k += a[i2 % N]
        if iout[i1] < 1:        # true at i1 = 0: iout[2] is never read
            break
    return k


def break_without_inner_loop(a):
    N = len(a)
    iout = np.zeros(N, np.int64)
    k = 0
    for i1 in range(3):
        k += 1
        if iout[i1] < 1:
            break
    return k


def test_reads_after_break_of_a_loop_with_an_inner_loop():
    check(ph.pipeline(break_after_inner_loop), np.array([-17, 15]), 1)
    check(ph.pipeline(break_after_inner_loop), np.array([3, 1, 2]), 2)
    check(ph.pipeline(break_after_inner_loop), np.array([-17, 15]), 0)


def test_reads_after_break_of_a_flat_loop():
    check(ph.pipeline(break_without_inner_loop), np.array([-17, 15]))
    check(ph.pipeline(break_without_inner_loop), np.array([4, 1, 2, 3]))
