"""Loop partitioning end to end: rfactor schedules whose split factors do
not divide the extents (symbolic extents of @pipeline, a Param extent, and
constant extents of the Func API), 1-D and 2-D, down to extents smaller than
one chunk, compared with the reference evaluator, NumPy and plain Python;
and the guard-free copy is vector code."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import pyhalide as ph
from jitcheck import check

RNG = np.random.default_rng(20240611)
SIZES = [1, 3, 8, 63, 64, 65, 130, 1000, 4099]


def one_d(f, rx, chunk=64, lanes=8):
    """The paper's 1-D schedule (chunks in parallel, each `lanes` wide)."""
    rxo, rxi, rxio, rxii = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("rxio"), ph.RVar("rxii")
    u, v = ph.Var("u"), ph.Var("v")
    f.update().split(rx, rxo, rxi, chunk)
    intm = f.update().rfactor(rxo, u)
    intm.compute_root()
    intm.update().parallel(u).split(rxi, rxio, rxii, lanes) \
        .rfactor(rxii, v).compute_at(intm, u).vectorize(v).update().vectorize(v)


def max_func(a, n):
    A = ph.Buffer(a, "pa")
    r = ph.RDom([(0, n)], "r")
    f = ph.Func("pmax")
    f[()] = ph.Int(32).min()
    f[()] = ph.max(f[()], A[r.x])
    one_d(f, r.x)
    return f


@pytest.mark.parametrize("n", [5, 1000, 1021])
def test_func_api_constant_extent_not_divisible(n):
    a = RNG.integers(-10 ** 6, 10 ** 6, n, dtype=np.int32)
    check(max_func(a, n), [], [a.max()])


def test_func_api_param_extent_every_size():
    a = RNG.integers(-10 ** 6, 10 ** 6, max(SIZES), dtype=np.int32)
    n = ph.Param(ph.Int(32), "pn", 1)
    f = max_func(a, n)
    for size in SIZES:
        n.set(size)
        check(f, [], [a[:size].max()])


def test_fast_copy_is_vector_code():
    a = RNG.integers(-100, 100, 1000, dtype=np.int32)
    f = max_func(a, 1000)
    final = ph.Pipeline([f]).lower("final")
    assert "a[min(" not in final and "pa[ramp(" in final
    # the guard-free copy of a chunk has no guard left inside its vector loop
    assert re.search(r"if \(\(\(\(pmax\$\d+_intm\.s1\.u \* 64\) \+ 63\) < 1000\)\)", final)
    assert "<8 x i32>" in ph.Pipeline([f]).lower("llvm")


def test_func_api_two_dimensional_sum_every_shape():
    img = RNG.integers(-1000, 1000, (40, 70), dtype=np.int32)
    for h, w in [(1, 1), (3, 5), (4, 8), (7, 17), (40, 70)]:
        A = ph.Buffer(img[:h, :w].copy(), "img2")
        r = ph.RDom([(0, w), (0, h)], "r")
        f = ph.Func("sum2")
        f[()] = 0
        f[()] += A[r.x, r.y]
        ryo, ryi, rxo, rxi = ph.RVar("ryo"), ph.RVar("ryi"), ph.RVar("rxo"), ph.RVar("rxi")
        u, v = ph.Var("u"), ph.Var("v")
        intm = f.update().split(r.y, ryo, ryi, 4).rfactor(ryo, u)
        intm.compute_root().update().parallel(u)
        inner = intm.update().split(r.x, rxo, rxi, 8).rfactor(rxi, v)
        inner.compute_at(intm, u).vectorize(v).update().vectorize(v)
        check(f, [], [img[:h, :w].sum(dtype=np.int32)])


# ---- @pipeline: symbolic extents -------------------------------------------------------------
def pipeline_one_d(p):
    one_d(p.funcs["m"], p.vars["i"])


@ph.pipeline(schedule=pipeline_one_d)
def running_max(a):
    m = np.int32(-2 ** 31)
    for i in range(len(a)):
        m = max(m, a[i])
    return m


def test_pipeline_one_d_every_size():
    a = RNG.integers(-10 ** 6, 10 ** 6, max(SIZES), dtype=np.int32)
    for size in SIZES + [0]:
        x = a[:size].copy()
        assert running_max(x) == running_max.py_func(x), size


def pipeline_argmin(p):
    best = p.funcs["best"]
    u, v = ph.Var("u"), ph.Var("v")
    intm = best.update(0).rfactor(p.vars["y"], u)
    intm.compute_root()
    intm.update(0).parallel(u)
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    inner = intm.update(0).split(p.vars["x"], rxo, rxi, 16).rfactor(rxi, v)
    inner.compute_at(intm, u)
    inner.update(0).vectorize(v)


@ph.pipeline(schedule=pipeline_argmin)
def argmin2d(a):
    best = np.int16(32767)
    by = bx = 0
    for y in range(a.shape[0]):
        for x in range(a.shape[1]):
            if a[y, x] < best:
                best = a[y, x]
                by, bx = y, x
    return best, by, bx


def test_pipeline_two_d_every_shape():
    img = RNG.integers(-300, 300, (20, 70), dtype=np.int16)
    img[3, 5] = img[11, 40] = -1000                 # a tie: the first occurrence wins
    for h, w in [(1, 1), (2, 3), (4, 16), (5, 17), (12, 45), (20, 70)]:
        x = img[:h, :w].copy()
        assert argmin2d(x) == argmin2d.py_func(x), (h, w)


def test_pipeline_guard_free_copy_is_vector_code():
    text = running_max.lower("final", arg_specs=[("a", np.int32, (100,))])
    assert "a[min(" not in text
    assert "a[ramp(" in text


def test_frontend_vs_func_example_agrees():
    """examples/pipelines/frontend_vs_func.py: both writings of the six
    benchmarks give the same results."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, os.path.join(root, "examples", "pipelines",
                                                       "frontend_vs_func.py"), "12", "1"],
                         capture_output=True, text=True, timeout=600, cwd=root)
    assert out.returncode == 0, out.stderr + out.stdout
    rows = [line for line in out.stdout.splitlines() if line.endswith("yes")]
    assert len(rows) == 6, out.stdout
