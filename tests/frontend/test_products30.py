"""The product kernel's compile cost (docs/issue16_30.md): the default
`a @ b` keeps its blocks of columns and of k whole (partition(v,
Partition.Never): one copy of the panels' production and of the register
tiles), and the unrolled rows of an edge tile, which choose per row
between vector code and its scalar fallback, stay a loop (lowering/unroll.py).
The results stay the serial sum's bits."""
import re

import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.partition_loops import partition_loops
from pyhalide.lowering.unroll import unroll_loops
from tests.core.test_core_partition_loops import EVERY_N, N, c, chunked, same_stores, v


def _serial(a, b):
    out = np.zeros((a.shape[0], b.shape[1]), np.result_type(a, b))
    for t in range(a.shape[1]):
        out = out + a[:, t:t + 1] * b[t]
    return out


@ph.pipeline
def _mm(a, b):
    return a @ b


def test_product_blocks_whole_and_edges_exact():
    """One production of the panels, the edge tile's rows a fallback loop;
    shapes whose edges no tile, panel or block divides give the serial
    sum's bits."""
    rng = np.random.default_rng(30)
    for m, k, n in [(13, 500, 13), (7, 300, 9), (100, 100, 100), (1, 3, 1), (6, 257, 263)]:
        a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        got = _mm(a, b)
        assert np.ascontiguousarray(got).tobytes() == _serial(a, b).tobytes(), (m, k, n)
    text = _mm.lower("final")
    assert text.count("produce matmul_panels") == 1
    # (the Func's name holds a counter of the process's products: matmul$4)
    assert re.search(r"fallback for \(matmul(\$\d+)?\.s1\.y\$i", text)


def test_partition_never_leaves_the_loop_whole():
    """A loop named `never` is not partitioned; its inner loop partitions
    the guard by chunks instead (the same stores)."""
    before = chunked()
    after = partition_loops(before, frozenset({"u"}))
    text = ir.to_str(after)
    assert text.startswith("parallel for (u, 0, ((N + 63) / 64)) {\n  for (r, 0, 8) {\n    if (")
    same_stores(before, after, EVERY_N)


def test_unrolled_loop_branching_to_a_fallback_stays_a_loop():
    """An unrolled loop whose body chooses between a vector store and a
    fallback loop becomes a fallback loop; one of fallback loops alone is
    unrolled."""
    i, x = v("i"), v("x")
    idx = ir.Add(ir.Mul(i, c(4)), x)
    scalar = ir.For("x", c(0), c(4), ir.ForKind.FALLBACK,
                    ir.IfThenElse(ir.LT(idx, N), ir.Store("out", c(1), idx)))
    vector = ir.Store("out", ir.Broadcast(c(1), 4), ir.Ramp(ir.Mul(i, c(4)), c(1), 4))
    branch = ir.IfThenElse(ir.LT(ir.Add(ir.Mul(i, c(4)), c(3)), N), vector, scalar)
    rolled = unroll_loops(ir.For("i", c(0), c(6), ir.ForKind.UNROLLED, branch))
    assert isinstance(rolled, ir.For) and rolled.kind == ir.ForKind.FALLBACK
    unrolled = unroll_loops(ir.For("i", c(0), c(2), ir.ForKind.UNROLLED, scalar))
    assert not isinstance(unrolled, ir.For)
    assert ir.to_str(unrolled).count("fallback for (x") == 2


def test_func_partition_never(tmp_path):
    """Func.partition(v, Partition.Never) through the API: the guarded
    split loop gets no guard-free vector copy (its guard depends on the
    lanes: one scalar fallback loop), and the values are the same; also
    where the split's outer reuses the dimension's name (loop synthesis
    renames that loop)."""
    x, xo, xi = ph.Var("x"), ph.Var("xo"), ph.Var("xi")
    for outer in (xo, x):
        f = ph.Func("f")
        f[x] = x * 2
        f.split(x, outer, xi, 8, ph.TailStrategy.GuardWithIf).vectorize(xi)
        f.partition(outer, ph.Partition.Never)
        assert np.array_equal(np.asarray(f.realize([20])), np.arange(20) * 2)
        path = tmp_path / "f.stmt"
        f.compile_to_lowered_stmt(str(path))
        text = path.read_text()
        assert "fallback for" in text and "ramp(" not in text, outer.name()
