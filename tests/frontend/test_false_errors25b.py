"""Loops whose computed bounds leave 32 bits where the range is empty
(frontend_ast/loop_empty.py), compared with plain Python, including inputs
where Python raises (the exception type stays Python's)."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _outcome


def up(a, n, lo):
    # empty for every i where lo >= 2: an OverflowError before loop_empty
    s = 0.0
    for i in range(n):
        for j in range(i + lo, max(i + lo, 2 - i)):
            s += a[j]
    return s


_UP = pipeline(up)
_BIG = [2, 7, 2**31 - 1, 2**31, 2**40, 2**62]
_NEG = [-2**31, -2**31 - 1, -2**40, -2**63]


def _same(kernel, f, *args):
    a, b = np.arange(6.0), np.arange(6.0)
    want = _outcome(f, a, *args)
    got = _outcome(kernel, b, *args)
    if isinstance(want, type):
        assert got is want
    else:
        assert not isinstance(got, type), got
        assert got == want
    np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_empty_ascending_ranges_out_of_int32(n):
    for lo in _BIG + [0, 1, -2, -5]:
        _same(_UP, up, n, lo)


def test_nonempty_ascending_ranges_keep_python_errors():
    # the range runs (a[j] past the end: IndexError, Python's type)
    for lo in _NEG:
        _same(_UP, up, 3, lo)



def step_two_inner(a, lo, hi):
    # a clamped bound of the step-2 k loop reached the reads' index
    # arithmetic (a false OverflowError); loop_empty leaves such loops alone
    n = a.shape[0]
    s = 0.0
    for i in range(min(0, n - 1), hi, 2):
        for j in range(i + lo, max(i - 1, n), -1):
            for k in range(min(j - 1, j + 1), min(lo, j + 1), 2):
                s += a[k - j] - a[j + k] * j
    return s


_STEP_TWO = pipeline(step_two_inner)


def test_step_two_inner_loop_unchanged():
    for n, lo, hi in [(0, 0, 3), (4, 0, 3), (4, 1, 6), (7, 3, 9), (4, 2**40, 3)]:
        want = _outcome(step_two_inner, np.arange(n) * 1.5 + 1, lo, hi)
        got = _outcome(_STEP_TWO, np.arange(n) * 1.5 + 1, lo, hi)
        assert got == want or got is want
