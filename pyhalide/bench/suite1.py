"""Suite 1: the six rfactor benchmarks of "Parallel Associative Reductions in
Halide" (CGO 2017, Table 1), at 2^24 elements.

Each benchmark has one algorithm and two schedules: `serial` (none) and
`rfactor` (split + rfactor + parallel + vectorize: the schedules of Halide's
test/performance/rfactor.cpp, ported line by line). The algorithm and the
schedule are written once, over a module `m` that is either `pyhalide` or
`halide` (the two APIs agree), so both sides run the very same definition
and schedule. The algorithms are those of examples/paper_reductions.py.

Columns: pyhalide serial and rfactor, NumPy's idiomatic equivalent, the same
Python loops under Numba `@njit` and `@njit(parallel=True)` with `prange`,
Halide 21 serial and rfactor, and the memory-bandwidth bound (the time the
fastest plain read kernel takes to read the bytes the benchmark must read).

Truth (computed in every worker from the data, never from a column):
integers exact, `dot` within the serial float32 loop's own error of the
exact sum, argmin the first occurrence (as the serial loop returns).
"""
from __future__ import annotations

import math
import os
import time
import zlib

import numpy as np

from .protocol import (
    Bench,
    Column,
    Runner,
    TargetRow,
    Unavailable,
    compile_target,
    fmt_bytes,
    fmt_ratio,
    verdict,
)
from .sweep import Param, Space, halide_targets, vector_counts

TITLE = "Suite 1: the rfactor benchmarks (CGO 2017, Table 1)"
REFERENCE = "ph_rfactor"
FALLBACK_REFERENCE = "ph_serial"      # ratios when pyhalide rfactor cannot run

COLUMNS = [
    Column("ph_serial", "pyhalide serial"),
    Column("ph_rfactor", "pyhalide rfactor", parallel=True),
    Column("numpy", "NumPy"),
    Column("numba_serial", "Numba serial"),
    Column("numba_prange", "Numba prange", parallel=True),
    Column("hl_serial", "Halide serial"),
    Column("hl_rfactor", "Halide rfactor", parallel=True),
    Column("ph_same", "pyhalide rfactor, Halide's parameters", parallel=True),
    Column("bound", "bandwidth bound", parallel=True),
]
COMPILED = {"numpy": False, "bound": False}

# the calibration round (sweep.py): each system's rfactor schedule at its best
# parameters, and pyhalide's at Halide's best ("same schedule")
SWEPT = {"ph_rfactor": "pyhalide", "hl_rfactor": "Halide"}
SAME_SCHEDULE = {"ph_same": ("ph_rfactor", "hl_rfactor")}

BANDWIDTH_BOUND = ("max", "dot", "complex_mul")

# bytes each benchmark must read, per element
BYTES_PER_ELEMENT = {"max": 4, "histogram2d": 1, "argmin4d": 1, "complex_mul": 8, "dot": 8,
                     "kitchen_sink": 4}


def default_params(size_log2=None, quick=False) -> dict:
    if size_log2 is None:
        size_log2 = 12 if quick else 24
    if size_log2 < 8 or size_log2 % 4:
        raise ValueError(f"suite 1 needs a size_log2 that is a multiple of 4 and >= 8 "
                         f"(argmin4d is 4-dimensional), got {size_log2}")
    return {"size_log2": int(size_log2)}


# ---- data and truth --------------------------------------------------------------------
def _rng(name: str):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _n(params):
    return 1 << params["size_log2"]


def _data_max(p):
    return {"a": _rng("max").integers(-2**31, 2**31 - 1, _n(p), dtype=np.int32)}


def _data_hist(p):
    n = _n(p)
    side = 1 << (p["size_log2"] // 2)
    return {"img": _rng("histogram2d").integers(0, 256, (n // side, side), dtype=np.uint8)}


def _data_argmin(p):
    q = 1 << (p["size_log2"] // 4)
    return {"a": _rng("argmin4d").integers(-128, 128, (q, q, q, q), dtype=np.int8)}


def _data_cmul(p):
    # one of (re, im) odd, the other even: every factor has an odd norm, so the
    # product never collapses to (0, 0) mod 2^32 and the check stays meaningful
    rng = _rng("complex_mul")
    re = rng.integers(-2**31, 2**31 - 1, _n(p), dtype=np.int32)
    im = rng.integers(-2**31, 2**31 - 1, _n(p), dtype=np.int32)
    im = (im & np.int32(-2)) | ((re & 1) ^ 1)
    return {"re": re, "im": im}


def _data_dot(p):
    rng = _rng("dot")
    return {"a": rng.random(_n(p), dtype=np.float32), "b": rng.random(_n(p), dtype=np.float32)}


def _data_ks(p):
    return {"a": _rng("kitchen_sink").integers(-1000, 1000, _n(p), dtype=np.int32)}


def _cmul_tree(re: np.ndarray, im: np.ndarray):
    """The wrapping int32 complex product of all elements by pairwise halving
    (exact: the operator is associative and commutative mod 2^32)."""
    re, im = re.copy(), im.copy()
    with np.errstate(over="ignore"):
        while re.size > 1:
            if re.size % 2:
                re, im = np.append(re, np.int32(1)), np.append(im, np.int32(0))
            h = re.size // 2
            a, b, c, d = re[:h], im[:h], re[h:], im[h:]
            re, im = a * c - b * d, a * d + b * c
    return [int(re[0]), int(im[0])]


def _truth_max(d):
    return [int(d["a"].max())]


def _truth_hist(d):
    return [np.bincount(d["img"].ravel(), minlength=256).astype(np.int32)]


def _truth_argmin(d):
    a = d["a"]
    i = np.unravel_index(np.argmin(a), a.shape)      # first occurrence, row-major = loop order
    return [int(a.min()), int(i[3]), int(i[2]), int(i[1]), int(i[0])]


def _truth_cmul(d):
    return _cmul_tree(d["re"], d["im"])


def _truth_dot(d):
    a, b = d["a"], d["b"]
    serial = float(np.cumsum(a * b, dtype=np.float32)[-1])   # the serial float32 loop, no FMA
    exact = float(np.dot(a.astype(np.float64), b.astype(np.float64)))
    return {"serial": serial, "exact": exact}


def _truth_ks(d):
    a = d["a"]
    with np.errstate(over="ignore"):
        return [int(a.sum(dtype=np.int32)), int(np.prod(a, dtype=np.int32)), int(a.min()),
                int(a.max()), int(np.argmin(a)), int(np.argmax(a)),
                int((a * a).sum(dtype=np.int32)), int(np.count_nonzero(a % 2 == 0))]


def _check_exact(names):
    def check(got, truth, data):
        got = list(got)
        if len(got) != len(truth):
            return False, f"{len(got)} values instead of {len(truth)}"
        bad = []
        for i, (g, t) in enumerate(zip(got, truth)):
            if isinstance(t, np.ndarray):
                g = np.asarray(g)
                if g.shape != t.shape or not np.array_equal(g.astype(np.int64),
                                                            t.astype(np.int64)):
                    k = int(np.count_nonzero(g.astype(np.int64) != t.astype(np.int64))) \
                        if g.shape == t.shape else -1
                    bad.append(f"{names[i]}: {k} of {t.size} buckets differ" if k >= 0 else
                               f"{names[i]}: shape {g.shape} instead of {t.shape}")
            elif int(g) != int(t):
                bad.append(f"{names[i]} = {int(g)} instead of {int(t)}")
        return (not bad), "; ".join(bad)
    return check


def _check_dot(got, truth, data):
    g = float(np.asarray(got[0] if isinstance(got, (list, tuple)) else got))
    err_serial = abs(truth["serial"] - truth["exact"])
    tol = 2 * err_serial + 1e-5 * abs(truth["exact"])
    ok = abs(g - truth["exact"]) <= tol
    return ok, "" if ok else (f"{g!r}: off the exact sum {truth['exact']:.6g} by "
                              f"{abs(g - truth['exact']):.3g}, more than twice the serial "
                              f"loop's error ({err_serial:.3g})")


def _bytes(*keys):
    return lambda d: sum(d[k].nbytes for k in keys)


BENCHMARKS = {
    "max": Bench("max", _data_max, _truth_max, _check_exact(["max"]), _bytes("a"),
                 "int32[n], maximum"),
    "histogram2d": Bench("histogram2d", _data_hist, _truth_hist, _check_exact(["histogram"]),
                         _bytes("img"), "uint8[sqrt n, sqrt n], 256-bucket int32 histogram"),
    "argmin4d": Bench("argmin4d", _data_argmin, _truth_argmin,
                      _check_exact(["min", "x", "y", "z", "w"]), _bytes("a"),
                      "int8[n^1/4 x4], min value and its first coordinates"),
    "complex_mul": Bench("complex_mul", _data_cmul, _truth_cmul, _check_exact(["re", "im"]),
                         _bytes("re", "im"), "int32[n] x2, wrapping complex product"),
    "dot": Bench("dot", _data_dot, _truth_dot, _check_dot, _bytes("a", "b"),
                 "float32[n] x2, dot product"),
    "kitchen_sink": Bench("kitchen_sink", _data_ks, _truth_ks,
                          _check_exact(["sum", "product", "min", "max", "argmin", "argmax",
                                        "sum of squares", "evens"]), _bytes("a"),
                          "int32[n], 8-tuple reduction"),
}


# ---- the algorithms, over m = pyhalide or halide ------------------------------------------
def alg_max(m, d):
    a = d["a"]
    A = m.Buffer(a, "A")
    r = m.RDom([m.Range(0, a.size)], "r")
    f = m.Func("max_red")
    f[()] = m.Int(32).min()
    f[()] = m.max(f[()], A[r.x])
    return f, r, []


def alg_hist(m, d):
    img = d["img"]
    inp = m.Buffer(img, "img")
    x = m.Var("x")
    r = m.RDom([m.Range(0, img.shape[1]), m.Range(0, img.shape[0])], "r")
    h = m.Func("hist2d")
    h[x] = 0
    h[m.cast(m.Int(32), inp[r.x, r.y])] += 1
    return h, r, [256]


def alg_argmin(m, d, halide_form=False):
    """First occurrence: the state changes only on a strictly smaller value.
    `halide_form`: the form of Halide's rfactor.cpp (min, and keep the old
    index unless strictly smaller: the last occurrence serially), the only
    one Halide 21 can rfactor."""
    a = d["a"]
    A = m.Buffer(a, "A4")
    n = a.shape
    r = m.RDom([m.Range(0, n[3]), m.Range(0, n[2]), m.Range(0, n[1]), m.Range(0, n[0])], "r")
    f = m.Func("argmin4d")
    f[()] = (m.Int(8).max(), 0, 0, 0, 0)
    v = A[r.x, r.y, r.z, r.w]
    s = [f[()][i] for i in range(5)]
    rv = [r.x, r.y, r.z, r.w]
    if halide_form:
        f[()] = (m.min(s[0], v),) + tuple(m.select(s[0] < v, s[i + 1], rv[i]) for i in range(4))
    else:
        better = v < s[0]
        f[()] = (m.select(better, v, s[0]),) + tuple(m.select(better, rv[i], s[i + 1])
                                                     for i in range(4))
    return f, r, []


def alg_cmul(m, d):
    re, im = d["re"], d["im"]
    RE, IM = m.Buffer(re, "re"), m.Buffer(im, "im")
    r = m.RDom([m.Range(0, re.size)], "r")
    f = m.Func("cmul")
    f[()] = (1, 0)
    x0, x1 = f[()][0], f[()][1]
    f[()] = (x0 * RE[r.x] - x1 * IM[r.x], x0 * IM[r.x] + x1 * RE[r.x])
    return f, r, []


def alg_dot(m, d):
    a, b = d["a"], d["b"]
    A, B = m.Buffer(a, "da"), m.Buffer(b, "db")
    r = m.RDom([m.Range(0, a.size)], "r")
    f = m.Func("dot")
    f[()] = m.cast(m.Float(32), 0)
    f[()] += A[r.x] * B[r.x]
    return f, r, []


def alg_ks(m, d, halide_form=False):
    """`halide_form`: argmin/argmax keep the old index unless the old extreme
    is strictly better (rfactor.cpp's form; last occurrence serially)."""
    a = d["a"]
    A = m.Buffer(a, "ks")
    r = m.RDom([m.Range(0, a.size)], "r")
    f = m.Func("kitchen_sink")
    i32 = m.Int(32)
    f[()] = (0, 1, i32.max(), i32.min(), 0, 0, 0, 0)
    s = [f[()][i] for i in range(8)]
    v = A[r.x]
    if halide_form:
        amin = m.select(s[2] < v, s[4], r.x)
        amax = m.select(s[3] > v, s[5], r.x)
    else:
        amin = m.select(v < s[2], r.x, s[4])
        amax = m.select(v > s[3], r.x, s[5])
    f[()] = (s[0] + v, s[1] * v, m.min(s[2], v), m.max(s[3], v), amin, amax,
             s[6] + v * v, s[7] + m.select(v % 2 == 0, 1, 0))
    return f, r, []


ALGORITHMS = {"max": alg_max, "histogram2d": alg_hist, "argmin4d": alg_argmin,
              "complex_mul": alg_cmul, "dot": alg_dot, "kitchen_sink": alg_ks}


# ---- the rfactor schedules (Halide's test/performance/rfactor.cpp) ------------------------
# Each schedule takes its parameters `p` (a dict); DEFAULTS are rfactor.cpp's
# values, space() the values the calibration round sweeps (bench/sweep.py).
def _sched_1d(m, f, r, p, vec_u=None):
    """max, complex_mul, dot, kitchen_sink: chunks of p["chunk"] elements in
    parallel, each reduced p["lanes"] lanes wide, the lanes then merged."""
    rxo, rxi, rxio, rxii = m.RVar("rxo"), m.RVar("rxi"), m.RVar("rxio"), m.RVar("rxii")
    u, v = m.Var("u"), m.Var("v")
    f.update().split(r.x, rxo, rxi, p["chunk"])
    intm = f.update().rfactor(rxo, u)
    intm.compute_root()
    if vec_u:
        intm.vectorize(u, vec_u)
    intm.update().parallel(u).split(rxi, rxio, rxii, p["lanes"]) \
        .rfactor(rxii, v).compute_at(intm, u).vectorize(v).update().vectorize(v)


def sched_max(m, f, r, p):
    _sched_1d(m, f, r, p)


def sched_hist(m, f, r, p):
    """Strips of p["rows"] rows in parallel, each scattered into its own
    histogram (the scatter over x unrolled by p["unroll"]), the histograms
    initialized and merged p["lanes"] buckets wide."""
    x = f.args()[0]
    u = m.Var("u")
    ryo, ryi = m.RVar("ryo"), m.RVar("ryi")
    intm = f.update().split(r.y, ryo, ryi, p["rows"]).rfactor(ryo, u)
    intm.compute_root().vectorize(x, p["lanes"]).update().parallel(u)
    if p["unroll"] > 1:
        intm.update().unroll(r.x, p["unroll"])
    f.update().vectorize(x, p["lanes"])


def sched_argmin(m, f, r, p):
    """One task per outermost coordinate; inside it, rows split into
    p["lanes"] columns reduced as vector lanes."""
    u, v = m.Var("u"), m.Var("v")
    intm1 = f.update(0).rfactor(r.w, u)
    intm1.compute_root()
    intm1.update(0).parallel(u)
    rxo, rxi = m.RVar("rxo"), m.RVar("rxi")
    intm2 = intm1.update(0).split(r.x, rxo, rxi, p["lanes"]).rfactor(rxi, v)
    intm2.compute_at(intm1, u)
    intm2.update(0).vectorize(v)


def sched_cmul(m, f, r, p):
    _sched_1d(m, f, r, p, vec_u=8)


def sched_dot(m, f, r, p):
    _sched_1d(m, f, r, p)


def sched_ks(m, f, r, p):
    _sched_1d(m, f, r, p)


SCHEDULES = {"max": sched_max, "histogram2d": sched_hist, "argmin4d": sched_argmin,
             "complex_mul": sched_cmul, "dot": sched_dot, "kitchen_sink": sched_ks}

DEFAULTS = {"max": {"chunk": 4 * 8192, "lanes": 8},
            "histogram2d": {"rows": 16, "lanes": 8, "unroll": 1},
            "argmin4d": {"lanes": 16},
            "complex_mul": {"chunk": 2 * 8192, "lanes": 8},
            "dot": {"chunk": 4 * 8192, "lanes": 8},
            "kitchen_sink": {"chunk": 8192, "lanes": 8}}


def _chunks(n: int) -> list:
    """Elements per parallel task: 2^13 .. 2^18 (at most half the input; at
    smoke-test sizes n/16 and n/4)."""
    sizes = [1 << k for k in range(13, 19) if 1 << k <= n // 2]
    return sizes or [max(n // 16, 1), max(n // 4, 1)]


def space(name: str, params: dict) -> Space:
    """The parameters the calibration round sweeps for `name`: lanes in 1, 2
    and 4 native vectors of int32 (the accumulators and argmin's indices)."""
    n, d = _n(params), DEFAULTS[name]
    lanes = Param("lanes", vector_counts(4), d["lanes"], "vector lanes per partial result")
    if name == "histogram2d":
        side = 1 << (params["size_log2"] // 2)
        rows = sorted({max(c // side, 1) for c in _chunks(n)})
        return Space([Param("rows", rows, d["rows"], "rows per parallel strip"),
                      Param("lanes", lanes.values, d["lanes"], "buckets per vector"),
                      Param("unroll", [1, 4, 8], d["unroll"], "scatter unrolled over x")])
    if name == "argmin4d":
        return Space([lanes])
    return Space([Param("chunk", _chunks(n), d["chunk"], "elements per parallel task"),
                  lanes])


# ---- columns ---------------------------------------------------------------------------------
def _values(res) -> list:
    """A realize() result (pyhalide or Halide) -> list of NumPy values/arrays."""
    bufs = list(res) if isinstance(res, (tuple, list)) else [res]
    out = []
    for b in bufs:
        arr = np.array(b, copy=True)
        out.append(arr[()] if arr.ndim == 0 else arr)
    return out


def _sizes(name):
    return [256] if name == "histogram2d" else []


def _rfactor_available():
    try:
        import pyhalide.rfactor  # noqa: F401
    except ImportError as e:
        raise Unavailable("rfactor unavailable") from e


def _build_pyhalide(name, data, rfactor: bool, sched=None):
    import pyhalide as ph
    if rfactor:
        _rfactor_available()
    f, r, sizes = ALGORITHMS[name](ph, data)
    if rfactor:
        try:
            SCHEDULES[name](ph, f, r, sched or DEFAULTS[name])
        except NotImplementedError as e:
            raise Unavailable("rfactor unavailable") from e
    return Runner(run=lambda: f.realize(sizes), compile=f.compile_jit, result=_values)


def _import_halide():
    try:
        import halide as hl
    except ImportError as e:
        raise Unavailable("Halide not installed") from e
    return hl


def _build_halide(name, data, rfactor: bool, sched=None):
    hl = _import_halide()
    alg = ALGORITHMS[name]
    f, r, sizes = alg(hl, data)
    note = ""
    sched = sched or DEFAULTS[name]
    if rfactor:
        try:
            SCHEDULES[name](hl, f, r, sched)
        except Exception as e:     # HalideError: cannot prove associativity
            if name not in ("argmin4d", "kitchen_sink"):
                raise
            # the same algorithm is refused; Halide's own form (rfactor.cpp) is not
            f, r, sizes = alg(hl, data, halide_form=True)
            SCHEDULES[name](hl, f, r, sched)
            note = (f"Halide 21 cannot prove the first-occurrence {name.replace('4d', '')} "
                    f"associative ({str(e).splitlines()[0][:60]}...); timed with the form of "
                    f"Halide's rfactor.cpp, which keeps the old index only when strictly "
                    f"better")
    return Runner(run=lambda: f.realize(sizes), compile=f.compile_jit, result=_values,
                  note=note)


def _build_numpy(name, d):
    if name == "max":
        a = d["a"]
        return Runner(lambda: [a.max()])
    if name == "histogram2d":
        img = d["img"]
        return Runner(lambda: [np.bincount(img.ravel(), minlength=256)])
    if name == "argmin4d":
        a = d["a"]

        def run():
            i = int(np.argmin(a))
            c = np.unravel_index(i, a.shape)
            return [a.flat[i], c[3], c[2], c[1], c[0]]
        return Runner(run)
    if name == "complex_mul":
        re, im = d["re"], d["im"]
        return Runner(lambda: _cmul_tree(re, im),
                      note="no NumPy reduction wraps a complex int32 product: pairwise "
                           "halving with int32 arrays (log2 n passes)")
    if name == "dot":
        a, b = d["a"], d["b"]
        return Runner(lambda: [np.dot(a, b)])
    if name == "kitchen_sink":
        a = d["a"]

        def run():
            with np.errstate(over="ignore"):
                return [a.sum(dtype=np.int32), np.prod(a, dtype=np.int32), a.min(), a.max(),
                        np.argmin(a), np.argmax(a), (a * a).sum(dtype=np.int32),
                        np.count_nonzero((a & 1) == 0)]
        return Runner(run, note="eight NumPy reductions, eight passes over the data")
    raise KeyError(name)


_NUMBA = {}


def _numba_kernels(parallel: bool) -> dict:
    """The same Python loops as the algorithms, for @njit (int32 arithmetic
    wrapped explicitly: Numba widens int32 to int64)."""
    try:
        import numba
    except ImportError as e:
        raise Unavailable("Numba not installed") from e
    if parallel in _NUMBA:
        return _NUMBA[parallel]
    rng = numba.prange if parallel else range
    jit = numba.njit(parallel=True, cache=False) if parallel else numba.njit(cache=False)

    def max_red(a):
        m = np.int32(-2147483648)
        for i in rng(a.size):
            m = max(m, a[i])
        return m

    def hist2d(img):
        h = np.zeros(256, np.int32)
        for y in rng(img.shape[0]):
            for x in range(img.shape[1]):
                h[img[y, x]] += 1
        return h

    def argmin4d(a):
        best = np.int8(127)
        bx = 0
        by = 0
        bz = 0
        bw = 0
        for w in rng(a.shape[0]):
            for z in range(a.shape[1]):
                for y in range(a.shape[2]):
                    for x in range(a.shape[3]):
                        v = a[w, z, y, x]
                        if v < best:
                            best = v
                            bx = x
                            by = y
                            bz = z
                            bw = w
        return best, bx, by, bz, bw

    def complex_mul(re, im):
        a = np.int32(1)
        b = np.int32(0)
        for i in rng(re.size):
            p = re[i]
            q = im[i]
            a, b = np.int32(a * p - b * q), np.int32(a * q + b * p)
        return a, b

    def dot(a, b):
        s = np.float32(0)
        for i in rng(a.size):
            s += a[i] * b[i]
        return s

    def kitchen_sink(a):
        s0 = np.int32(0)
        s1 = np.int32(1)
        s2 = np.int32(2147483647)
        s3 = np.int32(-2147483648)
        s4 = 0
        s5 = 0
        s6 = np.int32(0)
        s7 = np.int32(0)
        for i in rng(a.size):
            v = a[i]
            if v < s2:
                s4 = i
            if v > s3:
                s5 = i
            s0 = np.int32(s0 + v)
            s1 = np.int32(s1 * v)
            s2 = min(s2, v)
            s3 = max(s3, v)
            s6 = np.int32(s6 + v * v)
            s7 = np.int32(s7 + (1 if v % 2 == 0 else 0))
        return s0, s1, s2, s3, s4, s5, s6, s7

    fns = {"max": max_red, "histogram2d": hist2d, "argmin4d": argmin4d,
           "complex_mul": complex_mul, "dot": dot, "kitchen_sink": kitchen_sink}
    _NUMBA[parallel] = {k: jit(f) for k, f in fns.items()}
    return _NUMBA[parallel]


_NUMBA_ARGS = {"max": ("a",), "histogram2d": ("img",), "argmin4d": ("a",),
               "complex_mul": ("re", "im"), "dot": ("a", "b"), "kitchen_sink": ("a",)}


def _as_list(r):
    return list(r) if isinstance(r, tuple) else [r]


def numba_runner(fn, args, result=_as_list) -> Runner:
    import numba

    def compile_():
        fn.compile(tuple(numba.typeof(a) for a in args))
    return Runner(run=lambda: fn(*args), compile=compile_, result=result)


def _build_numba(name, d, parallel):
    fn = _numba_kernels(parallel)[name]
    return numba_runner(fn, [d[k] for k in _NUMBA_ARGS[name]])


# ---- the bandwidth bound ---------------------------------------------------------------------
_READ = {}


def _numpy_read(w):
    return np.add.reduce(w)


def _blas_read(w):
    """BLAS sdot of the words (seen as float32) with themselves: one read
    stream, multi-threaded where the BLAS is."""
    x = w.view(np.float32)
    return np.dot(x, x)


def _threads_read(w):
    """NumPy's reduction on one slice per core (it releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor
    global _POOL
    n = os.cpu_count() or 1
    if _POOL is None:
        _POOL = ThreadPoolExecutor(n)
    k = -(-w.size // n)
    parts = _POOL.map(np.add.reduce, [w[i:i + k] for i in range(0, w.size, k)])
    return np.add.reduce(np.fromiter(parts, np.uint64))


_POOL = None


def _read_kernels() -> dict:
    """Plain read kernels: whichever is fastest gives the bound."""
    base = {"NumPy sum": _numpy_read, "NumPy sum on threads": _threads_read,
            "BLAS sdot(x, x)": _blas_read}
    try:
        import numba
    except ImportError:
        return base
    if _READ:
        return _READ
    _READ.update(base)

    @numba.njit(parallel=True, cache=False)
    def par_sum(w):
        s = np.uint64(0)
        for i in numba.prange(w.size):
            s += w[i]
        return s

    @numba.njit(cache=False)
    def ser_sum(w):
        s = np.uint64(0)
        for i in range(w.size):
            s += w[i]
        return s
    _READ["Numba prange sum"] = par_sum
    _READ["Numba serial sum"] = ser_sum
    return _READ


class BoundRunner(Runner):
    """Reads `nbytes` with each read kernel; a measurement is the fastest
    kernel's minimum. Time = bytes read / measured read bandwidth. The words
    are float32 values in [1, 2) (no denormals for the BLAS kernel), summed as
    uint64 by the integer kernels, which must all agree."""

    def __init__(self, nbytes: int):
        x = np.random.default_rng(1).uniform(1, 2, max(nbytes // 4, 2)).astype(np.float32)
        self.words = x[:x.size - x.size % 2].view(np.uint64)
        with np.errstate(over="ignore"):
            self.truth = np.add.reduce(self.words)
        self.kernels = _read_kernels()
        self.best = ""
        super().__init__(run=self._run_all, compile=self._compile,
                         check=lambda got: (True, ""))

    def _compile(self):
        for k in self.kernels.values():
            k(self.words[:16])

    def _run_all(self):
        with np.errstate(over="ignore"):
            for name, k in self.kernels.items():
                got = k(self.words)
                if "sdot" not in name and got != self.truth:
                    raise RuntimeError(f"read kernel {name} is wrong")
        return None

    def measure(self, calls: int) -> float:
        best, who = math.inf, ""
        with np.errstate(over="ignore"):
            for name, k in self.kernels.items():
                k(self.words)
                for _ in range(calls):
                    t0 = time.perf_counter()
                    k(self.words)
                    t = time.perf_counter() - t0
                    if t < best:
                        best, who = t, name
        self.best = who
        return best


def _build_bound(name, d):
    nbytes = BENCHMARKS[name].bytes_read(d)
    r = BoundRunner(nbytes)
    r.note = (f"{fmt_bytes(nbytes)} read by the fastest of: "
              f"{', '.join(r.kernels)}")
    return r


# ---- dispatch ---------------------------------------------------------------------------------
def build(bench: str, column: str, data, params, sched=None) -> Runner:
    """`sched`: the rfactor schedule's parameters (None: DEFAULTS)."""
    if column == "ph_serial":
        return _build_pyhalide(bench, data, rfactor=False)
    if column in ("ph_rfactor", "ph_same"):
        return _build_pyhalide(bench, data, rfactor=True, sched=sched)
    if column == "numpy":
        return _build_numpy(bench, data)
    if column == "numba_serial":
        return _build_numba(bench, data, parallel=False)
    if column == "numba_prange":
        return _build_numba(bench, data, parallel=True)
    if column == "hl_serial":
        return _build_halide(bench, data, rfactor=False)
    if column == "hl_rfactor":
        return _build_halide(bench, data, rfactor=True, sched=sched)
    if column == "bound":
        return _build_bound(bench, data)
    raise KeyError(column)


# ---- targets ----------------------------------------------------------------------------------
def targets(res) -> list:
    rows = []
    for b in res.benches:
        c = b.cells
        ref = c.get("ph_rfactor")
        if ref is None or not ref.timed:
            rows.append(TargetRow("rfactor ≤ Halide rfactor, ≤ best NumPy/Numba", b.name,
                                  "pyhalide rfactor did not run", "", "n/a"))
        else:
            rows += halide_targets(res, b, "ph_rfactor", "hl_rfactor", "ph_same",
                                   "pyhalide rfactor / Halide rfactor",
                                   "bound" if b.name in BANDWIDTH_BOUND else None)
            peers = [k for k in ("numpy", "numba_serial", "numba_prange")
                     if k in c and c[k].correct]
            if peers:
                x = b.paired("ph_rfactor", b.best_of(peers))
                rows.append(TargetRow("pyhalide rfactor / best correct NumPy/Numba", b.name,
                                      fmt_ratio(x), "≤ 1.00", verdict(x, 1.0)))
            if b.name in BANDWIDTH_BOUND and "bound" in c and c["bound"].timed:
                x = b.paired("ph_rfactor", "bound")
                rows.append(TargetRow("pyhalide rfactor / bandwidth bound", b.name,
                                      fmt_ratio(x), "≤ 1.15", verdict(x, 1.15)))
            if b.name == "argmin4d":
                rows.append(TargetRow("argmin4d: first occurrence", b.name,
                                      "yes" if ref.correct else "no: " + ref.detail,
                                      "as the serial loop",
                                      "yes" if ref.correct else "NO"))
        ser = c.get("ph_serial")
        peers = [k for k in ("hl_serial", "numba_serial") if k in c and c[k].correct]
        if ser is not None and ser.timed and peers:
            x = b.paired("ph_serial", b.best_of(peers))
            rows.append(TargetRow("pyhalide serial / faster of Halide, Numba serial", b.name,
                                  fmt_ratio(x), "≤ 1.10", verdict(x, 1.10)))
        if "bound" in c and c["bound"].timed:
            nbytes = BYTES_PER_ELEMENT[b.name] << res.params["size_log2"]
            rows.append(TargetRow("(reference) read bandwidth of the bound", b.name,
                                  f"{nbytes / c['bound'].median() / 1e9:.1f} GB/s",
                                  f"{fmt_bytes(nbytes)} read", "—"))
        if "hl_serial" in c and "hl_rfactor" in c and c["hl_serial"].timed and \
                c["hl_rfactor"].timed:
            x = b.paired("hl_serial", "hl_rfactor")
            rows.append(TargetRow("(reference) Halide serial / Halide rfactor", b.name,
                                  fmt_ratio(x), "18, 2.7, 55, 11, 10.5, 21× on the paper's "
                                  "machine", "—"))
        if ref is not None and ref.timed and ser is not None and ser.timed:
            x = b.paired("ph_serial", "ph_rfactor")
            rows.append(TargetRow("(reference) pyhalide serial / pyhalide rfactor", b.name,
                                  fmt_ratio(x), "—", "—"))
    for b in res.benches:
        row = compile_target(b, ["ph_serial", "ph_rfactor"])
        if row is not None:
            rows.append(row)
    return rows
