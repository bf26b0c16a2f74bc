"""select_to_branch: conditional self-updates become branches, results unchanged."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.select_to_branch import select_to_branch
from tests.core.jitcheck import check


def _i(v):
    return ir.Const(ir.Int(32), v)


def test_single_store_keeps_its_select():
    idx = _i(0)
    old = ir.Load(ir.Int(32), "f", idx)
    v = ir.Variable(ir.Int(32), "v")
    s = ir.Store("f", ir.Select(ir.LT(v, old), v, old), idx)
    assert select_to_branch(s) is s          # LLVM vectorizes a running min


def test_tuple_groups_by_condition():
    idx = _i(0)
    v, r = ir.Variable(ir.Int(32), "v"), ir.Variable(ir.Int(32), "r")
    m, i, s = (ir.Load(ir.Int(32), n, idx) for n in ("m", "i", "s"))
    lets = [("t0", ir.Min(m, v)), ("t1", ir.Select(ir.LT(v, m), r, i)), ("t2", ir.Add(s, v))]
    body = ir.block(*[ir.Store(n, ir.Variable(ir.Int(32), t), idx)
                      for n, (t, _) in zip("mis", lets)])
    for name, value in reversed(lets):
        body = ir.LetStmt(name, value, body)
    text = ir.to_str(select_to_branch(body))
    assert "if (t0.cond0) {" in text and text.count("if (") == 1
    assert "s[0] = t2" in text


def test_kitchen_sink_style_update_is_unchanged():
    a = np.random.default_rng(3).integers(-50, 50, 500).astype(np.int32)
    A = ph.Buffer(a, "ks_in")
    r = ph.RDom([(0, a.size)])
    f = ph.Func("ks")
    f[()] = (ph.Int(32).max(), ph.Int(32).min(), 0, 0, 0)
    s = [f[()][k] for k in range(5)]
    v = A[r.x]
    f[()] = (ph.min(s[0], v), ph.max(s[1], v), ph.select(v < s[0], r.x, s[2]),
             ph.select(v > s[1], r.x, s[3]), s[4] + v)
    check(f, [], [a.min(), a.max(), np.argmin(a), np.argmax(a), a.sum()])
