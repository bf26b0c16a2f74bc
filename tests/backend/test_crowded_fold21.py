"""A serial scalar loop whose eight integer accumulators fill the registers
(kitchen_sink without a schedule, as a `@pipeline` loop of symbolic length
and with the Func API) is not unrolled by LLVM (codegen_ops.crowded_fold: unrolled,
the `@pipeline` loop spilled its base pointer and ran 1.13x the Func API's
time); a loop choosing between values with five accumulators (an argmin) is
still left to LLVM. Results are compared with plain Python."""
import importlib.util
import os
import sys

import numpy as np
import pytest

import pyhalide as ph


def _load_loops():
    """examples/pipelines/paper_reductions.py (the six written as loops),
    loaded by path: examples/paper_reductions.py has the same module name."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "pipelines",
                        "paper_reductions.py")
    spec = importlib.util.spec_from_file_location("_paper_reductions_loops21", path)
    mod = importlib.util.module_from_spec(spec)
    path_before = list(sys.path)            # (the example puts its folder first)
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path[:] = path_before
    return mod


kitchen_sink = _load_loops().kitchen_sink.py_func


def argmin_first(a):
    best = np.int32(2 ** 31 - 1)
    at = 0
    for i in range(len(a)):
        if a[i] < best:
            best = a[i]
            at = i
    return best, at


def _python(fn, a):
    """fn run by plain Python with int32 arithmetic wrapping as NumPy's."""
    with np.errstate(over="ignore"):
        return [int(v) for v in fn(a)]


@pytest.mark.parametrize("n", [1, 3, 4, 1001, 4099])
def test_kitchen_sink_pipeline_rolled(n):
    a = np.random.default_rng(n).integers(-1000, 1000, n, dtype=np.int32)
    p = ph.pipeline(kitchen_sink, schedule="serial")
    if n > 1:               # (a dimension of size 1 is specialized on)
        assert "llvm.loop.unroll.disable" in p.lower("llvm", [("a", a.dtype, a.shape)])
    assert [int(v) for v in p(a)] == _python(kitchen_sink, a)


def test_kitchen_sink_func_api_rolled():
    n = 3000
    a = np.random.default_rng(5).integers(-1000, 1000, n, dtype=np.int32)
    A = ph.Buffer(a, "ks")
    r = ph.RDom([(0, n)], "r")
    f = ph.Func("kitchen_sink")
    i32 = ph.Int(32)
    f[()] = (0, 1, i32.max(), i32.min(), 0, 0, 0, 0)
    s = [f[()][i] for i in range(8)]
    v = A[r.x]
    f[()] = (s[0] + v, s[1] * v, ph.min(s[2], v), ph.max(s[3], v),
             ph.select(v < s[2], r.x, s[4]), ph.select(v > s[3], r.x, s[5]),
             s[6] + v * v, s[7] + ph.select(v % 2 == 0, 1, 0))
    assert "llvm.loop.unroll.disable" in ph.Pipeline([f]).lower("llvm")
    got = [int(np.asarray(b)) for b in f.realize([])]
    assert got == _python(kitchen_sink, a)


def test_argmin_left_to_llvm():
    a = np.random.default_rng(3).integers(-10**6, 10**6, 5000, dtype=np.int32)
    p = ph.pipeline(argmin_first, schedule="serial")
    assert "llvm.loop.unroll.disable" not in p.lower("llvm", [("a", a.dtype, a.shape)])
    assert [int(v) for v in p(a)] == _python(argmin_first, a)
