"""The cases of Halide's associativity test (src/Associativity.cpp,
associativity_test), through ph.prove_associativity. Where pyhalide's answer
differs from Halide's the test says why."""
import numpy as np

import pyhalide as ph

x = ph.Var("x")


def _prove(values, init, dtype=np.int32, two_d=False):
    """f(x) = values(f(x) elements, g(r), r) over a one- or two-dimensional RDom."""
    data = np.arange(24, dtype=dtype).reshape(4, 6)
    G = ph.Buffer(data, "g")
    r = ph.RDom([(0, 6), (0, 4)], "r") if two_d else ph.RDom([(0, 6)], "r")
    z = ph.Param(ph.Int(32), "z", 3)
    f = ph.Func("f")
    f[x] = init
    cur = f[x]
    s = [cur[i] for i in range(len(init))] if isinstance(init, tuple) else cur
    g = G[r.x, r.y] if two_d else G[r.x, 0]
    f[x] = values(s, g, r, z)
    return ph.prove_associativity(f.update())


def _check(op, ops, ys=None, identities=None):
    assert op.associative, op.reason
    assert [str(o) for o in op.ops] == ops
    if ys is not None:
        assert [None if y is None else str(y) for y in op.ys] == ys
    if identities is not None:
        assert [str(i) for i in op.identities] == identities


def test_uint8_cast_of_a_wrapping_sum():
    # uint8(min(uint16(f + y), 255)): the min never clamps a widened uint8
    op = _prove(lambda s, g, r, z: ph.u8(ph.min(ph.u16(s + g), 255)), ph.u8(0), np.uint8)
    _check(op, ["(x0 + y0)"], ["g(r$x, 0)"], ["(uint8)0"])
    op = _prove(lambda s, g, r, z: ph.u8(ph.min(ph.u16(s + g), ph.u16(255))), ph.u8(0), np.uint8)
    _check(op, ["(x0 + y0)"])


def test_logical_and_or():
    op = _prove(lambda s, g, r, z: (g > 3) & s, ph.Expr(True) == ph.Expr(True))
    _check(op, ["(x0 && y0)"], ["(g(r$x, 0) > 3)"], ["true"])
    op = _prove(lambda s, g, r, z: (g > 3) | s, ph.Expr(True) == ph.Expr(False))
    _check(op, ["(x0 || y0)"], identities=["false"])


def test_min_max_sum():
    _check(_prove(lambda s, g, r, z: ph.min(s, g + z), 0), ["min(x0, y0)"],
           ["(g(r$x, 0) + z)"], ["2147483647"])
    _check(_prove(lambda s, g, r, z: g + z + s, 0), ["(x0 + y0)"], ["(g(r$x, 0) + z)"], ["0"])
    _check(_prove(lambda s, g, r, z: ph.max(g, s), 0), ["max(x0, y0)"], ["g(r$x, 0)"])


def test_constant_elements_are_last_write_wins():
    # Halide: associative, ops {y0, y1, x2 + y2}; so here, with a left identity only
    op = _prove(lambda s, g, r, z: (ph.Expr(2), ph.Expr(3), s[2] + z), (0, 0, 0))
    _check(op, ["y0", "y1", "(x2 + y2)"], ["2", "3", "z"])
    assert op.identity_side == "left" and not op.commutative


def test_three_independent_elements():
    op = _prove(lambda s, g, r, z: (ph.min(s[0], g), s[1] * g * 2, s[2] + z), (0, 0, 0))
    _check(op, ["min(x0, y0)", "(x1 * y1)", "(x2 + y2)"],
           ["g(r$x, 0)", "(g(r$x, 0) * 2)", "z"], ["2147483647", "1", "0"])


def test_not_associative():
    assert not _prove(lambda s, g, r, z: ph.max(s + g, g), 0).associative


def test_factoring_needs_no_overflow():
    # Halide: f + max(g, -3), assuming f + g and f - 3 do not overflow
    op = _prove(lambda s, g, r, z: ph.max(s + g, s - 3), 0)
    assert not op.associative and "overflow" in op.reason


def test_value_free_of_the_state():
    op = _prove(lambda s, g, r, z: ph.min(4, g), 0)
    _check(op, ["y0"], ["min(4, g(r$x, 0))"])


def test_self_assignment_is_the_projection():
    # Halide's associativity test calls f = f non-associative, while its rfactor
    # test factors g(r.x, r.y) = g(r.x, r.y); here it is the operator x0
    _check(_prove(lambda s, g, r, z: s, 0), ["x0"], [None])


def test_absorption():
    op = _prove(lambda s, g, r, z: ph.max(ph.max(ph.min(s, g + 2), s), g + 2), 0)
    _check(op, ["max(x0, y0)"], ["(g(r$x, 0) + 2)"])


def test_complex_multiplication():
    def cmul(s, g, r, z):
        h = g * 3
        return (s[0] * g - s[1] * h, s[0] * h + s[1] * g)
    op = _prove(cmul, (1, 0))
    _check(op, ["((x0 * y0) - (x1 * y1))", "((x0 * y1) + (x1 * y0))"],
           ["g(r$x, 0)", "(g(r$x, 0) * 3)"], ["1", "0"])


def test_argmin_1d():
    op = _prove(lambda s, g, r, z: (ph.min(s[0], g), ph.select(s[0] < g, s[1], r.x)), (0, 0))
    _check(op, ["min(x0, y0)", "select((x0 < y0), x1, y1)"], ["g(r$x, 0)", "r$x"],
           ["2147483647", "0"])
    assert not op.commutative


def test_user_variable_named_like_a_wildcard():
    x0 = ph.Var("x0")
    G = ph.Buffer(np.arange(6, dtype=np.int32), "g")
    r = ph.RDom([(0, 6)], "r")
    f = ph.Func("fx")
    f[x0] = 0
    f[x0] = ph.max(x0 + G[r.x], f[x0])
    _check(ph.prove_associativity(f.update()), ["max(x0, y0)"], ["(x0 + g(r$x))"])


def test_argmin_2d_with_a_trivial_element():
    def upd(s, g, r, z):
        better = s[0] < g
        return (ph.min(s[0], g), r.x + r.y, ph.select(better, s[2], r.x),
                ph.select(better, s[3], r.y))
    op = _prove(upd, (0, 0, 0, 0), two_d=True)
    _check(op, ["min(x0, y0)", "y1", "select((x0 < y0), x2, y2)", "select((x0 < y0), x3, y3)"],
           ["g(r$x, r$y)", "(r$x + r$y)", "r$x", "r$y"])
