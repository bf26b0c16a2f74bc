"""`f.update(i).parallel_scan(r.x, chunk)` on the Func API's scans: every
result equals the serial algorithm (the reference evaluator) exactly for
integers, at 1, 2 and 3 threads, for chunk sizes that do and do not divide
the extent, and for empty and one-element inputs."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.scan_util import check_scan, scan

SIZES = [(0,), (1,), (2,), (4,), (5,), (12,), (13,), (203,)]
RNG = np.random.default_rng(19)


def _ints(dtype, lo=-50, hi=50):
    return lambda s: [RNG.integers(lo, hi, size=s).astype(dtype)]


def _one_d(t, value, first=None, start=1):
    """f[x] = first(h)[x]; f[r] = value(f, h, r) for r in [start, len(h))."""
    def build(chunk):
        h = ph.ImageParam(t, 1, "h")
        x, f = ph.Var("x"), ph.Func("f")
        f[x] = first(h, x) if first is not None else h[x]
        r = ph.RDom([(start, h.width() - start)], "r")
        f[r.x] = value(f, h, r.x)
        if chunk is not None:
            assert scan(f.update(0), r.x, chunk).name() == f"{f.name()}.update(0)"
        return f, [h]
    return build


@pytest.mark.parametrize("chunk", [4, 5, (4, "apply"), (5, "apply")])
def test_running_sum_in_place_int32(chunk):
    check_scan(_one_d(ph.Int(32), lambda f, h, r: f[r - 1] + f[r]), _ints(np.int32),
               SIZES, chunk, expected=lambda a: np.cumsum(a, dtype=np.int32))


def test_running_sum_wraps_like_serial_int8():
    check_scan(_one_d(ph.Int(8), lambda f, h, r: f[r - 1] + f[r]), _ints(np.int8, -128, 127),
               [(0,), (1,), (300,)], 7, expected=lambda a: np.cumsum(a, dtype=np.int8))


def test_histogram_cdf_reads_the_input_and_starts_from_zero():
    """`c[r] = c[r - 1] + h[r]` over r from 0: the value before the scan is
    c's pure definition at -1."""
    def value(f, h, r):
        return f[r - 1] + ph.cast(ph.Int(32), h[r])
    build = _one_d(ph.UInt(16), value, first=lambda h, x: ph.cast(ph.Int(32), 0), start=0)
    check_scan(build, _ints(np.uint16, 0, 1000), SIZES, 3,
               expected=lambda a: np.cumsum(a, dtype=np.int32))


def test_running_product_uint32_wraps():
    check_scan(_one_d(ph.UInt(32), lambda f, h, r: f[r - 1] * f[r]),
               _ints(np.uint32, 1, 2**32 - 1), SIZES, 4,
               expected=lambda a: np.cumprod(a, dtype=np.uint32))


@pytest.mark.parametrize("which", ["max", "min"])
def test_running_max_min(which):
    fn = ph.max if which == "max" else ph.min
    acc = np.maximum if which == "max" else np.minimum
    check_scan(_one_d(ph.Int(16), lambda f, h, r: fn(f[r - 1], f[r])), _ints(np.int16),
               SIZES, 5, expected=lambda a: acc.accumulate(a))


def test_running_sum_float32_within_rounding():
    def inputs(s):
        return [RNG.random(s, dtype=np.float32)]
    check_scan(_one_d(ph.Float(32), lambda f, h, r: f[r - 1] + f[r]), inputs,
               [(0,), (1,), (1000,)], 64, rtol=1e-4,
               expected=lambda a: np.cumsum(a, dtype=np.float32))


def _argmax_so_far(a):
    best, idx, out_v, out_i = None, 0, [], []
    for i, v in enumerate(a.tolist()):
        if best is None or v > best:
            best, idx = v, i
        out_v.append(best)
        out_i.append(idx)
    return np.array(out_v, a.dtype), np.array(out_i, np.int32)


def test_argmax_so_far_keeps_the_first_index_of_ties():
    def build(chunk):
        h = ph.ImageParam(ph.Int(32), 1, "h")
        x, f = ph.Var("x"), ph.Func("f")
        f[x] = (h[x], x)
        r = ph.RDom([(1, h.width() - 1)], "r")
        better = h[r.x] > f[r.x - 1][0]
        f[r.x] = (ph.select(better, h[r.x], f[r.x - 1][0]),
                  ph.select(better, r.x, f[r.x - 1][1]))
        if chunk is not None:
            scan(f.update(0), r.x, chunk)
        return f, [h]
    for chunk in (4, (3, "apply")):
        check_scan(build, _ints(np.int32, 0, 6), SIZES, chunk, expected=_argmax_so_far)


def _images(dtype):
    return lambda s: [RNG.integers(0, 256, size=s).astype(dtype)]


def test_row_and_column_scans_make_an_integral_image():
    """A 2-D integral image, one Func per axis: a scan along x of each row,
    then along y of each column, both parallel_scan'ed."""
    def build(chunk):
        img = ph.ImageParam(ph.UInt(8), 2, "img")
        x, y = ph.Var("x"), ph.Var("y")
        rows, cols = ph.Func("rows"), ph.Func("cols")
        rows[x, y] = ph.cast(ph.Int(32), img[x, y])
        rx = ph.RDom([(1, img.width() - 1)], "rx")
        rows[rx.x, y] = rows[rx.x - 1, y] + rows[rx.x, y]
        cols[x, y] = rows[x, y]
        ry = ph.RDom([(1, img.height() - 1)], "ry")
        cols[x, ry.x] = cols[x, ry.x - 1] + cols[x, ry.x]
        rows.compute_root()
        if chunk is not None:
            scan(rows.update(0), rx.x, chunk)
            scan(cols.update(0), ry.x, (chunk + 1, "apply"))
        return cols, [img]
    check_scan(build, _images(np.uint8), [(0, 3), (1, 1), (7, 5), (13, 21)], 4,
               expected=lambda a: np.cumsum(np.cumsum(a, 0, dtype=np.int32), 1, dtype=np.int32))


def test_two_scans_of_one_func():
    """Both updates of one Func scanned: the second reads the first's
    result through a copy of the definitions before it."""
    def build(chunk):
        img = ph.ImageParam(ph.Int(32), 2, "img")
        x, y = ph.Var("x"), ph.Var("y")
        s = ph.Func("s")
        s[x, y] = img[x, y]
        rx = ph.RDom([(1, img.width() - 1)], "rx")
        s[rx.x, y] = s[rx.x - 1, y] + s[rx.x, y]
        ry = ph.RDom([(1, img.height() - 1)], "ry")
        s[x, ry.x] = s[x, ry.x - 1] + s[x, ry.x]
        if chunk is not None:
            scan(s.update(0), rx.x, chunk)
            scan(s.update(1), ry.x, (chunk, "apply"))
        return s, [img]
    check_scan(build, _ints(np.int32), [(1, 1), (6, 9), (11, 4)], 3,
               expected=lambda a: np.cumsum(np.cumsum(a, 0), 1).astype(np.int32))


def _segmented(a, flags):
    out, s = [], 0
    for v, g in zip(a.tolist(), flags.tolist()):
        s = v if g else s + v
        out.append(s)
    return np.array(out, np.int32)


@pytest.mark.parametrize("reset_on_true", [True, False])
def test_segmented_sum_resets_where_a_flag_is_set(reset_on_true):
    """`s = h if g else s + h`: a (reset seen, sum since it) state."""
    def build(chunk):
        h, g = ph.ImageParam(ph.Int(32), 1, "h"), ph.ImageParam(ph.Bool(), 1, "g")
        x, f = ph.Var("x"), ph.Func("f")
        f[x] = h[x]
        r = ph.RDom([(1, h.width() - 1)], "r")
        if reset_on_true:
            f[r.x] = ph.select(g[r.x], h[r.x], f[r.x - 1] + h[r.x])
        else:
            f[r.x] = ph.select(~g[r.x], f[r.x - 1] + h[r.x], h[r.x])
        if chunk is not None:
            scan(f.update(0), r.x, chunk)
        return f, [h, g]

    def inputs(s):
        return [RNG.integers(-9, 9, size=s).astype(np.int32), RNG.random(s) < 0.15]
    chunk = 4 if reset_on_true else (4, "apply")
    check_scan(build, inputs, SIZES, chunk, expected=lambda a, g: _segmented(a, g))


def _affine_ref(a, b, dtype):
    out, s = [], None
    for u, v in zip(a.tolist(), b.tolist()):
        s = v if s is None else u * s + v
        out.append(s)
    return np.array(out).astype(dtype)


def _linear(t, value):
    def build(chunk):
        a, b = ph.ImageParam(t, 1, "a"), ph.ImageParam(t, 1, "b")
        x, s = ph.Var("x"), ph.Func("s")
        s[x] = b[x]
        r = ph.RDom([(1, b.width() - 1)], "r")
        s[r.x] = value(s[r.x - 1], a[r.x], b[r.x])
        if chunk is not None:
            scan(s.update(0), r.x, chunk)
        return s, [a, b]
    return build


def test_linear_recurrence_int32_is_exact():
    """`s = a*s + b` wraps in int32 exactly as the serial loop: the chunks
    compose affine maps (a pair state)."""
    def inputs(s):
        return [RNG.integers(-3, 4, size=s).astype(np.int32),
                RNG.integers(-100, 100, size=s).astype(np.int32)]

    def expected(a, b):
        out, s = [], 0
        for u, v in zip(a.astype(np.int64).tolist(), b.astype(np.int64).tolist()):
            s = v if not out else (u * s + v + 2**31) % 2**32 - 2**31
            out.append(s)
        return np.array(out, np.int32)
    for chunk in (5, (5, "apply")):
        check_scan(_linear(ph.Int(32), lambda s, a, b: a * s + b), inputs, SIZES, chunk,
                   expected=expected)


def test_exponential_moving_average_float64():
    """`s = s + k*(x - s)` with a per-point weight: affine in s, reassociated."""
    def inputs(s):
        return [RNG.random(s) * 0.5, RNG.random(s) * 10]

    def expected(k, v):
        out, s = [], None
        for w, u in zip(k.tolist(), v.tolist()):
            s = u if s is None else s + w * (u - s)
            out.append(s)
        return np.array(out)
    check_scan(_linear(ph.Float(64), lambda s, k, v: s + k * (v - s)), inputs,
               [(0,), (1,), (500,)], 16, rtol=1e-9, expected=expected)


def test_difference_from_the_input_is_affine():
    """`s = h - s` (not one of the tables' operators) is the map -s + h."""
    check_scan(_one_d(ph.Int(32), lambda f, h, r: h[r] - f[r - 1]), _ints(np.int32),
               SIZES, 3, expected=lambda a: _affine_ref(-np.ones_like(a), a, np.int32))
