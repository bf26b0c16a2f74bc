"""Masks of float compares wider than one register, emitted a register at a
time (lowering/codegen_mask_parts.py, AVX-512 hosts): compares, And/Or/Not
of them, selects of values of the compared width (by parts), of narrower
values (the whole mask) and bool outputs give the unscheduled pipeline's
and the reference evaluator's result bit for bit, with NaN, ±0 and ±inf
among the inputs; `a.max()` / `a.argmin()` equal NumPy on such data and
their lanes' LLVM IR compares 8 doubles at a time. On a host without
AVX-512 the same programs run the whole-vector path."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.lowering.codegen_mask_parts import MaskParts
from tests.backend.test_avx512_codegen import check_schedule

rng = np.random.default_rng(2424)


def _special(n, dtype):
    """Normal values with NaN, ±0, ±inf and repeats mixed in."""
    a = rng.standard_normal(n).astype(dtype)
    picks = rng.integers(0, n, n // 3)
    a[picks] = rng.choice(np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0], dtype), picks.size)
    return a


@pytest.mark.parametrize("dtype,lanes", [(np.float64, 16), (np.float64, 32), (np.float32, 32)])
def test_mask_logic_selects_by_parts_and_whole(dtype, lanes):
    """One condition (compares under And/Or/Not, NaN tests) selects values
    of the compared width (by parts), int32 values (the whole mask) and
    int64 values (by parts for float64, the whole mask for float32): three
    outputs of one Func."""
    w = lanes * 3 + 5
    a = ph.Buffer(_special(w + 1, dtype), f"mpa_{lanes}_{np.dtype(dtype).name}")
    b = ph.Buffer(_special(w + 1, dtype), f"mpb_{lanes}_{np.dtype(dtype).name}")
    x = ph.Var("x")

    def make():
        f = ph.Func(f"mask_parts_{lanes}_{np.dtype(dtype).name}")
        ordered = a[x] == a[x]
        cond = (~(a[x] > b[x]) & ordered) | ((b[x + 1] <= a[x + 1]) & (b[x] != b[x]))
        f[x] = (ph.select(cond, a[x], b[x + 1]),
                ph.select(cond, ph.cast(ph.Int(32), x) * 3, ph.cast(ph.Int(32), x) - 7),
                ph.select(cond & (a[x] < 1.5), ph.cast(ph.Int(64), x) * 5, ph.cast(ph.Int(64), 0) - x))
        return f
    for k in range(3):
        check_schedule(lambda k=k: _output(make(), k, x), lambda f: f.vectorize(x, lanes), [w])


def _output(f, k, x):
    """A Func of output k of the tuple Func f."""
    g = ph.Func(f.name() + f"_out{k}")
    g[x] = f[x][k]
    f.compute_inline()
    return g


def amax(a):
    return a.max()


def argmin(a):
    return a.argmin()


_MAX, _ARGMIN = ph.pipeline(amax), ph.pipeline(argmin)


@pytest.mark.parametrize("shape", [(37, 29), (64, 64), (5, 200)])
def test_whole_array_extremes_equal_numpy(shape):
    """NaN-free data with repeated extremes, then a NaN: the value and
    position as NumPy's (max of ±0 ties is h1's topic: no zeros here)."""
    a = np.round(rng.standard_normal(shape) * 3)
    a[a == 0] = 0.5
    a[rng.integers(0, shape[0]), rng.integers(0, shape[1])] = a.max()
    assert _MAX(a) == a.max() and _ARGMIN(a) == a.argmin()
    a[shape[0] // 2, shape[1] // 3] = np.nan
    assert np.isnan(_MAX(a)) and _ARGMIN(a) == a.argmin()
    b = -np.abs(a)
    b[np.isnan(b)] = -1.0
    b.flat[-1] = np.inf
    assert _MAX(b) == np.inf and _ARGMIN(b) == b.argmin()


def test_lanes_compare_a_register_at_a_time():
    """The lanes of a.max() over float64 compare <8 x double> (one zmm) when
    the host has AVX-512; the 16-lane compare is gone."""
    if not _avx512():
        pytest.skip("host without AVX-512: the whole-vector path")
    text = _MAX.lower("llvm", [("a", np.dtype(np.float64), (64, 64))])
    assert "fcmp ogt <8 x double>" in text or "fcmp oge <8 x double>" in text
    assert "fcmp ogt <16 x double>" not in text


def _avx512() -> bool:
    from numpy._core._multiarray_umath import __cpu_features__
    return bool(__cpu_features__.get("AVX512F"))


def test_parts_only_for_float_compares_wider_than_a_register():
    """MaskParts.lanes: 8 lanes for a 16-lane float64 compare, 16 for a
    32-lane float32 one, None for one register or an integer compare."""
    mp = MaskParts(None)
    ir = ph.ir

    def cmp(t, lanes):
        v = ir.Variable(t.with_lanes(lanes), "v")
        return ir.LT(v, v)
    assert mp.lanes(cmp(ir.Float(64), 16)) == 8
    assert mp.lanes(cmp(ir.Float(32), 32)) == 16
    assert mp.lanes(cmp(ir.Float(64), 8)) is None
    assert mp.lanes(cmp(ir.Int(32), 32)) is None
    assert mp.lanes(cmp(ir.Float(64), 24)) is None      # three registers: not by parts


@pytest.mark.parametrize("shadowed", [False, True])
def test_a_let_bound_mask_selects_by_parts(shadowed):
    """A mask bound by a LetStmt inside a 16-lane float64 loop: its selects
    take it by parts (the variable's value decides), and the results equal
    the serial loop's and NumPy's; also `let m = m && a < 0.5` inside it
    (the inner value's m is the outer one)."""
    from pyhalide.lowering.vectorize import vectorize_loops
    from tests.vectorize.vectorize_util import check_vectorizes, llvm_text, split_vectorized
    n = 16 * 6
    av, bv = _special(n, np.float64), _special(n, np.float64)
    F64, I32 = ph.ir.Float(64), ph.ir.Int(32)

    def body(x):
        a, b = ph.ir.Load(F64, "la", x), ph.ir.Load(F64, "lb", x)
        m = ph.ir.Variable(ph.ir.Bool(), "m")
        cond = ph.ir.Or(ph.ir.And(ph.ir.Not(ph.ir.GT(a, b)), ph.ir.EQ(a, a)),
                        ph.ir.LT(b, ph.ir.Const(F64, 0.25)))
        stores = ph.ir.Block([ph.ir.Store("lo", ph.ir.Select(m, a, b), x),
                              ph.ir.Store("lp", ph.ir.Select(m, x, ph.ir.Sub(ph.ir.Const(I32, 0), x)), x)])
        if shadowed:
            stores = ph.ir.LetStmt("m", ph.ir.And(m, ph.ir.LT(a, ph.ir.Const(F64, 0.5))), stores)
        return ph.ir.LetStmt("m", cond, stores)
    stmt = split_vectorized(n // 16, 16, body)
    bufs = [("la", av, False), ("lb", bv, False), ("lo", np.zeros(n), True),
            ("lp", np.zeros(n, np.int32), True)]
    _, (lo, lp) = check_vectorizes(stmt, bufs, lanes=16)
    want = (~(av > bv) & ~np.isnan(av)) | (bv < 0.25)
    if shadowed:
        want &= av < 0.5
    assert np.array_equal(lo, np.where(want, av, bv), equal_nan=True)
    assert np.array_equal(lp, np.where(want, np.arange(n), -np.arange(n)))
    if _avx512():
        text = llvm_text(vectorize_loops(stmt), bufs)
        assert re.search(r"select\s+<8 x i1> %\S+, <8 x double>", text)
        assert re.search(r"select\s+<16 x i1> %\S+, <16 x i32>", text)
        assert not re.search(r"fcmp \w+ <16 x double>", text)
