"""False errors under `if` and in loops (session 27, h4). Compared with
plain Python, including the inputs where Python raises (the exception type
stays Python's)."""
import re

import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same

BIG = 2 ** 30


# -- (a) a value the same in every iteration is computed once
# (frontend_ast/lifted_pins.py), and a merged loop's variable nothing reads
# is not computed (loop_merge.py): main raised MemoryError "out of memory
# allocating 309237645696 bytes for sum_lanes$5" (the sum realized over the
# inner loop's 2**30 slots), then for the loop state (its overflow check of
# k read at every slot) --
def sum_condition(x, lo, hi):
    s = 0.0
    for i in range(len(x)):
        if x.sum() > 0.0:
            for k in range(lo, hi // 2):
                s += x[i] * 0.5
    return s


def element_condition(x, lo, hi):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            for k in range(lo, hi // 2):
                s += x[i] * 0.5 + (k % 3)
    return s


_SUM_CONDITION = pipeline(sum_condition)
_ELEMENT_CONDITION = pipeline(element_condition)


@pytest.mark.parametrize("sign,lo,hi", [(1.0, -3, 4), (1.0, 2, 2), (-1.0, 0, 10),
                                        (0.0, -5, 7)])
def test_condition_before_an_inner_loop(sign, lo, hi):
    x = sign * np.ones(5)
    _same(_SUM_CONDITION, sum_condition, x, lo, hi)
    _same(_ELEMENT_CONDITION, element_condition, x, lo, hi)


def test_condition_before_an_inner_loop_stores_per_slot_nothing():
    # what made main's buffers 2**30 slots long: the sum read at every slot
    # (now at index 0 of its lifted dimensions) and the unused loop
    # variable's check Func (`k_unused`, now not made)
    x = np.ones(5)
    _same(_SUM_CONDITION, sum_condition, x, 0, 6)
    defs = _SUM_CONDITION.lower("defs")
    assert re.search(r"sum(\$\d+)?\(0, 0\)", defs), defs
    assert "k_unused" not in defs


@pytest.mark.slow
@pytest.mark.parametrize("sign", [-1.0, 0.0])
def test_condition_before_a_2_30_inner_loop(sign):
    # (5 x 1.5 * 2**30 slots, the `if` never taken: several seconds of CPU)
    x = sign * np.ones(5)
    _same(_SUM_CONDITION, sum_condition, x, -BIG, BIG)
    _same(_ELEMENT_CONDITION, element_condition, x, -BIG, BIG)
    _same(_SUM_CONDITION, sum_condition, np.ones(0), -BIG, BIG)


# -- a lifted value read at one index keeps the loop's bound: a loop of no
# iteration computes none of it (y[k] out of range raises only where Python
# reads it) --
def invariant_product_sum(x, y, k, n):
    s = 0.0
    for i in range(n):
        s += (x * y[k]).sum() + (x * i).sum()
    return s


def invariant_under_if(x, y, k, n):
    s = 0.0
    for i in range(n):
        if x[i % len(x)] > -1.0:
            s += (x * y[k]).sum() + y.max() * i
    return s


_INVARIANT_PRODUCT_SUM = pipeline(invariant_product_sum)
_INVARIANT_UNDER_IF = pipeline(invariant_under_if)


@pytest.mark.parametrize("k,n", [(5, 0), (-5, 0), (2, 0), (2, 3), (5, 2), (-3, 1), (0, 1)])
def test_invariant_sum_in_a_loop(k, n):
    x, y = np.arange(4.0) - 1.5, np.arange(3.0) + 0.25
    _same(_INVARIANT_PRODUCT_SUM, invariant_product_sum, x, y, k, n)
    _same(_INVARIANT_UNDER_IF, invariant_under_if, x, y, k, n)


# -- (c) np.trapezoid's check that x and y have one length, under an `if`
# not taken (array_calculus._check_same_size: x's differences read clamped,
# the check made where the statement runs; main raised ValueError "operands
# could not be broadcast together" whatever the condition) --
def trapezoid_if(y, x, n):
    s = 0.0
    if n > 2:
        s = np.trapezoid(y, x)
    return s


def trapezoid_if_data(y, x, n):
    s = 0.0
    if y[0] > 100.0:
        s = np.trapezoid(y, x)
    return s


def trapezoid_in_loop(y, x, n):
    s = 0.0
    for i in range(n):
        if n > 2:
            s += np.trapezoid(y, x) * i
    return s


_TRAPEZOIDS = [(pipeline(f), f) for f in (trapezoid_if, trapezoid_if_data, trapezoid_in_loop)]


@pytest.mark.parametrize("ny,nx,n", [(3, 4, 1), (3, 4, 3), (0, 3, 1), (3, 3, 3), (1, 3, 3)])
def test_trapezoid_under_an_if(ny, nx, n):
    y, x = np.arange(ny) + 1.0, np.arange(nx) - 0.5
    for kernel, f in _TRAPEZOIDS:
        _same(kernel, f, y, x, n)


# -- (c) np.concatenate's check of the other axes under an `if` not taken
# (array_create._same_sizes: the later parts read clamped along those axes,
# the check made where the statement runs; a part of size 0 keeps the
# call-time check; main raised ValueError "all the input array dimensions
# except for the concatenation axis must match exactly" whatever the
# condition) --
def concatenate_if(x, y, n):
    z = x * 1.0
    if n > 2:
        z = np.concatenate([x[None, :], y[None, :]]).sum(axis=0)
    return z


def concatenate_if_data(x, y, n):
    z = x * 1.0
    if x[0] > 100.0:
        z = np.vstack([x, y]).sum(axis=0)
    return z


def concatenate_axis1_in_loop(x, y, n):
    s = 0.0
    for i in range(n):
        if n > 2:
            s += np.concatenate([x.reshape(-1, 1), y.reshape(-1, 1)], axis=1).sum() * i
    return s


_CONCATENATES = [(pipeline(f), f) for f in (concatenate_if, concatenate_if_data,
                                            concatenate_axis1_in_loop)]


@pytest.mark.parametrize("nx,ny,n", [(3, 4, 1), (3, 4, 3), (2, 3, 1), (3, 3, 3), (0, 3, 1),
                                     (3, 1, 3)])
def test_concatenate_under_an_if(nx, ny, n):
    x, y = np.arange(nx) + 1.0, np.arange(ny) - 0.5
    for kernel, f in _CONCATENATES:
        _same(kernel, f, x, y, n)
