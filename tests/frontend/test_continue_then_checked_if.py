"""An `if` whose test reads an array element (a checked read) after a
`continue` of the same iteration: Python never evaluates the test where the
`continue` ran, so the compiled code must not raise there either (it
raised IndexError before: loop-fuzz seed 5001 program 5). Every program is
compared with plain Python (values, or the same exception type)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_array_fuzz import compare


def flag_then_continue(a, n):
    skip = False
    for w in range(6):
        if n < 100:
            skip = True
        if skip:
            continue
        if a[w + 1] > 1000:
            skip = True
    return skip


def write_under_read_test(a, n):
    out = np.zeros(6)
    for w in range(6):
        if n < 100:
            continue
        if a[w + 1] > 1000:
            out[w] = 1
    return out


def continue_under_read_test(a, n):
    s = 0
    for w in range(6):
        if n < 100:
            continue
        if a[w + 1] > 1000:
            continue
        s += 1
    return s


def inside_outer_if(a, n):
    s = 0
    for w in range(6):
        if w > 3:
            if n < 100:
                continue
            if a[w + 1] > 1000:
                s += 1
    return s


def both_branches(a, n):
    s = 0
    for w in range(6):
        if n < 100:
            continue
        if a[w + 1] > 1000:
            s += 1
        else:
            s -= 1
    return s


def last_element_guard(a, n):
    # the common form: skip the last element, then read the next one
    s = 0
    for i in range(len(a)):
        if i == len(a) - 1:
            continue
        if a[i + 1] > a[i] + n:
            s += 1
    return s


def nested_loop_after_continue(a, n):
    s = 0
    for w in range(4):
        if w + n > 3:
            continue
        for j in range(3):
            if a[w + j + 2] > 2:
                s += j
    return s


@pytest.mark.parametrize("fn", [flag_then_continue, write_under_read_test,
                                continue_under_read_test, inside_outer_if, both_branches,
                                last_element_guard, nested_loop_after_continue])
def test_if_after_continue_reads_as_python(fn):
    p = ph.pipeline(fn)
    for size in (5, 7, 9):
        a = np.arange(size, dtype=np.int64) % 4
        for n in (0, 1, 101):
            assert compare(p, [a, n], fn.__name__)


def while_continue_last(a, n):
    s = 0
    i = 0
    while i < n:
        i += 1
        if a[i] > 0:
            continue
    return s


def while_continue_last_counter_used(a, n):
    s = 0
    i = 0
    while i < n and s < 100:
        i += 1
        if a[i] > 0:
            continue
    return s, i


def for_pass_branch(a, n):
    s = 0
    for i in range(n):
        s += 1
        if a[(i * 7) % (n + 1)] > 0:
            pass
    return s


@pytest.mark.parametrize("fn", [while_continue_last, while_continue_last_counter_used,
                                for_pass_branch])
def test_if_test_with_no_effect_still_reads_as_python(fn):
    # the test's read raises in Python even though the `if` changes nothing
    # (loop-nest fuzz seed 5010 program 4: the compiled call returned)
    p = ph.pipeline(fn)
    for size in (5, 7):
        a = np.arange(size, dtype=np.int64) % 3
        for n in (0, 3, 6, 9):
            assert compare(p, [a, n], fn.__name__)
