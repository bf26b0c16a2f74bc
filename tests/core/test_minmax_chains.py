"""The simplifier's integer min/max chains (lowering/simplify.py
_minmax_chain): each operand once, and with assume_no_overflow without the
operands another bounds (`max(x / 2, (x + 1) / 2)` is (x + 1) / 2). Bounds
inference builds such chains along a pyramid (interpolate's upsampling reads
x / 2 and (x + 1) / 2 at every level); every rewrite keeps the value, checked
here by evaluating random chains before and after at many points."""
import random

import pytest

from pyhalide import ir
from pyhalide.lowering.constant_fold import euclid_div
from pyhalide.lowering.simplify import simplify

I32 = ir.Int(32)
X, Y = ir.Variable(I32, "x"), ir.Variable(I32, "y")


def c(v):
    return ir.Const(I32, v)


def value(e, env):
    """e at env (Python ints: the chains stay far from int32's ends)."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Variable):
        return env[e.name]
    a, b = value(e.a, env), value(e.b, env)
    return {ir.Add: lambda: a + b, ir.Sub: lambda: a - b, ir.Mul: lambda: a * b,
            ir.Div: lambda: euclid_div(a, b), ir.Min: lambda: min(a, b),
            ir.Max: lambda: max(a, b)}[type(e)]()


def size(e) -> int:
    if isinstance(e, (ir.Const, ir.Variable)):
        return 1
    return 1 + size(e.a) + size(e.b)


def leaf(rng):
    k = rng.randint(-3, 3)
    v = rng.choice([X, Y])
    return rng.choice([
        c(rng.randint(-5, 5)),
        v,
        ir.Add(v, c(k)),
        ir.Div(ir.Add(v, c(k)), c(2)),
        ir.Div(v, c(rng.choice([2, 3]))),
        ir.Mul(ir.Add(v, c(k)), c(2)),
    ])


def chain(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return leaf(rng)
    cls = rng.choice([ir.Min, ir.Max])
    return cls(chain(rng, depth - 1), chain(rng, depth - 1))


@pytest.mark.parametrize("no_overflow", [False, True])
def test_random_chains_keep_their_value(no_overflow):
    rng = random.Random(20261127 + no_overflow)
    points = [{"x": x, "y": y} for x in range(-7, 8) for y in (-5, 0, 4)]
    for _ in range(200):
        e = chain(rng, 4)
        s = simplify(e, assume_no_overflow=no_overflow)
        for env in points:
            assert value(s, env) == value(e, env), (ir.to_str(e), ir.to_str(s), env)


def test_repeated_operands_go():
    a, b = ir.Div(X, c(2)), ir.Div(ir.Add(X, c(1)), c(2))
    e = ir.Max(ir.Max(ir.Max(ir.Max(a, b), b), a), a)
    # exact in both modes: max(a, b) once each
    s = simplify(e)
    assert size(s) == size(ir.Max(a, b))
    # without overflow (x + 1) / 2 bounds x / 2 from above
    assert ir.equal(simplify(e, assume_no_overflow=True), simplify(b, assume_no_overflow=True))
    m = ir.Min(ir.Min(ir.Min(a, b), b), ir.Min(a, c(4)))
    assert ir.equal(simplify(m, assume_no_overflow=True), ir.Min(a, c(4)))


def test_constants_fold_into_one():
    e = ir.Min(ir.Min(ir.Min(X, c(7)), Y), ir.Min(c(3), X))
    s = simplify(e)
    assert ir.to_str(s) == "min(min(x, y), 3)"


def test_unrelated_operands_stay():
    e = ir.Max(ir.Max(ir.Div(X, c(2)), ir.Div(Y, c(2))), ir.Div(X, c(3)))
    assert simplify(e, assume_no_overflow=True) is not None
    assert size(simplify(e, assume_no_overflow=True)) == size(e)


def test_wrapping_mode_keeps_differing_operands():
    # x + 1 can wrap to INT_MIN: without the no-overflow assumption max(x, x + 1)
    # is not x + 1
    e = ir.Max(ir.Max(X, ir.Add(X, c(1))), X)
    s = simplify(e)
    assert size(s) == size(ir.Max(X, ir.Add(X, c(1))))
