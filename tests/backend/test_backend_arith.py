"""Arithmetic, comparison, logical and bitwise operators on every type,
scalar and vector, against exact Python references."""
import numpy as np
import pytest

from pyhalide import ir
from tests.backend.backend_util import c, elementwise, pairs, special_values

INT_TYPES = [t for t in ir.ALL_SCALAR_TYPES if t.is_integer()]
FLOAT_TYPES = [ir.Float(32), ir.Float(64)]


def wrap(t, v):
    return t.wrap(v)


def euclid_div(a, b):
    if b == 0:
        return 0
    r = a % abs(b)
    return (a - r) // b


def euclid_mod(a, b):
    return 0 if b == 0 else a % abs(b)


def shl_ref(t, a, b):
    if b < 0 or b >= t.bits:
        return 0
    return wrap(t, a << b)


def shr_ref(t, a, b):
    if b < 0 or b >= t.bits:
        return -1 if a < 0 else 0
    return a >> b


INT_OPS = {
    "add": (ir.Add, lambda t, a, b: wrap(t, a + b)),
    "sub": (ir.Sub, lambda t, a, b: wrap(t, a - b)),
    "mul": (ir.Mul, lambda t, a, b: wrap(t, a * b)),
    "div": (ir.Div, lambda t, a, b: wrap(t, euclid_div(a, b))),
    "mod": (ir.Mod, lambda t, a, b: wrap(t, euclid_mod(a, b))),
    "min": (ir.Min, lambda t, a, b: min(a, b)),
    "max": (ir.Max, lambda t, a, b: max(a, b)),
    "and": (ir.BitAnd, lambda t, a, b: wrap(t, a & b)),
    "or": (ir.BitOr, lambda t, a, b: wrap(t, a | b)),
    "xor": (ir.BitXor, lambda t, a, b: wrap(t, a ^ b)),
    "shl": (ir.Shl, shl_ref),
    "shr": (ir.Shr, shr_ref),
}
CMP_OPS = {
    "eq": (ir.EQ, lambda a, b: a == b), "ne": (ir.NE, lambda a, b: a != b),
    "lt": (ir.LT, lambda a, b: a < b), "le": (ir.LE, lambda a, b: a <= b),
    "gt": (ir.GT, lambda a, b: a > b), "ge": (ir.GE, lambda a, b: a >= b),
}


def shift_pairs(t):
    """Values against every shift amount from -2 (when signed) to bits+2."""
    vals = special_values(t)
    lo = -2 if t.is_int() else 0
    amounts = [s for s in range(lo, t.bits + 3) if t.can_represent(s)] + [t.max_value()]
    a = [v for v in vals for _ in amounts]
    b = [s for _ in vals for s in amounts]
    while len(a) % 16:
        a.append(vals[0])
        b.append(0)
    return np.array(a, t.to_numpy()), np.array(b, t.to_numpy())


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("t", INT_TYPES, ids=str)
def test_integer_ops(t, lanes):
    a, b = pairs(t)
    sa, sb = shift_pairs(t)
    dt = t.to_numpy()
    outs = {f"o_{nm}": ((lambda x, y, op=op: op(x, y)), dt) for nm, (op, _) in INT_OPS.items()}
    outs.update({f"o_{nm}": ((lambda x, y, op=op: op(x, y)), np.bool_)
                 for nm, (op, _) in CMP_OPS.items()})
    outs["o_not"] = (lambda x, y: ir.BitNot(x), dt)
    res = elementwise(outs, {"a": a, "b": b}, lanes=lanes)
    ai, bi = [int(v) for v in a], [int(v) for v in b]
    for nm, (_, ref) in INT_OPS.items():
        if nm in ("shl", "shr"):
            continue
        want = np.array([ref(t, x, y) for x, y in zip(ai, bi)], dt)
        np.testing.assert_array_equal(res[f"o_{nm}"], want, err_msg=f"{t} {nm}")
    for nm, (_, ref) in CMP_OPS.items():
        want = np.array([ref(x, y) for x, y in zip(ai, bi)])
        np.testing.assert_array_equal(res[f"o_{nm}"], want, err_msg=f"{t} {nm}")
    np.testing.assert_array_equal(res["o_not"], np.array([wrap(t, ~x) for x in ai], dt))

    shifts = elementwise({"shl": (ir.Shl, dt), "shr": (ir.Shr, dt)}, {"a": sa, "b": sb},
                         lanes=lanes)
    sai, sbi = [int(v) for v in sa], [int(v) for v in sb]
    np.testing.assert_array_equal(shifts["shl"], np.array(
        [shl_ref(t, x, y) for x, y in zip(sai, sbi)], dt), err_msg=f"{t} shl")
    np.testing.assert_array_equal(shifts["shr"], np.array(
        [shr_ref(t, x, y) for x, y in zip(sai, sbi)], dt), err_msg=f"{t} shr")


def test_division_special_cases_int32():
    t = ir.Int(32)
    a = np.array([-7, 7, -7, 7, -2**31, -2**31, -2**31, 5, -1, 0, 2**31 - 1, -6] * 2, np.int32)
    b = np.array([2, 2, -2, -2, -1, 1, 0, 0, 2**31 - 1, -3, -2**31, 3] * 2, np.int32)
    res = elementwise({"q": (ir.Div, np.int32), "r": (ir.Mod, np.int32)}, {"a": a, "b": b})
    q = [wrap(t, euclid_div(int(x), int(y))) for x, y in zip(a, b)]
    r = [wrap(t, euclid_mod(int(x), int(y))) for x, y in zip(a, b)]
    assert list(res["q"][:4]) == [-4, 3, 4, -3]      # Euclidean, not truncating
    assert list(res["r"][:4]) == [1, 1, 1, 1]
    assert res["q"][4] == -2**31 and res["r"][4] == 0   # INT_MIN / -1 wraps, no trap
    assert res["q"][6] == 0 and res["r"][6] == 0        # x / 0 == x % 0 == 0
    np.testing.assert_array_equal(res["q"], q)
    np.testing.assert_array_equal(res["r"], r)
    assert all(x == wrap(t, y * qq + rr) for x, y, qq, rr in zip(a.tolist(), b.tolist(), q, r) if y)


@pytest.mark.parametrize("t,divisor", [
    pytest.param(t, d, id=f"{t}-{d}")
    for t in (ir.Int(8), ir.Int(32), ir.UInt(16), ir.Int(64))
    for d in (1, 2, 3, 4, 7, 8, -1, -2, -3, -7, -8, 0, 1024) if t.can_represent(d)])
@pytest.mark.parametrize("lanes", [1, 8])
def test_division_by_constant(t, divisor, lanes):
    vals = special_values(t) + [v for v in range(-20, 21) if t.can_represent(v)]
    vals += [0] * (-len(vals) % 8)
    a = np.array(vals, t.to_numpy())
    res = elementwise({"q": (lambda x: ir.Div(x, c(x.type, divisor)), a.dtype),
                       "r": (lambda x: ir.Mod(x, c(x.type, divisor)), a.dtype)},
                      {"a": a}, lanes=lanes)
    np.testing.assert_array_equal(res["q"], [wrap(t, euclid_div(int(x), divisor)) for x in a])
    np.testing.assert_array_equal(res["r"], [wrap(t, euclid_mod(int(x), divisor)) for x in a])


@pytest.mark.parametrize("lanes", [1, 4])
@pytest.mark.parametrize("t", FLOAT_TYPES, ids=str)
def test_float_ops(t, lanes):
    a, b = pairs(t)
    dt = t.to_numpy()
    ops = {"add": ir.Add, "sub": ir.Sub, "mul": ir.Mul, "div": ir.Div, "mod": ir.Mod,
           "min": ir.Min, "max": ir.Max}
    outs = {nm: ((lambda x, y, op=op: op(x, y)), dt) for nm, op in ops.items()}
    outs.update({nm: ((lambda x, y, op=op: op(x, y)), np.bool_) for nm, (op, _) in CMP_OPS.items()})
    with np.errstate(all="ignore"):
        res = elementwise(outs, {"a": a, "b": b}, lanes=lanes)
        want = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b,
                "mod": a - b * np.floor(a / b),
                "min": np.where(a < b, a, b), "max": np.where(a > b, a, b)}
    for nm, w in want.items():
        assert w.dtype == dt
        np.testing.assert_array_equal(res[nm].view(f"u{dt.itemsize}"), w.view(f"u{dt.itemsize}"),
                                      err_msg=f"{t} {nm}")
    for nm, (_, ref) in CMP_OPS.items():
        np.testing.assert_array_equal(res[nm], [ref(float(x), float(y)) for x, y in zip(a, b)],
                                      err_msg=f"{t} {nm}")


def test_no_fma_contraction():
    # x*y + z rounded twice: with an FMA the low bits of x*y would survive.
    ir.Float(64)
    x = np.array([1 + 2.0**-30] * 8)
    z = np.array([-(1 + 2.0**-29)] * 8)
    res = elementwise({"o": (lambda a, b: ir.Add(ir.Mul(a, a), b), np.float64)},
                      {"x": x, "z": z}, lanes=4)
    np.testing.assert_array_equal(res["o"], x * x + z)
    assert res["o"][0] == 0.0


@pytest.mark.parametrize("lanes", [1, 8])
def test_logical_and_select(lanes):
    a = np.array([i % 2 == 0 for i in range(32)])
    b = np.array([(i // 2) % 2 == 0 for i in range(32)])
    u = np.arange(32, dtype=np.uint16)
    res = elementwise({
        "and": (lambda x, y, z: ir.And(x, y), np.bool_),
        "or": (lambda x, y, z: ir.Or(x, y), np.bool_),
        "not": (lambda x, y, z: ir.Not(x), np.bool_),
        "sel": (lambda x, y, z: ir.Select(x, z, ir.Mul(z, c(z.type, 3))), np.uint16),
        "eqb": (lambda x, y, z: ir.EQ(x, y), np.bool_),
        "ltb": (lambda x, y, z: ir.LT(x, y), np.bool_),
    }, {"a": a, "b": b, "u": u}, lanes=lanes)
    np.testing.assert_array_equal(res["and"], a & b)
    np.testing.assert_array_equal(res["or"], a | b)
    np.testing.assert_array_equal(res["not"], ~a)
    np.testing.assert_array_equal(res["sel"], np.where(a, u, u * 3))
    np.testing.assert_array_equal(res["eqb"], a == b)
    np.testing.assert_array_equal(res["ltb"], a < b)


def test_bool_memory_bytes_other_than_one_read_as_true():
    raw = np.array([0, 1, 2, 255, 0, 128, 7, 0], np.uint8)
    a = raw.view(np.bool_)
    res = elementwise({"o": (lambda x: ir.Cast(ir.Int(32).with_lanes(x.type.lanes), x), np.int32)},
                      {"a": a})
    np.testing.assert_array_equal(res["o"], (raw != 0).astype(np.int32))
