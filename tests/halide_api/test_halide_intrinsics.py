"""Halide 21's arithmetic helpers (pyhalide/halide_intrinsics.py) over every
pair of edge values of each integer type: the JIT equals the reference
evaluator, an exact Python model of Halide's definition, and Halide 21 itself
where the wheel is installed."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]


def edges(dt):
    info = np.iinfo(dt)
    vals = {info.min, info.min + 1, info.max, info.max - 1, 0, 1, 2, 3, 7}
    if info.min < 0:
        vals |= {-1, -2, -3, -7, info.min // 2}
    vals |= {info.max // 2, info.max // 3}
    return np.array(sorted(vals), dtype=dt)


def pairs(dt):
    e = edges(dt)
    a, b = np.meshgrid(e, e, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()


def realize(lib, dt, makes):
    """Each of `makes` (lib, a, b) -> Expr over all pairs of dt's edge values,
    realized as one pipeline."""
    a, b = pairs(dt)
    x = lib.Var("x")
    ba, bb = lib.Buffer(a), lib.Buffer(b)
    funcs = []
    for k, make in enumerate(makes):
        f = lib.Func(f"f{k}")
        f[x] = make(lib, ba[x], bb[x])
        funcs.append(f)
    if lib is ph:
        return a, b, check(funcs, [a.size])
    out = lib.Pipeline(funcs).realize([a.size])
    return a, b, [np.asarray(o).copy() for o in out]


def wrap(v, dt):
    """Python int v wrapped to dtype dt."""
    info = np.iinfo(dt)
    span = 1 << info.bits
    v %= span
    return v - span if v > info.max else v


def floor_shift(v, k):
    return v >> k if k >= 0 else v << -k


MODELS = {
    "absd": (lambda lib, a, b: lib.absd(a, b),
             lambda a, b, dt: abs(a - b), lambda dt: np.dtype(dt.replace("int", "uint")
                                                            if "uint" not in dt else dt)),
    "halving_add": (lambda lib, a, b: lib.halving_add(a, b),
                    lambda a, b, dt: (a + b) >> 1, None),
    "rounding_halving_add": (lambda lib, a, b: lib.rounding_halving_add(a, b),
                             lambda a, b, dt: (a + b + 1) >> 1, None),
    "halving_sub": (lambda lib, a, b: lib.halving_sub(a, b),
                    lambda a, b, dt: wrap((a - b) >> 1, dt), None),
    "widening_add": (lambda lib, a, b: lib.widening_add(a, b),
                     lambda a, b, dt: a + b, "wide"),
    "widening_mul": (lambda lib, a, b: lib.widening_mul(a, b),
                     lambda a, b, dt: a * b, "wide"),
    "widening_sub": (lambda lib, a, b: lib.widening_sub(a, b),
                     lambda a, b, dt: a - b, "wide_signed"),
    "saturating_cast_i8": (lambda lib, a, b: lib.saturating_cast(lib.Int(8), a),
                           lambda a, b, dt: min(max(a, -128), 127), lambda dt: np.dtype(np.int8)),
    "u16_sat": (lambda lib, a, b: lib.u16_sat(a), lambda a, b, dt: min(max(a, 0), 65535),
                lambda dt: np.dtype(np.uint16)),
    "div_round_to_zero": (lambda lib, a, b: lib.div_round_to_zero(a, b),
                          lambda a, b, dt: 0 if b == 0 else
                          wrap(abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1), dt), None),
    "mod_round_to_zero": (lambda lib, a, b: lib.mod_round_to_zero(a, b),
                          lambda a, b, dt: 0 if b == 0 else
                          wrap(abs(a) % abs(b) * (1 if a >= 0 else -1), dt), None),
    "popcount": (lambda lib, a, b: lib.popcount(a),
                 lambda a, b, dt: bin(a % (1 << np.iinfo(dt).bits)).count("1"), None),
    "count_leading_zeros": (lambda lib, a, b: lib.count_leading_zeros(a),
                            lambda a, b, dt: np.iinfo(dt).bits -
                            (a % (1 << np.iinfo(dt).bits)).bit_length(), None),
    "count_trailing_zeros": (lambda lib, a, b: lib.count_trailing_zeros(a),
                             lambda a, b, dt: np.iinfo(dt).bits if a == 0 else
                             ((a & -a).bit_length() - 1), None),
    "rounding_shift_right_3": (lambda lib, a, b: lib.rounding_shift_right(a, 3),
                               lambda a, b, dt: wrap((a + 4) >> 3, dt), None),
    "mul_shift_right_4": (lambda lib, a, b: lib.mul_shift_right(a, b, 4),
                          lambda a, b, dt: min(max((a * b) >> 4, np.iinfo(dt).min),
                                               np.iinfo(dt).max), None),
    "rounding_mul_shift_right_5": (lambda lib, a, b: lib.rounding_mul_shift_right(a, b, 5),
                                   lambda a, b, dt: min(max((a * b + 16) >> 5, np.iinfo(dt).min),
                                                        np.iinfo(dt).max), None),
}


def result_dtype(kind, dt):
    d = np.dtype(dt)
    if kind is None:
        return d
    if callable(kind):
        return kind(d.name)
    wide = np.dtype(f"{d.kind}{2 * d.itemsize}")
    if kind == "wide_signed":
        return np.dtype(f"i{2 * d.itemsize}")
    return wide


@pytest.mark.parametrize("dt", TYPES, ids=lambda d: np.dtype(d).name)
def test_intrinsics_equal_their_definitions(dt):
    names = sorted(MODELS)
    a, b, outs = realize(ph, dt, [MODELS[n][0] for n in names])
    for name, got in zip(names, outs):
        _, model, kind = MODELS[name]
        want_dt = result_dtype(kind, dt)
        assert got.dtype == want_dt, (name, got.dtype, want_dt)
        want = np.array([model(int(p), int(q), dt) for p, q in zip(a, b)],
                        dtype=object).astype(want_dt)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (name, [(a[i], b[i], got[i], want[i]) for i in bad[:5]])


HALIDE_ONLY = {
    "rounding_shift_left": lambda lib, a, b: lib.rounding_shift_left(
        a, lib.cast(lib.Int(a.type().bits()), b) % 9 - 4),
    "shift_signed": lambda lib, a, b: a >> (lib.cast(lib.Int(a.type().bits()), b) % 9 - 4),
    "widening_shift_left": lambda lib, a, b: lib.widening_shift_left(
        a, lib.cast(lib.UInt(a.type().bits()), b) % 8),
}


@pytest.mark.parametrize("dt", TYPES, ids=lambda d: np.dtype(d).name)
def test_intrinsics_equal_halide(dt):
    hl = pytest.importorskip("halide")
    # Halide's division rounding to zero traps on x / 0 and MIN / -1 (its
    # documented runtime error); pyhalide's gives 0 and MIN: compared with the
    # model above only
    names = sorted(set(MODELS) - {"div_round_to_zero", "mod_round_to_zero"}) + \
        sorted(HALIDE_ONLY)
    makes = [MODELS[n][0] if n in MODELS else HALIDE_ONLY[n] for n in names]
    _, _, got = realize(ph, dt, makes)
    _, _, want = realize(hl, dt, makes)
    for name, g, w in zip(names, got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w), (name, dt)


def test_float_helpers():
    x = ph.Var("x")
    v = np.array([-2.75, -0.5, 0.0, 0.5, 1.25, 3.0, 1e30], dtype=np.float32)
    buf = ph.Buffer(v)
    f, g, h = ph.Func("f"), ph.Func("g"), ph.Func("h")
    f[x] = ph.fract(buf[x])
    g[x] = ph.hypot(buf[x], ph.f32(2.0))
    h[x] = ph.saturating_cast(ph.Int(16), buf[x] * 10000)
    got_f, got_g, got_h = check([f, g, h], [v.size])
    assert np.array_equal(got_f, v - np.trunc(v))
    with np.errstate(over="ignore"):
        assert np.array_equal(got_g, np.sqrt(v * v + np.float32(4.0)))
    assert np.array_equal(got_h, np.clip(v * 10000, -32768, 32767).astype(np.int16))


def test_hints_keep_values_and_tuples_are_tuples():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.Tuple(ph.likely(x) + ph.strict_float(ph.f32(x)) * 0,
                    ph.unsafe_promise_clamped(x * 2, 0, 100))
    got = check(f, [5])
    assert np.array_equal(got[0], np.arange(5)) and np.array_equal(got[1], np.arange(5) * 2)
    assert ph.Tuple([1, 2]) == (1, 2)
    assert int(ph.evaluate(ph.target_bits())) == 64
