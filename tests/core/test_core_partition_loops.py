"""Loop partitioning end to end: rfactor schedules whose split factors do
not divide the extents (symbolic extents of @pipeline, a Param extent, and
constant extents of the Func API), 1-D and 2-D, down to extents smaller than
one chunk, compared with the reference evaluator, NumPy and plain Python;
and the guard-free copy is vector code."""
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng(20240611)
SIZES = [1, 3, 8, 63, 64, 65, 130, 1000, 4099]


def _load(name, *path):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", *path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# the paper's schedules: Func API (chunks of 64 here) and @pipeline
rfactor_benchmarks = _load("_partition_rfactor_benchmarks", "rfactor_benchmarks.py")
common = _load("_partition_common", "pipelines", "paper_reductions_schedules", "_common.py")


def max_func(a, n):
    A = ph.Buffer(a, "pa")
    r = ph.RDom([(0, n)], "r")
    f = ph.Func("pmax")
    f[()] = ph.Int(32).min()
    f[()] = ph.max(f[()], A[r.x])
    rfactor_benchmarks._one_d(f, 64)
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
    assert re.search(r"if \(\(\(\(pmax(\$\d+)?_intm\.s1\.u \* 64\) \+ 63\) < 1000\)\)", final)
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
@ph.pipeline(schedule=lambda p: common.one_d(p, "m", "i", 64, 8))
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


@ph.pipeline(schedule=lambda p: common.argmin4d(p, 8))
def argmin2d(a):
    """argmin4d's schedule: rows in parallel, 16 positions of a row at once."""
    best = np.int16(32767)
    bi = bl = 0
    for i in range(a.shape[0]):
        for l in range(a.shape[1]):                # noqa: E741 (argmin4d's loop names)
            if a[i, l] < best:
                best = a[i, l]
                bi, bl = i, l
    return best, bi, bl


def test_pipeline_two_d_every_shape():
    img = RNG.integers(-300, 300, (20, 70), dtype=np.int16)
    img[3, 5] = img[11, 40] = -1000                 # a tie: the first occurrence wins
    for h, w in [(1, 1), (2, 3), (4, 16), (5, 17), (12, 45), (20, 70)]:
        x = img[:h, :w].copy()
        assert argmin2d(x) == argmin2d.py_func(x), (h, w)


def test_pipeline_guard_free_copy_is_vector_code():
    spec = [("a", np.int32, (100,))]
    text = running_max.lower("final", arg_specs=spec)
    assert "a[min(" not in text
    assert "a[ramp(" in text
    # lowered for a contiguous array, as a call with one compiles it: dense loads
    llvm = running_max.lower("llvm", arg_specs=spec)
    assert "load <8 x i32>" in llvm and "gather" not in llvm


def test_frontend_vs_func_example_agrees():
    """examples/pipelines/frontend_vs_func.py: both writings of the six
    benchmarks give the same results."""
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "pipelines",
                                                       "frontend_vs_func.py"), "12", "1"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr + out.stdout
    rows = [line for line in out.stdout.splitlines() if line.endswith("yes")]
    assert len(rows) == 6, out.stdout
