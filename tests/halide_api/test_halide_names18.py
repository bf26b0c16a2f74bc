"""Halide 21's remaining public names (pyhalide/halide_math.py and friends):
each JIT result equals the reference evaluator, and Halide 21 itself where
the wheel is installed (importorskip: CI has no Halide)."""
import math
import re

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check, reference


def _domain(name, dt):
    a = np.linspace(-6, 6, 257).astype(dt)
    a = np.concatenate([a, np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 1.0, -1.0],
                                    dtype=dt)])
    if name == "acosh":
        a = np.abs(a) + dt(0.5)
    if name == "atanh":
        a = a / dt(6.5)
    return a


def c_math(name, v):
    """C's float64 function (Python's math calls it); its pole/NaN where math raises."""
    try:
        return getattr(math, name)(v)
    except ValueError:
        return math.copysign(math.inf, v) if name == "atanh" and abs(v) == 1 else math.nan


def _one(lib, name, a, vector):
    x = lib.Var("x")
    f = lib.Func("f")
    f[x] = getattr(lib, name)(lib.Buffer(a)[x])
    if vector:
        f.vectorize(x, 8)
    return f


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_inverse_hyperbolic_within_half_ulp_of_float64(name, dt):
    a = _domain(name, dt)
    want = np.array([c_math(name, float(v)) for v in a])
    outs = [check(_one(ph, name, a, v), [a.size])[0] for v in (False, True)]
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], want.astype(dt))
    assert outs[0].dtype == dt


def test_inverse_hyperbolic_of_an_integer_is_float32():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.asinh(x)
    out = check(f, [10])[0]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, np.float32([math.asinh(v) for v in range(10)]))


def test_erf_is_halides_approximation():
    a = _domain("erf", np.float32)
    outs = [check(_one(ph, "erf", a, v), [a.size])[0] for v in (False, True)]
    np.testing.assert_array_equal(outs[0], outs[1])
    finite = np.isfinite(a)
    want = np.array([math.erf(float(v)) for v in a[finite]])
    assert np.max(np.abs(outs[0][finite] - want)) < 4e-7
    # Halide's formula: inf - inf in the polynomial for |x| >= ~2^64 (Halide 21 too)
    assert np.isnan(outs[0][np.isinf(a)]).all()


def test_erf_refuses_other_types():
    with pytest.raises(TypeError, match="Float\\(32\\)"):
        ph.erf(ph.cast(ph.Float(64), ph.Var("x")))


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "erf"])
def test_math_equals_halide(name):
    hl = pytest.importorskip("halide")
    a = _domain(name, np.float32)
    ours = check(_one(ph, name, a, True), [a.size])[0]
    x = hl.Var("x")
    f = hl.Func("f")
    f[x] = hl.strict_float(getattr(hl, name)(hl.Buffer(a)[x]))
    theirs = np.asarray(f.realize([a.size]))
    if name == "erf":                     # the same formula in the same order
        np.testing.assert_array_equal(ours, theirs)
    else:                                 # C's asinhf etc.: within 1 ulp
        diff = np.abs(ours.view(np.int32).astype(np.int64) - theirs.view(np.int32))
        assert np.max(diff[np.isfinite(ours)]) <= 1
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))


# ---- reinterpret / extract_bits / concat_bits ------------------------------------
_F = np.float32([0.0, -0.0, 1.0, -2.5, np.inf, np.nan, 1e-40, 3.4e38])
_I = np.int16([0, -1, 1, -32768, 32767, 255, -256, 12345])


def _bits_funcs(lib):
    x = lib.Var("x")
    ba, bi = lib.Buffer(_F), lib.Buffer(_I)
    makes = [lambda: lib.reinterpret(lib.UInt(32), ba[x]),
             lambda: lib.reinterpret(lib.Float(32), lib.reinterpret(lib.Int(32), ba[x]) + 1),
             lambda: lib.reinterpret(lib.UInt(16), bi[x]),
             lambda: lib.extract_bits(lib.UInt(8), ba[x], 23),
             lambda: lib.extract_bits(lib.Int(8), bi[x], 4),
             lambda: lib.extract_bits(lib.UInt(8), bi[x], 12),
             lambda: lib.concat_bits([bi[x], bi[7 - x]]),
             lambda: lib.concat_bits([lib.cast(lib.UInt(8), bi[x]),
                                      lib.cast(lib.UInt(8), bi[7 - x])]),
             lambda: lib.concat_bits([bi[x], bi[7 - x], bi[x], bi[x]])]
    funcs = []
    for k, make in enumerate(makes):
        f = lib.Func(f"bits{k}")
        f[x] = make()
        funcs.append(f)
    return funcs


def _models():
    u16 = _I.view(np.uint16).astype(np.uint64)
    rev = u16[::-1]
    return [_F.view(np.uint32), (_F.view(np.int32) + 1).view(np.float32), _I.view(np.uint16),
            (_F.view(np.uint32) >> 23).astype(np.uint8),
            (_I.view(np.uint16) >> 4).astype(np.uint8).view(np.int8),
            (_I.view(np.uint16) >> 12).astype(np.uint8),
            (u16 | (rev << 16)).astype(np.uint32).view(np.int32),
            (_I.astype(np.uint8).astype(np.uint16) | (_I[::-1].astype(np.uint8).astype(np.uint16) << 8)),
            (u16 | (rev << 16) | (u16 << 32) | (u16 << 48)).view(np.int64)]


@pytest.mark.parametrize("vector", [False, True])
def test_bit_helpers_equal_exact_models(vector):
    funcs = _bits_funcs(ph)
    if vector:
        for f in funcs:
            f.vectorize(f.args()[0], 8)
    got = check(funcs, [8])
    for g, want in zip(got, _models()):
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g.view(np.uint8), want.view(np.uint8))


def test_bit_helpers_equal_halide():
    hl = pytest.importorskip("halide")
    got = check(_bits_funcs(ph), [8])
    theirs = [np.asarray(o) for o in hl.Pipeline(_bits_funcs(hl)).realize([8])]
    for g, t in zip(got, theirs):
        assert g.dtype == t.dtype
        np.testing.assert_array_equal(g.view(np.uint8), t.view(np.uint8))


def test_bit_helpers_in_an_index():
    a = np.arange(300, dtype=np.int32)
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.Buffer(a)[ph.cast(ph.Int(32), ph.extract_bits(ph.UInt(8), x, 1))]
    np.testing.assert_array_equal(check(f, [20])[0], np.arange(20) >> 1)


def test_bit_helpers_refuse_mismatched_types():
    x = ph.Var("x")
    with pytest.raises(TypeError, match="bits per lane"):
        ph.reinterpret(ph.Float(64), ph.cast(ph.Float(32), x))
    with pytest.raises(TypeError, match="same type"):
        ph.concat_bits([ph.cast(ph.Int(8), x), ph.cast(ph.UInt(8), x)])
    with pytest.raises(ValueError, match="power of two"):
        ph.concat_bits([x, x, x])
    with pytest.raises(TypeError, match="at most 64"):
        ph.concat_bits([x, x, x, x])


# ---- LoopLevel, VarOrRVar, schedule enums ------------------------------------------
def _two_stage(level_call):
    """A 3x3 box producer consumed by g; `level_call(f, g, x, y)` schedules f.
    Returns (lowered text, result)."""
    x, y = ph.Var("x"), ph.Var("y")
    a = np.arange(20 * 20, dtype=np.float32).reshape(20, 20)
    inp = ph.Buffer(a)
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = inp[x, y] + inp[x + 1, y] * 2.0
    g[x, y] = f[x, y] + f[x, y + 1]
    level_call(f, g, x, y)
    out = check(g, [18, 18])[0]
    want = a[:18, :18] + 2 * a[:18, 1:19] + a[1:19, :18] + 2 * a[1:19, 1:19]
    np.testing.assert_array_equal(out, want)
    text = re.sub(r"\$\d+", "", ph.Pipeline([g]).lower())          # names made unique
    return re.sub(r"\bb\d+\b", "b", re.sub(r"\.py:\d+", ".py", text)), out


def test_loop_level_means_the_same_as_compute_at():
    base, _ = _two_stage(lambda f, g, x, y: f.compute_at(g, y))
    lvl, _ = _two_stage(lambda f, g, x, y: f.compute_at(ph.LoopLevel(g, y)))
    assert lvl == base
    root, _ = _two_stage(lambda f, g, x, y: f.compute_root())
    assert _two_stage(lambda f, g, x, y: f.compute_at(ph.LoopLevel.root()))[0] == root
    inl, _ = _two_stage(lambda f, g, x, y: None)
    assert _two_stage(lambda f, g, x, y: f.compute_at(ph.LoopLevel.inlined()))[0] == inl
    both, _ = _two_stage(lambda f, g, x, y: f.compute_at(g, x).store_at(g, y))
    assert _two_stage(lambda f, g, x, y: f.compute_at(ph.LoopLevel(g, x))
                      .store_at(ph.LoopLevel(g, y)))[0] == both


def test_loop_level_set_later_reschedules():
    base, _ = _two_stage(lambda f, g, x, y: f.compute_at(g, y))

    def later(f, g, x, y):
        level = ph.LoopLevel.root()
        f.compute_at(level)
        level.set(ph.LoopLevel(g, y))
    assert _two_stage(later)[0] == base


def test_loop_level_undefined_and_bad_uses_are_located_errors():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = x
    with pytest.raises(ph.CompileError, match="before it was set"):
        f.compute_at(ph.LoopLevel())
    with pytest.raises(TypeError, match="LoopLevel"):
        f.compute_at(3)
    with pytest.raises(ph.CompileError, match="its own loops"):
        f.compute_at(ph.LoopLevel(f, x))
    assert ph.LoopLevel.root().is_root() and ph.LoopLevel.inlined().is_inlined()
    assert ph.LoopLevel(f, x).var().name() == "x" and ph.LoopLevel(f, x).func() == f.name()


def test_var_or_rvar_is_the_var_itself():
    x = ph.Var("x")
    r = ph.RDom([(0, 4)])
    assert ph.VarOrRVar(x) is x and ph.VarOrRVar(r.x) is r.x
    assert ph.VarOrRVar("z").name() == "z"
    f = ph.Func("f")
    f[x] = x * 2
    f.vectorize(ph.VarOrRVar(x), 4)
    np.testing.assert_array_equal(check(f, [10])[0], np.arange(10) * 2)


def test_schedule_enums_have_halides_members():
    for name in ("MemoryType", "LoopAlignStrategy", "PrefetchBoundStrategy"):
        ours = getattr(ph, name)
        members = {m.name: int(m) for m in ours}
        assert members
        hl = pytest.importorskip("halide")
        theirs = getattr(hl, name).__members__
        assert set(members) == set(theirs)
        assert all(members[k] == int(v) for k, v in theirs.items())


# ---- undef, memoize names, unsupported names ---------------------------------------
def _undef_funcs(lib):
    x = lib.Var("x")
    r = lib.RDom([(1, 4)]).x
    f = lib.Func("f")
    f[x] = lib.Tuple([x * 2, lib.cast(lib.Float(32), x) * 0.5])
    f[x] = lib.Tuple([f[x][0] + 1, lib.undef(lib.Float(32))])
    f[r] = lib.Tuple([lib.undef(lib.Int(32)), f[r - 1][1] + f[r][1]])
    g = lib.Func("g")
    g[x] = x * 3
    g[r] = lib.undef(lib.Int(32))
    return [f, g]


def test_undef_leaves_a_value_unchanged():
    got = check(_undef_funcs(ph), [6])
    f1 = np.arange(6, dtype=np.float32) * np.float32(0.5)
    for i in range(1, 5):
        f1[i] = f1[i - 1] + f1[i]
    np.testing.assert_array_equal(got[0], np.arange(6) * 2 + 1)
    np.testing.assert_array_equal(got[1], f1)
    np.testing.assert_array_equal(got[2], np.arange(6) * 3)
    hl = pytest.importorskip("halide")
    fh, gh = _undef_funcs(hl)
    theirs = [np.asarray(o) for o in hl.Pipeline([fh, gh]).realize([6])]
    for g, t in zip(got, theirs):
        np.testing.assert_array_equal(g, t)


def test_undef_elsewhere_is_refused():
    x = ph.Var("x")
    f = ph.Func("f")
    with pytest.raises(ph.CompileError, match="pure definition"):
        f[x] = ph.undef(ph.Int(32))
    f[x] = x
    with pytest.raises(ph.CompileError, match="inside an expression"):
        f[x] = ph.undef(ph.Int(32)) + 1
    with pytest.raises(ph.CompileError, match="holds int32"):
        f[x] = ph.undef(ph.Float(32))


def test_memoize_tag_is_its_value():
    x = ph.Var("x")
    p = ph.Param(ph.Int(32), "p", 3)
    f = ph.Func("f")
    f[x] = ph.memoize_tag(x * p, p)
    f.compute_root().memoize(ph.EvictionKey(p))
    g = ph.Func("g")
    g[x] = f[x] + 1
    np.testing.assert_array_equal(check(g, [5])[0], np.arange(5) * 3 + 1)


def test_unsupported_names_raise_naming_themselves():
    from pyhalide import halide_unsupported as U
    for name in U.__all__:
        obj = getattr(ph, name)
        with pytest.raises(NotImplementedError, match=f"halide.{name} "):
            obj()
        with pytest.raises(NotImplementedError, match=f"halide.{name} "):
            obj.some_member


def test_no_public_halide_name_is_missing():
    hl = pytest.importorskip("halide")
    missing = [n for n in dir(hl) if not n.startswith("_") and not hasattr(ph, n)]
    assert missing == []


# ---- require ---------------------------------------------------------------------------
def _require_func(lib, a, vector):
    x = lib.Var("x")
    p = lib.Param(lib.Int(32), "p", 5)
    b = lib.Buffer(a)
    f = lib.Func("f")
    # (Halide 21's Python require takes Exprs only in its message)
    msg = ("value", b[x], "too big for", p) if lib is ph else (b[x], p)
    f[x] = lib.require(b[x] < p, b[x] * 2, *msg)
    if vector:
        f.vectorize(x, 4)
    return f


@pytest.mark.parametrize("vector", [False, True])
def test_require_passes_its_value_or_raises(vector):
    a = np.arange(10, dtype=np.int32)
    f = _require_func(ph, a, vector)
    np.testing.assert_array_equal(check(f, [4])[0], a[:4] * 2)
    text = r"Requirement Failed: \(false\) 10 value 5 too big for 5"
    with pytest.raises(RuntimeError, match=text):
        f.realize([8])
    with pytest.raises(RuntimeError, match=text):
        reference([f], [8])
    hl = pytest.importorskip("halide")
    h = _require_func(hl, a, vector)
    np.testing.assert_array_equal(np.asarray(h.realize([4])), a[:4] * 2)
    with pytest.raises(hl.HalideError, match=r"Requirement Failed: \(false\) 10 5 5"):
        h.realize([8])


def test_require_that_cannot_run_before_the_store_is_refused():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.select(x > 2, ph.require(x < 100, x), 0) + 0
    np.testing.assert_array_equal(check(f, [5])[0], [0, 0, 0, 3, 4])
    from pyhalide import ir
    from pyhalide.expr import Expr, to_node
    g = ph.Func("g")               # a lazy branch (as boundary conditions make)
    g[x] = Expr.wrap(ir.Call(ir.Int(32), "if_then_else",
                             (to_node(x > 2), to_node(ph.require(x < 4, x)), ir.const(ir.Int(32), 0)),
                             ir.INTRINSIC))
    with pytest.raises(ph.CompileError, match="if_then_else"):
        g.realize([5])
