"""Kernels whose run time is set by an argument: `reps` steps of a
dependent floating-point recurrence per output element (no vectorization,
no closed form), as a @pipeline function and as a Func pipeline whose rows
may run in parallel; with NumPy references."""
import numpy as np

import pyhalide as ph


@ph.pipeline
def recurrence(a, reps):
    n = a.shape[0]
    out = np.empty(n, np.float64)
    for i in range(n):
        s = 0.0
        for r in range(reps):
            s = s * 0.5 + a[i] * r
        out[i] = s
    return out


def recurrence_ref(a, reps):
    s = np.zeros_like(a)
    for r in range(reps):
        s = s * 0.5 + a * r
    return s


def func_recurrence(img: np.ndarray, parallel: bool):
    """(Func, reps Param) computing recurrence on every element of the
    2-D float64 `img`, its rows in parallel or not."""
    inp = ph.Buffer(img, "img")
    reps = ph.Param(ph.Int(32), "reps")
    x, y = ph.Var("x"), ph.Var("y")
    r = ph.RDom([(0, reps)], "r")
    f = ph.Func("rec")
    f[x, y] = ph.f64(0.0)
    f[x, y] = f[x, y] * 0.5 + inp[x, y] * ph.cast(ph.Float(64), r.x)
    if parallel:
        f.update().parallel(y)
        f.parallel(y)
    return f, reps


def func_recurrence_ref(img, reps):
    return recurrence_ref(img, reps)


def calibrated_reps(run, seconds: float, start: int = 1000) -> int:
    """A `reps` for which run(reps) takes about `seconds` here and now
    (after a first call that compiles)."""
    import time
    run(1)
    reps = start
    while True:
        t = time.perf_counter()
        run(reps)
        dt = time.perf_counter() - t
        if dt > 0.05:
            return max(1, int(reps * seconds / dt))
        reps *= 4
