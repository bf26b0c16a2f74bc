"""The compile-time caches of the lowering passes change no result:
bounds inference's symbols resolved once per level (`_Bounds.resolved`),
one interval scope per set of overflow endpoints (index_overflow), the
simplifier's rename targets, and the cycle collector paused while lowering.
Each lowered text equals the one the uncached pass gives, and every JIT
result equals the reference evaluator."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering import bounds_inference, index_overflow, pipeline
from pyhalide.lowering.simplify import simplify
from pyhalide.reference.exprs import Context
from tests.core.jitcheck import check
from tests.schedules.pyramids import pyramid


def _pyramid(tag: str, levels: int = 4):
    return pyramid(tag, levels)


def _schedule(x, y, fs, out, how: str):
    xo, xi = ph.Var("xo"), ph.Var("xi")
    if how == "tiles":
        out.split(x, xo, xi, 8)
        for f in fs:
            f.compute_at(out, xo)
    elif how == "rows":
        for f in fs:
            f.store_root().compute_at(out, y)
    else:                                   # a chain: each level inside the next one's loop
        fs[0].compute_at(out, y)
        for k in range(1, len(fs)):
            fs[k].compute_at(fs[k - 1], y)


class _Forgetful(dict):
    """A `_Bounds.resolved` that keeps nothing: every scope resolves anew."""

    def __setitem__(self, key, value):
        pass


@pytest.mark.parametrize("how", ["tiles", "rows", "chain"])
def test_resolved_symbols_kept_per_level(how, monkeypatch):
    x, y, fs, out = _pyramid(f"keep_{how}")
    _schedule(x, y, fs, out, how)
    p = ph.Pipeline([out])
    kept = p.lower()
    sizes = []
    init = bounds_inference._Bounds.__init__

    def forgetful(self, ctx):
        init(self, ctx)
        self.resolved = _Forgetful()
        sizes.append(self)
    monkeypatch.setattr(bounds_inference._Bounds, "__init__", forgetful)
    assert p.lower() == kept
    assert sizes                                # (the uncached pass ran)
    monkeypatch.undo()
    for size in ([13, 9], [16, 16], [1, 1]):
        x, y, fs, out = _pyramid(f"keep_{how}_{size[0]}")
        _schedule(x, y, fs, out, how)
        check(out, size)


def test_resolutions_are_reused(monkeypatch):
    """Under `rows` (each level stored at the root, computed per output
    row) a level's symbols resolved for one consumer stage are found again
    for the next one at the same level."""
    x, y, fs, out = _pyramid("reuse")
    _schedule(x, y, fs, out, "rows")
    hits = []
    get = bounds_inference._Resolver.get

    def spy(self, name, default=None):
        if name not in self and (self.b._level_key(self.level), name) in self.b.resolved:
            hits.append(name)
        return get(self, name, default)
    monkeypatch.setattr(bounds_inference._Resolver, "get", spy)
    ph.Pipeline([out]).lower()
    assert hits


def test_overflow_endpoints_with_a_name_of_two_types():
    """Endpoints naming `n` as an int32 and as an int64 are each bounded over
    their own leaf's range (the shared scope gives way to a scope of its own)."""
    n32 = ir.Variable(ir.Int(32), "n")
    n64 = ir.Variable(ir.Int(64), "n")
    k32, k64 = ir.Const(ir.Int(32), 1), ir.Const(ir.Int(64), 1)
    a = ir.Add(ir.Div(n32, ir.Const(ir.Int(32), 4)), k32)       # always fits int32
    b = ir.Cast(ir.Int(32), ir.Add(n64, k64))                  # an int64 leaf
    c = ir.Add(n32, k32)                                       # may leave int32
    got = index_overflow._distinct([a, b, c])
    assert got == [c]
    assert index_overflow._surely_fits(a) and not index_overflow._surely_fits(c)


def _ev(e, env):
    """e's value with the variables in env (the reference evaluator)."""
    return int(Context(None, {n: np.int32(v) for n, v in env.items()}).ev(e))


def test_rename_captured_by_a_rebinding():
    """let a = x in (let x = y * 2 in a + x): `a` is the outer x, which the
    inner binding (kept: its value is not a constant or a variable) must not
    capture."""
    x, y, a = (ir.Variable(ir.INDEX, n) for n in "xya")
    e = ir.Let("a", x, ir.Let("x", ir.Mul(y, ir.Const(ir.INDEX, 2)), ir.Add(a, x)))
    got = simplify(e)
    assert _ev(got, {"x": 7, "y": 3}) == _ev(e, {"x": 7, "y": 3}) == 13
    # the same under a second pending rename (its target another name)
    b = ir.Variable(ir.INDEX, "b")
    e2 = ir.Let("b", y, ir.Let("a", x, ir.Let("x", ir.Mul(b, ir.Const(ir.INDEX, 2)),
                                               ir.Add(ir.Add(a, x), b))))
    assert _ev(simplify(e2), {"x": 7, "y": 3}) == _ev(e2, {"x": 7, "y": 3}) == 16


def test_renames_of_one_name_at_many_depths():
    """let v0 = z in let v1 = v0 in ... let v39 = v38 in (let v0 = z * 3 in
    v39 + v0): every rename leads to z, which the rebinding of v0 (a rename
    target) must not capture."""
    names = [f"v{i}" for i in range(40)]
    z = ir.Variable(ir.INDEX, "z")
    e = ir.Let("v0", ir.Mul(z, ir.Const(ir.INDEX, 3)),
               ir.Add(ir.Variable(ir.INDEX, names[-1]), ir.Variable(ir.INDEX, "v0")))
    for prev, name in reversed(list(zip(names, names[1:]))):
        e = ir.Let(name, ir.Variable(ir.INDEX, prev), e)
    e = ir.Let("v0", z, e)
    assert _ev(simplify(e), {"z": 5}) == _ev(e, {"z": 5}) == 20


def test_cycle_collector_paused_only_while_lowering():
    x = ph.Var("x")
    f = ph.Func("gc_paused")
    f[x] = x * 2 + 1
    seen = []
    inner = pipeline._lower

    def spy(*args):
        seen.append(gc.isenabled())
        return inner(*args)
    pipeline._lower = spy
    try:
        assert gc.isenabled()
        np.testing.assert_array_equal(np.asarray(check(f, [6])[0]), np.arange(6) * 2 + 1)
        assert seen == [False] and gc.isenabled()
        gc.disable()                        # the caller's choice is kept
        try:
            g = ph.Func("gc_kept_off")
            g[x] = x + 3
            check(g, [4])
            assert seen[-1] is False and not gc.isenabled()
        finally:
            gc.enable()
    finally:
        pipeline._lower = inner


def test_cycle_collector_restored_after_an_error():
    def boom(*args):
        assert not gc.isenabled()
        raise ir.CompileError("lowering failed")
    inner = pipeline._lower
    pipeline._lower = boom
    try:
        with pytest.raises(ir.CompileError):
            pipeline.lower([], {}, [], [])
    finally:
        pipeline._lower = inner
    assert gc.isenabled()
