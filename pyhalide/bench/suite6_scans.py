"""Suite 6 (scans) of PERFORMANCE.md: `parallel_scan` against the serial
schedule of the same Func, NumPy and Numba (serial: Numba has no parallel
scan), measured like the other suites.

- cumsum_i32, cumsum_f32: `np.cumsum` of 2^24 values (memory-bound; the
  goal is ≤ 1.0× NumPy's time);
- linrec_f64: `s = a*s + b` over 2^24 float64 values, segsum_i32: a sum
  that restarts where a flag is set, argmax_i32: the index of the maximum
  so far (compute-bound; the goal is ≥ 1.7× the serial schedule on 2
  threads);
- integral_u8: a 4096² uint8 integral image in int32 (≤ 0.5× NumPy's
  `np.cumsum(np.cumsum(a, 0), 1)`), its column scan by parallel_scan.

Integer results must equal plain NumPy exactly; float scans, which
parallel_scan reassociates, within a relative 1e-9 (float64) or 1e-3
(float32: the serial float32 cumsum itself drifts from the exact sum).
"""
from __future__ import annotations

import numpy as np

from .protocol import Bench, Column, Runner, TargetRow, Unavailable, fmt_ratio, verdict

TITLE = "Suite 6: scans (parallel_scan against serial, NumPy and Numba)"
REFERENCE = "ph_scan"

COLUMNS = [
    Column("ph_scan", "pyhalide parallel_scan", parallel=True),
    Column("ph_serial", "pyhalide serial"),
    Column("numpy", "NumPy"),
    Column("numba", "Numba (serial)"),
]

CHUNK = 1 << 16
MEMORY_GOAL = 1.0          # parallel_scan time / NumPy time
COMPUTE_GOAL = 1.7         # serial time / parallel_scan time
INTEGRAL_GOAL = 0.5        # parallel_scan time / NumPy time


def default_params(size_log2=None, quick=False) -> dict:
    n = 16 if quick else (size_log2 or 24)
    return {"n": 1 << n, "side": 256 if quick else 4096}


def _rng():
    return np.random.default_rng(6)


def _data_1d(dtype):
    def make(p):
        r = _rng()
        if np.dtype(dtype).kind == "f":
            return {"a": r.random(p["n"]).astype(dtype)}
        return {"a": r.integers(-100, 100, p["n"]).astype(dtype)}
    return make


def _data_linrec(p):
    r = _rng()
    return {"a": r.random(p["n"]) * 0.5 + 0.5, "b": r.random(p["n"])}


def _data_segsum(p):
    r = _rng()
    return {"a": r.integers(-100, 100, p["n"]).astype(np.int32),
            "g": r.random(p["n"]) < 0.001}


def _data_integral(p):
    return {"a": _rng().integers(0, 256, (p["side"], p["side"])).astype(np.uint8)}


def _linrec(a, b):
    out = np.empty_like(b)
    s = 0.0
    for i in range(b.shape[0]):
        s = a[i] * s + b[i] if i else b[i]
        out[i] = s
    return out


def _segsum(a, g):
    out = np.empty_like(a)
    s = np.int32(0)
    for i in range(a.shape[0]):
        s = a[i] if (g[i] or i == 0) else s + a[i]
        out[i] = s
    return out


def _cumsum(a):
    out = np.empty_like(a)
    s = a.dtype.type(0)
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s
    return out


def _argmax(a):
    out = np.empty(a.shape[0], np.int32)
    best, k = a[0], 0
    for i in range(a.shape[0]):
        if a[i] > best:
            best, k = a[i], i
        out[i] = k
    return out


def _numba(fn):
    try:
        import numba
    except ImportError as e:
        raise Unavailable("Numba not installed") from e
    return numba.njit(cache=False)(fn)


def _truth_cumsum(d):
    return np.cumsum(d["a"], dtype=d["a"].dtype)


def _truth_linrec(d):
    return _numba_or_python(_linrec)(d["a"], d["b"])


def _truth_segsum(d):
    return _numba_or_python(_segsum)(d["a"], d["g"])


def _truth_argmax(d):
    return _numba_or_python(_argmax)(d["a"])


def _truth_integral(d):
    return np.cumsum(np.cumsum(d["a"], 0, dtype=np.int32), 1, dtype=np.int32)


def _numba_or_python(fn):
    try:
        return _numba(fn)
    except Unavailable:
        return fn


def _check(rtol):
    def check(got, truth, data):
        got = np.asarray(got)
        if got.shape != truth.shape or got.dtype != truth.dtype:
            return False, f"got {got.dtype}{got.shape}, want {truth.dtype}{truth.shape}"
        if rtol is None:
            ok = np.array_equal(got, truth)
        else:
            ok = np.allclose(got, truth, rtol=rtol, atol=0)
        return (True, "") if ok else (False, f"{int(np.count_nonzero(got != truth))} differ")
    return check


BENCHMARKS = {
    "cumsum_i32": Bench("cumsum_i32", _data_1d(np.int32), _truth_cumsum, _check(None),
                        description="running sum of 2^24 int32"),
    "cumsum_f32": Bench("cumsum_f32", _data_1d(np.float32), _truth_cumsum, _check(1e-3),
                        description="running sum of 2^24 float32"),
    "linrec_f64": Bench("linrec_f64", _data_linrec, _truth_linrec, _check(1e-9),
                        description="s = a*s + b over 2^24 float64"),
    "segsum_i32": Bench("segsum_i32", _data_segsum, _truth_segsum, _check(None),
                        description="sum restarting where a flag is set, 2^24 int32"),
    "argmax_i32": Bench("argmax_i32", _data_1d(np.int32), _truth_argmax, _check(None),
                        description="index of the maximum so far, 2^24 int32"),
    "integral_u8": Bench("integral_u8", _data_integral, _truth_integral, _check(None),
                         description="integral image of a 4096² uint8 image, int32"),
}


# ---- pyhalide --------------------------------------------------------------------------------
def _scan_1d(bench, d, parallel):
    import pyhalide as ph
    x, f = ph.Var("x"), ph.Func(bench)
    if bench.startswith("cumsum") or bench == "argmax_i32":
        a = ph.Buffer(d["a"], "a")
        n = d["a"].shape[0]
        r = ph.RDom([(1, n - 1)], "r")
        if bench == "argmax_i32":
            f[x] = (a[x], x)
            better = a[r.x] > f[r.x - 1][0]
            f[r.x] = (ph.select(better, a[r.x], f[r.x - 1][0]),
                      ph.select(better, r.x, f[r.x - 1][1]))
        else:
            f[x] = a[x]
            f[r.x] = f[r.x - 1] + f[r.x]
    elif bench == "linrec_f64":
        a, b = ph.Buffer(d["a"], "a"), ph.Buffer(d["b"], "b")
        n = d["b"].shape[0]
        r = ph.RDom([(1, n - 1)], "r")
        f[x] = b[x]
        f[r.x] = a[r.x] * f[r.x - 1] + b[r.x]
    else:
        a, g = ph.Buffer(d["a"], "a"), ph.Buffer(d["g"], "g")
        n = d["a"].shape[0]
        r = ph.RDom([(1, n - 1)], "r")
        f[x] = a[x]
        f[r.x] = ph.select(g[r.x], a[r.x], f[r.x - 1] + a[r.x])
    if parallel:
        f.update(0).parallel_scan(r.x, CHUNK)
    return f, n


def _integral(d, parallel):
    import pyhalide as ph
    img = ph.Buffer(d["a"], "img")
    h, w = d["a"].shape
    x, y = ph.Var("x"), ph.Var("y")
    rows, cols = ph.Func("rows"), ph.Func("cols")
    rows[x, y] = ph.cast(ph.Int(32), img[x, y])
    rx = ph.RDom([(1, w - 1)], "rx")
    rows[rx.x, y] = rows[rx.x - 1, y] + rows[rx.x, y]
    rows.compute_root()
    cols[x, y] = rows[x, y]
    ry = ph.RDom([(1, h - 1)], "ry")
    cols[x, ry.x] = cols[x, ry.x - 1] + cols[x, ry.x]
    if parallel:
        rows.update(0).parallel(y)
        cols.update(0).parallel_scan(ry.x, max(1, h // 16))
    else:
        cols.update(0).reorder(x, ry.x)      # along rows in memory, the scan outside
    return cols, (w, h)


def _build_ph(bench, d, parallel):
    if bench == "integral_u8":
        f, sizes = _integral(d, parallel)
        out = np.empty(d["a"].shape, np.int32)
        import pyhalide as ph
        buf = ph.Buffer(out)
        return Runner(run=lambda: (f.realize(buf), out)[1], compile=f.compile_jit,
                      result=lambda o: np.array(o, copy=True))
    f, n = _scan_1d(bench, d, parallel)
    if bench == "argmax_i32":
        return Runner(run=lambda: f.realize([n]), compile=f.compile_jit,
                      result=lambda o: np.asarray(o[1]).astype(np.int32))
    return Runner(run=lambda: f.realize([n]), compile=f.compile_jit,
                  result=lambda o: np.asarray(o))


def _build_numpy(bench, d):
    if bench.startswith("cumsum"):
        a = d["a"]
        return Runner(run=lambda: np.cumsum(a, dtype=a.dtype))
    if bench == "integral_u8":
        a = d["a"]
        return Runner(run=lambda: np.cumsum(np.cumsum(a, 0, dtype=np.int32), 1, dtype=np.int32))
    raise Unavailable("no NumPy function (a Python loop)")


def _build_numba(bench, d):
    if bench.startswith("cumsum"):
        fn = _numba(_cumsum)
        a = d["a"]
        return Runner(run=lambda: fn(a), compile=lambda: fn(a))
    if bench == "integral_u8":
        raise Unavailable("not measured")
    fn = _numba({"linrec_f64": _linrec, "segsum_i32": _segsum, "argmax_i32": _argmax}[bench])
    args = (d["a"], d["b"]) if bench == "linrec_f64" else \
        (d["a"], d["g"]) if bench == "segsum_i32" else (d["a"],)
    return Runner(run=lambda: fn(*args), compile=lambda: fn(*args))


def build(bench: str, column: str, data, params) -> Runner:
    if column == "ph_scan":
        return _build_ph(bench, data, parallel=True)
    if column == "ph_serial":
        return _build_ph(bench, data, parallel=False)
    if column == "numpy":
        return _build_numpy(bench, data)
    if column == "numba":
        return _build_numba(bench, data)
    raise KeyError(column)


# ---- targets ----------------------------------------------------------------------------------
def targets(res) -> list:
    rows = []
    for b in res.benches:
        if "ph_scan" not in b.cells or not b.cells["ph_scan"].correct:
            continue
        if b.name.startswith("cumsum") or b.name == "integral_u8":
            goal = MEMORY_GOAL if b.name.startswith("cumsum") else INTEGRAL_GOAL
            if "numpy" in b.cells and b.cells["numpy"].correct:
                x = b.paired("ph_scan", "numpy")
                rows.append(TargetRow(f"{b.name}: parallel_scan / NumPy", b.name,
                                      fmt_ratio(x), f"≤ {goal}", verdict(x, goal)))
        elif "ph_serial" in b.cells and b.cells["ph_serial"].correct:
            x = b.paired("ph_serial", "ph_scan")
            rows.append(TargetRow(f"{b.name}: serial / parallel_scan on {res.threads} threads",
                                  b.name, fmt_ratio(x), f"≥ {COMPUTE_GOAL}",
                                  verdict(x, COMPUTE_GOAL, le=False)))
    return rows


if __name__ == "__main__":          # python -m pyhalide.bench.suite6_scans [--quick]
    import sys

    from .protocol import render, run_suite
    res = run_suite("suite6_scans", quick="--quick" in sys.argv, threads=2)
    print(render(res, targets(res)))
