"""parallel_scan of a float linear recurrence `s = a * s + b` composes each
chunk's multiplier A without subnormal arithmetic (pyhalide/parallel_scan_gradual.py)
and gives exactly the result the schedule defines: A the product of the
chunk's multipliers, left to right, rounded as IEEE does (gradual underflow
included), B = a * B + b, each point (variant "apply") or each chunk's
carry (variant "rescan") A * carry + B. The inputs drive the products into
the subnormal range, stick there, come back, hit zero, the smallest normal
number and the specials; huge values of b make the carries large, so that
every bit of A shows in the results, which must equal a Python model of
the schedule bit for bit (zeros' signs too)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override

K = 32
CHUNKS = 48


def _build(t, variant):
    a, b = ph.ImageParam(t, 1, "a"), ph.ImageParam(t, 1, "b")
    x, f = ph.Var("x"), ph.Func("f")
    f[x] = b[x]
    r = ph.RDom([(1, b.width() - 1)], "r")
    f[r.x] = a[r.x] * f[r.x - 1] + b[r.x]
    f.update(0).parallel_scan(r.x, K, variant)
    return f, a, b


def _model(a, b, variant):
    """The schedule's result, in the inputs' own float type, and whether
    some chunk's A was subnormal and non-zero, and later normal again."""
    n = b.shape[0]
    out = np.empty_like(b)
    out[0] = carry = b[0]
    seen = set()
    tiny = np.finfo(b.dtype).tiny
    for lo in range(1, n, K):
        pts = range(lo, min(lo + K, n))
        A, B, s = a[lo], b[lo], carry
        for i, p in enumerate(pts):
            if i:
                was = abs(A)
                A, B = A * a[p], a[p] * B + b[p]
                if 0 < was < tiny:
                    seen.add("subnormal" if 0 < abs(A) < tiny else
                             "normal again" if abs(A) >= tiny else "zero")
            s = a[p] * s + b[p]
            out[p] = A * carry + B if variant == "apply" else s
        carry = A * carry + B
    return out, seen


def _inputs(dtype, rng):
    """Chunks of multipliers that dive below the normal range and stay,
    stick at the smallest subnormal, come back, or hold specials."""
    fi = np.finfo(dtype)
    emin, huge = int(np.log2(fi.tiny)), float(fi.max) / 4
    n = 1 + K * CHUNKS
    a, b = np.empty(n, dtype), rng.uniform(-1, 1, n).astype(dtype)
    step = emin / (K // 2)                 # half a chunk reaches the subnormals
    for c in range(CHUNKS):
        lo = 1 + c * K
        kind = c % 6
        e = rng.uniform(step * 1.1, step * 0.9, K)
        if kind == 1:        # stick: then multipliers in [0.5, 1)
            e[K // 2:] = rng.uniform(-1, 0, K - K // 2)
        elif kind == 2:      # come back: large multipliers after the dive
            e[K // 2 + 4:] = rng.uniform(2, -2 * step, K - K // 2 - 4)
        elif kind == 3:      # land near the smallest normal number
            e[:] = 0.0
            e[0], e[1] = emin + 20, -20
        elif kind == 4:      # ordinary multipliers
            e = rng.uniform(-1, 1, K)
        m = np.exp2(e) * rng.choice([-1.0, 1.0], K)
        if kind == 3:
            m[1] *= 1 - rng.integers(-3, 4) * float(fi.eps) / 2
        if kind == 5:        # specials and subnormal multipliers among ordinary ones
            m = rng.uniform(0.5, 1, K)
            where = rng.choice(K, 6, replace=False)
            m[where] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan,
                                   float(fi.smallest_subnormal), float(fi.tiny) / 3], 6)
        a[lo:lo + K] = m.astype(dtype)
        if c % 2 == 0:       # a large carry into the next chunk
            b[lo + K - 1] = dtype(huge * rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1))
    return a, b


def _bits_equal(got, want):
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    u = {4: np.uint32, 8: np.uint64}[want.dtype.itemsize]
    bad = np.flatnonzero(got[~nan].view(u) != want[~nan].view(u))
    assert bad.size == 0, (bad[:5], got[~nan][bad[:5]], want[~nan][bad[:5]])


# the default run: float64 in rescan, float32 in apply (each type and each variant once);
# the other two pairs with -m slow
@pytest.mark.parametrize("variant, t, dtype", [
    pytest.param(v, t, dt, marks=[pytest.mark.slow] if (v == "rescan") != (dt == np.float64)
                 else [])
    for v in ("rescan", "apply") for t, dt in ((ph.Float(64), np.float64),
                                               (ph.Float(32), np.float32))],
    ids=[f"{v}-{t}" for v in ("rescan", "apply") for t in ("t0-float64", "t1-float32")])
def test_linear_recurrence_through_subnormal_multipliers(t, dtype, variant):
    f, a, b = _build(t, variant)
    av, bv = _inputs(dtype, np.random.default_rng(2013))
    with np.errstate(all="ignore"):
        want, seen = _model(av, bv, variant)
    assert seen == {"subnormal", "normal again", "zero"}       # the inputs reach every path
    a.set(ph.Buffer(av))
    b.set(ph.Buffer(bv))
    for threads in (1, 2):
        with override(num_threads=threads):
            got = np.asarray(f.realize([bv.shape[0]]))
        _bits_equal(got, want)


def _states(dtype, rng, n):
    """(A, T, a): multipliers held as A (normal, subnormal, zero, specials)
    or as T (A zero; T a multiple of the subnormal spacing scaled, |T| <= 1),
    times a, with exact products that are ties of the subnormal rounding,
    just below the smallest normal number, zeros of either sign."""
    fi = np.finfo(dtype)
    p = fi.nmant
    on_t = rng.random(n) < 0.6
    k = rng.integers(-2 ** p, 2 ** p, n, endpoint=True).astype(np.float64)
    k[rng.random(n) < 0.1] = rng.choice([0.0, -0.0, 1.0, -1.0, 2.0 ** p, 2.0 ** p - 1], 1)[0]
    T = np.where(on_t, k * 2.0 ** -p, 0.0)
    A = np.where(on_t, np.copysign(0.0, rng.choice([-1.0, 1.0], n)),
                 np.exp2(rng.uniform(int(np.log2(fi.tiny)), 4, n)) * rng.choice([-1, 1], n))
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, float(fi.smallest_subnormal)]
    A[~on_t & (rng.random(n) < 0.05)] = rng.choice(specials)
    a = np.exp2(rng.integers(-4, 2, n).astype(np.float64)) * rng.choice([1.0, 1.5, 0.75, 1.25], n)
    a *= rng.choice([-1.0, 1.0], n)
    wild = rng.random(n) < 0.3
    a[wild] = np.exp2(rng.uniform(-40, 40, int(wild.sum()))) * rng.choice([-1.0, 1.0], int(wild.sum()))
    near_one = on_t & (rng.random(n) < 0.1)        # |T * a| just below or at 1
    a[near_one] = (1 - rng.integers(0, 3, int(near_one.sum())) * 2.0 ** -(p + 1)) / \
        np.where(T[near_one] == 0, 1, np.abs(T[near_one]))
    a[rng.random(n) < 0.03] = rng.choice(specials)
    return A.astype(dtype), T.astype(dtype), a.astype(dtype)


@pytest.mark.parametrize("t, dtype", [(ph.Float(64), np.float64), (ph.Float(32), np.float32)])
def test_scaled_multiplier_rounds_as_ieee(t, dtype):
    """`times` and `value` against IEEE multiplication with gradual
    underflow, on every kind of state and multiplier."""
    from pyhalide.parallel_scan_gradual import times, value
    A, T, a = (ph.ImageParam(t, 1, name) for name in ("A", "T", "a"))
    x, f = ph.Var("x"), ph.Func("f")
    nA, nT = times(A[x].node, T[x].node, a[x].node)
    f[x] = (ph.Expr(nA), ph.Expr(nT), ph.Expr(value(A[x].node, T[x].node)))
    Av, Tv, av = _states(dtype, np.random.default_rng(77), 20000)
    for p, v in zip((A, T, a), (Av, Tv, av)):
        p.set(ph.Buffer(v))
    gA, gT, gv = (np.asarray(o) for o in f.realize([av.shape[0]]))
    tiny = np.finfo(dtype).tiny
    with np.errstate(all="ignore"):
        held = np.where(Av != 0, Av, Tv * tiny)         # exact: T * 2^emin
        want = held * av
        got = np.where(gA != 0, gA, gT * tiny)
    _bits_equal(gv, held)
    _bits_equal(got, want)
    ok = np.isnan(gA) | (gA != 0) | (np.abs(gT) <= 1)
    assert ok.all()                                     # T stays in [-1, 1]
    assert np.count_nonzero((Av == 0) & (np.abs(want) >= tiny)) > 10    # T -> A
    assert np.count_nonzero((Av != 0) & (np.abs(want) < tiny)) > 10     # A -> T
