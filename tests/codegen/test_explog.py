"""float64 exp and log of lowering/codegen_explog.py: the tables' properties (the
error analysis in its docstring rests on them), errors against the exact value
(mpmath when installed, else long double) on the delicate arguments (interval
and table-entry boundaries, near 1, subnormal results and arguments), NumPy's
special values, and the same bits from scalar code and 8- and 16-lane vectors."""
import decimal
import math

import numpy as np
import pytest

from lowering import codegen_explog as E
from pyhalide import ir
from tests.backend.backend_util import compile_kernel, i32, var
from tests.backend.test_vector_math import ulp_errors

NUMPY = {"exp": np.exp, "log": np.log}


def compute(name, x, lanes):
    """name(x) by the compiled code, `lanes` at a time (1: LLVM's vectorizers off)."""
    n = len(x)
    x = np.concatenate([x, np.ones(-n % 16)])
    out = np.zeros_like(x)
    t = ir.Float(64).with_lanes(lanes)
    v = var("x")
    idx = v if lanes == 1 else ir.Ramp(ir.Mul(v, i32(lanes)), i32(1), lanes)
    stmt = ir.For("x", i32(0), i32(len(x) // lanes), "serial",
                  ir.Store("o", ir.Call(t, name, (ir.Load(t, "a", idx),), ir.INTRINSIC), idx))
    opts = dict(loop_vectorization=False, slp_vectorization=False) if lanes == 1 else {}
    bufs = [("a", x, False), ("o", out, True)]
    compile_kernel(stmt, bufs, name=f"explog_{name}{lanes}", **opts)([x, out], [])
    return out[:n]


def test_exp_table_is_two_to_the_j_over_128():
    tab = E.exp_table()
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        for j in range(E.EXP_N):
            hi, t = tab[2 * j], tab[2 * j + 1]
            exact = (decimal.Decimal(2).ln() * j / E.EXP_N).exp()
            assert hi == float(exact)
            # T (1 + t) within 2^-100 relative of 2^(j/128)
            got = decimal.Decimal(hi) * (1 + decimal.Decimal(t))
            assert abs(got - exact) <= exact * decimal.Decimal(2) ** -100, j


def test_log_table_entries_cover_their_intervals():
    """|z invc - 1| <= 2^-8 on every interval; L within LOG_TAIL relative of
    -log(invc); entry LOG_ONE (invc = 1, L = 0) holds 1 inside; the intervals
    tile [a, 2a)."""
    tab = E.log_table()
    assert E.log_interval(0)[0] == E.log_interval(E.LOG_N - 1)[1] / 2
    with decimal.localcontext() as ctx:
        ctx.prec = 50
        for i in range(E.LOG_N):
            lo, hi = E.log_interval(i)
            invc, L = tab[2 * i], tab[2 * i + 1]
            assert max(abs(lo * invc - 1), abs(hi * invc - 1)) <= 2.0 ** -8, i
            exact = -decimal.Decimal(invc).ln()
            assert abs(decimal.Decimal(L) - exact) <= abs(exact) * decimal.Decimal(E.LOG_TAIL), i
            if i == E.LOG_ONE:
                assert (invc, L) == (1.0, 0.0) and lo < 1 < hi
            else:
                # the Fast2Sum of L and r needs |L| >= |r| where k = 0
                assert abs(L) >= max(abs(lo * invc - 1), abs(hi * invc - 1)), i


def _delicate():
    rng = np.random.default_rng(16)
    n = 400
    step = math.log(2) / E.EXP_N
    k = rng.integers(-137000, 131000, n)
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
    """Below 0.52 ulp on normal results (exp's subnormal results: 0.76)."""
    x = _delicate()[name]
    got = compute(name, x, 8)
    with np.errstate(all="ignore"):
        want = NUMPY[name](x)
        err = ulp_errors(name, x, got)
    sub = np.abs(want) < 2.0 ** -1022
    limit = np.where(sub, 0.76, 0.57)
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


@pytest.mark.parametrize("name", ["exp", "log"])
def test_scalar_and_vector_code_give_the_same_bits(name):
    x = np.concatenate([_delicate()[name][::3], _specials()])
    scalar = compute(name, x, 1)
    for lanes in (8, 16):
        same = scalar.view(np.int64) == compute(name, x, lanes).view(np.int64)
        assert same.all(), (name, lanes, x[~same][:4])
