"""Loops whose range depends on an enclosing loop run over the hull of their
ranges (emit.rdom_bounds). Where the hull's ends are not proven within int32
(Python-int arguments near 2**31), they are saturated int32 values and the
extent is taken in int64: a hull end past int32 wrapped, and the loop ran
wrapped iterations (`range(min(hi + i, i), lo, -1)` at lo = 2**31 - 1,
hi = -2**31 returned 31.0; Python 0.0; found by h3's 2-level fuzz)."""
import numpy as np
import pytest

import pyhalide as ph

from .test_false_errors26 import up_near_max


def descending_min_start(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(min(hi + i, i), lo, -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


def descending_to_a_min_stop(a, lo, hi):
    n = a.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(lo + 3, min(lo - i, i + lo), -1):
            s += a[j % n] * (j % 7) + 1.0
    return s


KERNELS = [(f, ph.pipeline(f)) for f in (descending_min_start, descending_to_a_min_stop,
                                          up_near_max)]
ARGS = [(2**31 - 1, -2**31), (2**31 - 4, -2**31), (2**31 - 4, -2**31 + 1), (2**31 - 4, 3),
        (5, -2**31), (2**31 - 4, 2**31 - 4), (-2**31 + 3, -2**31 + 3), (0, 3), (3, -2)]


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:      # noqa: BLE001 (the exception type is compared)
        return type(e)


@pytest.mark.parametrize("f,k", KERNELS, ids=[f.__name__ for f, _ in KERNELS])
def test_hull_near_int32_ends_against_python(f, k):
    for lo, hi in ARGS:
        want = _outcome(f, np.arange(4.0), lo, hi)
        got = _outcome(k, np.arange(4.0), lo, hi)
        if got is OverflowError and want is not OverflowError:
            continue        # a limit of the compiled code (a false error, never a value)
        assert got == want, (f.__name__, lo, hi, got, want)
