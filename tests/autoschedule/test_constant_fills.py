"""schedule="auto" leaves the constant fill of `np.zeros` (overwritten by
updates) as its serial loop, which LLVM turns into a memset: explicit
vectors over a short axis only add a tail (plan._fills). Results equal
plain Python."""
import numpy as np

import pyhalide as ph


def fill_then_rows(a, b):
    n, m = a.shape
    out = np.zeros((m + 1, 5, 2 * n, n))
    for k in range(2 * n):
        for i in range(n):
            out[:, :, k, i] = (a[i % n, k % m] * 0.5 + 1.0) * b[:, :, i]
    return out


def test_a_zero_fill_is_not_vectorized_and_results_equal_python():
    rng = np.random.default_rng(17)
    a = rng.random((10, 11))
    b = rng.random((12, 5, 10))
    p = ph.pipeline(fill_then_rows, schedule="auto")
    np.testing.assert_array_equal(p(a, b), fill_then_rows(a, b))
    src = p.schedule_source()
    assert "out = p.funcs['out']\n    out.vectorize" not in src, src
    assert not any(line.strip().startswith("out.vectorize") for line in src.splitlines()), src


def test_zero_fills_of_other_sizes():
    rng = np.random.default_rng(18)
    p = ph.pipeline(fill_then_rows, schedule="auto")
    for n, m in ((1, 1), (3, 2), (17, 5)):
        a, b = rng.random((n, m)), rng.random((m + 1, 5, n))
        np.testing.assert_array_equal(p(a, b), fill_then_rows(a, b))
