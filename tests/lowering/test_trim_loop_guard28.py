"""trim_loop_guards: a guarded tile loop cut to its bound and the empty
chunks of a split skipped, each run against the Stmt as it was; the
default `a @ b` at ragged shapes bit for bit against the serial sum."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite4_kernels as K
from pyhalide.lowering.trim_loop_guard import trim_loop_guards
from tests.vectorize.vectorize_util import bits, i32, run_stmt, var

F64 = ir.Float(64)
UNROLLED, SERIAL = ir.ForKind.UNROLLED, ir.ForKind.SERIAL


def _accumulate(index, term_of):
    """c[index] = c[index] + a[kb] * term_of."""
    return ir.Store("c", ir.Add(ir.Load(F64, "c", index),
                                ir.Mul(ir.Load(F64, "a", var("kb")), ir.Cast(F64, term_of))), index)


def _run(stmt, n):
    rng = np.random.default_rng(28)
    bufs = [("a", rng.standard_normal(32), False), ("c", rng.standard_normal(16), True)]
    return run_stmt(stmt, bufs, [("n", ir.Int(32), n)], name="trim")[0]


def _k_blocks():
    """for o in [0, 3): for kb in [0, 8): unrolled u in [0, 2):
    let k = kb + o*8; if (k <= n - 1) c[u] += a[kb] * (k + u)."""
    k = ir.Add(var("kb"), ir.Mul(var("o"), i32(8)))
    store = _accumulate(var("u"), ir.Add(var("k"), var("u")))
    body = ir.For("u", i32(0), i32(2), UNROLLED, ir.LetStmt(
        "k", k, ir.IfThenElse(ir.LE(var("k"), ir.Sub(var("n"), i32(1))), store, None)))
    return ir.For("o", i32(0), i32(3), SERIAL, ir.For("kb", i32(0), i32(8), SERIAL, body))


def test_cut_to_the_guard():
    """The k block's loop runs min(8, n - o*8) iterations (none past n),
    its guard gone; every n gives the bits of the Stmt as it was."""
    before = _k_blocks()
    after = trim_loop_guards(before)
    text = ir.to_str(after)
    assert "if (" not in text and "min(" in text
    for n in (0, 1, 7, 8, 13, 24, 30):
        assert bits(_run(after, n)) == bits(_run(before, n)), n


def test_no_cut_without_a_tile():
    """A guarded loop with no unrolled or vectorized loop keeps its
    constant extent (partition_loops makes its guard-free copy)."""
    store = _accumulate(i32(0), var("kb"))
    loop = ir.For("kb", i32(0), i32(8), SERIAL,
                  ir.IfThenElse(ir.LE(var("kb"), var("n")), store, None))
    assert trim_loop_guards(loop) is loop


def test_empty_chunks_skipped():
    """for t in [0, 4): for kb in [0, 3): unrolled u in [0, 2):
    let x = t*2 + u; if (x <= n - 1) c[x] += a[kb] * x: a chunk t whose
    first x is past n - 1 is skipped by one test; the guard stays."""
    x = ir.Add(ir.Mul(var("t"), i32(2)), var("u"))
    store = _accumulate(var("x"), var("x"))
    inner = ir.For("u", i32(0), i32(2), UNROLLED, ir.LetStmt(
        "x", x, ir.IfThenElse(ir.LE(var("x"), ir.Sub(var("n"), i32(1))), store, None)))
    before = ir.For("t", i32(0), i32(4), SERIAL, ir.For("kb", i32(0), i32(3), SERIAL, inner))
    after = trim_loop_guards(before)
    assert isinstance(after, ir.For) and isinstance(after.body, ir.IfThenElse)
    assert after.body.then_case is before.body
    for n in (0, 1, 3, 5, 8, 9):
        assert bits(_run(after, n)) == bits(_run(before, n)), n


def _serial(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
    for t in range(a.shape[1]):
        out = out + a[:, t:t + 1] * b[t]
    return out


def test_ragged_matmul_bits():
    """Rows, terms and columns that no tile or block divides (the last k
    block cut, the last column block's empty tiles skipped, a partial
    tile), and strided views: the serial sum bit for bit."""
    rng = np.random.default_rng(28)
    f = ph.pipeline(K.matmul)
    for m, n, k in [(13, 300, 270), (7, 129, 3), (1, 1, 1), (20, 0, 9)]:
        a, b = rng.standard_normal((m, n)), rng.standard_normal((n, k))
        assert bits(f(a, b)) == bits(_serial(a, b)), (m, n, k)
    a, b = rng.standard_normal((40, 300)), rng.standard_normal((300, 600))
    a, b = a[::3, 1:], b[1:, ::2]
    assert bits(f(a, b)) == bits(_serial(a, b))
