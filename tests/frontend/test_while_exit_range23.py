"""A shifting `while` loop's range predicate as its loop's extent (session 23):
frontend_ast/while_exit_range.py makes the predicate the merged update's,
lowering/trim_guarded_loop.py cuts the loop where it fails, and
lowering/loop_range_facts.py proves the positions' clamps from the new
extent. Hand-built loops (what is trimmed, what must not be), the lowered
shift of insertion sort (no clamp, no guard), and the sorts, gap-2 and
counting-up loops and np.arange(a.shape[0]) against plain Python / NumPy."""
from __future__ import annotations

import re

import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.simplify import simplify
from pyhalide.lowering.trim_guarded_loop import trim_guarded_loop

from .test_argsort_insertion22 import argsort_ins
from .test_insertion_sort import isort
from .test_shifting_while21 import KERNELS

I32 = ir.Int(32)
X = ir.Variable(I32, "x")
Y = ir.Variable(I32, "y")
_FLAG = ir.GT(ir.Load(I32, "flag", ir.index(0)), ir.index(0))


def _loop(guard, exit_=True, else_=None):
    """for (x, 0, 100) { [if flag exit else] if (guard) out[x] = 1 [else ...] }"""
    store = ir.IfThenElse(guard, ir.Store("out", ir.index(1), X), else_)
    body = ir.IfThenElse(_FLAG, ir.LoopExit("x"), store) if exit_ else store
    return ir.For("x", ir.index(0), ir.index(100), ir.ForKind.SERIAL, body)


def test_upper_bound_guard_becomes_the_extent():
    # y - x - 1 > -2  <=>  x <= y: the loop runs min(100, y + 1) iterations, unguarded
    out = trim_guarded_loop(_loop(ir.GT(ir.Sub(ir.Sub(Y, X), ir.index(1)), ir.index(-2))))
    assert isinstance(out, ir.For)
    assert ir.equal(simplify(ir.Sub(out.extent, ir.Min(ir.index(100), ir.Add(Y, ir.index(1))))),
                    ir.index(0)) or "min(" in ir.to_str(out.extent)
    assert isinstance(out.body, ir.IfThenElse) and isinstance(out.body.else_case, ir.Store)
    # the extent's value at y = 5: 6 iterations; at y = 500: 100
    for y, want in ((5, 6), (500, 100), (-3, -2)):
        got = simplify(ir.substitute(out.extent, {"y": ir.index(y)}))
        assert isinstance(got, ir.Const) and got.value == want, (y, got)


def test_guard_with_a_step_of_two():
    # y - 2x - 2 > -3  <=>  2x <= y  <=>  x <= floor(y / 2) (gap-2 insertion)
    g = ir.GT(ir.Sub(ir.Sub(Y, ir.Mul(X, ir.index(2))), ir.index(2)), ir.index(-3))
    out = trim_guarded_loop(_loop(g))
    for y in (-5, -1, 0, 1, 6, 7, 300):
        got = simplify(ir.substitute(out.extent, {"y": ir.index(y)}))
        want = min(100, max(x for x in range(-10, 400) if y - 2 * x - 2 > -3) + 1)
        assert isinstance(got, ir.Const) and got.value == want, (y, got, want)


def test_guards_that_must_stay():
    lower = ir.GE(X, Y)                                       # a lower bound of x
    memory = ir.LT(X, ir.Load(I32, "n", ir.index(0)))         # reads memory
    scaled = ir.LT(ir.Mul(X, X), Y)                           # not linear in x
    free = ir.LT(Y, ir.index(3))                              # does not bound x
    for g in (lower, memory, scaled, free):
        s = _loop(g)
        assert trim_guarded_loop(s) is s, ir.to_str(g)
    bound = ir.LT(X, Y)
    with_else = _loop(bound, else_=ir.Store("out", ir.index(2), X))   # the else runs past it
    assert trim_guarded_loop(with_else) is with_else
    no_exit = _loop(bound, exit_=False)                       # only in exiting statements
    assert trim_guarded_loop(no_exit) is no_exit


def test_equality_of_sides_differing_by_a_constant_folds():
    a, b = ir.Sub(ir.Sub(Y, X), ir.index(1)), ir.Sub(Y, X)
    assert ir.equal(simplify(ir.EQ(a, b)), ir.Const(ir.Bool(), False))
    assert ir.equal(simplify(ir.NE(a, b)), ir.Const(ir.Bool(), True))
    assert not isinstance(simplify(ir.EQ(a, ir.Sub(X, Y))), ir.Const)


def test_insertion_sort_shift_has_no_clamp_or_guard():
    data = np.random.default_rng(23).random(40)
    isort(data.copy())
    text = isort.lower("final")
    m = re.search(r"for \(\S+while\d+\$x, 1, ", text)
    assert m, text
    loop = text[m.start():]
    loop = loop[:loop.index("free ")]
    head, body = loop[:loop.index("{")], loop[loop.index("{"):]
    assert "max(" not in body and "> -2" not in body, loop
    assert "min(" in head             # (the extent: min(n, y + 1) - 1)


gap2 = KERNELS["gap2_down"]
up = KERNELS["isort_up"]


def _inputs(rng, n):
    return [rng.standard_normal(n), np.sort(rng.standard_normal(n)),
            np.arange(n, dtype=np.float64)[::-1].copy(),
            rng.choice([np.nan, -0.0, 0.0, 1.0, -1.0], n)]


def test_sorts_against_python():
    rng = np.random.default_rng(5)
    for n in (0, 1, 2, 3, 7, 16, 41):
        for data in _inputs(rng, n):
            for f in (isort, gap2, up):
                got, want = f(data.copy()), f.py_func(data.copy())
                assert np.array_equal(got, want, equal_nan=True), (f.py_func.__name__, data)
                assert np.array_equal(np.signbit(got), np.signbit(want)), (f.py_func.__name__, data)
            a1, a2 = data.copy(), data.copy()
            assert argsort_ins(a1).tolist() == argsort_ins.py_func(a2).tolist(), data
            assert np.array_equal(a1, a2, equal_nan=True)
    ints = rng.integers(-4, 4, 30)
    assert isort(ints.copy()).tolist() == isort.py_func(ints.copy()).tolist()
    assert argsort_ins(ints.copy()).tolist() == argsort_ins.py_func(ints.copy()).tolist()


@ph.pipeline
def _arange_len(a, n):
    return np.arange(a.shape[0]) * 2 + np.arange(n).sum()


def test_arange_of_a_shape_and_of_an_argument():
    for m, n in ((0, 0), (5, 3), (3, -2), (1, 7)):
        a = np.zeros(m)
        want = np.arange(m) * 2 + np.arange(n).sum()
        got = _arange_len(a, n)
        assert got.dtype == want.dtype and got.tolist() == want.tolist(), (m, n)


def _choice_loop(uses=1, store_first=False, exit_=True):
    """for (x, 0, 10) { [if flag exit else] { let v = c ? a[x] : 0; [other store;]
    out[x] = v [+ v] } }"""
    from pyhalide.lowering.split_exit_store import split_exit_store
    c = ir.GT(ir.Load(I32, "a", X), ir.index(0))
    v = ir.Variable(I32, "v")
    value = v if uses == 1 else ir.Add(v, v)
    stores = [ir.Store("out", value, X)]
    if store_first:
        stores.insert(0, ir.Store("a", ir.index(0), X))
    let = ir.LetStmt("v", ir.lazy_select(c, ir.Load(I32, "a", X), ir.index(0)), ir.block(*stores))
    body = ir.IfThenElse(_FLAG, ir.LoopExit("x"), let) if exit_ else let
    loop = ir.For("x", ir.index(0), ir.index(10), ir.ForKind.SERIAL, body)
    return loop, split_exit_store(loop)


def test_store_of_a_choice_splits_into_branches():
    loop, out = _choice_loop()
    branch = out.body.else_case
    assert isinstance(branch, ir.IfThenElse)
    assert isinstance(branch.then_case, ir.Store) and isinstance(branch.else_case, ir.Store)
    assert ir.equal(branch.else_case.value, ir.index(0))


def test_store_of_a_choice_that_must_stay():
    for kw in ({"uses": 2}, {"store_first": True}, {"exit_": False}):
        loop, out = _choice_loop(**kw)
        assert out is loop, kw
