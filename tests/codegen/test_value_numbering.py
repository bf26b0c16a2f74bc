"""codegen_llvm numbers pure operators by their types and operand values:
an operator applied again to the same LLVM values, in code that dominates
the use, is not emitted again (lowering repeats a tile's bounds expressions
in the lets and overflow checks of every stage). Values computed in a
branch, a loop body or a failure path are not reused after it (the module
verifies), constants that print differently (0.0 and -0.0) stay apart, and
results equal NumPy's."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override
from pyhalide.lowering import codegen_llvm
from tests.backend.backend_util import realize_fresh


def _instructions(text):
    return sum(1 for line in text.split("\n") if line.startswith("  "))


def _pyramid(levels=3):
    """A chain of 2x downsamplings computed per tile of the output: each
    level's bounds are expressions of the previous level's."""
    a = ph.ImageParam(ph.Float(32), 1, "vn_a")
    x, xo, xi = ph.Var("x"), ph.Var("xo"), ph.Var("xi")
    fs = [ph.Func("vn_l0")]
    fs[0][x] = a[x]
    for k in range(1, levels + 1):
        f = ph.Func(f"vn_l{k}")
        f[x] = fs[-1][2 * x] + fs[-1][2 * x + 1]
        fs.append(f)
    out = ph.Func("vn_out")
    out[x] = fs[-1][x] * 2
    out.split(x, xo, xi, 32).vectorize(xi, 8)
    for f in fs[1:]:
        f.compute_at(out, xo).vectorize(x, 8)
    return out, a, levels


def _pyramid_expected(A, levels, n):
    v = A.astype(np.float32)
    for _ in range(levels):
        v = v[0::2][: len(v) // 2] + v[1::2][: len(v) // 2]
    return v[:n] * np.float32(2)


def test_numbering_shrinks_the_module(monkeypatch):
    out, _, _ = _pyramid()
    numbered = _instructions(ph.Pipeline([out]).lower("llvm"))
    monkeypatch.setattr(codegen_llvm, "_NUMBERED", frozenset())
    monkeypatch.setattr(codegen_llvm._FunctionEmitter, "_numbered",
                        lambda self, key, operands, make: make())
    plain = _instructions(ph.Pipeline([out]).lower("llvm"))
    assert numbered < 0.9 * plain, (numbered, plain)


@pytest.mark.parametrize("n", [1, 5, 31, 32, 33, 100])
def test_pyramid_results(n):
    out, a, levels = _pyramid()
    rng = np.random.default_rng(n)
    A = rng.random(n * 2 ** levels + 8, dtype=np.float32)
    a.set(ph.Buffer(A))
    with override(cache_dir=""):
        got = np.asarray(out.realize([n]))
    np.testing.assert_array_equal(got, _pyramid_expected(A, levels, n))


def test_signed_zero_constants_stay_apart():
    """Also the simplifier's: ir.equal held 0.0 and -0.0 equal (Python's
    ==), so select(c, a + 0.0, a + -0.0) became a + 0.0 (a wrong +0.0 for
    a = -0.0 where c is false, on main before session 16)."""
    a = ph.Buffer(np.full(64, -0.0, dtype=np.float32), "vn_z")
    x = ph.Var("x")
    f = ph.Func("vn_signed_zero")
    f[x] = ph.select(x % 2 == 0, a[x] + ph.f32(0.0), a[x] + ph.f32(-0.0))
    f.vectorize(x, 8)
    got = realize_fresh(f)
    want = np.where(np.arange(64) % 2 == 0, np.float32(-0.0) + np.float32(0.0),
                    np.float32(-0.0) + np.float32(-0.0))
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert np.signbit(got[1]) and not np.signbit(got[0])


def test_values_of_branches_are_not_reused_after_them():
    """The same expression in both branches of an if, inside a loop body
    and after both: every use gets a value that dominates it (the module
    verifies) and the results equal NumPy's, the small-extent branch
    included."""
    a = ph.ImageParam(ph.Int(32), 1, "vn_b")
    x = ph.Var("x")
    g, f = ph.Func("vn_g"), ph.Func("vn_f")
    g[x] = a[x] * 7 + 3
    f[x] = g[x] + (a[x] * 7 + 3) // 4 + ph.select(a[x] > 10, a[x] * 7 + 3, 0)
    f.vectorize(x, 8)
    g.compute_root().vectorize(x, 8)
    for n in (0, 3, 8, 17, 64):
        A = np.arange(n, dtype=np.int32) * 3 - 20
        a.set(ph.Buffer(A))
        with override(cache_dir=""):
            got = np.asarray(f.realize([n]))
        t = A * 7 + 3
        np.testing.assert_array_equal(got, t + t // 4 + np.where(A > 10, t, 0))
