"""float64 exp and log of lowering/codegen_explog.py: the tables' properties (the
error analysis in its docstring rests on them), errors against the exact value
(mpmath when installed, else long double) on the delicate arguments (interval
and table-entry boundaries, near 1, subnormal results and arguments), NumPy's
special values, and the same bits from every way the table is read: scalar
code (a call of pyhalide_exp_f64), the loop vectorizer's vector versions,
explicit vectors of 4, 8, 12 and 16 lanes (permutes on AVX-512), and row
loads per lane (targets x86-64-avx2 and generic)."""
import decimal
import math

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.lowering import codegen_explog as E
from pyhalide.lowering.jit import JitOptions, compile_pipeline
from pyhalide.lowering.target import check_runs_on_host, host_target, parse_target
from tests.backend.backend_util import BufferArg, i32, var
from tests.backend.test_vector_math import ulp_errors

NUMPY = {"exp": np.exp, "log": np.log}


def _runs(target: str) -> bool:
    try:
        check_runs_on_host(parse_target(target))
    except RuntimeError:
        return False
    return True


def compute(name, x, lanes, *, vectorizers=False, target=None):
    """name(x) by the compiled code, `lanes` at a time (1 with `vectorizers`
    off: scalar code; on: LLVM's loop vectorizer decides), in x's float type."""
    n = len(x)
    x = np.concatenate([x, np.ones(-n % 48, x.dtype)])
    out = np.zeros_like(x)
    ft = ir.Type.from_numpy(x.dtype)
    t = ft.with_lanes(lanes)
    v = var("x")
    idx = v if lanes == 1 else ir.Ramp(ir.Mul(v, i32(lanes)), i32(1), lanes)
    stmt = ir.For("x", i32(0), i32(len(x) // lanes), "serial",
                  ir.Store("o", ir.Call(t, name, (ir.Load(t, "a", idx),), ir.INTRINSIC), idx))
    opts = {} if vectorizers else dict(loop_vectorization=False, slp_vectorization=False)
    bargs = [BufferArg("a", ft, 1, False), BufferArg("o", ft, 1, True)]
    k = compile_pipeline(stmt, f"explog_{name}{lanes}", bargs, [], target=target,
                         options=JitOptions(**opts))
    k([x, out], [])
    return out[:n]


def test_exp_table_is_two_to_the_j_over_16():
    hi, tail = E.exp_table()
    assert len(hi) == len(tail) == E.EXP_N == E.TABLE_N
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        for j in range(E.EXP_N):
            exact = (decimal.Decimal(2).ln() * j / E.EXP_N).exp()
            assert hi[j] == float(exact)
            # T (1 + t) within 2^-100 relative of 2^(j/16)
            got = decimal.Decimal(hi[j]) * (1 + decimal.Decimal(tail[j]))
            assert abs(got - exact) <= exact * decimal.Decimal(2) ** -100, j


def test_log_table_entries_cover_their_intervals():
    """|z invc - 1| < LOG_R on every interval; L + L_lo within 2^-80 relative
    of -log(invc); entry LOG_ONE (invc = 1, L = 0) holds 1 inside; the
    intervals tile [a, 2a)."""
    invcs, his, los = E.log_table()
    assert len(invcs) == E.LOG_N == E.TABLE_N
    assert E.log_interval(0)[0] == E.log_interval(E.LOG_N - 1)[1] / 2
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        for i in range(E.LOG_N):
            lo, hi = E.log_interval(i)
            invc, L = invcs[i], his[i]
            r = max(abs(lo * invc - 1), abs(hi * invc - 1))
            assert r < E.LOG_R, i
            exact = -decimal.Decimal(invc).ln()
            if i == E.LOG_ONE:
                assert (invc, L, los[i]) == (1.0, 0.0, 0.0) and lo < 1 < hi
            else:
                got = decimal.Decimal(L) + decimal.Decimal(los[i])
                assert abs(got - exact) <= abs(exact) * decimal.Decimal(2) ** -80, i
                assert L % 2.0 ** -32 == 0, i
                # the Fast2Sum of L and r needs |L| >= |r| where k = 0
                assert abs(L) >= r, i


def test_polynomials_within_their_stated_error():
    """exp(r) = 1 + r + r^2 P(r) within 2^-63 relative on |r| <= ln2/32 and
    log1p(r) = r - r^2/2 + r^3 Q(r) within 2^-61 on |r| <= LOG_R (mpmath)."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workprec(160):
        for k in range(-200, 201):
            r = mpmath.mpf(k) / 200 * (math.log(2) / 32) * (1 + 2 ** -20)
            p = sum(mpmath.mpf(c) * r ** i for i, c in enumerate(E.EXP_POLY))
            assert abs(1 + r + r * r * p - mpmath.exp(r)) < mpmath.exp(r) * 2.0 ** -63, k
            r = mpmath.mpf(k) / 200 * E.LOG_R
            if k:
                q = sum(mpmath.mpf(c) * r ** i for i, c in enumerate(E.LOG_POLY))
                exact = mpmath.log1p(r)
                assert abs(r - r * r / 2 + r ** 3 * q - exact) < abs(exact) * 2.0 ** -61, k


def _delicate():
    rng = np.random.default_rng(16)
    n = 400
    step = math.log(2) / E.EXP_N
    k = rng.integers(int(-745 / step), int(709.7 / step), n)
    exp_args = np.concatenate([
        rng.uniform(-745.2, 709.8, n), rng.uniform(-1, 1, n), rng.uniform(-745.2, -708, n),
        (k + 0.5) * step, (k + 0.4999999) * step, k * step,          # interval ends
        rng.uniform(709, 709.78, n), rng.uniform(-1e-3, 1e-3, n)])
    ends = np.array([E.log_interval(i)[0] for i in range(E.LOG_N)])
    ends = np.concatenate([ends, np.nextafter(ends, 0), np.nextafter(ends, 2)])
    log_args = np.concatenate([
        2.0 ** rng.uniform(-1074, 1024, n), rng.uniform(0.5, 2, n),
        1 + rng.uniform(-2e-2, 2e-2, n), 1 + rng.uniform(-1e-6, 1e-6, n),
        ends * 2.0 ** rng.integers(-30, 30, len(ends)), ends,
        2.0 ** rng.uniform(-1074, -1022, n), np.nextafter(1.0, [0.0, 2.0])])
    return {"exp": exp_args, "log": log_args}


@pytest.mark.parametrize("name", ["exp", "log"])
def test_within_the_stated_error(name):
    """Below 0.55 ulp on normal results (exp's subnormal results: 0.76)."""
    x = _delicate()[name]
    got = compute(name, x, 8)
    with np.errstate(all="ignore"):
        want = NUMPY[name](x)
        err = ulp_errors(name, x, got)
    sub = np.abs(want) < 2.0 ** -1022
    limit = np.where(sub, 0.76, 0.55)
    worst = int(np.argmax(err - limit))
    assert (err < limit).all(), (name, x[worst], got[worst], err[worst])


def _specials():
    fi = np.finfo(np.float64)
    return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, fi.tiny,
                     fi.smallest_subnormal, -fi.smallest_subnormal, fi.max, -fi.max,
                     709.782712893384, 709.7827128933841, 710.0, -745.1332191019411,
                     -745.1332191019412, -746.0, 1e-320, 2.0, 0.5])


@pytest.mark.parametrize("name", ["exp", "log"])
def test_special_values_are_numpys(name):
    x = _specials()
    got = compute(name, x, 8)
    with np.errstate(all="ignore"):
        want = NUMPY[name](x)
    for g, w, xi in zip(got, want, x):
        assert np.isnan(g) == np.isnan(w), (xi, g, w)
        if not np.isnan(w):
            assert (np.isinf(g), g == 0, np.signbit(g)) == (np.isinf(w), w == 0, np.signbit(w)), \
                (xi, g, w)
    if name == "exp":
        assert got[x == 0.0].tolist() == [1.0, 1.0] and got[x == 1.0][0] == math.e
    else:               # log(1) = +0, log(2) = ln 2 rounded
        assert got[x == 1.0].tolist() == [0.0] and not np.signbit(got[x == 1.0]).any()
        assert got[x == 2.0][0] == math.log(2.0)


@pytest.mark.parametrize("name, dt", [("exp", np.float64), ("log", np.float64),
                                      ("log", np.float32)])
def test_every_way_of_reading_the_table_gives_the_same_bits(name, dt):
    """(float32 log reads log's table too.)"""
    with np.errstate(all="ignore"):
        x = np.concatenate([_delicate()[name][::3], _specials()]).astype(dt)
    scalar = compute(name, x, 1)
    ways = {f"{lanes} lanes": dict(lanes=lanes) for lanes in (4, 8, 12, 16)}
    ways["loop vectorizer"] = dict(lanes=1, vectorizers=True)
    if _runs("x86-64-avx2"):
        ways["avx2 rows"] = dict(lanes=8, target="x86-64-avx2")
    ways["generic 4 lanes"] = dict(lanes=4, target="generic")
    for way, kw in ways.items():
        same = scalar.tobytes() == compute(name, x, **kw).tobytes()
        if same:
            continue
        same = scalar.view(f"i{x.itemsize}") == compute(name, x, **kw).view(f"i{x.itemsize}")
        assert same.all(), (name, way, x[~same][:4])


def test_avx512_modules_read_the_table_with_permutes():
    """On an AVX-512 host the vector versions permute (no gather), and a scalar
    is a call of the function whose vector versions the vectorizer may use;
    for AVX2 they load rows."""
    if "+avx512f" not in host_target().features.split(","):
        pytest.skip("the host has no AVX-512F")
    from pyhalide.lowering.codegen_llvm import codegen
    t = ir.Float(64)
    v = var("x")
    stmt = ir.For("x", i32(0), i32(64), "serial", ir.Store(
        "o", ir.Call(t, "log", (ir.Call(t, "exp", (ir.Load(t, "a", v),), ir.INTRINSIC),),
                     ir.INTRINSIC), v))
    bufs = [BufferArg("a", t, 1, False), BufferArg("o", t, 1, True)]
    text = str(codegen(stmt, "k", bufs, [], features=host_target().features).module)
    assert "vpermi2var.pd.512" in text and "masked.gather" not in text
    assert "pyhalide_exp_v8f64" in text and "pyhalide_log_v4f64" in text
    # elsewhere the vector versions load each lane's row of the fields
    text = str(codegen(stmt, "k", bufs, [], features="+avx2,+fma").module)
    assert "vpermi2var" not in text and "masked.gather" not in text
    assert "pyhalide_exp_v4f64" in text and "exp_hi+pyhalide.exp_tail.rows" in text


@pytest.mark.slow
@pytest.mark.parametrize("name", ["exp", "log"])
def test_many_random_arguments_within_the_stated_error(name):
    """100,000 arguments over the whole range (log: every binade, subnormals
    included) against mpmath; docs' measurement used 1.2 million."""
    mpmath = pytest.importorskip("mpmath")
    rng = np.random.default_rng(17)
    n = 100_000
    if name == "exp":
        x = np.concatenate([rng.uniform(-745.2, 709.8, n // 2), rng.uniform(-1, 1, n // 2)])
    else:
        x = np.concatenate([2.0 ** rng.uniform(-1074, 1024, n // 2),
                            1 + rng.uniform(-0.05, 0.05, n // 2)])
    got = compute(name, x, 8)
    fn = getattr(mpmath, name)
    worst = 0.0
    with mpmath.workprec(120):
        for xi, gi in zip(x.tolist(), got.tolist()):
            e = fn(mpmath.mpf(xi))
            fe = float(e)
            if fe == 0 or math.isinf(fe):
                assert gi == fe, (xi, gi)
                continue
            err = float(abs(mpmath.mpf(gi) - e) / float(np.spacing(abs(fe))))
            worst = max(worst, err if abs(fe) >= 2.0 ** -1022 else err * 0.55 / 0.76)
    assert worst < 0.55, (name, worst)


def _nan_args(dt):
    snan = np.array([0x7FF0000000000001], np.uint64).view(np.float64)
    with np.errstate(all="ignore"):
        return np.concatenate([[-1.0, -np.inf, -1e-300, 0.0, -0.0, np.inf, -2.0],
                               [np.nan, -np.nan], snan]).astype(dt)


def _numpys_nans(name, x):
    """NumPy's `name` of x by its SIMD loops (16 copies of each)."""
    with np.errstate(all="ignore"):
        return getattr(np, name)(np.repeat(x, 16)).reshape(len(x), 16)[:, 0]


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_log_nans_are_numpys_bit_for_bit(dt):
    """x < 0 and -inf give the NaN NumPy's log gives on this host (x86's
    default NaN, sign bit set, with AVX-512F; +NaN from float64 log on an AVX2
    host: lowering/numpy_nans.py measures it), a NaN argument comes back
    quieted (float32: 0x7fc00000, NumPy's float32 log drops a NaN's sign), as
    NumPy's log; scalar and vector code alike."""
    u = f"u{np.dtype(dt).itemsize}"
    x = _nan_args(dt)
    want = _numpys_nans("log", x)
    for lanes in (1, 8):
        got = compute("log", x, lanes)
        assert (got.view(u) == want.view(u)).all(), (lanes, got.view(u), want.view(u))


@pytest.mark.parametrize("name", ["log2", "log10", "log1p"])
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_other_logs_nans_are_numpys_bit_for_bit(name, dt):
    """log2, log10, log1p: their NaNs (x < 0, -inf, log1p's x < -1, NaN
    arguments) are NumPy's bits on this host (they differ by function and
    width on an AVX2 host: float32 log10 of x < 0 is +NaN, float32 log2 and
    log10 keep a NaN argument's sign; lowering/numpy_nans.py)."""
    u = f"u{np.dtype(dt).itemsize}"
    x = _nan_args(dt)
    want = _numpys_nans(name, x)
    got = compute(name, x, 8)
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), (name, x, got, want)
    assert (got.view(u)[nan] == want.view(u)[nan]).all(), \
        (name, x[nan], got.view(u)[nan], want.view(u)[nan])
