"""Operators, casts and intrinsics of the reference evaluator against
element-by-element Python computations (Python ints wrapped by hand,
Python floats rounded once to float32)."""
import itertools
import math

import numpy as np
import pytest

from pyhalide import ir

INT_TYPES = [ir.Int(b) for b in (8, 16, 32, 64)] + [ir.UInt(b) for b in (8, 16, 32, 64)]


def wrap(v, t):
    v &= (1 << t.bits) - 1
    if t.is_int() and v >> (t.bits - 1):
        v -= 1 << t.bits
    return v


def edge_values(t):
    lo, hi = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.is_int() else (0, (1 << t.bits) - 1)
    vals = [lo, lo + 1, -7, -2, -1, 0, 1, 2, 3, 7, hi - 1, hi]
    return [v for v in vals if lo <= v <= hi]


def operand_pairs(t, seed=0):
    """Every pair of edge values plus random pairs, as two arrays of t."""
    dt = t.to_numpy()
    edges = edge_values(t)
    pairs = list(itertools.product(edges, edges))
    rng = np.random.default_rng(seed)
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, 200, dtype=dt, endpoint=True)
    b = rng.integers(info.min, info.max, 200, dtype=dt, endpoint=True)
    small = rng.integers(-9 if t.is_int() else 0, 10, 200).astype(dt)
    a_all = np.concatenate([np.array([p[0] for p in pairs], dt), a, a])
    b_all = np.concatenate([np.array([p[1] for p in pairs], dt), b, small])
    return a_all, b_all


def apply_binary(hb, cls, t, a, b, result_type=None):
    """f(x) = cls(a(x), b(x)) over the inputs' range."""
    x = hb.var("x")
    f = hb.func("f", ["x"], cls(hb.image("a", t, [x]), hb.image("b", t, [x])))
    return hb.run(f, f, [(0, len(a))], {"a": a, "b": b})[0]


def euclid_div(a, b):
    if b == 0:
        return 0, 0
    q = a // b if b > 0 else -((-a) // b)
    return q, a - q * b


PY_INT_OPS = {
    ir.Add: lambda a, b: a + b,
    ir.Sub: lambda a, b: a - b,
    ir.Mul: lambda a, b: a * b,
    ir.Div: lambda a, b: euclid_div(a, b)[0],
    ir.Mod: lambda a, b: euclid_div(a, b)[1],
    ir.Min: min,
    ir.Max: max,
    ir.BitAnd: lambda a, b: a & b,
    ir.BitOr: lambda a, b: a | b,
    ir.BitXor: lambda a, b: a ^ b,
}


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
@pytest.mark.parametrize("cls", list(PY_INT_OPS), ids=lambda c: c.__name__)
def test_integer_arithmetic_wraps_and_divides_euclidean(hb, t, cls):
    a, b = operand_pairs(t)
    got = apply_binary(hb, cls, t, a, b)
    assert got.dtype == t.to_numpy()
    want = [wrap(PY_INT_OPS[cls](int(p), int(q)), t) for p, q in zip(a, b)]
    assert got.tolist() == want


def test_euclidean_examples(hb):
    t = ir.Int(32)
    a = np.array([7, -7, 7, -7, 5, -2**31, -2**31, 3], np.int32)
    b = np.array([2, 2, -2, -2, 0, -1, 0, -3], np.int32)
    assert apply_binary(hb, ir.Div, t, a, b).tolist() == [3, -4, -3, 4, 0, -2**31, 0, -1]
    assert apply_binary(hb, ir.Mod, t, a, b).tolist() == [1, 1, 1, 1, 0, 0, 0, 0]


def shift_amounts(t):
    amounts = [0, 1, 2, t.bits - 1, t.bits, t.bits + 1, 2 * t.bits, -1, -t.bits]
    hi = (1 << (t.bits - 1)) - 1 if t.is_int() else (1 << t.bits) - 1
    lo = -(hi + 1) if t.is_int() else 0
    return [v for v in amounts if lo <= v <= hi]


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_shifts(hb, t):
    values = edge_values(t)
    pairs = list(itertools.product(values, shift_amounts(t)))
    a = np.array([p[0] for p in pairs], t.to_numpy())
    b = np.array([p[1] for p in pairs], t.to_numpy())
    mask = (1 << t.bits) - 1

    def shl(v, n):
        n &= mask                       # the amount reads as unsigned
        return 0 if n >= t.bits else wrap(v << n, t)

    def shr(v, n):
        n &= mask
        if n >= t.bits:
            return -1 if v < 0 else 0
        return v >> n

    assert apply_binary(hb, ir.Shl, t, a, b).tolist() == [shl(int(p), int(q)) for p, q in pairs]
    assert apply_binary(hb, ir.Shr, t, a, b).tolist() == [shr(int(p), int(q)) for p, q in pairs]


@pytest.mark.parametrize("t", INT_TYPES + [ir.Float(32), ir.Float(64)], ids=str)
def test_comparisons(hb, t):
    if t.is_float():
        vals = [-np.inf, -1.5, -0.0, 0.0, 1.5, np.inf, np.nan]
        pairs = list(itertools.product(vals, vals))
        a = np.array([p[0] for p in pairs], t.to_numpy())
        b = np.array([p[1] for p in pairs], t.to_numpy())
    else:
        a, b = operand_pairs(t)
    ops = {ir.EQ: lambda p, q: p == q, ir.NE: lambda p, q: p != q, ir.LT: lambda p, q: p < q,
           ir.LE: lambda p, q: p <= q, ir.GT: lambda p, q: p > q, ir.GE: lambda p, q: p >= q}
    conv = float if t.is_float() else int
    for cls, fn in ops.items():
        got = apply_binary(hb, cls, t, a, b)
        assert got.dtype == np.bool_
        assert got.tolist() == [fn(conv(p), conv(q)) for p, q in zip(a, b)], cls.__name__


def f32(v):
    with np.errstate(over="ignore"):
        return float(np.float32(v))


FLOAT_VALUES = [-np.inf, -1e30, -3.5, -1.0, -1e-30, -0.0, 0.0, 1e-45, 0.1, 1.0, 2.5, 3.0,
                7.25, 1e30, np.inf, np.nan]


def same_float(got, want):
    """Bit-exact float comparison (NaN equals NaN, -0.0 differs from 0.0)."""
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("t", [ir.Float(32), ir.Float(64)], ids=str)
def test_float_arithmetic(hb, t):
    pairs = list(itertools.product(FLOAT_VALUES, FLOAT_VALUES))
    rng = np.random.default_rng(1)
    pairs += [tuple(p) for p in rng.standard_normal((300, 2)) * 1e3]
    dt = t.to_numpy()
    a = np.array([p[0] for p in pairs], dt)
    b = np.array([p[1] for p in pairs], dt)
    rnd = f32 if t.bits == 32 else float

    def div(p, q):
        if q == 0:
            if p == 0 or math.isnan(p):
                return math.nan
            return math.copysign(math.inf, p) * math.copysign(1, q)
        return p / q

    def mod(p, q):
        # a - b*floor(a/b), each step rounded to the type
        return rnd(p - rnd(q * math.floor(rnd(div(p, q))))) if math.isfinite(rnd(div(p, q))) \
            else rnd(p - rnd(q * rnd(div(p, q))))

    def ieee(fn):
        def g(p, q):
            try:
                return fn(p, q)
            except (OverflowError, ValueError):
                return math.nan
        return g

    ops = {
        ir.Add: lambda p, q: rnd(p + q),
        ir.Sub: lambda p, q: rnd(p - q),
        ir.Mul: lambda p, q: rnd(p * q),
        ir.Div: lambda p, q: rnd(div(p, q)),
        ir.Min: lambda p, q: p if p < q else q,
        ir.Max: lambda p, q: p if p > q else q,
    }
    for cls, fn in ops.items():
        got = apply_binary(hb, cls, t, a, b)
        assert got.dtype == dt
        for p, q, g in zip(a.tolist(), b.tolist(), got.tolist()):
            want = fn(p, q)
            if math.isnan(want) and cls in (ir.Add, ir.Sub, ir.Mul):
                assert math.isnan(g)
            else:
                assert same_float(g, want), (cls.__name__, p, q, g, want)
    # Mod on finite operands with a nonzero divisor.
    finite = [(p, q) for p, q in zip(a.tolist(), b.tolist())
              if math.isfinite(p) and math.isfinite(q) and q != 0 and abs(p / q) < 1e6]
    fa = np.array([p for p, _ in finite], dt)
    fb = np.array([q for _, q in finite], dt)
    got = apply_binary(hb, ir.Mod, t, fa, fb)
    for p, q, g in zip(fa.tolist(), fb.tolist(), got.tolist()):
        assert g == ieee(mod)(p, q), (p, q, g)


def test_float32_is_not_computed_in_float64(hb):
    # (a + b) - a in float32 loses b's low bits; float64 intermediates would not.
    t = ir.Float(32)
    x = hb.var("x")
    a, b = hb.image("a", t, [x]), hb.image("b", t, [x])
    f = hb.func("f", ["x"], ir.Sub(ir.Add(a, b), a))
    got = hb.run(f, f, [(0, 1)], {"a": np.array([1e8], np.float32),
                                   "b": np.array([1.25], np.float32)})[0]
    assert got.tolist() == [f32(f32(1e8 + 1.25) - 1e8)] and got[0] != 1.25


def test_logical_ops_and_select(hb):
    t = ir.Bool()
    x = hb.var("x")
    p = np.array([False, False, True, True])
    q = np.array([False, True, False, True])
    a, b = hb.image("p", t, [x]), hb.image("q", t, [x])
    iv = hb.image("v", ir.Int(16), [x])
    f = hb.func("f", ["x"], (ir.And(a, b), ir.Or(a, b), ir.Not(a), ir.BitXor(a, b), ir.BitNot(b),
                             ir.Select(a, iv, ir.Sub(ir.Const(ir.Int(16), 0), iv))))
    v = np.array([1, 2, 3, 4], np.int16)
    got = hb.run(f, f, [(0, 4)], {"p": p, "q": q, "v": v})
    assert [g.tolist() for g in got] == [
        [False, False, False, True], [False, True, True, True], [True, True, False, False],
        [False, True, True, False], [True, False, True, False], [-1, -2, 3, 4]]
    assert got[5].dtype == np.int16


def test_bitnot_integers(hb):
    x = hb.var("x")
    for t in INT_TYPES:
        vals = np.array(edge_values(t), t.to_numpy())
        f = hb.func("f", ["x"], ir.BitNot(hb.image("a", t, [x])))
        got = hb.run(f, f, [(0, len(vals))], {"a": vals})[0]
        assert got.tolist() == [wrap(~int(v), t) for v in vals]


def saturate(v, t):
    if math.isnan(v):
        return 0
    lo, hi = (-(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1) if t.is_int() else (0, (1 << t.bits) - 1)
    if math.isinf(v):
        return hi if v > 0 else lo
    return min(max(math.trunc(v), lo), hi)


def cast_column(hb, frm, to, values):
    x = hb.var("x")
    arr = np.array(values, frm.to_numpy())
    f = hb.func("f", ["x"], ir.Cast(to, hb.image("a", frm, [x])))
    got = hb.run(f, f, [(0, len(arr))], {"a": arr})[0]
    assert got.dtype == to.to_numpy()
    return arr, got


@pytest.mark.parametrize("frm", [ir.Float(32), ir.Float(64)], ids=str)
@pytest.mark.parametrize("to", INT_TYPES, ids=str)
def test_float_to_int_saturates(hb, frm, to):
    values = FLOAT_VALUES + [-0.99, 0.99, -1.5, 127.9, 128.0, 255.5, 256.0, -129.0, 32767.5,
                             65535.9, 2.0**31 - 128, 2.0**31, -2.0**31, 2.0**32, 2.0**63,
                             -2.0**63, 2.0**64, 1e20, -1e20, 12345.678]
    arr, got = cast_column(hb, frm, to, values)
    assert got.tolist() == [saturate(v, to) for v in arr.tolist()]


@pytest.mark.parametrize("frm", INT_TYPES, ids=str)
@pytest.mark.parametrize("to", INT_TYPES, ids=str)
def test_int_to_int_wraps(hb, frm, to):
    arr, got = cast_column(hb, frm, to, edge_values(frm))
    assert got.tolist() == [wrap(int(v), to) for v in arr]


def nearest_float32(v: int) -> int:
    """v rounded to float32 (nearest, ties to even), computed on integers."""
    if v == 0:
        return 0
    sign, v = (-1 if v < 0 else 1), abs(v)
    shift = max(v.bit_length() - 24, 0)
    q, r = divmod(v, 1 << shift)
    half = 1 << shift >> 1
    if shift and (r > half or (r == half and q & 1)):
        q += 1
    return sign * (q << shift)


@pytest.mark.parametrize("frm", INT_TYPES, ids=str)
def test_int_to_float_rounds_to_nearest(hb, frm):
    values = edge_values(frm)
    if frm.bits == 64:                  # would round twice via float64
        values += [2**60 + 2**36 + 1, 2**62 - 2**38 - 1] if frm.is_int() else [2**63 + 2**39 + 1]
    arr, got = cast_column(hb, frm, ir.Float(32), values)
    assert [int(g) for g in got.tolist()] == [nearest_float32(int(v)) for v in arr]
    arr, got = cast_column(hb, frm, ir.Float(64), values)
    assert got.tolist() == [float(int(v)) for v in arr]


def test_casts_with_bool_and_between_floats(hb):
    _, got = cast_column(hb, ir.Float(32), ir.Bool(), [0.0, -0.0, 0.5, np.nan, -np.inf])
    assert got.tolist() == [False, False, True, True, True]
    _, got = cast_column(hb, ir.Int(8), ir.Bool(), [0, 1, -128, 2])
    assert got.tolist() == [False, True, True, True]
    _, got = cast_column(hb, ir.Bool(), ir.Int(32), [True, False])
    assert got.tolist() == [1, 0]
    _, got = cast_column(hb, ir.Bool(), ir.Float(32), [True, False])
    assert got.tolist() == [1.0, 0.0]
    arr, got = cast_column(hb, ir.Float(64), ir.Float(32), [0.1, 1e300, -1e-300, np.nan])
    assert got.tolist()[:3] == [f32(0.1), math.inf, -0.0] and math.isnan(got[3])
    _, got = cast_column(hb, ir.Float(32), ir.Float(64), [0.1])
    assert got.tolist() == [f32(0.1)]


ROUNDING = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round}


@pytest.mark.parametrize("t", [ir.Float(32), ir.Float(64)], ids=str)
def test_exact_intrinsics(hb, t):
    vals = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4999, -3.7, 3.7, 0.0, 1e10 + 0.5, 4.0]
    x = hb.var("x")
    arr = np.array(vals, t.to_numpy())
    a = hb.image("a", t, [x])
    names = list(ROUNDING) + ["sqrt", "abs"]
    f = hb.func("f", ["x"], tuple(hb.intrinsic(n, t, a) for n in names))
    got = hb.run(f, f, [(0, len(arr))], {"a": arr})
    rnd = f32 if t.bits == 32 else float
    for name, g in zip(names, got):
        assert g.dtype == t.to_numpy()
        for v, gv in zip(arr.tolist(), g.tolist()):
            if name == "sqrt":
                want = rnd(math.sqrt(v)) if v >= 0 else math.nan
            elif name == "abs":
                want = abs(v)
            else:
                # Python's round is half to even; IEEE keeps the sign of a zero result
                want = math.copysign(float(ROUNDING[name](v)), v)
            assert same_float(gv, want) or (math.isnan(want) and math.isnan(gv)), (name, v, gv)


def test_transcendental_intrinsics(hb):
    x = hb.var("x")
    on_a = {"exp": math.exp, "sin": math.sin, "cos": math.cos, "tan": math.tan,
            "asin": math.asin, "acos": math.acos, "atan": math.atan, "sinh": math.sinh,
            "cosh": math.cosh, "tanh": math.tanh}
    on_b = {"log": math.log}                        # b > 0
    on_b_a = {"atan2": math.atan2, "pow": math.pow}
    vals = [0.1, 0.5, 0.9, -0.3, -0.75]
    for t, rtol in ((ir.Float(32), 2e-7), (ir.Float(64), 1e-15)):
        a = hb.image("a", t, [x])
        b = hb.image("b", t, [x])
        exprs = [hb.intrinsic(n, t, a) for n in on_a] + [hb.intrinsic(n, t, b) for n in on_b] + \
            [hb.intrinsic(n, t, b, a) for n in on_b_a]
        f = hb.func("f", ["x"], tuple(exprs))
        av = np.array(vals, t.to_numpy())
        bv = np.abs(av) + np.array(1, t.to_numpy())
        got = hb.run(f, f, [(0, len(vals))], {"a": av, "b": bv})
        pairs = list(zip(av.tolist(), bv.tolist()))
        wants = [[fn(p) for p, _ in pairs] for fn in on_a.values()] + \
            [[fn(q) for _, q in pairs] for fn in on_b.values()] + \
            [[fn(q, p) for p, q in pairs] for fn in on_b_a.values()]
        for name, g, want in zip(list(on_a) + list(on_b) + list(on_b_a), got, wants):
            assert g.dtype == t.to_numpy()
            np.testing.assert_allclose(g, want, rtol=rtol, err_msg=name)


def test_int_arguments_of_float_intrinsics_are_converted(hb):
    x = hb.var("x")
    f = hb.func("f", ["x"], hb.intrinsic("sqrt", ir.Float(32), hb.image("a", ir.Int(32), [x])))
    got = hb.run(f, f, [(0, 3)], {"a": np.array([4, 2, 9], np.int32)})[0]
    assert got.dtype == np.float32 and got.tolist() == [2.0, f32(math.sqrt(2)), 3.0]


@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_abs_of_integers_is_unsigned(hb, t):
    u = ir.UInt(t.bits)
    x = hb.var("x")
    arr = np.array(edge_values(t), t.to_numpy())
    f = hb.func("f", ["x"], hb.intrinsic("abs", u, hb.image("a", t, [x])))
    got = hb.run(f, f, [(0, len(arr))], {"a": arr})[0]
    assert got.dtype == u.to_numpy()
    assert got.tolist() == [abs(int(v)) for v in arr]


def test_nan_inf_classification(hb):
    x = hb.var("x")
    t = ir.Float(32)
    a = hb.image("a", t, [x])
    f = hb.func("f", ["x"], tuple(hb.intrinsic(n, ir.Bool(), a) for n in ("is_nan", "is_inf", "is_finite")))
    got = hb.run(f, f, [(0, 4)], {"a": np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)})
    assert [g.tolist() for g in got] == [[True, False, False, False], [False, True, True, False],
                                         [False, False, False, True]]


def test_let_and_shared_subexpressions(hb):
    x = hb.var("x")
    t = hb.var("t")
    shared = ir.Mul(x, x)
    body = ir.Add(ir.Let("t", ir.Add(shared, hb.const(1)), ir.Mul(t, hb.const(10))), shared)
    # A nested Let shadowing the same name.
    inner = ir.Let("t", hb.const(5), ir.Add(ir.Let("t", hb.const(7), t), t))
    f = hb.func("f", ["x"], (body, inner))
    got = hb.run(f, f, [(-2, 4)])
    assert got[0].tolist() == [(v * v + 1) * 10 + v * v for v in range(-2, 2)]
    assert got[1].tolist() == [12] * 4


def test_unsupported_intrinsic_is_an_error(hb):
    x = hb.var("x")
    f = hb.func("f", ["x"], hb.intrinsic("popcount", hb.I32, x))
    with pytest.raises(NotImplementedError, match="popcount"):
        hb.run(f, f, [(0, 2)])


@pytest.mark.parametrize("t", [ir.Int(8), ir.Int(64), ir.UInt(16), ir.UInt(64)], ids=str)
def test_wrapping_int_power(hb, t):
    """int_power (NumPy's integer power of a run-time exponent) wraps as
    NumPy's; a negative exponent is read as unsigned (the frontend raises
    NumPy's ValueError before the value is used)."""
    x = hb.var("x")
    dt = t.to_numpy()
    info = np.iinfo(dt)
    bases = [0, 1, 2, 3, 7, info.max, info.max - 1] + ([-1, -3, info.min] if info.min else [])
    exps = [0, 1, 2, 5, 7, 8, 63, 64, 65, info.max]
    a = np.array([b for b in bases for _ in exps], dt)
    e = np.array(exps * len(bases), dt)
    f = hb.func("f", ["x"], hb.intrinsic("int_power", t, hb.image("a", t, [x]),
                                         hb.image("e", t, [x])))
    got = hb.run(f, f, [(0, len(a))], {"a": a, "e": e})[0]
    assert got.dtype == dt and np.array_equal(got, a ** e)
    if info.min:
        neg = np.array([3, 2], dt)
        got = hb.run(f, f, [(0, 2)], {"a": neg, "e": np.array([-1, -2], dt)})[0]
        bits = t.bits
        assert got.tolist() == [np.array(pow(3, 2 ** bits - 1, 2 ** bits), np.uint64).astype(dt),
                                0]


def test_checked_int_power(hb):
    """int_power_checked and int_power_fits (Python's int power in int64:
    the value, wrapped where it overflows, and whether it fits)."""
    x = hb.var("x")
    t = ir.Int(64)
    bases = [0, 1, -1, 2, -2, 3, 3037000499, -2**63, 7, 2, 2, 1, -1, 5, 0, 3]
    exps = [0, 5, 2**62 + 1, 62, 63, 39, 2, 1, 22, 63, 64, 2**63 - 1, 2**63 - 2, 27, 0, 40]
    a, e = np.array(bases, np.int64), np.array(exps, np.int64)
    args = (hb.image("a", t, [x]), hb.image("e", t, [x]))
    f = hb.func("f", ["x"], (hb.intrinsic("int_power_checked", t, *args),
                             hb.intrinsic("int_power_fits", ir.Bool(), *args)))
    value, fits = hb.run(f, f, [(0, len(a))], {"a": a, "e": e})
    wrapped = [pow(b, k, 2**64) for b, k in zip(bases, exps)]
    assert value.tolist() == [w - 2**64 if w >= 2**63 else w for w in wrapped]
    assert fits.tolist() == [abs(b) <= 1 or (k < 64 and -2**63 <= b ** k < 2**63)
                             for b, k in zip(bases, exps)]
