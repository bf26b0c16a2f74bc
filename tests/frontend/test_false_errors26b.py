"""False errors of statements Python does not run (session 26, h4): a
broadcast under an `if` not taken whose longer operand is first, a
reshape's -1 in a loop of no iteration. Compared with plain Python,
including the inputs where Python raises (the exception type stays
Python's)."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same


# -- a broadcast under an `if` not taken: the branch's array is computed whole
# and selected; its reads of an operand not provably the broadcast size are
# clamped into the operand (arrayexpr.broadcast_index, gated) --
def branch_add(a, b, n):
    if n > 2:
        a = a + b
    return a * 2.0


def branch_add_2d(a, b, n):
    if n > 2:
        a = a - b * 0.5
    return a + 1.0


_BRANCH_ADD = pipeline(branch_add)
_BRANCH_ADD_2D = pipeline(branch_add_2d)


@pytest.mark.parametrize("na,nb,n", [(4, 3, 1), (4, 3, 3), (3, 4, 1), (4, 4, 3), (4, 1, 3),
                                     (1, 4, 3), (5, 2, 2), (0, 2, 1), (3, 3, 0)])
def test_broadcast_under_an_if_not_taken(na, nb, n):
    # (main: IndexError "input buffer b is read over [0, 3]" for (4, 3, 1))
    _same(_BRANCH_ADD, branch_add, np.arange(na) + 1.0, np.arange(nb) + 0.5, n)


@pytest.mark.parametrize("sa,sb,n", [((3, 4), (2, 4), 1), ((3, 4), (3, 2), 1), ((3, 4), (3, 2), 5),
                                     ((3, 4), (1, 4), 5), ((2, 3), (2, 3), 5)])
def test_broadcast_2d_under_an_if_not_taken(sa, sb, n):
    a = np.arange(np.prod(sa), dtype=np.float64).reshape(sa)
    b = np.arange(np.prod(sb), dtype=np.float64).reshape(sb) - 2.0
    _same(_BRANCH_ADD_2D, branch_add_2d, a, b, n)


# -- a reshape's -1 in a loop of no iteration (array_shape._unknown_or_zero:
# the call-time size no longer raises; the reshape's check does, where the
# loop runs) --
def reshape_in_loop(a, n):
    s = 0.0
    for k in range(n):
        s += a.reshape(2, -1).sum() * (k + 1)
    return s


_RESHAPE_IN_LOOP = pipeline(reshape_in_loop)


@pytest.mark.parametrize("na,n", [(3, 0), (3, 2), (4, 0), (4, 3), (0, 1), (5, -1)])
def test_reshape_unknown_size_in_a_loop_that_does_not_run(na, n):
    # (main: ValueError "cannot reshape array of size 3" for (3, 0))
    _same(_RESHAPE_IN_LOOP, reshape_in_loop, np.arange(na) + 1.0, n)


# -- shape checks of np.dot / np.stack / np.gradient under an `if` not taken
# (add_loop_gated's reads_inside: the operands are read at clamped indices,
# the check gated by the call-time condition) --
def shapes_in_branch(a, b, n):
    s = 0.0
    if n > 2:
        s = np.dot(a, b) + np.stack([a, b]).sum() * 0.5 + np.gradient(a)[0]
    elif n < 0:
        s = np.gradient(b, edge_order=2)[-1]
    return s


def matmul_in_branch(A, B, n):
    C = A * 2.0
    if n > 2:
        C = A @ B
    return C


_SHAPES_IN_BRANCH = pipeline(shapes_in_branch)
_MATMUL_IN_BRANCH = pipeline(matmul_in_branch)


@pytest.mark.parametrize("na,nb,n", [(3, 4, 1), (4, 3, 1), (4, 3, 5), (4, 4, 5), (1, 1, 1),
                                     (1, 1, 5), (3, 2, -1), (3, 3, -1), (0, 2, 0)])
def test_shape_checks_under_an_if_not_taken(na, nb, n):
    # (main: ValueError "shapes (3,) and (4,) not aligned" for (3, 4, 1))
    _same(_SHAPES_IN_BRANCH, shapes_in_branch, np.arange(na) + 1.0, np.arange(nb) * 0.5, n)


@pytest.mark.parametrize("sa,sb,n", [((3, 4), (3, 3), 1), ((3, 4), (5, 3), 1), ((3, 4), (5, 3), 3),
                                     ((3, 4), (4, 3), 3), ((3, 3), (3, 3), 1)])
def test_matmul_under_an_if_not_taken(sa, sb, n):
    A = np.arange(np.prod(sa), dtype=np.float64).reshape(sa) * 0.25
    B = np.arange(np.prod(sb), dtype=np.float64).reshape(sb) - 1.0
    _same(_MATMUL_IN_BRANCH, matmul_in_branch, A, B, n)


# -- a `while` under an `if` inside a loop (loop_exits.carried_spans: a
# variable the `if` assigns before the `while` starts anew in each iteration,
# so the stop flag is reset there, as without the `if`) --
def insertion_if(a, m):
    for i in range(1, a.shape[0]):
        if m > 2:
            key = a[i]
            j = i
            while j > 0 and a[j - 1] > key:
                a[j] = a[j - 1]
                j -= 1
            a[j] = key
    return a


def run_lengths_if(a):
    c = 0
    for i in range(a.shape[0]):
        if a[i] > 0.3:
            j = i
            while j < a.shape[0] and a[j] > 0.2:
                j += 1
            c += j - i
        else:
            c -= 1
    return c


_INSERTION_IF = pipeline(insertion_if)
_RUN_LENGTHS_IF = pipeline(run_lengths_if)


@pytest.mark.parametrize("n,m", [(0, 3), (1, 0), (5, 3), (7, 0), (8, 3)])
def test_while_under_an_if_in_a_loop(n, m):
    # (main: FrontendError "the flag that stops this loop is assigned both in
    # this loop and in the loop at line ... that encloses it")
    a = np.round(np.random.default_rng(n + 10 * m).random(n), 1)
    _same(_INSERTION_IF, insertion_if, a.copy(), m)
    _same(_RUN_LENGTHS_IF, run_lengths_if, a)


# -- shape checks under an `if` of data (outside loops): made at run time where
# the statement runs (call_time_reach.add_shape_check, asserts.shape_check);
# an operand of size 0 read at clamped indices keeps the call-time check --
def data_branch(a, b, t):
    s = 0.0
    c = a * 2.0
    if t[0] > 100.0:
        c = np.maximum(a, b) + a
        s = np.dot(a, b) + np.stack([a, b]).sum() + np.gradient(b).sum()
    return c + s


def data_matmul(A, B, t):
    s = 0.0
    if t[0] > 100.0:
        s = (A @ B).sum()
    return s


_DATA_BRANCH = pipeline(data_branch)
_DATA_MATMUL = pipeline(data_matmul)


@pytest.mark.parametrize("na,nb", [(3, 4), (4, 3), (0, 3), (3, 3), (1, 1), (2, 2)])
@pytest.mark.parametrize("tv", [0.0, 200.0])
def test_shape_checks_under_an_if_of_data(na, nb, tv):
    # (main: ValueError for every unequal na, nb, the branch taken or not)
    _same(_DATA_BRANCH, data_branch, np.arange(na) + 1.0, np.arange(nb) - 0.5, np.array([tv]))


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 2)), ((3, 4), (5, 3)), ((2, 3), (2, 3))])
@pytest.mark.parametrize("tv", [0.0, 200.0])
def test_matmul_under_an_if_of_data(sa, sb, tv):
    A = np.arange(np.prod(sa), dtype=np.float64).reshape(sa) * 0.5
    B = np.arange(np.prod(sb), dtype=np.float64).reshape(sb) - 1.0
    _same(_DATA_MATMUL, data_matmul, A, B, np.array([tv]))


# -- the first failure inside one `if` of data (check_order.order_unknown: an
# `if` failing in more than one place is told by the plain function; main
# raised the later IndexError for the assert too) --
def first_failure(x, y, t, k):
    s = 0.0
    if t[0] > 100.0:
        assert x.shape[0] > 1
        x = x + y
        s = x[k]
    return x * s


_FIRST_FAILURE = pipeline(first_failure)


@pytest.mark.parametrize("nx,ny,tv,k", [(3, 4, 200.0, 5), (3, 4, 0.0, 5), (1, 4, 200.0, 5),
                                        (3, 3, 200.0, 5), (3, 3, 200.0, 1), (4, 3, 200.0, 0)])
def test_first_failure_in_an_if_of_data(nx, ny, tv, k):
    _same(_FIRST_FAILURE, first_failure, np.arange(nx) + 1.0, np.arange(ny) + 0.5,
          np.array([tv]), k)
