"""A parallel_scan'ed output is computed in its buffer when a run-time test
shows the scan's region inside it (no scratch storage, no copy-out), and in
scratch storage otherwise (an output smaller than the scan). Both paths
equal plain Python, for one value and tuples, at 1, 2 and 3 threads."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override

RNG = np.random.default_rng(190)


def _cumsum(a, chunk, variant):
    x, f = ph.Var("x"), ph.Func("f")
    h = ph.Buffer(a, "h")
    f[x] = h[x]
    r = ph.RDom([(1, len(a) - 1)], "r")
    f[r.x] = f[r.x - 1] + f[r.x]
    f.update(0).parallel_scan(r.x, chunk, variant)
    return f


def _argmax(a, chunk):
    x, f = ph.Var("x"), ph.Func("f")
    h = ph.Buffer(a, "h")
    f[x] = (h[x], x)
    r = ph.RDom([(1, len(a) - 1)], "r")
    better = h[r.x] > f[r.x - 1][0]
    f[r.x] = (ph.select(better, h[r.x], f[r.x - 1][0]), ph.select(better, r.x, f[r.x - 1][1]))
    f.update(0).parallel_scan(r.x, chunk)
    return f


def _python_argmax(a):
    best, k, bests, ks = a[0], 0, [], []
    for i, v in enumerate(a):
        if v > best:
            best, k = v, i
        bests.append(best)
        ks.append(k)
    return np.array(bests, a.dtype), np.array(ks, np.int32)


@pytest.mark.parametrize("variant", ["rescan", "apply"])
def test_cumsum_in_the_buffer_and_in_scratch(variant):
    a = RNG.integers(-1000, 1000, 50).astype(np.int32)
    want = np.cumsum(a, dtype=np.int32)
    f = _cumsum(a, 7, variant)
    for n in (1, 2, 3):
        with override(num_threads=n):
            for size in (50, 20, 1):          # the scan's whole region, then less
                np.testing.assert_array_equal(np.asarray(f.realize([size])), want[:size])
            out = np.full(50, -1, np.int32)   # a given buffer
            f.realize(ph.Buffer(out))
            np.testing.assert_array_equal(out, want)


def test_argmax_tuple_in_the_buffer_and_in_scratch():
    a = RNG.integers(-100, 100, 40).astype(np.int32)
    best, k = _python_argmax(a)
    f = _argmax(a, 6)
    for n in (1, 2, 3):
        with override(num_threads=n):
            for size in (40, 13):
                got = f.realize([size])
                np.testing.assert_array_equal(np.asarray(got[0]), best[:size])
                np.testing.assert_array_equal(np.asarray(got[1]), k[:size])


def test_the_output_is_computed_in_its_buffer_when_inside(tmp_path):
    f = _cumsum(np.zeros(40, np.int32), 8, "rescan")
    path = tmp_path / "stmt.txt"
    f.compile_to_lowered_stmt(str(path))
    bodies = re.split(r"produce f(?:\$\d+)? \{", path.read_text())[1:]
    assert len(bodies) == 2, "one body in the buffer, one in scratch"
    in_buffer = bodies[0].split("} else {", 1)[0]
    assert ".internal" not in in_buffer and ".internal" in bodies[1]
