# ruff: noqa: F841  (unused names: their computation is what is tested)
"""An unused scalar that passes int64 (`x = int(k * 1.0)` with k = 1e300,
`y = -int(k)`, `int(k) * 3`) is a big int in Python, which returns: the
compiled call checks only what Python raises for it (NaN: ValueError, inf:
OverflowError), not the limits of its int64 representation. A value that
is used and does not fit int64 still raises OverflowError (compiled code
keeps Python ints in int64: documented in docs/never_wrong_limits.md).
Compared with plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


@ph.pipeline
def unused_int(a, k):
    x = int(k * 1.0)
    return a + 1


@ph.pipeline
def unused_sum(a, k):
    x = int(k * 1.0) + 5
    return a + 1


@ph.pipeline
def unused_negation_and_product(a, k):
    x = -int(k)
    y = int(k) * 3
    return a + 1


@ph.pipeline
def unused_in_branch(a, k):
    y = 0
    if a[0] > 0:
        y = int(k * 2.0) // 3
    return a + 1


@ph.pipeline
def used_int(a, k):
    x = int(k * 1.0)
    return a + x


KS = [1e300, -1e300, float("inf"), float("-inf"), float("nan"), 5.0, 2.0**63, -2.0**63,
      9.3e18, -0.5]


@pytest.mark.parametrize("p", [unused_int, unused_sum, unused_negation_and_product,
                               unused_in_branch])
@pytest.mark.parametrize("k", KS)
def test_unused_values_past_int64(p, k):
    same_outcome(p, np.array([1.0, 2.0]), k)
    same_outcome(p, np.array([-1.0, 2.0]), k)


@pytest.mark.parametrize("k", KS)
def test_used_values(k):
    a = np.array([1.0, 2.0])
    try:
        want = a + int(k * 1.0)
    except (OverflowError, ValueError) as e:
        with pytest.raises(type(e)):
            used_int(a, k)
        return
    if not -2**63 <= int(k) < 2**63:      # used and past int64: the compiled code's limit
        with pytest.raises(OverflowError, match="int64"):
            used_int(a, k)
        return
    assert np.array_equal(used_int(a, k), want)
