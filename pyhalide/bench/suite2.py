"""Suite 2: image pipelines (Halide, PLDI 2013).

- blur: the two-stage 3×3 box blur on uint16 (examples/blur.py), output
  4096 × 4096 from a 4098 × 4098 input;
- histeq: histogram equalization on uint8 (examples/histogram_equalization.py),
  4096 × 4096: histogram -> cumulative scan -> lookup;
- conv5x5: a separable 5×5 binomial convolution on float32, output 4096 × 4096.

The algorithm and the schedule are written once, over a module `m` that is
`pyhalide` or `halide`, so both run the same definition and the same schedule
(tiled, the first stage fused into the tiles, vectorized, parallel: the PLDI
2013 blur schedule; histeq's scatter is parallel through rfactor). The Numba
column is the same Python loops under `@njit` (serial), the NumPy column the
idiomatic array expression. pyhalide, Halide and Numba write into a
preallocated output; NumPy allocates, as it does.

Halide's code generator marks float operations fast-math (reassociation and
contraction allowed) unless the target has strict_float: its conv5x5 loop
computes ((a + e) + 6c + 4(b + d)) / 16 with two FMAs, 5 float operations a
vector where the written order needs 9 (pyhalide keeps that order: DESIGN.md).
So conv5x5 also runs Halide with strict_float at Halide's best parameters
("hl_strict"), whose loops are the written order, as pyhalide's are: the
like-for-like row compares pyhalide with it.
"""
from __future__ import annotations

import zlib

import numpy as np

from .protocol import (
    Bench,
    Column,
    Runner,
    TargetRow,
    Unavailable,
    compile_target,
    fmt_ratio,
    verdict,
)
from .sweep import SAME_GOAL, Param, Space, halide_targets, vector_counts

TITLE = "Suite 2: image pipelines (PLDI 2013)"
REFERENCE = "ph"

COLUMNS = [
    Column("ph", "pyhalide", parallel=True),
    Column("hl", "Halide", parallel=True),
    Column("ph_same", "pyhalide, Halide's parameters", parallel=True),
    Column("hl_strict", "Halide strict_float, its parameters", parallel=True),
    Column("numba_serial", "Numba serial"),
    Column("numpy", "NumPy"),
]
COMPILED = {"numpy": False}

# the calibration round (sweep.py): each system's schedule at its best
# parameters, and pyhalide's at Halide's best ("same schedule")
SWEPT = {"ph": "pyhalide", "hl": "Halide"}
SAME_SCHEDULE = {"ph_same": ("ph", "hl"), "hl_strict": ("hl", "hl")}

# the benchmarks whose float arithmetic Halide's fast-math may reorder
FLOAT_BENCHES = ("conv5x5",)

# Numba serial must be this many times slower than pyhalide (PERFORMANCE.md)
NUMBA_FACTOR = {"blur": 3.0, "histeq": 1.5, "conv5x5": 3.0}


def default_params(size_log2=None, quick=False) -> dict:
    if size_log2 is None:
        size_log2 = 8 if quick else 12
    if not 4 <= size_log2 <= 14:
        raise ValueError(f"suite 2 takes a side of 2^4 .. 2^14 pixels, got 2^{size_log2}")
    return {"side_log2": int(size_log2)}


def _side(p):
    return 1 << p["side_log2"]


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


# ---- blur ---------------------------------------------------------------------------------
# The schedules take their parameters `p`; DEFAULTS are the PLDI 2013 blur
# schedule's (vectors of 256 bits), space() what the calibration round sweeps.
DEFAULTS = {"blur": {"lanes": 16, "tile_x": 256, "tile_y": 32},
            "conv5x5": {"lanes": 8, "tile_x": 256, "tile_y": 32},
            "histeq": {"rows": 16, "strip": 32, "lanes": 16}}


def _data_blur(p):
    n = _side(p)
    return {"img": _rng("blur").integers(0, 2**16, (n + 2, n + 2), dtype=np.uint16),
            "shape": (n, n)}


def blur_numpy(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3
        return (bx[:-2] + bx[1:-1] + bx[2:]) // 3


def alg_blur(m, d):
    inp = m.Buffer(d["img"], "input")
    x, y = m.Var("x"), m.Var("y")
    blur_x, blur_y = m.Func("blur_x"), m.Func("blur_y")
    blur_x[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) / 3
    return blur_y, {"blur_x": blur_x, "x": x, "y": y}


def sched_blur(m, out, fs, p=None):
    """Tiles of tile_x × tile_y, one row of tiles per parallel task, the first
    stage computed per tile; both stages vectorized p["lanes"] wide."""
    p = p or DEFAULTS["blur"]
    x, y = fs["x"], fs["y"]
    xi, yi = m.Var("xi"), m.Var("yi")
    out.tile(x, y, xi, yi, p["tile_x"], p["tile_y"]).vectorize(xi, p["lanes"]).parallel(y)
    fs["blur_x"].compute_at(out, x).vectorize(x, p["lanes"])
    return ""


# ---- histogram equalization --------------------------------------------------------------------
def _data_histeq(p):
    n = _side(p)
    img = _rng("histeq").normal(100, 20, (n, n)).clip(0, 255).astype(np.uint8)
    return {"img": img, "shape": img.shape}


def histeq_numpy(image: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(np.bincount(image.ravel(), minlength=256))
    return ((cdf[image].astype(np.int64) * 255) // image.size).astype(np.uint8)


def alg_histeq(m, d):
    image = d["img"]
    h, w = image.shape
    inp = m.Buffer(image, "image")
    i, x, y = m.Var("i"), m.Var("x"), m.Var("y")
    r = m.RDom([m.Range(0, w), m.Range(0, h)], "r")
    hist = m.Func("hist")
    hist[i] = 0
    hist[m.cast(m.Int(32), inp[r.x, r.y])] += 1
    cdf = m.Func("cdf")
    s = m.RDom([m.Range(1, 255)], "s")
    cdf[i] = hist[i]
    cdf[s.x] = cdf[s.x] + cdf[s.x - 1]
    out = m.Func("equalized")
    level = cdf[m.cast(m.Int(32), inp[x, y])]
    out[x, y] = m.cast(m.UInt(8), (m.cast(m.Int(64), level) * 255) / (w * h))
    return out, {"hist": hist, "cdf": cdf, "r": r, "i": i, "x": x, "y": y}


def sched_histeq(m, out, fs, p=None, rfactor=True):
    """The histogram by rfactor over strips of p["rows"] rows (as rfactor.cpp's
    histogram), the scan serial, the lookup in parallel strips of p["strip"]
    rows, vectorized p["lanes"] wide."""
    p = p or DEFAULTS["histeq"]
    hist, r, i = fs["hist"], fs["r"], fs["i"]
    hist.compute_root()
    note = ""
    if rfactor:
        u = m.Var("u")
        ryo, ryi = m.RVar("ryo"), m.RVar("ryi")
        hist.update().split(r.y, ryo, ryi, p["rows"]).rfactor(ryo, u) \
            .compute_root().vectorize(i, 8).update().parallel(u)
        hist.update().vectorize(i, 8)
    fs["cdf"].compute_root()
    yo, yi = m.Var("yo"), m.Var("yi")
    out.split(fs["y"], yo, yi, p["strip"]).parallel(yo).vectorize(fs["x"], p["lanes"])
    return note


# ---- separable 5x5 convolution --------------------------------------------------------------------
WEIGHTS = tuple(np.float32(w / 16) for w in (1, 4, 6, 4, 1))


def _data_conv(p):
    n = _side(p)
    return {"img": _rng("conv5x5").random((n + 4, n + 4), dtype=np.float32), "shape": (n, n)}


def conv_numpy(a: np.ndarray) -> np.ndarray:
    w = WEIGHTS
    n = a.shape[1] - 4
    cx = w[0] * a[:, 0:n] + w[1] * a[:, 1:n + 1] + w[2] * a[:, 2:n + 2] + \
        w[3] * a[:, 3:n + 3] + w[4] * a[:, 4:n + 4]
    h = a.shape[0] - 4
    return w[0] * cx[0:h] + w[1] * cx[1:h + 1] + w[2] * cx[2:h + 2] + \
        w[3] * cx[3:h + 3] + w[4] * cx[4:h + 4]


def alg_conv(m, d):
    inp = m.Buffer(d["img"], "input")
    x, y = m.Var("x"), m.Var("y")
    w = [float(v) for v in WEIGHTS]
    conv_x, conv_y = m.Func("conv_x"), m.Func("conv_y")
    conv_x[x, y] = w[0] * inp[x, y] + w[1] * inp[x + 1, y] + w[2] * inp[x + 2, y] + \
        w[3] * inp[x + 3, y] + w[4] * inp[x + 4, y]
    conv_y[x, y] = w[0] * conv_x[x, y] + w[1] * conv_x[x, y + 1] + w[2] * conv_x[x, y + 2] + \
        w[3] * conv_x[x, y + 3] + w[4] * conv_x[x, y + 4]
    return conv_y, {"blur_x": conv_x, "x": x, "y": y}


def sched_conv(m, out, fs, p=None):
    return sched_blur(m, out, fs, p or DEFAULTS["conv5x5"])


# ---- checks ---------------------------------------------------------------------------------
def _check_exact(got, truth, data):
    got = np.asarray(got)
    if got.shape != truth.shape:
        return False, f"shape {got.shape} instead of {truth.shape}"
    k = int(np.count_nonzero(got != truth))
    return k == 0, f"{k} of {truth.size} pixels differ" if k else ""


def _check_close(got, truth, data):
    got = np.asarray(got)
    if got.shape != truth.shape:
        return False, f"shape {got.shape} instead of {truth.shape}"
    err = float(np.max(np.abs(got.astype(np.float64) - truth)))
    tol = 1e-5 * float(np.max(np.abs(truth)))
    return err <= tol, "" if err <= tol else f"max error {err:.3g} > {tol:.3g}"


BENCHMARKS = {
    "blur": Bench("blur", _data_blur, lambda d: blur_numpy(d["img"]), _check_exact,
                  lambda d: d["img"].nbytes, "uint16, 3x3 box blur, two stages"),
    "histeq": Bench("histeq", _data_histeq, lambda d: histeq_numpy(d["img"]), _check_exact,
                    lambda d: d["img"].nbytes, "uint8, histogram equalization"),
    "conv5x5": Bench("conv5x5", _data_conv, lambda d: conv_numpy(d["img"]), _check_close,
                     lambda d: d["img"].nbytes, "float32, separable 5x5 binomial"),
}

ALGORITHMS = {"blur": alg_blur, "histeq": alg_histeq, "conv5x5": alg_conv}
SCHEDULES = {"blur": sched_blur, "histeq": sched_histeq, "conv5x5": sched_conv}
OUT_DTYPE = {"blur": np.uint16, "histeq": np.uint8, "conv5x5": np.float32}


def space(name: str, params: dict) -> Space:
    """Lanes in 1, 2 and 4 native vectors: of uint16 (blur), float32 (conv5x5)
    and int32 (histeq's lookup, the type of the looked-up counts)."""
    d, n = DEFAULTS[name], _side(params)

    def fit(values):            # tiles and strips no larger than the image (smoke sizes)
        return [v for v in values if v <= n] or [n]
    if name == "histeq":
        return Space([Param("rows", fit([4, 8, 16, 32, 64]), d["rows"],
                            "histogram rows per task"),
                      Param("strip", fit([8, 16, 32, 64, 128]), d["strip"],
                            "lookup rows per task"),
                      Param("lanes", vector_counts(4), d["lanes"], "lookup vector lanes")])
    elem = 2 if name == "blur" else 4
    return Space([Param("lanes", vector_counts(elem), d["lanes"], "vector lanes"),
                  Param("tile_x", fit([128, 256, 512]), d["tile_x"], "tile width"),
                  Param("tile_y", fit([8, 16, 32, 64]), d["tile_y"],
                        "tile height: rows per parallel task")])


# ---- columns --------------------------------------------------------------------------------
def _copy(out):
    return np.array(out, copy=True)


def _build_ph(name, d, p):
    import pyhalide as ph
    out_f, fs = ALGORITHMS[name](ph, d)
    note = ""
    if name == "histeq":
        why = ""
        try:
            import pyhalide.rfactor  # noqa: F401
            note = SCHEDULES[name](ph, out_f, fs, p, rfactor=True)
        except (ImportError, NotImplementedError):
            why = "rfactor unavailable"
        except ph.CompileError as e:
            if "rfactor" not in str(e):
                raise
            why = f"rfactor refused ({str(e).splitlines()[0][:150]}...)"
        if why:
            out_f, fs = ALGORITHMS[name](ph, d)
            SCHEDULES[name](ph, out_f, fs, p, rfactor=False)
            note = f"{why}: the histogram runs serially"
    else:
        note = SCHEDULES[name](ph, out_f, fs, p)
    out = np.empty(d["shape"], OUT_DTYPE[name])
    buf = ph.Buffer(out)
    return Runner(run=lambda: (out_f.realize(buf), out)[1], compile=out_f.compile_jit,
                  result=_copy, note=note)


def _build_hl(name, d, p, strict=False):
    """Halide's column; `strict`: with the strict_float target feature (float
    operations in the written order, no fast-math), for float benchmarks only."""
    try:
        import halide as hl
    except ImportError as e:
        raise Unavailable("Halide not installed") from e
    if strict and name not in FLOAT_BENCHES:
        raise Unavailable("integer pipeline: strict_float changes nothing")
    out_f, fs = ALGORITHMS[name](hl, d)
    note = SCHEDULES[name](hl, out_f, fs, p)
    out = np.empty(d["shape"], OUT_DTYPE[name])
    buf = hl.Buffer(out)
    target = hl.get_jit_target_from_environment()
    if strict:
        target = target.with_feature(hl.TargetFeature.StrictFloat)
    return Runner(run=lambda: (out_f.realize(buf, target), out)[1],
                  compile=lambda: out_f.compile_jit(target), result=_copy, note=note)


_NUMBA = {}


def _numba_kernels() -> dict:
    """The same loops as the algorithms (uint16 wrap made explicit: Numba
    widens the sum of two uint16 to int64)."""
    try:
        import numba
    except ImportError as e:
        raise Unavailable("Numba not installed") from e
    if _NUMBA:
        return _NUMBA
    jit = numba.njit(cache=False)

    def blur(inp, out):
        h, w = out.shape
        bx = np.empty((h + 2, w), np.uint16)
        for y in range(h + 2):
            for x in range(w):
                bx[y, x] = np.uint16(inp[y, x] + inp[y, x + 1] + inp[y, x + 2]) // 3
        for y in range(h):
            for x in range(w):
                out[y, x] = np.uint16(bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) // 3
        return out

    def histeq(img, out):
        h, w = img.shape
        hist = np.zeros(256, np.int32)
        for y in range(h):
            for x in range(w):
                hist[img[y, x]] += 1
        cdf = np.empty(256, np.int32)
        cdf[0] = hist[0]
        for i in range(1, 256):
            cdf[i] = cdf[i - 1] + hist[i]
        for y in range(h):
            for x in range(w):
                out[y, x] = np.uint8((np.int64(cdf[img[y, x]]) * 255) // (w * h))
        return out

    def conv5x5(inp, out, w0, w1, w2, w3, w4):
        h, w = out.shape
        cx = np.empty((h + 4, w), np.float32)
        for y in range(h + 4):
            for x in range(w):
                cx[y, x] = w0 * inp[y, x] + w1 * inp[y, x + 1] + w2 * inp[y, x + 2] + \
                    w3 * inp[y, x + 3] + w4 * inp[y, x + 4]
        for y in range(h):
            for x in range(w):
                out[y, x] = w0 * cx[y, x] + w1 * cx[y + 1, x] + w2 * cx[y + 2, x] + \
                    w3 * cx[y + 3, x] + w4 * cx[y + 4, x]
        return out

    _NUMBA.update({"blur": jit(blur), "histeq": jit(histeq), "conv5x5": jit(conv5x5)})
    return _NUMBA


def _build_numba(name, d):
    fn = _numba_kernels()[name]
    from .suite1 import numba_runner
    out = np.empty(d["shape"], OUT_DTYPE[name])
    args = [d["img"], out] + (list(WEIGHTS) if name == "conv5x5" else [])
    return numba_runner(fn, args, result=_copy)


def _build_numpy(name, d):
    img = d["img"]
    fn = {"blur": blur_numpy, "histeq": histeq_numpy, "conv5x5": conv_numpy}[name]
    return Runner(lambda: fn(img))


def build(bench: str, column: str, data, params, sched=None) -> Runner:
    """`sched`: the schedule's parameters (None: DEFAULTS)."""
    if column in ("ph", "ph_same"):
        return _build_ph(bench, data, sched or DEFAULTS[bench])
    if column in ("hl", "hl_strict"):
        return _build_hl(bench, data, sched or DEFAULTS[bench], strict=column == "hl_strict")
    if column == "numba_serial":
        return _build_numba(bench, data)
    if column == "numpy":
        return _build_numpy(bench, data)
    raise KeyError(column)


def _strict_row(b) -> TargetRow:
    """pyhalide against Halide strict_float, both at Halide's best parameters:
    the same schedule and the same float rounding."""
    label = "pyhalide / Halide strict_float, same schedule and rounding (Halide's best)"
    goal = f"≤ {SAME_GOAL:.2f}"
    c = b.cells
    if not all(k in c and c[k].timed for k in ("ph_same", "hl_strict")):
        return TargetRow(label, b.name, "did not run", goal, "n/a")
    x = b.paired("ph_same", "hl_strict")
    return TargetRow(label, b.name, fmt_ratio(x), goal, verdict(x, SAME_GOAL))


def targets(res) -> list:
    rows = []
    for b in res.benches:
        c = b.cells
        if "ph" not in c or not c["ph"].timed:
            rows.append(TargetRow("pyhalide / Halide, Numba serial / pyhalide", b.name,
                                  "pyhalide did not run", "", "n/a"))
            continue
        rows += halide_targets(res, b, "ph", "hl", "ph_same", "pyhalide / Halide")
        if b.name in FLOAT_BENCHES and res.swept:
            rows.append(_strict_row(b))
        if "numba_serial" in c and c["numba_serial"].correct:
            x = b.paired("numba_serial", "ph")
            goal = NUMBA_FACTOR[b.name]
            rows.append(TargetRow("Numba serial / pyhalide", b.name, fmt_ratio(x),
                                  f"≥ {goal:.1f}", verdict(x, goal, le=False)))
        else:
            rows.append(TargetRow("Numba serial / pyhalide", b.name, "Numba n/a",
                                  f"≥ {NUMBA_FACTOR[b.name]:.1f}", "n/a"))
    for b in res.benches:
        row = compile_target(b, ["ph"])
        if row is not None:
            rows.append(row)
    return rows
