"""A loop nest whose inner range depends on the outer loop (`range(max(i,
lo), n)`: whether and where the body first runs cannot be told from the
bounds) carrying a Python scalar that the body turns into a NumPy scalar
(a Python float into float64, a Python complex into complex128, a Python
int into int32, a Python float into float32) compiles where the first
iteration computes as the later ones (issue 17): the result is plain
Python's value and type, the Python start where the body never ran (n = 0,
lo past the end) and the NumPy scalar where it did. A start whose first
iteration computes differently (`s * s` with a Python float against
float32; Python int arithmetic against int32) stays refused, naming why.
The complex case returned the Python start after the body ran (its
"?assigned" flag, kept per part, was never set). Issue 17's kernel and
`range(i + 1, n - 1)` under `range(max(lo, hi), 1, -1)` raised OverflowError
("does not fit in 32 bits") for every argument: a bound known only from a
type's range (min(i, lo) >= -2^63, i + 1 <= 2^31) was checked at call time."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError
from tests.frontend.test_false_errors23 import descending_from_max as descending_outer  # t_1_28

from .frontend_check import check


def fuzz_nest(a, lo, hi):      # issue 17's kernel (the lead's fuzz, t_1_14)
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(i, lo), n):
            s += a[j - 1] - a[i + j - i]
    return s




def nest(a, lo, s):     # s: the start, a Python float or complex
    n = a.shape[0]
    for i in range(n):
        for j in range(max(i, lo), n):
            s += a[j] * a[i]
    return s


def int_sum(a, lo):
    s = 0           # (a Python int argument is refused: it may not fit in int32)
    for i in range(lo, a.shape[0]):
        for j in range(i + 1, a.shape[0] + lo):
            s += a[j - lo]
    return s


def decay(a, lo):
    s = 1.0
    for i in range(a.shape[0]):
        for j in range(i + lo, a.shape[0]):
            s = s * 0.5 + a[j]
    return s


def float32_square(a, lo):
    s = 0.1
    for i in range(lo, a.shape[0]):
        for j in range(i, 4):
            s = s * s + a[j]        # 0.1 * 0.1 in double first: not float32's square
    return s


def int_unbounded(a, lo):
    s = 3
    for i in range(a.shape[0] - lo):
        for j in range(lo - i, 2):
            s = s // 2 * 1000000000000 // 1000000000000 + a[j]
    return s


# (function, array dtype, more arguments, whether the body makes a NumPy
# scalar: 1j + a float64 stays a Python complex)
CASES = [(fuzz_nest, np.float64, (3,), True), (descending_outer, np.float64, (3,), True), (nest, np.float64, (0.0,), True),
         (decay, np.float64, (), True), (nest, np.complex128, (1j,), True),
         (nest, np.float64, (1j,), False), (int_sum, np.int32, (), True)]


@pytest.mark.parametrize("fn,dtype,extra,numpy_typed", CASES,
                         ids=lambda c: getattr(c, "__name__", ""))
def test_nest_matches_python(fn, dtype, extra, numpy_typed):
    p = ph.pipeline(fn)         # (one compiled kernel per case: the start's type specializes)
    ran = skipped = 0
    for n in (0, 1, 5):
        a = (np.arange(1, n + 1) ** 2).astype(dtype)
        for lo in (-3, -1, 0, 2, 7):
            got = check(p, a, lo, *extra)
            if type(got) in (float, complex, int):      # (np.float64 is a float)
                skipped += 1
            elif got is not None:
                ran += 1
    assert skipped and bool(ran) == numpy_typed     # both result types were compared


@pytest.mark.parametrize("fn,dtype,why", [
    (float32_square, np.float32, "'s' (Python float) differently from the later ones "
                                 "(numpy.float32)"),
    (int_unbounded, np.int32, "'s' (Python int) differently from the later ones (numpy.int32)"),
])
def test_different_first_iteration_refused(fn, dtype, why):
    """Refused, never compiled: by the first-iteration rule, or (int_unbounded,
    whose running value the nest also reads across dependent bounds) by the
    scan rule that bounds inference reaches first since session 23's h2."""
    with pytest.raises(FrontendError) as e:
        ph.pipeline(fn)(np.ones(3, dtype), 0)
    msg = str(e.value)
    assert (why in msg and "first iteration of this loop" in msg) or (
        fn is int_unbounded and "the running value of 's' is read inside a loop nest" in msg), msg
