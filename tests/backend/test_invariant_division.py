"""Division and modulo by a loop-invariant run-time divisor
(lowering/invariant_division.py: a multiply-high and shifts whose constants
are computed before the loop): every result equals the plain division's
(the kernel compiled without the pass) and Python's Euclidean reference,
over edge-case divisors and dividends — every pair for 8-bit types, every
dividend or every divisor for 16-bit types, random values for 32 and 64
bits — scalar and vector, and in pipelines (Func API and @pipeline)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.invariant_division import hoist_invariant_division
from tests.backend.backend_util import compile_kernel, i32, var

INT_TYPES = [ir.Int(8), ir.Int(16), ir.Int(32), ir.Int(64),
             ir.UInt(8), ir.UInt(16), ir.UInt(32), ir.UInt(64)]


class _Calls(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.names, self.divs = [], 0

    def visit_Call(self, e):
        self.names.append(e.name)
        self.visit_children(e)

    def visit_For(self, s):
        self.visit_children(s)

    def _div(self, e):
        self.divs += 1
        self.visit_children(e)

    visit_Div = visit_Mod = _div


def _loop_divisions(stmt):
    """(intrinsic names, Div/Mod count) inside the For loops of stmt."""
    found = _Calls()

    class Loops(ir.Visitor):
        def visit_For(self, s):
            found.visit(s.body)
    Loops().visit(stmt)
    return found.names, found.divs


def _kernels(t: ir.Type, lanes: int):
    """(rewritten kernel, plain kernel) computing q[x] = a[x] / d and
    r[x] = a[x] % d, d a scalar Param of type t."""
    x = var("x")
    idx = x if lanes == 1 else ir.Ramp(ir.Mul(x, i32(lanes)), i32(1), lanes)
    a = ir.Load(t.with_lanes(lanes), "a", idx)
    d = ir.Variable(t, "d", "param")
    dv = d if lanes == 1 else ir.Broadcast(d, lanes)
    body = ir.block(ir.Store("q", ir.Div(a, dv), idx), ir.Store("r", ir.Mod(a, dv), idx))
    extent = ir.Div(ir.Variable(ir.Int(32), "a.extent.0", "param"), i32(lanes))
    stmt = ir.For("x", i32(0), extent, "serial", body)
    new = hoist_invariant_division(stmt)
    names, divs = _loop_divisions(new)
    assert "mul_hi" in names and divs == 0, ir.to_str(new)
    bufs = [(n, np.zeros(1, t.to_numpy()), out) for n, out in (("a", False), ("q", True),
                                                                 ("r", True))]
    return tuple(compile_kernel(s, bufs, [("d", t, 0)], name=f"k_{n}")
                 for s, n in ((new, "magic"), (stmt, "plain")))


def _run(kernel, a: np.ndarray, d: int):
    q, r = np.zeros_like(a), np.zeros_like(a)
    kernel([a, q, r], [d])
    return q, r


def _reference(t: ir.Type, a: np.ndarray, d: int):
    """Euclidean a / d and a % d (0 and 0 for d == 0), wrapped into t (types
    up to 32 bits, computed in int64)."""
    if d == 0:
        z = np.zeros_like(a)
        return z, z
    a64 = a.astype(np.int64)
    r = a64 % abs(d)
    q = (a64 - r) // d
    return q.astype(t.to_numpy()), r.astype(t.to_numpy())


def _reference_py(t: ir.Type, a: np.ndarray, d: int):
    """The same with Python integers (any width)."""
    qs, rs = [], []
    for v in a.tolist():
        if d == 0:
            qs.append(0)
            rs.append(0)
            continue
        r = v % abs(d)
        qs.append(t.wrap((v - r) // d))
        rs.append(r)
    dt = t.to_numpy()
    return np.array(qs, dt), np.array(rs, dt)


def _edge_divisors(t: ir.Type):
    lo, hi = t.min_value(), t.max_value()
    vals = {0, 1, 2, 3, 5, 6, 7, 10, 255, 256, 641, hi, hi - 1, hi // 2, hi // 2 + 1,
            hi // 3, lo, lo + 1}
    for k in range(t.bits):
        vals |= {1 << k, (1 << k) - 1, (1 << k) + 1}
    if t.is_int():
        vals |= {-v for v in list(vals)}
    return sorted(v for v in vals if lo <= v <= hi)


def _check(t, kernels, a, divisors, reference):
    magic, plain = kernels
    for d in divisors:
        got = _run(magic, a, d)
        want = _run(plain, a, d)
        ref = reference(t, a, d)
        for g, w, rf, what in zip(got, want, ref, ("/", "%")):
            np.testing.assert_array_equal(g, rf, err_msg=f"{t}: a {what} {d}")
            np.testing.assert_array_equal(w, rf, err_msg=f"{t}: plain a {what} {d}")


@pytest.mark.parametrize("lanes", [1, 16])
@pytest.mark.parametrize("t", [ir.Int(8), ir.UInt(8)], ids=str)
def test_8_bit_every_pair(t, lanes):
    a = np.arange(t.min_value(), t.max_value() + 1).astype(t.to_numpy())
    _check(t, _kernels(t, lanes), a, range(t.min_value(), t.max_value() + 1), _reference)


@pytest.mark.parametrize("lanes", [1, 16])
@pytest.mark.parametrize("t", [ir.Int(16), ir.UInt(16)], ids=str)
def test_16_bit_every_dividend(t, lanes):
    a = np.arange(t.min_value(), t.max_value() + 1).astype(t.to_numpy())
    rng = np.random.default_rng(16)
    divisors = _edge_divisors(t) + rng.integers(t.min_value(), t.max_value() + 1, 40).tolist()
    _check(t, _kernels(t, lanes), a, divisors, _reference)


@pytest.mark.parametrize("t", [ir.Int(16), ir.UInt(16)], ids=str)
def test_16_bit_every_divisor(t):
    lo, hi = t.min_value(), t.max_value()
    a = np.array([v for v in (lo, lo + 1, -7, -1, 0, 1, 2, 7, 1000, hi - 1, hi)
                  if lo <= v <= hi] * 2, t.to_numpy())[:16]
    magic, _ = _kernels(t, 16)
    divisors = np.arange(lo, hi + 1)
    got_q = np.empty((len(divisors), len(a)), a.dtype)
    got_r = np.empty_like(got_q)
    for i, d in enumerate(divisors.tolist()):
        magic([a, got_q[i], got_r[i]], [d])
    a64, d64 = a.astype(np.int64)[None, :], divisors.astype(np.int64)[:, None]
    safe = np.where(d64 == 0, 1, d64)
    r = np.where(d64 == 0, 0, a64 % np.abs(safe))
    q = np.where(d64 == 0, 0, (a64 - r) // safe)
    np.testing.assert_array_equal(got_q, q.astype(a.dtype))
    np.testing.assert_array_equal(got_r, r.astype(a.dtype))


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("t", [ir.Int(32), ir.UInt(32), ir.Int(64), ir.UInt(64)], ids=str)
def test_32_and_64_bit_random_and_edges(t, lanes):
    rng = np.random.default_rng(t.bits + lanes)
    lo, hi = t.min_value(), t.max_value()
    dt = t.to_numpy()
    edges = [v for v in _edge_divisors(t)]
    # dividends: edge values, and random values of every magnitude
    bits = rng.integers(1, t.bits + 1, 2000 if t.bits == 32 else 300)
    rand = [int(rng.integers(0, 1 << 62)) << 2 ^ int(rng.integers(0, 4)) for _ in bits]
    rand = [t.wrap(v & ((1 << int(b)) - 1)) * (1 if t.is_uint() or k % 2 else -1)
            for k, (v, b) in enumerate(zip(rand, bits))]
    a = np.array([t.wrap(v) for v in edges + rand], dt)
    a = a[: len(a) - len(a) % lanes]
    rand_d = [t.wrap(int(rng.integers(0, 1 << 62)) >> int(rng.integers(0, 62))) *
              (1 if t.is_uint() or k % 2 else -1) for k in range(60)]
    divisors = [v for v in edges + rand_d if lo <= v <= hi]
    reference = _reference if t.bits == 32 else _reference_py
    _check(t, _kernels(t, lanes), a, divisors, reference)


def test_divisor_varying_in_the_loop_is_left_alone():
    t = ir.Int(32)
    x = var("x")
    stmt = ir.For("x", i32(0), i32(100), "serial",
                  ir.Store("q", ir.Div(ir.Load(t, "a", x), ir.Add(x, i32(1))), x))
    assert hoist_invariant_division(stmt) is stmt


def test_short_constant_loop_and_memory_divisor_are_left_alone():
    t = ir.Int(32)
    x, d = var("x"), ir.Variable(t, "d", "param")
    short = ir.For("x", i32(0), i32(3), "serial",
                   ir.Store("q", ir.Div(ir.Load(t, "a", x), d), x))
    assert hoist_invariant_division(short) is short
    loaded = ir.For("x", i32(0), i32(100), "serial",
                    ir.Store("q", ir.Div(ir.Load(t, "a", x), ir.Load(t, "b", i32(0))), x))
    assert hoist_invariant_division(loaded) is loaded
    # d rebound inside the loop (the IR allows shadowing): which d a mention
    # means depends on its place, so the division stays as it is
    t_ = ir.Variable(t, "d")
    shadow = ir.For("x", i32(0), i32(100), "serial", ir.block(
        ir.Store("q", ir.Div(ir.Load(t, "a", x), t_), x),
        ir.LetStmt("d", ir.Add(x, i32(1)), ir.Store("r", ir.Div(ir.Load(t, "a", x), t_), x))))
    assert hoist_invariant_division(shadow) is shadow


def test_outer_loop_divisor_hoists_to_the_inner_loop():
    """y / (y + 1)-style divisors vary in the outer loop: constants per
    outer iteration, before the inner loop; the result is the plain one."""
    t = ir.Int(32)
    y, x = var("y"), var("x")
    idx = ir.Add(ir.Mul(y, i32(64)), x)
    div = ir.Sub(ir.Load(t, "a", idx), i32(1000))
    d = ir.Sub(y, i32(5))
    body = ir.block(ir.Store("q", ir.Div(div, d), idx), ir.Store("r", ir.Mod(div, d), idx))
    stmt = ir.For("y", i32(0), i32(12), "serial", ir.For("x", i32(0), i32(64), "serial", body))
    new = hoist_invariant_division(stmt)
    assert isinstance(new, ir.For) and isinstance(new.body, ir.LetStmt)
    a = np.random.default_rng(3).integers(-2**31, 2**31, 12 * 64).astype(np.int32)
    outs = []
    for s in (new, stmt):
        q, r = np.zeros_like(a), np.zeros_like(a)
        k = compile_kernel(s, [("a", a, False), ("q", q, True), ("r", r, True)])
        k([a, q, r], [])
        outs.append((q, r))
    ys = np.repeat(np.arange(12), 64)
    want = [_reference(t, (a[ys == yy].astype(np.int64) - 1000).astype(np.int32), yy - 5)
            for yy in range(12)]
    np.testing.assert_array_equal(outs[0][0], np.concatenate([w[0] for w in want]))
    np.testing.assert_array_equal(outs[0][1], np.concatenate([w[1] for w in want]))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])


@pytest.mark.parametrize("vector", [False, True])
def test_func_api_division_by_a_param(vector):
    """f(x) = a(x) / n, g(x) = a(x) % n over int32 and uint16, parallel
    and vectorized or not, against NumPy's Euclidean reference."""
    rng = np.random.default_rng(5)
    for dtype, ht in ((np.int32, ph.Int(32)), (np.uint16, ph.UInt(16))):
        info = np.iinfo(dtype)
        data = rng.integers(info.min, info.max, 1000, endpoint=True).astype(dtype)
        a = ph.ImageParam(ht, 1, "a")
        n = ph.Param(ht, "n")
        x = ph.Var("x")
        f = ph.Func("f")
        f[x] = (a[x] / n, a[x] % n)
        if vector:
            f.vectorize(x, 8)
        else:
            f.parallel(x)
        a.set(ph.Buffer(data))
        for d in (0, 1, -1, 3, 7, 1 << 14, info.max, info.min, -5):
            if not (info.min <= d <= info.max):
                continue
            n.set(d)
            got = f.realize([1000])
            want = _reference(ir.Type.from_numpy(np.dtype(dtype)), data, d)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(np.asarray(g), w, err_msg=f"{dtype} {d}")


@pytest.mark.parametrize("schedule", [None, "auto"])
def test_pipeline_floor_division_by_the_shape(schedule):
    """Python's // and % by a run-time h * w (histogram equalization's
    lookup) and by a Python int argument, equal to plain Python, with the
    default and the automatic schedule."""
    def scale(img, k):
        h, w = img.shape
        out = np.empty((h, w), np.int64)
        rem = np.empty((h, w), np.int64)
        for y in range(h):
            for x in range(w):
                v = int(img[y, x]) * 255 - 7000
                out[y, x] = v // (h * w) + v // k
                rem[y, x] = v % (h * w) + v % k
        return out, rem

    compiled = ph.pipeline(scale, schedule=schedule)
    rng = np.random.default_rng(7)
    for shape in ((1, 1), (17, 33)):
        img = rng.integers(0, 256, shape).astype(np.uint8)
        for k in (1, -1, -7, 2**40 + 3, -(2**62)):
            out, rem = compiled(img, k)
            want = scale(img, k)
            np.testing.assert_array_equal(out, want[0], err_msg=f"{shape} {k}")
            np.testing.assert_array_equal(rem, want[1], err_msg=f"{shape} {k}")
