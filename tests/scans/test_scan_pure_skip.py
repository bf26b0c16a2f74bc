"""parallel_scan on f's first update: f's pure definition skips the points
the scan overwrites (two loops around the scan's range, not a pass over the
whole output), and computes the points before and after the scan as
before. Results equal the reference evaluator and plain Python at 1, 2 and
3 threads for scans that cover all, part or none of the output."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.scan_util import check_scan, scan

RNG = np.random.default_rng(1919)


def _partial_cumsum(first, shorter, variant="rescan", second_update=False):
    """f = a, then a running sum over [first, n - shorter)."""
    def build(chunk):
        a = ph.ImageParam(ph.Int(32), 1, "a")
        x, f = ph.Var("x"), ph.Func("f")
        f[x] = a[x]
        if second_update:
            f[x] = f[x] * 3
            f.update(0).unscheduled()
        r = ph.RDom([(first, a.width() - first - shorter)], "r")
        f[r.x] = f[r.x - 1] + f[r.x]
        if chunk is not None:
            scan(f.update(1 if second_update else 0), r.x, (chunk, variant))
        return f, [a]
    return build


def _python(first, shorter, times=1):
    def run(a):
        out = (a * times).astype(np.int32)
        for i in range(first, len(a) - shorter):
            out[i] = out[i - 1] + out[i]
        return out
    return run


# the default run: every (first, shorter) in one variant, the variants by turns; the other
# variant of each with -m slow
@pytest.mark.parametrize("first, shorter, variant", [
    pytest.param(f, s, v, marks=[pytest.mark.slow] if v != ("rescan", "apply")[i % 2] else [])
    for v in ("rescan", "apply") for i, (f, s) in enumerate([(1, 0), (3, 2), (1, 5)])])
def test_pure_points_outside_the_scan_are_computed(first, shorter, variant):
    sizes = [(n,) for n in (first + shorter, first + shorter + 1, 7, 16, 45)]
    check_scan(_partial_cumsum(first, shorter, variant),
               lambda s: [RNG.integers(-1000, 1000, size=s).astype(np.int32)], sizes, 4,
               expected=_python(first, shorter))


def test_a_scan_after_another_update_keeps_the_whole_pure_pass(tmp_path):
    build = _partial_cumsum(2, 1, second_update=True)
    check_scan(build, lambda s: [RNG.integers(-1000, 1000, size=s).astype(np.int32)],
               [(3,), (4,), (9,), (30,)], 4, expected=_python(2, 1, times=3))
    f, (a,) = build(4)
    a.set(ph.Buffer(np.zeros(9, np.int32)))
    path = tmp_path / "stmt.txt"
    f.compile_to_lowered_stmt(str(path))
    text = path.read_text()
    assert len(re.findall(r"for \(f[$0-9]*\.s0\.x,", text)) == _bodies(text)


def _bodies(stmt: str) -> int:
    """f's bodies: in its buffer and in scratch storage (test_scan_in_place.py)."""
    return len(re.findall(r"produce f(?:\$\d+)? \{", stmt))


def test_the_pure_pass_runs_around_the_scan(tmp_path):
    f, (a,) = _partial_cumsum(3, 2)(4)
    a.set(ph.Buffer(np.zeros(9, np.int32)))
    path = tmp_path / "stmt.txt"
    f.compile_to_lowered_stmt(str(path))
    text = path.read_text()
    loops = re.findall(r"for \(f[$0-9]*\.s0\.x, ([^\n]*)\) \{", text)
    assert len(loops) == 2 * _bodies(text), loops
    assert "3" in loops[0] and "3" in loops[1], loops     # (below 3 and from a.width - 2 on)
