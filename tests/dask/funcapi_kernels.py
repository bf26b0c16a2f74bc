"""Func-API pipelines the Dask tests run (built per call: each test gets fresh Funcs)."""
import pyhalide as ph


def blur3x3(scale: int):
    """A separable 3x3 blur with clamped edges, scaled by a Param; a vectorized,
    parallel schedule; returns (pipeline, input ImageParam, Param)."""
    x, y = ph.Var("x"), ph.Var("y")
    inp = ph.ImageParam(ph.Int(32), 2, "inp")
    k = ph.Param(ph.Int(32), "k", scale)
    w, h = inp.width(), inp.height()
    bx = ph.Func("bx")
    bx[x, y] = (inp[ph.clamp(x - 1, 0, w - 1), y] + inp[x, y]
                + inp[ph.clamp(x + 1, 0, w - 1), y])
    by = ph.Func("by")
    by[x, y] = bx[x, ph.clamp(y - 1, 0, h - 1)] + bx[x, y] * k + bx[x, ph.clamp(y + 1, 0, h - 1)]
    bx.compute_root()
    by.vectorize(x, 8).parallel(y)
    return ph.Pipeline([by]), inp, k


def sum_and_diff():
    """A Tuple-valued output of two inputs, plus a second output."""
    x = ph.Var("x")
    a = ph.ImageParam(ph.Int(64), 1, "a")
    b = ph.ImageParam(ph.Int(64), 1, "b")
    f = ph.Func("f")
    f[x] = (a[x] + b[x], a[x] - b[ph.min(x + 2, b.width() - 1)])
    g = ph.Func("g")
    g[x] = a[x] * 2 + x
    return ph.Pipeline([f, g]), a, b


def gather():
    """Reads its input at indices computed from its data: not bounded per block."""
    x = ph.Var("x")
    a = ph.ImageParam(ph.Int(32), 1, "a")
    f = ph.Func("f")
    f[x] = a[ph.clamp(x + a[x], 0, a.width() - 1)]
    return ph.Pipeline([f]), a


def total(init=5):
    """An int64 sum of an int32 input, from `init`: a 0-D reduction."""
    a = ph.ImageParam(ph.Int(32), 1, "a")
    r = ph.RDom([(0, a.width())], "r")
    s = ph.Func("s")
    s[()] = ph.i64(init)
    s[()] += ph.i64(a[r])
    return ph.Pipeline([s]), a


def total2d():
    """The sum of a 2-D input over a 2-D RDom (rows outer)."""
    img = ph.ImageParam(ph.Int(32), 2, "img")
    r = ph.RDom([(0, img.width()), (0, img.height())], "r")
    s = ph.Func("s2")
    s[()] = ph.i64(0)
    s[()] += ph.i64(img[r.x, r.y]) * (r.x + 1)
    return ph.Pipeline([s]), img


def histogram(bins=16):
    """A histogram of a 1-D input (clamped into its bins): an array reduction."""
    a = ph.ImageParam(ph.Int(32), 1, "a")
    r = ph.RDom([(0, a.width())], "r")
    v = ph.Var("v")
    h = ph.Func("hist")
    h[v] = 0
    h[ph.clamp(a[r], 0, bins - 1)] += 1
    return ph.Pipeline([h]), a


def argmin():
    """(value, index) of the first least element, started from a[0]: an
    operator with a one-sided identity (each block starts from its first point)."""
    a = ph.ImageParam(ph.Int(32), 1, "a")
    r = ph.RDom([(1, a.width() - 1)], "r")
    am = ph.Func("am")
    am[()] = (a[0], 0)
    better = a[r] < am[()][0]
    am[()] = (ph.select(better, a[r], am[()][0]), ph.select(better, r, am[()][1]))
    return ph.Pipeline([am]), a


def matprod():
    """The 2x2 integer matrix product over the rows of m (4 columns: a, b, c, d):
    a non-commutative operator."""
    m = ph.ImageParam(ph.Int(64), 2, "m")
    r = ph.RDom([(0, m.height())], "r")
    f = ph.Func("mp")
    f[()] = (ph.i64(1), ph.i64(0), ph.i64(0), ph.i64(1))
    a, b, c, d = (m[k, r] for k in range(4))
    x = [f[()][k] for k in range(4)]
    f[()] = (x[0] * a + x[1] * c, x[0] * b + x[1] * d, x[2] * a + x[3] * c, x[2] * b + x[3] * d)
    return ph.Pipeline([f]), m


def mean_of_squares():
    """A 0-D output computed from a scalar reduction of a pure Func (the sum of
    squares) and the input's width."""
    a = ph.ImageParam(ph.Int(32), 1, "a")
    x = ph.Var("x")
    sq = ph.Func("sq")
    sq[x] = ph.i64(a[x]) * a[x]
    r = ph.RDom([(0, a.width())], "r")
    s = ph.Func("ssq")
    s[()] = ph.i64(0)
    s[()] += sq[r]
    mean = ph.Func("mean")
    mean[()] = s[()] // a.width()
    return ph.Pipeline([mean]), a


def fsum():
    """A float32 sum: needs float_reassociation on Dask."""
    a = ph.ImageParam(ph.Float(32), 1, "a")
    r = ph.RDom([(0, a.width())], "r")
    s = ph.Func("fs")
    s[()] = ph.f32(0)
    s[()] += a[r]
    return ph.Pipeline([s]), a


def unproven():
    """s = s * 3 + a[r] * s: not associative."""
    a = ph.ImageParam(ph.Int(64), 1, "a")
    r = ph.RDom([(0, a.width())], "r")
    s = ph.Func("un")
    s[()] = ph.i64(1)
    s[()] = s[()] * 3 + a[r] * s[()]
    return ph.Pipeline([s]), a


def scan_along(dim: int, dims: int = 2, op: str = "sum", typ=None):
    """A scan of an input along dimension `dim` (Halide's order) of a `dims`-D
    input: f = input; f[.., r, ..] = f[.., r - 1, ..] (op) f[.., r, ..]."""
    typ = typ or ph.Int(32)
    img = ph.ImageParam(typ, dims, "img")
    vs = [ph.Var(f"v{i}") for i in range(dims)]
    f = ph.Func(f"scan{dim}")
    f[tuple(vs)] = img[tuple(vs)]
    r = ph.RDom([(1, img.dim(dim).extent() - 1)], "r")
    at = tuple(r.x if i == dim else v for i, v in enumerate(vs))
    prev = tuple(r.x - 1 if i == dim else v for i, v in enumerate(vs))
    if op == "sum":
        f[at] = f[prev] + f[at]
    elif op == "max":
        f[at] = ph.max(f[prev], f[at])
    elif op == "square":        # s = s * s + x: no parallel scan
        f[at] = f[prev] * f[prev] + f[at]
    else:               # a linear recurrence s = 3 s + x (wrapping)
        f[at] = f[prev] * 3 + f[at]
    return ph.Pipeline([f]), img


def integral_stages():
    """An integral image as two pipelines, each a scan (rows along x, then
    columns along y of the rows' result): (rows pipeline, its input, columns
    pipeline, its input)."""
    p1, img = scan_along(0, 2, "sum", ph.Int(64))
    p2, mid = scan_along(1, 2, "sum", ph.Int(64))
    return p1, img, p2, mid


def dot():
    """The int64 dot product of two int32 inputs where a is positive."""
    a = ph.ImageParam(ph.Int(32), 1, "a")
    b = ph.ImageParam(ph.Int(32), 1, "b")
    r = ph.RDom([(0, a.width())], "r")
    s = ph.Func("dot")
    s[()] = ph.i64(0)
    s[()] += ph.select(a[r] > 0, ph.i64(a[r]) * b[r], ph.i64(0))
    return ph.Pipeline([s]), a, b


def scan_and_double():
    """Two outputs: a 1-D scan S and G = 2 S (which reads the scan)."""
    x = ph.Var("x")
    a = ph.ImageParam(ph.Int(32), 1, "a")
    s = ph.Func("s")
    s[x] = a[x]
    r = ph.RDom([(1, a.width() - 1)], "r")
    s[r.x] = s[r.x - 1] + s[r.x]
    g = ph.Func("g")
    g[x] = s[x] * 2
    return ph.Pipeline([s, g]), a


def scan_difference():
    """D(x) = S(x) - S(x - 1) of the scan S of a (clamped at its edges): an
    output reading a scan one point back."""
    x = ph.Var("x")
    a = ph.ImageParam(ph.Int(32), 1, "a")
    s = ph.Func("s")
    s[x] = a[ph.clamp(x, 0, a.width() - 1)]
    r = ph.RDom([(1, a.width() - 1)], "r")
    s[r.x] = s[r.x - 1] + s[r.x]
    d = ph.Func("d")
    d[x] = s[x] - s[x - 1]
    return ph.Pipeline([d]), a


def integral_one_pipeline(one_func: bool = False):
    """An integral image in one pipeline: a scan along x, then one along y
    of its result (two Funcs, or, with `one_func`, two updates of one Func)."""
    img = ph.ImageParam(ph.Int(64), 2, "img")
    x, y = ph.Var("x"), ph.Var("y")
    rx = ph.RDom([(1, img.dim(0).extent() - 1)], "rx")
    ry = ph.RDom([(1, img.dim(1).extent() - 1)], "ry")
    rows = ph.Func("rows")
    rows[x, y] = img[x, y]
    rows[rx.x, y] = rows[rx.x - 1, y] + rows[rx.x, y]
    cols = rows if one_func else ph.Func("cols")
    if not one_func:
        cols[x, y] = rows[x, y]
    cols[x, ry.x] = cols[x, ry.x - 1] + cols[x, ry.x]
    return ph.Pipeline([cols]), img


def scan_nd_readers(dim: int):
    """A 2-D scan S of an input along dimension `dim` and two outputs reading
    it: G = 2 S + 1 at its own point and D = S - S one point back along
    `dim` (the input clamped at its edges, so S's pure value before 0 is
    defined): (pipeline [S, G, D], its input)."""
    img = ph.ImageParam(ph.Int(32), 2, "img")
    x, y = ph.Var("x"), ph.Var("y")
    vs = (x, y)
    s = ph.Func("s")
    s[x, y] = img[ph.clamp(x, 0, img.width() - 1), ph.clamp(y, 0, img.height() - 1)]
    r = ph.RDom([(1, img.dim(dim).extent() - 1)], "r")
    at = tuple(r.x if i == dim else v for i, v in enumerate(vs))
    prev = tuple(r.x - 1 if i == dim else v for i, v in enumerate(vs))
    s[at] = s[prev] + s[at]
    g = ph.Func("g")
    g[x, y] = s[x, y] * 2 + 1
    d = ph.Func("d")
    back = tuple(v - 1 if i == dim else v for i, v in enumerate(vs))
    d[x, y] = s[x, y] - s[back]
    return ph.Pipeline([s, g, d]), img
