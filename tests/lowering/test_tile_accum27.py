"""promote_tile_accumulators: a tile of accumulators kept in scratch
(registers) across an innermost serial loop, and the default `a @ b` that
relies on it. Every result is compared bit for bit with the Stmt as it was
(run without the pass) or with the serial sum over k in plain NumPy."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite4_kernels as K
from pyhalide.lowering.promote_tile_accumulators import promote_tile_accumulators
from tests.vectorize.vectorize_util import bits, i32, run_stmt, var

F64 = ir.Float(64)
F64x8 = F64.with_lanes(8)


def _tile_loop(stride, extent=i32(5), conditional=False):
    """for k in [0, extent): for r in 0, 1 and v in 0, 1 (unrolled as
    unroll_loops leaves them: LetStmts of r and v over the same Store)
    c[ramp(32 + r*stride + v*8, 1, 8)] += x8(a[k]) * (k + r + v)."""
    idx = ir.Ramp(ir.Add(ir.Add(i32(32), ir.Mul(var("r"), stride)), ir.Mul(var("v"), i32(8))),
                  i32(1), 8)
    term = ir.Mul(ir.Broadcast(ir.Load(F64, "a", var("k")), 8),
                  ir.Broadcast(ir.Cast(F64, ir.Add(ir.Add(var("k"), var("r")), var("v"))), 8))
    store = ir.Store("c", ir.Add(ir.Load(F64x8, "c", idx), term), idx)
    if conditional:
        store = ir.IfThenElse(ir.LT(var("k"), i32(3)), store, None)
    body = ir.block(*[ir.LetStmt("r", i32(r), ir.LetStmt("v", i32(v), store))
                      for r in (0, 1) for v in (0, 1)])
    return ir.For("k", i32(0), extent, ir.ForKind.SERIAL, body)


def _loads_in_loops(stmt, name):
    """Loads of buffer `name` inside a For."""
    found = []

    class V(ir.Visitor):
        memoize = False
        depth = 0

        def visit_For(self, s):
            self.depth += 1
            self.visit_children(s)
            self.depth -= 1

        def visit_Load(self, e):
            if e.name == name and self.depth:
                found.append(e)
            self.visit_children(e)

    V().visit(stmt)
    return found


def _bufs():
    rng = np.random.default_rng(3)
    return [("a", rng.standard_normal(8), False), ("c", rng.standard_normal(64), True)]


def _run(stmt, stride, n=5):
    return run_stmt(stmt, _bufs(), [("s", ir.Int(32), stride), ("n", ir.Int(32), n)],
                    name="tile")[0]


def test_tile_of_a_symbolic_stride():
    """Rows s apart: the tile is promoted where every two of its vectors are
    8 or more elements apart at run time, the loop as it was elsewhere
    (s = 8 makes two of them the same vector, s = 4 and -4 overlap them);
    every stride gives the bits of the Stmt as it was, and a loop of no
    iteration reads nothing."""
    before = _tile_loop(var("s"), var("n"))
    after = promote_tile_accumulators(before)
    assert isinstance(after, ir.IfThenElse) and after.else_case is before
    assert not _loads_in_loops(after.then_case, "c")
    assert ir.to_str(after.then_case).count("allocate c.acct") == 4
    for s in (16, 12, 8, 4, 0, -4, -16):
        for n in (0, 5):
            assert bits(_run(after, s, n)) == bits(_run(before, s, n)), (s, n)


def test_tile_of_constant_offsets():
    """Rows 16 apart (a constant): no condition but the loop's extent."""
    before = _tile_loop(i32(16))
    after = promote_tile_accumulators(before)
    assert isinstance(after, ir.Allocate)
    assert not _loads_in_loops(after, "c")
    assert bits(_run(after, 0)) == bits(_run(before, 0))


def test_overlapping_or_conditional_tiles_unchanged():
    """Constant offsets that overlap (rows 4 apart) and accesses under an
    `if` are left as they are."""
    for s in (_tile_loop(i32(4)), _tile_loop(i32(16), conditional=True)):
        assert promote_tile_accumulators(s) is s


def _serial(a, b):
    """The sum over k in k order, one term at a time (plain NumPy)."""
    out = np.zeros((a.shape[0], b.shape[1]))
    for t in range(a.shape[1]):
        out = out + a[:, t:t + 1] * b[t]
    return out


def test_default_matmul_bits():
    """The default `a @ b` (tiles of 4 rows x 32 columns promoted, blocks
    of 128 terms and 256 columns, ragged edges) adds each element's terms in
    k order: bit for bit the serial sum, at odd shapes and at shapes with
    whole tiles and ragged blocks."""
    rng = np.random.default_rng(27)
    f = ph.pipeline(K.matmul)
    for m, n, k in [(37, 53, 29), (8, 300, 288), (13, 129, 290)]:
        a, b = rng.standard_normal((m, n)), rng.standard_normal((n, k))
        assert bits(f(a, b)) == bits(_serial(a, b)), (m, n, k)
        if k >= 256:
            assert ".acct0." in f.lower("final")      # (the tile promoted)
