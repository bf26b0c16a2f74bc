"""Kernels whose run time is set by an argument: `reps` steps of a
dependent floating-point recurrence per output element (no vectorization,
no closed form), as a @pipeline function and as a Func pipeline whose rows
may run in parallel; with NumPy references. And a runner of a long call in
another thread."""
import threading
import time

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
    """The recurrence s <- s * 0.5 + a * r (r = 0 .. reps - 1, from s = 0)
    is linear in a: s = a * c with c <- c * 0.5 + r, run here on the scalar
    c (the tests' reps are ~10^6: the same recurrence on the array took
    seconds of NumPy calls a test). Each step rounds once more or less than
    the kernel's, and the terms are of one sign for a >= 0, so the two agree
    to a few ulps (the tests compare with rtol >= 1e-7)."""
    c = 0.0
    for r in range(reps):
        c = c * 0.5 + r
    return np.asarray(a) * c


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
    run(1)
    reps = start
    while True:
        t = time.perf_counter()
        run(reps)
        dt = time.perf_counter() - t
        if dt > 0.05:
            return max(1, int(reps * seconds / dt))
        reps *= 4


def in_background(call, action, settle: float = 0.3):
    """Run call() in another thread and, `settle` s after it started,
    action() here. Returns (call's result, action's result, whether action
    returned before call did)."""
    done = {}

    def run():
        done["result"] = call()
        done["end"] = time.perf_counter()
    t = threading.Thread(target=run)
    t.start()
    try:
        time.sleep(settle)
        result = action()
        action_end = time.perf_counter()
    finally:
        t.join()
    return done["result"], result, action_end < done["end"]
