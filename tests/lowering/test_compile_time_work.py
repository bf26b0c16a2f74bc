"""Work a compile does, counted (not timed): overflow checks merged per
stage, and lowering's scratch structures freed by reference counting (no
cycles left for the collector to traverse). The merged check holds exactly
when every endpoint it replaces fits int32 (reference evaluator over values
at int32's ends), and JIT results equal the reference evaluator's."""
from __future__ import annotations

import gc
import itertools

import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering import index_overflow
from pyhalide.lowering.interval import BoundsOf, Interval
from pyhalide.reference.exprs import Context
from tests.core.jitcheck import check
from tests.schedules.pyramids import pyramid

I32 = ir.Int(32)
A, B = ir.Variable(I32, "a"), ir.Variable(I32, "b")
LO, HI = -(1 << 31), (1 << 31) - 1


def k(v):
    return ir.Const(I32, v)


def _count(node, kind) -> int:
    n = [0]

    class V(ir.Visitor):
        def visit(self, x):
            if isinstance(x, kind):
                n[0] += 1
            super().visit(x)
    V().visit(node)
    return n[0]


def _ev(e, env) -> int:
    return int(Context(None, {n: np.int32(v) for n, v in env.items()}).ev(e))


def test_endpoints_differing_by_a_constant_share_one_check():
    twice = ir.Mul(A, k(2))
    ends = [ir.Sub(twice, k(1)), twice, ir.Add(twice, k(1)), ir.Add(twice, k(5)),
            ir.Add(B, k(3)), ir.Sub(B, k(7))]
    asserts = index_overflow.overflow_asserts(ends, "Func f")
    assert len(asserts) == 1
    cond = asserts[0].condition
    # one lower and one upper bound per base (2*a and b), not two per endpoint
    assert _count(cond, ir.LE) == 4
    # exact: the check holds iff every endpoint, computed exactly, fits int32
    values_a = [LO, LO // 2 - 1, LO // 2, LO // 2 + 1, -3, 0, 5, HI // 2 - 3, HI // 2 - 2,
                HI // 2, HI // 2 + 1, HI]
    values_b = [LO, LO + 2, LO + 3, LO + 7, LO + 8, 0, HI - 4, HI - 3, HI - 2, HI]
    exact = [lambda a, b: 2 * a - 1, lambda a, b: 2 * a, lambda a, b: 2 * a + 1,
             lambda a, b: 2 * a + 5, lambda a, b: b + 3, lambda a, b: b - 7]
    for a, b in itertools.product(values_a, values_b):
        want = all(LO <= f(a, b) <= HI for f in exact)
        assert bool(_ev(cond, {"a": a, "b": b})) == want, (a, b)


def test_endpoints_that_surely_fit_give_no_check():
    halves = [ir.Add(ir.Div(A, k(2)), k(1)), ir.Sub(ir.Div(A, k(2)), k(1))]
    assert index_overflow.overflow_asserts(halves, "Func f") == []
    assert _ev(index_overflow.fits_int32(halves), {"a": 0}) == 1


def test_fits_int32_merges_as_the_asserts_do():
    ends = [ir.Add(A, k(1)), ir.Add(A, k(2)), ir.Sub(A, k(4))]
    cond = index_overflow.fits_int32(ends)
    assert _count(cond, ir.LE) == 2
    for a in (LO, LO + 3, LO + 4, 0, HI - 2, HI - 1, HI):
        want = LO <= a - 4 and a + 2 <= HI
        assert bool(_ev(cond, {"a": a})) == want, a


def test_a_pyramid_has_one_overflow_check_per_stage_at_most():
    """The lowered text of a tiled pyramid: no two OverflowError asserts in a
    row (each stage's endpoints are checked by one assert), and the JIT result
    equals the reference evaluator."""
    x, y, fs, out = pyramid("ct_work", 4)
    xo, xi = ph.Var("xo"), ph.Var("xi")
    out.split(x, xo, xi, 8)
    for f in fs:
        f.compute_at(out, xo)
    text = ph.Pipeline([out]).lower()
    lines = [ln.strip() for ln in text.splitlines()]
    overflow = [i for i, ln in enumerate(lines) if "OverflowError" in ln]
    assert all(j - i > 1 for i, j in zip(overflow, overflow[1:]))
    check(out, [37, 29])


def test_interval_scopes_hold_no_cycle():
    """A BoundsOf and its sides scope do not refer to themselves: dropped,
    they and their memos are freed without the cycle collector (the first
    collection after interpolate's lowering traversed about 75,000 objects,
    10,000 now). Scopes under facts and their plain scope still refer to
    each other (children cache, plain): collected."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        b = BoundsOf({"a": Interval(k(0), k(100))})
        assert b.plain is b and b.under(ir.Const(ir.Bool(), 1)) is b   # no fact: itself
        assert b.sides().sides() is b.sides() and b.sides().narrowing
        assert _ev(b(ir.Add(A, k(1))).hi, {}) == 101
        inner = BoundsOf({"a": Interval(k(0), k(100))})
        c = ir.LT(A, k(10))
        child = inner.under(c)
        assert child.plain is inner and inner.under(c) is child
        assert child.sides() is inner.sides()
        assert _ev(child(ir.Add(A, k(1))).hi, {}) == 10
        kept = [id(inner), id(child), id(inner.sides())]    # (sides: held by inner)
        del b, inner, child
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [id(o) for o in gc.garbage if isinstance(o, BoundsOf)]
        gc.garbage.clear()
    finally:
        gc.set_debug(0)
        if enabled:
            gc.enable()
    assert sorted(left) == sorted(kept)


def _fresh(e):
    """A structurally equal copy of e made of new nodes."""
    class Copy(ir.Mutator):
        def mutate(self, n):
            out = super().mutate(n)
            if out is n and isinstance(n, ir.IRNode):
                return type(n)(*[getattr(n, f) for f in ir.node_fields(type(n))])
            return out
    return Copy().mutate(e)


def test_equal_expressions_are_simplified_once(monkeypatch):
    """The simplifier's result for an expression equal to one it simplified
    before (new nodes, same structure) is that result: no simplifier work."""
    from pyhalide.lowering import simplify as S
    S.clear_caches()
    calls = [0]
    linear = S._Simplifier._linear

    def counted(self, n):
        calls[0] += 1
        return linear(self, n)
    monkeypatch.setattr(S._Simplifier, "_linear", counted)
    e = ir.Add(ir.Mul(ir.Add(A, k(3)), k(2)), ir.Sub(B, ir.Add(A, k(1))))
    first = S.simplify(e)
    work = calls[0]
    assert work > 0
    copy = _fresh(e)
    assert copy is not e and ir.equal(copy, e)
    again = S.simplify(copy)
    assert calls[0] == work and ir.equal(again, first)
    for a, b in ((5, -7), (LO, HI), (123456, -99)):
        assert _ev(again, {"a": a, "b": b}) == _ev(e, {"a": a, "b": b})
    # the other mode (no overflow assumed) simplifies anew
    S.simplify(_fresh(e), assume_no_overflow=True)
    assert calls[0] > work
    # an expression that simplifies to itself gives itself back, not its twin
    orig = ir.Add(A, B)
    assert S.simplify(orig) is orig
    twin = ir.Add(A, B)
    assert S.simplify(twin) is twin
    S.clear_caches()


def test_equal_subexpressions_of_a_statement_share_their_result():
    """Inside a statement, an expression equal to one simplified before is
    that one's result (one object: codegen emits it once per statement)."""
    from pyhalide.lowering import simplify as S
    S.clear_caches()
    e1 = ir.Add(ir.Mul(A, k(4)), ir.Add(B, k(2)))
    e2 = _fresh(e1)
    out = S.simplify(ir.Block([ir.Evaluate(e1), ir.Evaluate(e2)]))
    v1, v2 = (x.value for x in out.stmts)
    assert v1 is v2 and ir.equal(v1, S.simplify(_fresh(e1)))
    S.clear_caches()


def test_effects_are_not_shared():
    """Two equal print calls are two prints: never the same object."""
    from pyhalide.lowering import simplify as S
    S.clear_caches()
    p1 = ir.Call(ir.INDEX, "pyhalide.trace.print.0.f", (A,), ir.INTRINSIC)
    p2 = ir.Call(ir.INDEX, "pyhalide.trace.print.0.f", (A,), ir.INTRINSIC)
    r1, r2 = S.simplify(ir.Add(p1, B)), S.simplify(ir.Add(p2, B))
    assert ir.equal(r1, r2) and r1 is not r2
    out = S.simplify(ir.Block([ir.Evaluate(ir.Add(p1, B)), ir.Evaluate(ir.Add(p2, B))]))
    assert out.stmts[0].value is not out.stmts[1].value
    S.clear_caches()


def test_float_zeros_of_both_signs_stay_apart():
    """x + 0.0 and x + -0.0 hash alike but are not equal: each keeps its own
    result (x + -0.0 is x; x + 0.0 is not: -0.0 + 0.0 is +0.0)."""
    from pyhalide.lowering import simplify as S
    S.clear_caches()
    f64 = ir.Float(64)
    x = ir.Variable(f64, "x")
    got = []
    for z in (0.0, -0.0, 0.0, -0.0):
        r = S.simplify(ir.Add(x, ir.Const(f64, z)))
        got.append(Context(None, {"x": np.float64(-0.0)}).ev(r))
    assert [bool(np.signbit(v)) for v in got] == [False, True, False, True]
    S.clear_caches()
