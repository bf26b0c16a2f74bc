"""Operations on slices of two arguments (shapes that broadcast only at call
time): the default schedule reads them at clamped indices (arrayexpr.
broadcast_index); lowering/unswitch_clamps.py gives each loop nest a
clamp-free copy used where every clamp is the identity. Results equal
NumPy's bit for bit at every shape, the broadcasting ones (a slice of
length 1, run by the clamped copy) and the refused ones (NumPy's
ValueError) included; a Func read at one site is inlined whatever the size
of its consumer (gray_scott's lu, lv: no buffer of their own)."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite4_kernels
from pyhalide.lowering.unswitch_clamps import unswitch_clamps

gray_scott = ph.pipeline(suite4_kernels.gray_scott)


@ph.pipeline
def shifted_product(a, b):
    return a[1:] * b[:-1] + a[:-1]


SHAPES = [((6, 7), (6, 7)), ((3, 7), (6, 7)), ((6, 3), (6, 7)), ((6, 7), (3, 3)),
          ((3, 3), (6, 7)), ((2, 7), (3, 7)), ((40, 33), (40, 33)), ((3, 33), (40, 3)),
          ((5, 7), (6, 7)), ((2, 2), (2, 2))]


def _numpy(fn):
    return fn.__wrapped__ if hasattr(fn, "__wrapped__") else fn.py_func


def check_gray_scott(p, su, sv, seed):
    """Pipeline p of gray_scott on random u, v of shapes su, sv: NumPy's
    results bit for bit, or NumPy's ValueError."""
    rng = np.random.default_rng(seed)
    u, v = rng.random(su), rng.random(sv) * 0.25
    try:
        want = suite4_kernels.gray_scott(u, v)
    except ValueError:
        with pytest.raises(ValueError):
            p(u, v)
        return
    got = p(u, v)
    for g, w in zip(got, want):
        assert g.shape == w.shape and np.array_equal(g, w)


@pytest.mark.parametrize("su,sv", SHAPES)
def test_gray_scott_equals_numpy_at_every_shape(su, sv):
    check_gray_scott(gray_scott, su, sv, sum(su) * 31 + sum(sv))


@pytest.mark.parametrize("na,nb", [(9, 9), (2, 9), (9, 2), (2, 2), (100, 100), (100, 2), (4, 5)])
def test_one_dimensional_broadcast(na, nb):
    rng = np.random.default_rng(na * 7 + nb)
    a, b = rng.random(na), rng.random(nb)
    try:
        want = _numpy(shifted_product)(a, b)
    except ValueError:
        with pytest.raises(ValueError):
            shifted_product(a, b)
        return
    assert np.array_equal(shifted_product(a, b), want)


def test_single_read_arrays_are_inlined():
    rng = np.random.default_rng(1)
    gray_scott(rng.random((10, 12)), rng.random((10, 12)))
    names = {n.split("$")[0] for n in re.findall(r"realize ([\w$]+)\(", gray_scott.lower())}
    # (uvv, read by both outputs, is cheap: inlined into each, session 22)
    assert not {"lu", "lv", "uvv"} & names


def _loop(body, name="x", extent=None):
    return ir.For(name, ir.index(0), extent if extent is not None else ir.Variable(ir.INDEX, "n"),
                  "serial", body)


def run_nest(stmt, env):
    """The stores of a tiny loop nest of Store(out, index, value) run in Python."""
    out = {}

    def ev(e, scope):
        return int(eval_expr(e, scope))

    def go(s, scope):
        if isinstance(s, ir.For):
            lo, ext = ev(s.min, scope), ev(s.extent, scope)
            for i in range(lo, lo + ext):
                go(s.body, {**scope, s.name: i})
        elif isinstance(s, ir.IfThenElse):
            if eval_expr(s.condition, scope):
                go(s.then_case, scope)
            elif s.else_case is not None:
                go(s.else_case, scope)
        elif isinstance(s, ir.LetStmt):
            go(s.body, {**scope, s.name: eval_expr(s.value, scope)})
        elif isinstance(s, ir.Store):
            out[ev(s.index, scope)] = ev(s.value, scope)
        else:
            raise AssertionError(type(s))
    go(stmt, dict(env))
    return out


def _wrap(v):
    return (v + 2 ** 31) % 2 ** 32 - 2 ** 31


def eval_expr(e, scope):
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Variable):
        return scope[e.name]
    if isinstance(e, ir.Cast):
        return eval_expr(e.value, scope)
    if isinstance(e, ir.Load):          # an input whose element i is i * 7 % 13
        return eval_expr(e.index, scope) * 7 % 13
    if isinstance(e, ir.Select):
        return eval_expr(e.true_value if eval_expr(e.condition, scope) else e.false_value, scope)
    ops = {ir.Add: lambda a, b: a + b, ir.Sub: lambda a, b: a - b, ir.Mul: lambda a, b: a * b,
           ir.Min: min, ir.Max: max, ir.LT: lambda a, b: a < b, ir.LE: lambda a, b: a <= b,
           ir.GT: lambda a, b: a > b, ir.GE: lambda a, b: a >= b, ir.EQ: lambda a, b: a == b,
           ir.And: lambda a, b: a and b, ir.Or: lambda a, b: a or b,
           ir.Div: lambda a, b: a // b}
    v = ops[type(e)](eval_expr(e.a, scope), eval_expr(e.b, scope))
    if isinstance(v, bool) or e.type != ir.Int(32):
        return v
    return _wrap(v)


@pytest.mark.parametrize("n,m,off", [(10, 10, 0), (10, 4, 0), (10, 1, 0), (0, 5, 0), (5, 5, 3),
                                      (5, 5, -2), (8, 20, 2 ** 31 - 3), (8, 20, -2 ** 31 + 1)])
def test_unswitched_nest_computes_the_same_stores(n, m, off):
    """The pass on a hand-made nest (a clamp of x + off by m - 1 and 0, the
    clamp through a let, a wrapping offset) run by a small interpreter: the
    same stores as the nest itself for every extent and offset."""
    x, y = ir.Variable(ir.INDEX, "x"), ir.Variable(ir.INDEX, "y")
    mm, o = ir.Variable(ir.INDEX, "m"), ir.Variable(ir.INDEX, "off")
    clamped = ir.Max(ir.Min(ir.Add(x, o), ir.Sub(mm, ir.index(1))), ir.index(0))
    value = ir.Add(ir.Mul(ir.Max(ir.Min(ir.Variable(ir.INDEX, "k"), ir.Sub(mm, ir.index(1))),
                                 ir.index(0)), ir.index(3)), y)
    read = ir.Load(ir.INDEX, "inp", ir.Variable(ir.INDEX, "k"))     # dense along x
    body = ir.LetStmt("k", clamped, ir.Store(
        "out", value=ir.Add(value, read), index=ir.Add(ir.Mul(y, ir.index(1000)), x)))
    nest = _loop(_loop(body), "y", ir.index(3))
    after = unswitch_clamps(nest)
    assert isinstance(after, ir.IfThenElse)
    env = {"n": n, "m": m, "off": off}
    assert run_nest(after, env) == run_nest(nest, env)


def test_a_loop_whose_loads_are_not_dense_along_it_is_left_alone():
    """A clamp-free copy pays only where it makes a load dense along the loop:
    a loop over planes (a load index c * plane, local Laplacian's color
    channels) keeps one copy, so LLVM does not compile its body twice."""
    c, plane = ir.Variable(ir.INDEX, "x"), ir.Variable(ir.INDEX, "plane")
    clamped = ir.Max(ir.Min(c, ir.Sub(ir.Variable(ir.INDEX, "m"), ir.index(1))), ir.index(0))
    body = ir.Store("out", value=ir.Load(ir.INDEX, "inp", ir.Mul(clamped, plane)), index=c)
    nest = _loop(body)
    assert unswitch_clamps(nest) is nest
    dense = ir.Store("out", value=ir.Load(ir.INDEX, "inp", clamped), index=c)
    assert isinstance(unswitch_clamps(_loop(dense)), ir.IfThenElse)
