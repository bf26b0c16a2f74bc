"""Heap allocations of at least 4 MiB are madvised MADV_HUGEPAGE on Linux, as
NumPy does for its arrays (malloc maps such blocks afresh on every call; in
4 KiB pages the faults cost more than a large stencil's arithmetic). The
advice is emitted only behind a size test, and results do not change."""
import sys

import numpy as np
import pytest

import pyhalide as ph


def _two_stage(n):
    x, y = ph.Var("x"), ph.Var("y")
    a = ph.Buffer(np.arange(n * n, dtype=np.float64).reshape(n, n), "a")
    f = ph.Func("f")
    f[x, y] = a[x, y] * 2.0
    f.compute_root()
    g = ph.Func("g")
    g[x, y] = f[x, y] + f[x, y]
    return g, a


@pytest.mark.parametrize("n", [16, 1100])      # 2 KiB and 9.7 MB intermediates
def test_results_with_small_and_large_intermediates(n):
    g, a = _two_stage(n)
    out = np.asarray(g.realize([n, n]))
    np.testing.assert_array_equal(out, 4.0 * np.asarray(a))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MADV_HUGEPAGE is Linux's")
def test_large_heap_allocations_are_advised():
    g, _ = _two_stage(64)
    text = ph.Pipeline(g).lower("llvm")
    assert '@"madvise"' in text and '@"aligned_alloc"' in text
