"""False errors under an `if` of data inside loops (session 28, h4): shape
checks made per iteration where the statement runs. Compared with plain
Python, including the inputs where Python raises (the exception type stays
Python's)."""
import numpy as np

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same


def dot_under_if(x, A, B):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += np.dot(A, B).sum()
    return s


def broadcast_under_if(x, a, b):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (a + b).sum() * i
        else:
            s += 1.0
    return s


def stack_under_if(x, a, b):
    s = 0.0
    for j in range(2):
        for i in range(len(x)):
            if x[i] * 2.0 > 5.0:
                s += np.stack([a, b]).sum()
    return s


_DOT = pipeline(dot_under_if)
_BROADCAST = pipeline(broadcast_under_if)
_STACK = pipeline(stack_under_if)

_NEVER, _ONCE, _EMPTY = np.zeros(4), np.array([0.0, 0.0, 6.0, 0.0]), np.zeros(0)


def test_dot_under_if_in_a_loop():
    # main: ValueError "shapes (2,3) and (4,2) not aligned" where no x[i] > 5
    for x in (_NEVER, _ONCE, _EMPTY):
        _same(_DOT, dot_under_if, x, np.ones((2, 3)), np.ones((4, 2)))
        _same(_DOT, dot_under_if, x, np.ones((2, 3)) * 1.5, np.arange(6.0).reshape(3, 2))


def test_broadcast_under_if_in_a_loop():
    for x in (_NEVER, _ONCE, _EMPTY):
        _same(_BROADCAST, broadcast_under_if, x, np.ones(3), np.ones(4))
        _same(_BROADCAST, broadcast_under_if, x, np.arange(3.0), np.ones(1))
        _same(_BROADCAST, broadcast_under_if, x, np.arange(3.0), np.arange(3.0) + 0.5)


def test_stack_under_if_in_a_nest():
    for x in (_NEVER, _ONCE, _EMPTY):
        _same(_STACK, stack_under_if, x, np.ones(3), np.ones(4))
        _same(_STACK, stack_under_if, x, np.arange(3.0), np.ones(3))


# -- each check of one node has its own flag: a passing check written after
# a failing one in the same iteration must not replace it (a 2-D broadcast
# whose first axis differs, a stack whose second part differs) --
def two_axis_broadcast(x, A, B):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (A + B).sum()
    return s


_TWO_AXIS = pipeline(two_axis_broadcast)


def test_every_check_of_a_node_is_kept():
    for x in (_NEVER, _ONCE):
        _same(_TWO_AXIS, two_axis_broadcast, x, np.ones((2, 3)), np.ones((3, 3)))
        _same(_TWO_AXIS, two_axis_broadcast, x, np.ones((3, 2)), np.ones((3, 3)))
        _same(_TWO_AXIS, two_axis_broadcast, x, np.ones((3, 3)), np.arange(3.0))
        _same(_TWO_AXIS, two_axis_broadcast, x, np.ones((1, 3)), np.ones((2, 1)))


def three_part_stack(x, a, b, c):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += np.stack([a, b, c]).sum() * i
    return s


_THREE_PART = pipeline(three_part_stack)


def test_three_part_stack_under_if():
    for x in (_NEVER, _ONCE):
        _same(_THREE_PART, three_part_stack, x, np.ones(3), np.ones(4), np.ones(3))
        _same(_THREE_PART, three_part_stack, x, np.ones(3), np.ones(3), np.ones(2))
        _same(_THREE_PART, three_part_stack, x, np.ones(3), np.arange(3.0), np.ones(3))


# -- np.convolve / np.correlate of an empty operand: "a cannot be empty"
# only where the statement runs; the operand read only where it has
# elements (main: ValueError where the `if` never holds) --
def convolve_under_if(x, a, v):
    s = 0.0
    if x[0] > 5.0:
        s += np.convolve(a, v).sum()
    return s


def correlate_under_if_in_a_loop(x, a, v):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += np.correlate(a, v, "same")[0] * i
    return s


_CONVOLVE = pipeline(convolve_under_if)
_CORRELATE = pipeline(correlate_under_if_in_a_loop)
_OPERANDS = [(np.ones(0), np.ones(3)), (np.ones(2), np.ones(0)), (np.ones(0), np.ones(0)),
             (np.arange(3.0), np.arange(2.0) + 1.0), (np.arange(2.0), np.arange(4.0) + 1.0)]


def test_convolve_of_an_empty_operand_under_if():
    for x in (np.zeros(3), np.full(3, 9.0)):
        for a, v in _OPERANDS:
            _same(_CONVOLVE, convolve_under_if, x, a, v)


def test_correlate_of_an_empty_operand_under_if_in_a_loop():
    for x in (np.zeros(3), np.array([0.0, 9.0, 0.0])):
        for a, v in _OPERANDS:
            _same(_CORRELATE, correlate_under_if_in_a_loop, x, a, v)


# -- where the per-iteration check cannot be made (its condition reads the
# running value in a triangular nest: refused), the build is made again
# with the call-time check (as main: compiled, equal where shapes agree) --
def running_condition_in_a_triangle(x, a, b):
    s = 0.0
    for i in range(len(x)):
        for j in range(i):
            if s > 0.5:
                s += np.maximum(a, b).sum()
            else:
                s += 1.0
    return s


_RUNNING = pipeline(running_condition_in_a_triangle)


def test_running_condition_in_a_triangle_compiles():
    for a, b in ((np.ones(3), np.ones(3)), (np.ones(3), np.ones(1)), (np.ones(3), np.ones(4))):
        _same(_RUNNING, running_condition_in_a_triangle, np.zeros(4), a, b)


# -- index checks inside array code lifted over a loop whose index changes
# with the iteration, gated by the `if`s they were made under
# (frontend_ast/lifted_checks.py; main: IndexError where the `if` never
# holds). A read before the `if` stays checked in every iteration, as
# Python reads it there --
def index_under_if(x, y, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            if x[0] < 3.0:
                s += (x * y[k - i]).sum()
        else:
            s += (x * y[k + i]).sum() * 0.5
    return s


def index_before_if(x, y, k):
    s = 0.0
    for i in range(len(x)):
        t = x * y[k]
        if x[i] > 5.0:
            s += t.sum()
    return s


_INDEX_UNDER = pipeline(index_under_if)
_INDEX_BEFORE = pipeline(index_before_if)


def test_index_checks_under_if_in_a_loop():
    for x in (np.zeros(4), np.array([0.0, 0.0, 9.0, 0.0]), np.full(4, 9.0)):
        for k in (1, 7, -9, -1):
            _same(_INDEX_UNDER, index_under_if, x, np.ones(3), k)


def test_index_check_before_if_in_a_loop():
    for x in (np.zeros(4), np.full(4, 9.0)):
        for k in (1, 7, -9):
            _same(_INDEX_BEFORE, index_before_if, x, np.arange(3.0), k)
