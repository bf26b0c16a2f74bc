"""Insertion sort from an int argument `lo` at the speed of insertion from 0
(session 26, issue 17): the build for lo >= 0 (frontend_ast/nonneg_params.py)
rewrites the source with lo known to be a Python int, so `while j >= lo`
tests the loop's position (loop_counter_index.py), takes lo as the int32
`max(P, 0)` (for lo < 2**30; a larger lo runs the build with lo int64), and
lowering/loop_range_facts.py bounds `max(X, k)` below by k, so the shift's
loads lose their clamps, wraps and index checks. Hand-built
proofs (what folds and what must not), the lowered shift, and the sorts
against plain Python (sizes, positions of lo, NaN, -0.0, ints, gap 2)."""
from __future__ import annotations

import re

import numpy as np

import pyhalide as ph
from pyhalide import ir

from .test_insertion_lo25 import insertion_from as insertion_from_py
from .test_loop_range_facts22 import _stored

I32 = ir.Int(32)
X = ir.Variable(I32, "x")
P = ir.Variable(I32, "p")
_EXIT = ir.IfThenElse(ir.GT(ir.Load(I32, "flag", ir.index(0)), ir.index(0)),
                      ir.LoopExit("x"))


def _stored_under(guard, value) -> str:
    """The value stored in `for (x, -50, 100) { if flag exit; if (guard)
    out[x] = value }` after the pass, without spaces (x in [-50, 49]: the
    range alone proves neither x >= 0 nor x <= 5)."""
    body = ir.block(_EXIT, ir.IfThenElse(guard, ir.Store("out", value, X)))
    return _stored(ir.For("x", ir.index(-50), ir.index(100), ir.ForKind.SERIAL,
                          body)).replace(" ", "")


def test_max_with_a_constant_bounds_below():
    # x >= max(p, 0) proves x >= 0: the clamp max(x - 0, 0) and x < 0 fold
    guard = ir.GE(X, ir.Max(P, ir.index(0)))
    assert _stored_under(guard, ir.Max(X, ir.index(0))) == "x"
    assert _stored_under(guard, ir.LT(X, ir.index(0))) == "false"
    # min(p, 5) >= x proves x <= 5
    assert _stored_under(ir.LE(X, ir.Min(P, ir.index(5))), ir.Min(X, ir.index(5))) == "x"


def test_bounds_that_must_not_fold():
    # x >= max(p, -1): x may be -1; x >= min(p, 0): x may be any value
    # below 0; x <= max(p, 5): x may pass 5
    for guard, value in [(ir.GE(X, ir.Max(P, ir.index(-1))), ir.Max(X, ir.index(0))),
                         (ir.GE(X, ir.Min(P, ir.index(0))), ir.Max(X, ir.index(0))),
                         (ir.LE(X, ir.Max(P, ir.index(5))), ir.Min(X, ir.index(5)))]:
        text = _stored_under(guard, value)
        assert "max(x" in text or "min(x" in text, text


insertion_from = ph.pipeline(insertion_from_py)


@ph.pipeline
def argsort_gap_two(a, idx, lo):
    for i in range(lo + 2, a.shape[0]):
        key, k = a[i], idx[i]
        j = i - 2
        while lo <= j and key < a[j]:
            a[j + 2] = a[j]
            idx[j + 2] = idx[j]
            j -= 2
        a[j + 2] = key
        idx[j + 2] = k


def test_lowered_shift_has_no_clamp_wrap_or_check():
    data = np.random.default_rng(26).random(40)
    # a lo past 32 bits runs the wide build (int64 lo: Python's result); a
    # small lo after it still runs the int32 build, whose shift is lowered
    for lo in (2**31 - 1, 3):
        _same(insertion_from(data.copy(), lo), insertion_from.py_func(data.copy(), lo))
    text = insertion_from.lower("final")
    assert re.search(r"max\(__pyhalide_nonneg\d+, 0\)", text), text     # (lo: int32)
    m = re.search(r"for \(\S+while\d+\$x, 1, ", text)
    assert m, text
    loop = text[m.start():]
    loop = loop[:loop.index("free ")]
    body = loop[loop.index("{"):]
    assert "IndexError" not in body and "min(" not in body, loop
    assert "extent.0 +" not in body, loop        # (no negative-index wrap t + n)


def _inputs(rng, n):
    return [rng.standard_normal(n), np.sort(rng.standard_normal(n)),
            np.arange(n, dtype=np.float64)[::-1].copy(),
            rng.choice([np.nan, -0.0, 0.0, 1.0, -1.0], n)]


def _same(got, want):
    assert np.array_equal(got, want, equal_nan=True), (got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want)), (got, want)


def test_insertion_from_lo_against_python():
    rng = np.random.default_rng(261)
    for n in (0, 1, 2, 5, 17, 40):
        for lo in sorted({0, 1, n // 2, max(n - 1, 0), n, n + 2}):
            for data in _inputs(rng, n):
                _same(insertion_from(data.copy(), lo), insertion_from.py_func(data.copy(), lo))
    ints = rng.integers(-4, 4, 30)
    for lo in (0, 7, 29):
        assert insertion_from(ints.copy(), lo).tolist() == \
            insertion_from.py_func(ints.copy(), lo).tolist()


def test_argsort_gap_two_from_lo_against_python():
    rng = np.random.default_rng(262)
    for n in (0, 3, 18):
        for lo in sorted({0, 1, n // 2, n + 1}):
            for data in _inputs(rng, n):
                a1, a2 = data.copy(), data.copy()
                i1, i2 = np.arange(n), np.arange(n)
                argsort_gap_two(a1, i1, lo)
                argsort_gap_two.py_func(a2, i2, lo)
                _same(a1, a2)
                assert i1.tolist() == i2.tolist()
