"""exp, log, tanh, expm1 and log1p of lowering/codegen_math.py: within 1 ulp of the exact value
(mpmath when installed, else long double, whose error is a thousandth of a float64
ulp), NumPy's special values, and the same bits from the scalar code (LLVM's
vectorizers off) and from vectors of 4, 8 and 16 lanes."""
import math

import numpy as np
import pytest

import pyhalide as ph

try:
    import mpmath
except ImportError:                     # not in the CI's environment
    mpmath = None

from pyhalide import ir
from pyhalide.lowering.jit import generate_text
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import compile_kernel, i32, var

NAMES = ("exp", "log", "tanh", "expm1", "log1p")
NUMPY = {"exp": np.exp, "log": np.log, "tanh": np.tanh, "expm1": np.expm1, "log1p": np.log1p}
ARGS = ("a", "b", "c", "d", "e")        # the argument arrays of NAMES
LONG_DOUBLE_OK = np.finfo(np.longdouble).nmant >= 63


def _stmt(dt, lanes, n):
    """out_<name>[x] = name(<arg>[x]) for the functions, `lanes` at a time."""
    t = ir.Type.from_numpy(np.dtype(dt)).with_lanes(lanes)
    x = var("x")
    idx = x if lanes == 1 else ir.Ramp(ir.Mul(x, i32(lanes)), i32(1), lanes)
    stores = [ir.Store(f"out_{nm}", ir.Call(t, nm, (ir.Load(t, arg, idx),), ir.INTRINSIC), idx)
              for nm, arg in zip(NAMES, ARGS)]
    return ir.For("x", i32(0), i32(n // lanes), "serial", ir.block(*stores))


def compute(dt, lanes, args):
    """{name: result} of the functions on `args` (arrays of one length,
    a multiple of 16); lanes 1 runs with LLVM's vectorizers off (the scalar code)."""
    n = len(args[0])
    outs = {nm: np.zeros(n, dt) for nm in NAMES}
    bufs = [(arg, np.ascontiguousarray(a, dt), False) for arg, a in zip(ARGS, args)]
    bufs += [(f"out_{nm}", outs[nm], True) for nm in NAMES]
    opts = dict(loop_vectorization=False, slp_vectorization=False) if lanes == 1 else {}
    k = compile_kernel(_stmt(dt, lanes, n), bufs, name=f"vmath{lanes}", **opts)
    k([a for _, a, _ in bufs], [])
    return outs


def _pad16(a):
    return np.concatenate([a, np.ones(-len(a) % 16)])


def _arguments(rng, dt, n):
    """Arguments over each function's whole range and its delicate parts."""
    if dt == np.float64:
        a = [rng.uniform(-745.2, 709.8, n), rng.uniform(-1, 1, n), rng.uniform(-745.2, -708, n)]
        b = [2.0 ** rng.uniform(-1074, 1024, n), rng.uniform(0.5, 2, n),
             1 + rng.uniform(-1e-6, 1e-6, n)]
    else:
        a = [rng.uniform(-103.9, 88.7, n), rng.uniform(-1, 1, n), rng.uniform(-103.9, -87, n)]
        b = [2.0 ** rng.uniform(-149, 128, n), rng.uniform(0.5, 2, n),
             1 + rng.uniform(-1e-4, 1e-4, n)]
    c = [rng.uniform(-1, 1, n), rng.uniform(-20, 20, n), rng.uniform(0.25, 0.35, n),
         rng.uniform(-1e-5, 1e-5, n)]
    top = 709.7 if dt == np.float64 else 88.7
    d = [rng.uniform(-1, 1, n), rng.uniform(-40, top, n), rng.uniform(-1e-3, 1e-3, n),
         rng.uniform(-1e-9, 1e-9, n)]
    e = [rng.uniform(-0.999, 1, n), 2.0 ** rng.uniform(-30, 120, n), rng.uniform(-1e-3, 1e-3, n),
         -1 + 2.0 ** rng.uniform(-20, -1, n)]
    vals = [np.concatenate(v).astype(dt) for v in (a, b, c, d, e)]
    m = min(len(v) for v in vals)
    return [_pad16(v[:m]).astype(dt) for v in vals]


def ulp_errors(name, x, got):
    """|got - name(x)| in ulps of the exact value's binade (in got's type)."""
    dt = got.dtype.type
    if mpmath is None:
        if not LONG_DOUBLE_OK:
            pytest.skip("neither mpmath nor an 80-bit long double for the exact values")
        ld = np.longdouble
        exact = getattr(np, name)(x.astype(ld))
        spacing = np.spacing(np.abs(exact.astype(np.float64)).astype(dt)).astype(ld)
        return np.asarray(np.abs(got.astype(ld) - exact) / spacing, np.float64)
    fn = getattr(mpmath, name)
    errs = []
    with mpmath.workprec(160):
        for xi, gi in zip(x.tolist(), got.tolist()):
            e = fn(mpmath.mpf(xi))
            sp = float(np.spacing(dt(abs(float(e)))))
            errs.append(float(abs(mpmath.mpf(gi) - e) / sp))
    return np.array(errs)


@pytest.mark.parametrize("dt", [np.float64, np.float32], ids=["f64", "f32"])
def test_within_one_ulp_of_the_exact_value(dt):
    rng = np.random.default_rng(16)
    args = _arguments(rng, dt, 700)
    res = compute(dt, 8, args)
    for nm, x in zip(NAMES, args):
        with np.errstate(over="ignore", under="ignore"):
            err = ulp_errors(nm, x, res[nm])
        worst = int(np.argmax(err))
        assert err[worst] < 1.0, (nm, x[worst], res[nm][worst], err[worst])


def _specials(dt):
    fi = np.finfo(dt)
    common = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, float(fi.tiny),
              float(fi.smallest_subnormal), -float(fi.smallest_subnormal), float(fi.max),
              -float(fi.max), 0.3, -0.3, float(np.nextafter(dt(0.3), dt(0))), 19.0, 20.0,
              -20.0, 20.5, 400.0, -400.0, 1e-300 if dt == np.float64 else 1e-40]
    if dt == np.float64:
        common += [709.782712893384, 709.7827128933841, 709.79, 710.0, -745.1332191019411,
                   -745.1332191019412, -745.2, -746.0, -708.3964185322641, -708.4, 1e-320]
    else:
        common += [88.72283, 88.72284, 88.8, -103.97208, -103.97209, -104.0, -87.33655,
                   -87.4, 1e-44]
    return _pad16(np.array(common, np.float64)).astype(dt)


@pytest.mark.parametrize("dt", [np.float64, np.float32], ids=["f64", "f32"])
def test_special_values_are_numpys(dt):
    x = _specials(dt)
    res = compute(dt, 8, [x] * len(NAMES))
    for nm in NAMES:
        with np.errstate(all="ignore"):
            want = NUMPY[nm](x)
        got = res[nm]
        for g, w, xi in zip(got, want, x):
            assert np.isnan(g) == np.isnan(w), (nm, xi, g, w)
            if np.isnan(w):
                continue
            assert (np.isinf(g), g == 0, np.signbit(g)) == (np.isinf(w), w == 0, np.signbit(w)), \
                (nm, xi, g, w)
        fin = np.isfinite(want) & (want != 0)
        with np.errstate(all="ignore"):
            err = ulp_errors(nm, x[fin], got[fin])
        assert err.max() < 1.0, (nm, x[fin][np.argmax(err)])
    exact = res["exp"][x == 0], res["log"][x == 1], res["tanh"][np.isinf(x)]
    assert exact[0].tolist() == [1.0, 1.0] and exact[1].tolist() == [0.0] * len(exact[1])
    assert not np.signbit(exact[1]).any() and sorted(exact[2].tolist()) == [-1.0, 1.0]
    for nm in ("expm1", "log1p"):           # x itself at +-0 and tiny x
        tiny = (np.abs(x) < 1e-30) & ~np.isnan(x)
        assert np.array_equal(res[nm][tiny].view(np.uint8), x[tiny].view(np.uint8)), nm


@pytest.mark.parametrize("dt", [np.float64, np.float32], ids=["f64", "f32"])
def test_scalar_and_vector_code_give_the_same_bits(dt):
    rng = np.random.default_rng(5)
    args = _arguments(rng, dt, 200)
    spec = _specials(dt)
    args = [np.concatenate([a, spec]) for a in args]
    scalar = compute(dt, 1, args)
    for lanes in (4, 8, 16):
        vec = compute(dt, lanes, args)
        for nm in NAMES:
            it = np.int64 if dt == np.float64 else np.int32
            same = scalar[nm].view(it) == vec[nm].view(it)
            assert same.all(), (nm, lanes, args[NAMES.index(nm)][~same][:4])


def test_no_libm_call_in_the_vector_loop():
    """The functions are inline code: the optimized IR of a vector loop calls no
    exp/log/tanh (LLVM would scalarize such a call, one per lane)."""
    stmt = _stmt(np.float64, 8, 64)
    bufs = [BufferArg(arg, ir.Float(64), 1, False) for arg in ARGS]
    bufs += [BufferArg(f"out_{nm}", ir.Float(64), 1, True) for nm in NAMES]
    text = generate_text(stmt, "vm", bufs, [], stage="llvm_opt")
    assert "<8 x double>" in text
    for nm in NAMES:
        assert f"@{nm}(" not in text and f"@llvm.{nm}." not in text, nm


def test_pipeline_results_do_not_depend_on_the_schedule():
    """suite 4's exp/log/tanh chain: the default schedule (LLVM's vectorizer, scalar
    tails: 1003 columns), 8-lane vectors in parallel rows and the NumPy code agree;
    the two schedules bit for bit, NumPy within a few ulp of the result's scale."""
    import pyhalide as ph
    from pyhalide.bench import suite4_kernels as K
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-3, 3, (5, 1003)), rng.uniform(-3, 3, (5, 1003))
    default = ph.pipeline(K.chain_transc)(a, b)
    scheduled = ph.pipeline(K.chain_transc, schedule=K.sched_elementwise)(a, b)
    assert np.array_equal(default.view(np.int64), scheduled.view(np.int64))
    want = K.chain_transc(a, b)
    assert np.abs(default - want).max() <= 8 * np.spacing(np.abs(want).max())


@ph.pipeline
def scalar_expm1(x):
    return math.expm1(x)


@ph.pipeline
def scalar_log1p(x):
    return math.log1p(x)


@pytest.mark.parametrize("p, fn", [(scalar_expm1, math.expm1), (scalar_log1p, math.log1p)],
                         ids=["expm1", "log1p"])
def test_math_expm1_and_log1p_on_scalars_are_cpythons(p, fn):
    """CPython's errors (OverflowError, ValueError for log1p(x <= -1)), its values at
    the special points exactly, elsewhere within 1 ulp (both within 1 ulp of exact)."""
    for x in (0.0, -0.0, 5e-324, -1e-300, 1e-17, 0.5, -0.5, 0.3466, 1.0, -1.0, -1.5, 3.0, -40.0,
              -800.0, 709.78, 709.79, 1e300, math.inf, -math.inf, math.nan):
        try:
            want = fn(x)
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e)):
                p(x)
            continue
        got = p(x)
        assert type(got) is float, (x, got)
        if math.isnan(want) or math.isinf(want) or abs(want) in (0.0, 1.0) or abs(x) < 1e-16:
            assert got == want or (math.isnan(got) and math.isnan(want)), (x, got, want)
            assert math.copysign(1, got) == math.copysign(1, want), (x, got, want)
        else:
            assert abs(got - want) <= math.ulp(want), (x, got, want)
