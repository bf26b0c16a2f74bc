"""Clamp unswitching of vectorized loops (lowering/unswitch_clamps.py): a
`vectorize(x, 8)` schedule reads x at `min(xo * 8, extent - 8) + lane`
(ShiftInwards), whose clamps of a call-time broadcast are bounded through
the min's operands. Gray-Scott scheduled as suite 4 schedules it equals
NumPy bit for bit at every shape (a slice of length 1 broadcast, rows
shorter than the vector, NumPy's ValueError), and its clamp-free copy
loads dense vectors."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite4_kernels
from pyhalide.lowering.unswitch_clamps import unswitch_clamps

from .test_broadcast_unswitch21 import check_gray_scott, run_nest

gray_scott = ph.pipeline(suite4_kernels.gray_scott, schedule=suite4_kernels.sched_gray_scott)

SHAPES = [((6, 7), (6, 7)), ((3, 7), (6, 7)), ((6, 3), (6, 7)), ((6, 12), (3, 3)),
          ((3, 3), (6, 12)), ((2, 7), (3, 7)), ((40, 33), (40, 33)), ((3, 33), (40, 3)),
          ((5, 7), (6, 7)), ((2, 2), (2, 2)), ((9, 10), (9, 10)), ((12, 21), (12, 3)),
          ((12, 3), (12, 21))]


@pytest.mark.parametrize("su,sv", SHAPES)
def test_scheduled_gray_scott_equals_numpy_at_every_shape(su, sv):
    check_gray_scott(gray_scott, su, sv, sum(su) * 37 + sum(sv))


def test_scheduled_gray_scott_loads_dense_vectors():
    """The clamp-free copy of each output's vector loop reads u and v at
    ramps of stride 1 (before, every read was a gather of clamped lanes).
    (Func names may carry a `$n` suffix: other pipelines of the worker's
    process made Funcs of the same name.)"""
    rng = np.random.default_rng(3)
    gray_scott(rng.random((20, 21)), rng.random((20, 21)))
    final = gray_scott.lower("final")
    for out in ("un", "vn"):
        stores = [ln for ln in final.splitlines() if re.match(rf"\s*{out}(\$\d+)?\[ramp\(", ln)]
        dense = [ln for ln in stores if not re.search(r"\b[uv](\$\d+)?\[(?!ramp\()", ln)]
        assert dense, f"{out}: no vector store whose loads are all ramps"


def _split_nest(clamp):
    """for xo in [0, (n + 7) / 8): vectorized for xv in [0, 8):
    x = min(xo * 8, max(n - 8, 0)) + xv; out[x] = clamp(x) * 3 + inp[clamp(x)]."""
    n = ir.Variable(ir.INDEX, "n")
    xo, xv = ir.Variable(ir.INDEX, "xo"), ir.Variable(ir.INDEX, "xv")
    base = ir.Min(ir.Mul(xo, ir.index(8)), ir.Max(ir.Sub(n, ir.index(8)), ir.index(0)))
    x = ir.Variable(ir.INDEX, "x")
    k = ir.Variable(ir.INDEX, "k")
    store = ir.Store("out", value=ir.Add(ir.Mul(k, ir.index(3)), ir.Load(ir.INDEX, "inp", k)),
                     index=x)
    body = ir.LetStmt("x", ir.Add(base, xv), ir.LetStmt("k", clamp(x), store))
    inner = ir.For("xv", ir.index(0), ir.index(8), "vectorized", body)
    extent = ir.Div(ir.Add(n, ir.index(7)), ir.index(8))
    return ir.For("xo", ir.index(0), extent, "serial", inner)


@pytest.mark.parametrize("n,m,off", [(16, 16, 0), (20, 20, 0), (20, 19, 0), (20, 1, 0),
                                      (8, 8, 0), (9, 9, 1), (24, 30, 3), (24, 30, 7),
                                      (16, 40, 2 ** 31 - 20), (16, 40, -2 ** 31 + 4),
                                      (16, 16, -1)])
def test_unswitched_split_nest_computes_the_same_stores(n, m, off):
    """A ShiftInwards vector split clamped by max(min(x + off, m - 1), 0): the
    pass gives it a clamp-free copy (the min of the split bounded by its
    operands), and both run by a small interpreter store the same values
    for every extent and offset, wrapping ones included."""
    mm, o = ir.Variable(ir.INDEX, "m"), ir.Variable(ir.INDEX, "off")
    nest = _split_nest(lambda x: ir.Max(ir.Min(ir.Add(x, o), ir.Sub(mm, ir.index(1))),
                                        ir.index(0)))
    after = unswitch_clamps(nest)
    assert isinstance(after, ir.IfThenElse)
    env = {"n": n, "m": m, "off": off}
    assert run_nest(after, env) == run_nest(nest, env)


def test_a_vector_loop_under_a_lane_test_is_left_alone():
    """The tail of a split of an extent below the lanes (`if (x <= max)` on
    each lane) stays serial in the vectorizer: no copy of it is made."""
    n, xv = ir.Variable(ir.INDEX, "n"), ir.Variable(ir.INDEX, "xv")
    clamped = ir.Max(ir.Min(xv, ir.Sub(ir.Variable(ir.INDEX, "m"), ir.index(1))), ir.index(0))
    store = ir.Store("out", value=ir.Load(ir.INDEX, "inp", clamped), index=xv)
    guarded = ir.IfThenElse(ir.LE(xv, ir.Sub(n, ir.index(1))), store, None)
    nest = ir.For("xv", ir.index(0), ir.index(8), "vectorized", guarded)
    assert unswitch_clamps(nest) is nest
    plain = ir.For("xv", ir.index(0), ir.index(8), "vectorized", store)
    assert isinstance(unswitch_clamps(plain), ir.IfThenElse)


@pytest.mark.parametrize("n,m", [(16, 16), (20, 20), (20, 19), (5, 5), (5, 30), (8, 8), (0, 4)])
def test_a_split_guard_joins_the_test(n, m):
    """Under `if (n >= 8)` (a split's test of its extent, over names outside
    the nest) the clamp-free copy keeps only the then-case: the guard joins
    the copy's test, and the short extent's loop (the else-case) is run by
    the original nest alone. The same stores as the nest at every extent."""
    mm = ir.Variable(ir.INDEX, "m")
    n_ = ir.Variable(ir.INDEX, "n")
    clamp = lambda x: ir.Max(ir.Min(x, ir.Sub(mm, ir.index(1))), ir.index(0))   # noqa: E731
    xv = ir.Variable(ir.INDEX, "xv")
    tail = ir.For("xv", ir.index(0), n_, "serial",
                  ir.Store("out", value=ir.Load(ir.INDEX, "inp", clamp(xv)), index=xv))
    nest = ir.For("y", ir.index(0), ir.index(2), "serial",
                  ir.IfThenElse(ir.GE(n_, ir.index(8)), _split_nest(clamp), tail))
    after = unswitch_clamps(nest)
    assert isinstance(after, ir.IfThenElse) and "n >= 8" in ir.expr_to_str(after.condition)
    fast = ir.to_str(after.then_case)
    assert "if (" not in fast and "for (xv, 0, n)" not in fast
    env = {"n": n, "m": m}
    assert run_nest(after, env) == run_nest(nest, env)


def test_a_boundary_condition_floor_keeps_its_vector_clamp():
    """A vector loop's clamp with a floor other than a constant (a boundary
    condition's `max(x, input.min)`, interpolate's output) gets no copy; a
    broadcast's (floor 0) does."""
    lo, m = ir.Variable(ir.INDEX, "lo"), ir.Variable(ir.INDEX, "m")
    boundary = _split_nest(lambda x: ir.Max(ir.Min(x, ir.Sub(m, ir.index(1))), lo))
    assert unswitch_clamps(boundary) is boundary
    broadcast = _split_nest(lambda x: ir.Max(ir.Min(x, ir.Sub(m, ir.index(1))), ir.index(0)))
    assert isinstance(unswitch_clamps(broadcast), ir.IfThenElse)
