"""A pure stage whose points each run a reduction computed inside them (a
running value of the Python loop's body, not scheduled on its own) counts
that work toward the parallel threshold: a loop over few long rows runs in
parallel under schedule="auto", with the rows' results unchanged."""
import numpy as np

import pyhalide as ph
from pyhalide.autoschedule import plan


def rowmax(a):
    out = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        m = -np.inf
        for j in range(a.shape[1]):
            m = max(m, a[i, j])
        out[i] = m
    return out


def rowsum(a):
    out = np.empty(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        s = np.int64(0)
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s
    return out


def test_rows_of_long_reductions_run_in_parallel(monkeypatch):
    monkeypatch.setattr(plan, "MIN_PARALLEL", 1024)
    rng = np.random.default_rng(2)
    a = rng.standard_normal((70, 100))
    a[5, :3] = [-0.0, 0.0, np.nan]
    ints = rng.integers(-2 ** 40, 2 ** 40, (70, 100))
    for fn, arg in ((rowmax, a), (rowsum, ints)):
        p = ph.pipeline(fn, schedule="auto")
        got, want = p(arg), fn(arg)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        src = p.schedule_source()
        assert ".parallel(" in src and "reduction iterations each" in src, src
        small = ph.pipeline(fn, schedule="auto")(arg[:, :3])        # 3 per row: too little
        assert small.tobytes() == fn(arg[:, :3]).tobytes()
