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
