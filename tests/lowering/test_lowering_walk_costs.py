"""Session 20 (issue 21): cheaper lowering walks, same results.

- The simplifier keeps the result of an expression that reads a pending
  rename across nested rename scopes (`settled`), valid only while the
  renames of the names it mentions are the same objects: a shared
  expression read again under a new rename of one of its names is
  simplified again, one read under renames of other names is not.
- ir.mentioned_names shares a child's set where the other children add
  nothing; ir.uses_var answers from it with a memo kept across calls.
- ir.equal's fast paths (constants, binary operators) keep its exact
  semantics: float zeros by sign, NaN equal to NaN.
Each result is compared with plain substitution / the generic walks."""
import math
import random

from pyhalide import ir
from pyhalide.lowering.simplify import clear_caches, simplify

I32 = ir.Int(32)
F32 = ir.Float(32)
A, B, C, X, Y = (ir.Variable(I32, n) for n in "abcxy")


def k(v):
    return ir.Const(I32, v)


def _stores(s):
    out = []

    class V(ir.Visitor):
        def visit_Store(self, st):
            out.append(st)
            self.visit_children(st)
    V().visit(s)
    return out


def test_a_shared_expression_is_simplified_again_under_a_new_rename_of_its_names():
    clear_caches()
    e = ir.Add(ir.Mul(A, k(3)), ir.Sub(B, A))          # reads a and b
    inner = ir.LetStmt("b", k(7), ir.Store("out", e, k(1)))
    s = ir.LetStmt("a", X, ir.block(ir.Store("out", e, k(0)), inner))
    got = [ir.to_str(st.value).strip() for st in _stores(simplify(s))]
    want = [ir.to_str(simplify(ir.substitute(e, m))).strip()
            for m in ({"a": X}, {"a": X, "b": k(7)})]
    assert got == want
    assert "b" not in got[1] and "7" in got[1]


def test_a_shared_expression_keeps_its_result_under_renames_of_other_names():
    clear_caches()
    e = ir.Add(ir.Mul(A, k(3)), ir.Sub(A, k(1)))       # reads a only
    inner = ir.LetStmt("c", Y, ir.block(ir.Store("out", e, k(1)),
                                        ir.Store("out", ir.Add(C, e), k(2))))
    s = ir.LetStmt("a", X, ir.block(ir.Store("out", e, k(0)), inner))
    out = _stores(simplify(s))
    want = simplify(ir.substitute(e, {"a": X}))
    assert [ir.to_str(st.value).strip() for st in out] == [
        ir.to_str(want).strip(), ir.to_str(want).strip(),
        ir.to_str(simplify(ir.Add(Y, ir.substitute(e, {"a": X})))).strip()]
    assert out[0].value is out[1].value          # the settled result, not a new one


def test_a_rebinding_inside_the_expression_is_not_reused_across_scopes():
    clear_caches()
    # a let inside the expression rebinds x, the name a rename points to
    e = ir.Let("x", ir.Add(A, k(1)), ir.Add(ir.Variable(I32, "x"), A))
    inner = ir.LetStmt("b", X, ir.Store("out", ir.Add(e, B), k(1)))
    s = ir.LetStmt("a", X, ir.block(ir.Store("out", e, k(0)), inner))
    out = _stores(simplify(s))
    assert len(out) == 2
    # with an outer x of 5, a and b read it: the let inside binds its own x
    env = {"x": 5, "a": 5, "b": 5}
    assert [_eval(st.value, {"x": 5}) for st in out] == [_eval(e, env),
                                                         _eval(ir.Add(e, B), env)]


def _eval(e, env):
    """A tiny evaluator of integer Add/Sub/Mul/Let/Variable/Const."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Variable):
        return env[e.name]
    if isinstance(e, ir.Let):
        return _eval(e.body, {**env, e.name: _eval(e.value, env)})
    a, b = _eval(e.a, env), _eval(e.b, env)
    return {ir.Add: a + b, ir.Sub: a - b, ir.Mul: a * b}[type(e)]


def _random_expr(rng, depth, pool):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([A, B, C, X, Y, k(rng.randint(-3, 3))])
    if pool and rng.random() < 0.3:
        return rng.choice(pool)         # shared subexpressions (a DAG)
    cls = rng.choice([ir.Add, ir.Sub, ir.Mul, ir.Min, ir.Max])
    e = cls(_random_expr(rng, depth - 1, pool), _random_expr(rng, depth - 1, pool))
    pool.append(e)
    return e


def test_mentioned_names_and_uses_var_agree_with_free_vars():
    rng = random.Random(20)
    memo = {}
    for _ in range(300):
        e = _random_expr(rng, 6, [])
        names = set(ir.free_vars(e))
        assert ir.mentioned_names(e, memo) == names
        for n in "abcxyz":
            assert ir.uses_var(e, n) == (n in names)
    assert ir.mentioned_names(k(1), {}) == frozenset()
    assert not ir.uses_var(None, "a")
    assert ir.uses_var([k(1), ir.Add(A, k(1))], "a")


def test_equal_keeps_float_semantics_and_compares_binary_operands():
    z, nz = ir.Const(F32, 0.0), ir.Const(F32, -0.0)
    nan1, nan2 = ir.Const(F32, math.nan), ir.Const(F32, math.nan)
    assert not ir.equal(z, nz) and ir.equal(z, ir.Const(F32, 0.0))
    assert ir.equal(nan1, nan2)
    assert not ir.equal(k(1), ir.Const(ir.Int(64), 1))
    assert ir.equal(ir.Add(A, k(2)), ir.Add(A, k(2)))
    assert not ir.equal(ir.Add(A, k(2)), ir.Sub(A, k(2)))
    assert not ir.equal(ir.Add(A, k(2)), ir.Add(k(2), A))
    assert not ir.equal(ir.Min(A, B), ir.Min(A, C))


def test_const_wraps_values_into_its_type():
    for t in (ir.Int(8), ir.Int(32), ir.UInt(8), ir.UInt(64), ir.Int(64)):
        bits = t.bits
        for v in (0, 1, -1, 2 ** (bits - 1), -2 ** (bits - 1) - 1, 2 ** bits + 5, True):
            m = int(v) & ((1 << bits) - 1)
            if t.is_int() and m >> (bits - 1):
                m -= 1 << bits
            c = ir.Const(t, v)
            assert c.value == m and type(c.value) is int
