"""Wrong results found by session 30's red team (docs/red_team30.md), each
against plain Python."""
import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def times_constant_bool(xa):
    x = int(xa[0])
    return x * (1 < 2) * 2 ** 40, x * int(1 % 3.0) + (3 == 3) * x


def test_product_with_a_constant_comparison():
    """`x * (1 < 2)` is x: the constant True's range is [0, 1], and the
    product's affine bounds were scaled by its low end 0, so the next
    product was taken to be 0 and wrapped (0 where Python's int is 2**70)
    instead of raising the int64 limit's OverflowError; `x * int(1 % 3.0)`
    (a constant without a range) crashed the compiler (TypeError)."""
    for v in (3, -7, 2 ** 22):
        x = int(v)
        assert times_constant_bool(np.array([v])) == (x * 2 ** 40, 2 * x)
    for v in (2 ** 30, 2 ** 31 + 5, -2 ** 40):
        with pytest.raises(OverflowError):
            times_constant_bool(np.array([v]))
