"""The statement-only walks of split_mod_loops and select_to_branch
(session 24): which loops split_mod_loops treats as innermost when loops
sit side by side, one with a loop inside and one without, in either
order; a let chain that does not end in stores left as it is; a tuple
update still made a branch; and a kernel with rolls on loops side by side
against NumPy."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.select_to_branch import select_to_branch
from pyhalide.lowering.split_mod_loops import split_mod_loops

I32, I64, F64 = ir.Int(32), ir.Int(64), ir.Float(64)


def _rolled(v: str):
    """src[(int64(v) + 3) % int64(n)]: one periodic index term."""
    term = ir.Mod(ir.Add(ir.Cast(I64, ir.Variable(I32, v)), ir.Const(I64, 3)),
                  ir.Cast(I64, ir.Variable(I32, "n")))
    return ir.Load(F64, "src", ir.Cast(I32, term))


def _rolled_store(buf: str, v: str, *outer: str) -> ir.Stmt:
    """buf[v] = the sum of _rolled(v) and _rolled of each of `outer`."""
    value = _rolled(v)
    for w in outer:
        value = ir.Add(value, _rolled(w))
    return ir.Store(buf, value, ir.Variable(I32, v))


def _loop(v: str, body: ir.Stmt) -> ir.For:
    return ir.For(v, ir.index(0), ir.Variable(I32, "n"), ir.ForKind.SERIAL, body)


def _nodes(stmt, cls) -> list:
    """The nodes of class `cls` below stmt (stmt included)."""
    found, stack = [], [stmt]
    while stack:
        n = stack.pop()
        if isinstance(n, cls):
            found.append(n)
        stack.extend(ir.children(n))
    return found


def _loop_names(stmt) -> list:
    return sorted(f.name for f in _nodes(stmt, ir.For))


def test_split_mod_loops_splits_each_innermost_loop_side_by_side():
    inner = _loop("x1", _rolled_store("out1", "x1"))
    nest = _loop("y", _loop("x2", _rolled_store("out2", "x2", "y")))
    for order in ((inner, nest), (nest, inner)):
        out = split_mod_loops(ir.Block(order))
        # each innermost loop in three pieces; the loop around x2 is not
        # split, though its body has a term in y
        assert _loop_names(out) == ["x1", "x1", "x1", "x2", "x2", "x2", "y"], order
    plain = _loop("y", _loop("x", ir.Store("o", ir.Const(F64, 1.0), ir.Variable(I32, "x"))))
    assert split_mod_loops(plain) is plain


def _tuple_update(body_end: ir.Stmt | None):
    """let v = select(c, 1.0, acc[0]); let w = select(c, i, at[0]); the two
    stores (or `body_end` instead of them)."""
    c = ir.LT(ir.Variable(I32, "i"), ir.Const(I32, 5))
    old_v, old_w = ir.Load(F64, "acc", ir.index(0)), ir.Load(I32, "at", ir.index(0))
    stores = body_end or ir.Block((ir.Store("acc", ir.Variable(F64, "v"), ir.index(0)),
                                   ir.Store("at", ir.Variable(I32, "w"), ir.index(0))))
    return ir.LetStmt("v", ir.Select(c, ir.Const(F64, 1.0), old_v),
                      ir.LetStmt("w", ir.Select(c, ir.Variable(I32, "i"), old_w), stores))


def test_select_to_branch_chains():
    rewritten = select_to_branch(_tuple_update(None))
    assert isinstance(rewritten, ir.LetStmt) and rewritten.name.endswith(".cond0")
    assert len(_nodes(rewritten, ir.IfThenElse)) == 1
    # a chain ending in a loop is no tuple update: the same object back
    other = _tuple_update(_loop("x", ir.Store("o", ir.Const(F64, 1.0), ir.Variable(I32, "x"))))
    assert select_to_branch(other) is other


@ph.pipeline
def rolls_side_by_side(a, b):
    return np.roll(a, 2) * 2.0, np.roll(b, -1, 1) + np.roll(b, 3, 0)


def test_rolls_side_by_side_match_numpy():
    rng = np.random.default_rng(24)
    for n, shape in ((9, (5, 7)), (1, (1, 3)), (0, (4, 0))):
        a, b = rng.standard_normal(n), rng.standard_normal(shape)
        got, want = rolls_side_by_side(a, b), rolls_side_by_side.py_func(a, b)
        for g, w in zip(got, want):
            assert np.array_equal(g, w), (n, shape)
