"""The simplifier drops a let whose value simplifies to a constant or a
variable and replaces its name where it is read, in the one walk of what
follows (lowering/simplify.py: pending renames; substituting at every such
let re-walked the rest of the program, 60% of the simplify passes of
interpolate). A new binding of a renamed name ends the rename; a new binding
of the name a rename points to keeps the outer value in a let."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.simplify import simplify
from pyhalide.reference.exprs import Context
from tests.core.jitcheck import check

I32 = ir.Int(32)
A, B, X = (ir.Variable(I32, n) for n in "abx")


def k(v):
    return ir.Const(I32, v)


def text(s):
    return ir.to_str(simplify(s)).strip()


def test_constant_let_is_replaced_where_read():
    s = ir.LetStmt("a", ir.Add(k(2), k(3)),
                   ir.For("x", k(0), A, "serial", ir.Evaluate(ir.Mul(X, A))))
    assert text(s) == "for (x, 0, 5) {\n  (x * 5)\n}"


def test_a_rebinding_ends_the_rename():
    s = ir.LetStmt("a", k(4), ir.For("b", k(0), A, "serial",
                                     ir.LetStmt("a", ir.Add(B, k(1)),
                                                ir.Evaluate(ir.Mul(A, k(2))))))
    assert text(s) == "for (b, 0, 4) {\n  let a = (b + 1)\n  (a * 2)\n}"


def test_a_rename_to_a_rebound_name_stays_a_let():
    # a = b, then b is bound again: `a` must keep the outer b
    s = ir.LetStmt("a", B, ir.LetStmt("b", ir.Mul(X, k(3)), ir.Evaluate(ir.Add(A, B))))
    assert text(s) == "let a = b\nlet b = (x * 3)\n(a + b)"
    s = ir.LetStmt("a", B, ir.For("b", k(0), A, "serial", ir.Evaluate(ir.Add(A, B))))
    assert text(s) == "let a = b\nfor (b, 0, a) {\n  (a + b)\n}"


def test_expression_lets():
    e = ir.Let("a", k(3), ir.Add(ir.Let("a", ir.Mul(X, k(2)), ir.Add(A, k(1))), A))
    got = simplify(e)
    for x in range(-3, 4):
        assert _value(got, {"x": x}) == (2 * x + 1) + 3


def _value(e, env):
    """e's value with the variables in env (the reference evaluator)."""
    return int(Context(None, {n: np.int32(v) for n, v in env.items()}).ev(e))


def test_a_pipeline_with_constant_regions():
    x, y = ph.Var("x"), ph.Var("y")
    inp = ph.Buffer(np.arange(60, dtype=np.int32).reshape(6, 10), "inp")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = inp[x, y] * 2 + 1
    g[x, y] = f[x, y] + f[x + 1, y] - f[x, 0]
    f.compute_at(g, y)
    g.bound(x, 0, 8).bound(y, 0, 6)
    check(g, [8, 6])
