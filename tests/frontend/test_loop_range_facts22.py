"""lowering/loop_range_facts.py: clamps and comparisons in an exiting loop
fold where the loop ranges and the enclosing conditions prove them, and only
there. Hand-built loops (what folds, what must not), and insertion sort's
shift (whose loads of a[j] lose their clamps) against plain Python."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.lowering.loop_range_facts import loop_range_facts

from .test_insertion_sort import isort

I32 = ir.Int(32)
X = ir.Variable(ir.INDEX, "x")
N = ir.Variable(ir.INDEX, "n")
_EXIT = ir.IfThenElse(ir.GT(ir.Load(I32, "flag", ir.index(0)), ir.index(0)),
                      ir.LoopExit("x"))


def _loop(value, guard=None, exit_=True):
    """for (x, 1, max(n - 1, 0)) { [if flag exit] [if guard] out[x] = value }"""
    store = ir.Store("out", value, X)
    if guard is not None:
        store = ir.IfThenElse(guard, store)
    body = ir.block(_EXIT, store) if exit_ else store
    ext = ir.Max(ir.Sub(N, ir.index(1)), ir.index(0))
    return ir.For("x", ir.index(1), ext, ir.ForKind.SERIAL, body)


def _stored(stmt):
    """The value of the loop's store after the pass."""
    found = []

    def walk(s):
        if isinstance(s, ir.Store):
            found.append(s.value)
        for c in ir.children(s):
            if isinstance(c, ir.Stmt):
                walk(c)
    walk(loop_range_facts(stmt))
    return ir.to_str(found[0]) if hasattr(ir, "to_str") else str(found[0])


def test_clamps_inside_the_range_fold():
    # 1 <= x <= n - 1: x - 1 <= n - 1 and x >= 0
    v = ir.Max(ir.Min(ir.Sub(X, ir.index(1)), ir.Sub(N, ir.index(1))), ir.index(0))
    assert _stored(_loop(v)).replace("(", "").replace(")", "") == "x - 1"


def test_clamp_that_can_bind_stays():
    # x + 1 reaches n at x = n - 1: the min stays; x - 2 < 0 at x = 1: the max stays
    v = ir.Min(ir.Add(X, ir.index(1)), ir.Sub(N, ir.index(1)))
    assert "min(" in _stored(_loop(v))
    w = ir.Max(ir.Sub(X, ir.index(2)), ir.index(0))
    assert "max(" in _stored(_loop(w))


def test_enclosing_condition_decides_compare_and_select():
    # under x >= 3: x < 3 is false, max(x, 3) is x
    guard = ir.GE(X, ir.index(3))
    v = ir.Select(ir.LT(X, ir.index(3)), ir.index(5), ir.Max(X, ir.index(3)))
    text = _stored(_loop(v, guard)).replace(" ", "")
    assert "max(" not in text and "<3" not in text, text
    # without the guard: the select's false arm still knows x >= 3; max(x, 3) alone stays
    assert _stored(_loop(v)).replace(" ", "") == "select((x<3),5,x)"
    assert "max(" in _stored(_loop(ir.Max(X, ir.index(3))))


def test_no_exit_no_change():
    v = ir.Max(ir.Min(ir.Sub(X, ir.index(1)), ir.Sub(N, ir.index(1))), ir.index(0))
    s = _loop(v, exit_=False)
    assert loop_range_facts(s) is s


def test_insertion_sort_sizes_0_to_33_against_python():
    rng = np.random.default_rng(22)
    for n in range(34):
        for data in (rng.standard_normal(n), np.arange(n, dtype=np.float64)[::-1].copy(),
                     rng.choice([np.nan, -0.0, 0.0, 1.0, -1.0], n)):
            got = isort(data.copy())
            want = isort.py_func(data.copy())
            assert np.array_equal(got, want, equal_nan=True), (n, data)
            assert np.array_equal(np.signbit(got), np.signbit(want)), (n, data)
    for n in (0, 1, 2, 17, 33):
        ints = rng.integers(-5, 5, n)
        assert isort(ints.copy()).tolist() == isort.py_func(ints.copy()).tolist()
