"""A stage over an empty region reads nothing: the input-coverage check
counts a pure definition's reads only where its region is not empty (a
Python loop over an empty range touches nothing)."""
import numpy as np
import pytest

import pyhalide as ph


def _two_outputs(inp):
    x = ph.Var("x")
    a, b = ph.Func("a"), ph.Func("b")
    a[x] = inp[x + 1] - inp[x]
    b[x] = inp[x + 2] - inp[x]
    return a, b


@pytest.mark.parametrize("n", [1, 2, 5])
def test_empty_output_reads_nothing(n):
    data = np.arange(float(n))
    inp = ph.Buffer(data, "inp")
    a, b = _two_outputs(inp)
    out_a = a.realize([max(n - 1, 0)])
    out_b = b.realize([max(n - 2, 0)])
    np.testing.assert_array_equal(np.asarray(out_a), np.diff(data))
    np.testing.assert_array_equal(np.asarray(out_b), data[2:] - data[:-2])


def test_nonempty_output_still_checked():
    inp = ph.Buffer(np.arange(2.0), "inp")
    _, b = _two_outputs(inp)
    with pytest.raises(ValueError, match="is read over"):
        b.realize([1])
