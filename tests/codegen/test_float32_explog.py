"""float32 exp and log of lowering/codegen_explog32.py, computed in float32
(16 lanes to a zmm register): the tables' properties that its error analysis
rests on, the error against the exact value (float64 NumPy is exact enough:
its error is 2^-29 of a float32 ulp) on the delicate arguments (table-entry
and interval boundaries, near 1, subnormal arguments and results), NumPy's
special values bit for bit, the same bits from every way of computing them
(scalar code, LLVM's loop vectorizer, explicit vectors, targets x86-64-avx2
and generic), and float32 vector code in the module (no float64)."""
import decimal
import math

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering import codegen_explog as E64
from pyhalide.lowering import codegen_explog32 as E
from pyhalide.lowering.target import host_target
from tests.backend.backend_util import BufferArg, i32, var
from tests.codegen.test_explog import _runs, compute

NUMPY = {"exp": np.exp, "log": np.log}


def _d(v):
    return decimal.Decimal(v)


def _significant_bits(v: float) -> int:
    m, _ = math.frexp(v)
    n = 0
    while m != int(m):
        m *= 2
        n += 1
    return n


def test_exp_constants_and_table():
    """n C1 is exact for |n| <= 2401 (C1 has 12 significant bits), C1 + C2 is
    ln2/16 to 2^-38 relative (n C2: 2^-32 absolute), T (1 + t) is 2^(j/16) to
    2^-45 relative."""
    assert _significant_bits(E.C1) <= 12 and 2401 < 2 ** 12
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        ln2 = decimal.Decimal(2).ln()
        assert abs(_d(E.C1) + _d(E.C2) - ln2 / 16) < ln2 / 16 * _d(2) ** -38
        hi, tail = E.exp_table()
        for j in range(E64.EXP_N):
            exact = (ln2 * j / 16).exp()
            assert hi[j] == E.f32(hi[j]) and tail[j] == E.f32(tail[j])
            assert abs(_d(hi[j]) * (1 + _d(tail[j])) - exact) < exact * _d(2) ** -45, j


def test_log_table_entries():
    """The 32 intervals tile [a, 2a); z invc - 1 is exact in float32 (invc
    short: a multiple of 2^-29 below 2^-5) with |z invc - 1| < 0.025 (entry
    LOG32_ONE: invc = 1, L = 0, |r| < 0.011); L is a multiple of 2^-16 with
    |L| > |r| elsewhere (the Fast2Sum); L + L_lo is -log(invc) to 2^-41 (a
    2^-11 ulp of a result of k = 0); LN2_HI32 has 16 significant bits on the
    same grid."""
    invcs, his, los = E.log_table()
    assert E.log_interval(0)[0] == E.log_interval(E.LOG32_N - 1)[1] / 2
    assert E.LN2_HI32 % E.LOG32_GRID == 0 and _significant_bits(E.LN2_HI32) <= 16
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        for i in range(E.LOG32_N):
            lo, hi = E.log_interval(i)
            invc, L = invcs[i], his[i]
            r = max(abs(lo * invc - 1), abs(hi * invc - 1))
            step = 1.0                      # invc's last bit
            while invc / step != int(invc / step):
                step /= 2
            assert step >= 2.0 ** -6, i
            # z invc - 1 is a multiple of z's last bit times invc's: 24 bits hold it
            assert r < float(np.spacing(np.float32(lo))) * step * 2.0 ** 24, i
            if i == E.LOG32_ONE:
                assert (invc, L, los[i]) == (1.0, 0.0, 0.0) and lo < 1 < hi and r < 0.011
                continue
            assert r < 0.025, i
            exact = -_d(invc).ln()
            assert abs(_d(L) + _d(los[i]) - exact) <= _d(2) ** -41, i
            assert L % E.LOG32_GRID == 0 and abs(L) > r, i


def _delicate(rng, n=3000):
    """exp: the whole range, entry boundaries of n, near 0, the overflow and
    subnormal ranges; log: every binade (subnormals too), interval ends
    scaled by powers of two, near 1."""
    step = math.log(2) / 16
    k = rng.integers(int(-103.9 / step), int(88.7 / step), n)
    exp_args = np.concatenate([
        rng.uniform(-104, 89, n), rng.uniform(-1, 1, n), rng.uniform(-104, -87, n),
        (k + 0.5) * step, (k + 0.4999) * step, k * step, rng.uniform(88, 88.72, n),
        rng.uniform(-1e-3, 1e-3, n), rng.uniform(-1e-8, 1e-8, n)])
    ends = np.array([E.log_interval(i)[0] for i in range(E.LOG32_N)], np.float32)
    ends = np.concatenate([ends, np.nextafter(ends, np.float32(0)),
                           np.nextafter(ends, np.float32(2))])
    log_args = np.concatenate([
        2.0 ** rng.uniform(-149, 128, n), rng.uniform(0.5, 2, n),
        1 + rng.uniform(-0.1, 0.1, n), 1 + rng.uniform(-1e-5, 1e-5, n),
        np.repeat(ends, 20) * 2.0 ** rng.integers(-120, 120, 20 * len(ends)), ends,
        2.0 ** rng.uniform(-149, -126, n)])
    with np.errstate(over="ignore"):
        return {"exp": exp_args.astype(np.float32),
                "log": log_args[np.isfinite(log_args.astype(np.float32))].astype(np.float32)}


def ulp_errors32(name, x, got):
    """|got - f(x)| in ulps of the float32 result (f(x) by float64 NumPy, and
    the spacing of a subnormal result is the smallest subnormal's)."""
    with np.errstate(all="ignore"):
        want = NUMPY[name](x.astype(np.float64))
        sp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / sp, want


@pytest.mark.parametrize("name", ["exp", "log"])
def test_within_the_stated_error(name):
    """Below 0.54 ulp (log) and 0.56 ulp (exp; subnormal results 1 ulp) of
    the exact value; overflow and underflow where float32 does."""
    x = _delicate(np.random.default_rng(18))[name]
    got = compute(name, x, 16)
    err, want = ulp_errors32(name, x, got)
    if name == "exp":
        big = want >= float(np.finfo(np.float32).max)
        assert np.isinf(got[big]).all() and not np.isinf(got[~big]).any()
        err = err[~big]
        sub = want[~big] < float(np.finfo(np.float32).tiny)
        limit = np.where(sub, 1.0, 0.56)
    else:
        limit = np.full(len(x), 0.54)
    worst = int(np.argmax(err - limit))
    assert (err < limit).all(), (name, x[worst], got[worst], err[worst])


def _specials():
    fi = np.finfo(np.float32)
    snan = np.array([0x7F800001, 0xFF800123, 0x7FC00005, 0xFFC00000], np.uint32)
    return np.concatenate([np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, float(fi.tiny),
         float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.max),
         -float(fi.max), 88.72283, 88.72284, 89.0, -103.97207, -103.97208, -104.0,
         -87.33655, 1e-40, 2.0, 0.5, -2.0, 1e30], np.float32), snan.view(np.float32)])


@pytest.mark.parametrize("name", ["exp", "log"])
def test_special_values_are_numpys_bit_for_bit(name):
    """NaN arguments give 0x7fc00000 (any sign or payload), log of x < 0 and
    -inf gives 0xffc00000, log(+-0) = -inf, exp(-inf) = 0, as NumPy's float32
    code (AVX-512 and AVX2 hosts); exp(0) = 1 and log(1) = +0 exactly. (Elsewhere NumPy's
    values may differ: its exp(1) is 0x402df855, 0.65 ulp from e; ours is the
    correctly rounded 0x402df854.)"""
    x = _specials()
    with np.errstate(all="ignore"):
        want = NUMPY[name](np.repeat(x, 16)).reshape(len(x), 16)[:, 0]
    for lanes in (1, 16):
        got = compute(name, x, lanes)
        special = ~np.isfinite(want) | (want == 0) | (x == 0) | ((x == 1) & (name == "log"))
        assert (got[special].view(np.uint32) == want[special].view(np.uint32)).all(), \
            (lanes, x[special], got[special].view(np.uint32), want[special].view(np.uint32))
        err, _ = ulp_errors32(name, x[~special], got[~special])
        assert err.max() < 1.0, (lanes, x[~special][np.argmax(err)])


@pytest.mark.parametrize("name", ["exp", "log"])
def test_every_way_gives_the_same_bits(name):
    """Scalar code, the loop vectorizer's vector versions, explicit vectors of
    4, 8, 12, 16 and 48 lanes (permutes on AVX-512, selects and row loads
    elsewhere), x86-64-avx2 and generic."""
    x = np.concatenate([_delicate(np.random.default_rng(19), 300)[name], _specials()])
    scalar = compute(name, x, 1).view(np.uint32)
    ways = {f"{lanes} lanes": dict(lanes=lanes) for lanes in (4, 8, 12, 16, 48)}
    ways["loop vectorizer"] = dict(lanes=1, vectorizers=True)
    if _runs("x86-64-avx2"):
        ways["avx2 rows"] = dict(lanes=16, target="x86-64-avx2")
        ways["avx2 loop vectorizer"] = dict(lanes=1, vectorizers=True, target="x86-64-avx2")
    ways["generic 4 lanes"] = dict(lanes=4, target="generic")
    for way, kw in ways.items():
        got = compute(name, x, **kw).view(np.uint32)
        assert (got == scalar).all(), (name, way, x[got != scalar][:4])


def test_vector_code_is_float32():
    """A float32 exp/log loop is <16 x float> code (no float64 values) that
    permutes the tables (vpermps on AVX2, vpermps/vpermi2ps on AVX-512); a
    scalar calls the function whose float32 vector versions the vectorizer
    may use."""
    from pyhalide.lowering.codegen_llvm import codegen
    t = ir.Float(32)
    v = var("x")
    body = ir.Call(t, "log", (ir.Call(t, "exp", (ir.Load(t, "a", v),), ir.INTRINSIC),),
                   ir.INTRINSIC)
    stmt = ir.For("x", i32(0), i32(64), "serial", ir.Store("o", body, v))
    bufs = [BufferArg("a", t, 1, False), BufferArg("o", t, 1, True)]
    text = str(codegen(stmt, "k", bufs, [], features="+avx2,+fma").module)
    assert "pyhalide_expf_v16f32" in text and "pyhalide_logf_v8f32" in text
    assert "double" not in text and "fpext" not in text
    assert "llvm.x86.avx2.permps" in text and "gather" not in text     # AVX2: vpermps
    vec = ir.Ramp(ir.Mul(v, i32(16)), i32(1), 16)
    t16 = t.with_lanes(16)
    body16 = ir.Call(t16, "exp", (ir.Load(t16, "a", vec),), ir.INTRINSIC)
    stmt = ir.For("x", i32(0), i32(4), "serial", ir.Store("o", body16, vec))
    if "+avx512f" in host_target().features.split(","):
        text = str(codegen(stmt, "k", bufs, [], features=host_target().features).module)
        assert "permvar.sf.512" in text and "double" not in text


@ph.pipeline
def _exp_log(a):
    return np.log(np.exp(a) + 1.0)


def test_pipeline_float32_result_within_the_bound():
    """@pipeline: float32 in, float32 out; equal to the compiled functions'
    composition (log(exp(a) + 1) computed per element in float32)."""
    a = np.random.default_rng(20).uniform(-30, 30, 2000).astype(np.float32)
    got = _exp_log(a)
    assert got.dtype == np.float32
    e = compute("exp", a, 1)
    want = compute("log", (e + np.float32(1.0)).astype(np.float32), 1)
    assert got.tobytes() == want.tobytes()
    err, _ = ulp_errors32("log", e + np.float32(1.0), got)
    assert err.max() < 0.54


def _exp_log_2d(a):
    return np.log(np.exp(a) * np.float32(0.5) + np.float32(2.0))


def test_pipeline_schedules_give_the_same_bits():
    """The default schedule, schedule="auto" and a 2-D float32 argument of
    odd width (vector body and scalar tail) give the same bits."""
    a = np.random.default_rng(21).uniform(-40, 40, (37, 101)).astype(np.float32)
    default = ph.pipeline(_exp_log_2d)(a)
    auto = ph.pipeline(_exp_log_2d, schedule="auto")(a)
    assert default.dtype == auto.dtype == np.float32
    assert default.tobytes() == auto.tobytes()
    e = compute("exp", a.ravel(), 1)
    want = compute("log", (e * np.float32(0.5) + np.float32(2.0)).astype(np.float32), 1)
    assert default.ravel().tobytes() == want.tobytes()
