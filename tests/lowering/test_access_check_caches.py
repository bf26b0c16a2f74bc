"""The compile-time caches of the access-check pass and of the simplifier's
linear forms change no result (lowering/access_checks.py, linear.py):

- each index's interval and obligations, kept per scope state
  (`_AddChecks.bounds_memo`: the same index read at many places in one
  scope is bounded once);
- which nodes hold Func/image reads and which names Lets bind below them
  (`_AddChecks.structure`, used by `_may_need_check`);
- the nodes known to be their own linear canonical form (`is_canonical`:
  the simplifier does not build their form's expression again).

The lowered text with each cache is the text without it, and every JIT
result equals the reference evaluator (out-of-range data still raises
IndexError)."""
from __future__ import annotations

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering import access_checks, linear, simplify
from tests.core.jitcheck import check


class _Forgetful(dict):
    """A memo that keeps nothing."""

    def __setitem__(self, key, value):
        pass


def _uncached(monkeypatch):
    init = access_checks._AddChecks.__init__

    def forgetful(self, ctx):
        init(self, ctx)
        self.bounds_memo = _Forgetful()
        self.structure = _Forgetful()
    monkeypatch.setattr(access_checks._AddChecks, "__init__", forgetful)
    monkeypatch.setattr(linear, "mark_canonical", lambda e: None)
    monkeypatch.setattr(simplify, "mark_canonical", lambda e: None)
    linear.clear_caches()


def _gathers(tag, a_vals, b_vals, k=1, tiled=False):
    """out(x, y) reads lut at data-dependent indices, the same index objects
    at several places in one scope, in both dimensions (an unsigned 8-bit
    index: a loop-invariant bound, so the nest is also versioned)."""
    lut = ph.Buffer(np.arange(16 * 20, dtype=np.int32).reshape(20, 16), "lut_" + tag)
    a = ph.Buffer(np.asarray(a_vals, dtype=np.uint8), "a_" + tag)
    b = ph.Buffer(np.asarray(b_vals, dtype=np.uint8), "b_" + tag)
    x, y = ph.Var("x"), ph.Var("y")
    i, j = ph.cast(ph.Int(32), a[x, y]), ph.cast(ph.Int(32), b[x, y])
    f, out = ph.Func("f_" + tag), ph.Func("out_" + tag)
    f[x, y] = lut[i, j] + lut[i, j + k] * 2
    out[x, y] = f[x, y] + lut[i, j] - lut[j, i] + f[x, ph.max(y - 1, 0)]
    if tiled:
        xo, xi = ph.Var("xo"), ph.Var("xi")
        out.split(x, xo, xi, 4)
        f.compute_at(out, xo)
    else:
        f.compute_root()
    return out


@pytest.mark.parametrize("tiled", [False, True])
def test_lowered_text_unchanged_by_the_caches(tiled, monkeypatch):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 15, (6, 9))
    b = rng.integers(0, 14, (6, 9))
    tag = f"same_{int(tiled)}"
    p = ph.Pipeline([_gathers(tag, a, b, tiled=tiled)])
    cached = p.lower()
    _uncached(monkeypatch)
    assert p.lower() == cached
    monkeypatch.undo()
    linear.clear_caches()
    check(_gathers(tag + "_run", a, b, tiled=tiled), [9, 6])


@pytest.mark.parametrize("tiled", [False, True])
def test_out_of_range_data_still_raises(tiled):
    a = np.zeros((3, 5), np.uint8)
    b = np.zeros((3, 5), np.uint8)
    b[2, 4] = 16                            # lut's dimension 0 has 16 columns
    with pytest.raises(IndexError, match="is read at index 16 in dimension 0"):
        _gathers(f"far_{int(tiled)}", a, b, tiled=tiled).realize([5, 3])
    b[2, 4] = 15                            # the largest inside: j + 1 = 16 < 20 rows
    a[1, 3] = 15
    with pytest.raises(IndexError, match="is read at index 16 in dimension 0"):
        a[1, 3] = 16
        _gathers(f"far_a_{int(tiled)}", a, b, tiled=tiled).realize([5, 3])
    a[1, 3] = 15
    check(_gathers(f"near_{int(tiled)}", a, b, tiled=tiled), [5, 3])


def test_canonical_marks_are_canonical():
    """A node to_expr marks canonical is its own form's expression again
    (signed and unsigned, negative terms, INT_MIN coefficients unmarked)."""
    linear.clear_caches()
    v = [ir.Variable(ir.INDEX, n) for n in "pqrs"]
    u = [ir.Variable(ir.UInt(32), n) for n in "pq"]
    exprs = [
        ir.Sub(ir.Add(ir.Mul(v[0], ir.index(3)), v[1]), ir.Add(v[2], ir.index(7))),
        ir.Sub(ir.index(0), ir.Mul(v[3], ir.index(5))),
        ir.Add(ir.Mul(v[0], ir.index(-(2 ** 31))), v[1]),
        ir.Sub(ir.Mul(u[0], ir.Const(ir.UInt(32), 3)), u[1]),
        ir.Add(ir.Mul(ir.Div(v[0], ir.index(2)), ir.index(4)), ir.index(-9)),
    ]
    for e in exprs:
        out = linear.linear_form(e).to_expr()
        marked = []
        stack = [out]
        while stack:
            n = stack.pop()
            if linear.is_canonical(n):
                marked.append(n)
            stack.extend(ir.children(n))
        for n in marked:
            assert ir.equal(linear.linear_form(n).to_expr(), n), ir.expr_to_str(n)
        assert simplify.simplify(out) is out or not linear.is_canonical(out)
    # the INT_MIN coefficient's term and sum are not marked
    out = linear.linear_form(exprs[2]).to_expr()
    assert not linear.is_canonical(out)
    linear.clear_caches()


def test_one_read_in_two_scopes_is_bounded_in_each():
    """The same read node under two bindings of `t` (an 8-bit and a 16-bit
    data value) outside two loops: each loop's versioning test bounds the
    index by its own `t` (the interval memo is per scope state)."""
    i32 = ir.Int(32)
    x, t = ir.Variable(ir.INDEX, "x"), ir.Variable(ir.INDEX, "t")
    k = ir.Call(ir.UInt(8), "k8", (x,), ir.IMAGE)
    read = ir.Call(i32, "lut", (ir.Add(ir.Cast(ir.INDEX, k), t),), ir.IMAGE)

    def nest(name, value_type):
        value = ir.Cast(ir.INDEX, ir.Call(value_type, name, (ir.index(0),), ir.IMAGE))
        loop = ir.For("x", ir.index(0), ir.index(8), ir.ForKind.SERIAL, ir.Evaluate(read))
        return ir.LetStmt("t", value, loop)

    stmt = ir.block(nest("u8", ir.UInt(8)), nest("u16", ir.UInt(16)))
    text = ir.to_str(access_checks.add_access_checks(stmt, None))
    assert "510" in text and "65790" in text, text
