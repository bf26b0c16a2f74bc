"""Phase mode's loops trimmed to each phase's own points
(lowering/trim_unrolled.py, called by trim_no_ops).

Phase mode (frontend_ast/carried_phases.py) runs each array statement of a
Python loop as one phase of an update whose point loops span the largest
region over the phases; each phase's guard was a select on the (unrolled)
phase, so trim_no_ops trimmed nothing: `out += a.min(axis=1)` of a (3000, 4)
`a` ran 4 x 3000 x 3000 guarded iterations per Python iteration (7.3 ms;
NumPy 0.11). The unrolled phase loop is now unrolled in trim_no_ops when its
copies trim.

The pass on hand-built IR (the same stores in the same order as the loop
before, in the small IR interpreter, for every N up to 12, empty ranges
too); end to end, values against plain Python over non-square and empty
shapes, and no phase loop of the final code runs over the whole box."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.trim_no_ops import trim_no_ops
from tests.backend.ir_interp import ev, run
from tests.frontend.test_phase_bounds25 import cols_max, rows_min

I32 = ir.Int(32)
N = ir.Variable(I32, "N", "param")
Z, Y, X = (ir.Variable(I32, n) for n in "zyx")


def c(k):
    return ir.Const(I32, k)


def phase_box(kind=ir.ForKind.UNROLLED, phases=3):
    """for z in [0, phases) (kind): for y in [0, N): for x in [0, N + 3):
    if (select(z == 0, x < N && y == 0, select(z == 1, y < N && x < 2, x < 3)))
      out[64 z + 8 y + x] = z + y + x (a phase of a row, of N rows of 2,
    of a box of 3 columns)."""
    guard = ir.Select(ir.EQ(Z, c(0)), ir.And(ir.LT(X, N), ir.EQ(Y, c(0))),
                      ir.Select(ir.EQ(Z, c(1)), ir.And(ir.LT(Y, N), ir.LT(X, c(2))),
                                ir.LT(X, c(3))))
    at = ir.Add(ir.Add(ir.Mul(Z, c(64)), ir.Mul(Y, c(8))), X)
    store = ir.Store("out", ir.Add(ir.Add(Z, Y), X), at)
    inner = ir.For("x", c(0), ir.Add(N, c(3)), ir.ForKind.SERIAL,
                   ir.IfThenElse(guard, store, None))
    return ir.For("z", c(0), c(phases), kind, ir.For("y", c(0), N, ir.ForKind.SERIAL, inner))


def iterations(s, env):
    """How many iterations of serial loops s runs."""
    if isinstance(s, ir.Block):
        return sum(iterations(x, env) for x in s.stmts)
    if isinstance(s, ir.LetStmt):
        return iterations(s.body, {**env, s.name: _ev(s.value, env)})
    if isinstance(s, ir.IfThenElse):
        if _ev(s.condition, env):
            return iterations(s.then_case, env)
        return 0 if s.else_case is None else iterations(s.else_case, env)
    if isinstance(s, ir.For):
        lo, ext = _ev(s.min, env), _ev(s.extent, env)
        return sum((s.kind != ir.ForKind.UNROLLED) + iterations(s.body, {**env, s.name: i})
                   for i in range(lo, lo + ext))
    return 0


def _ev(e, env):
    return ev(e, env, {})


def test_the_unrolled_phase_loop_trims_its_copies():
    before = phase_box()
    after = trim_no_ops(before)
    assert after is not before
    assert "select" not in ir.to_str(after) and "select" in ir.to_str(before)
    for n in range(13):
        want, got = [], []
        run(before, {"N": n}, {}, want)
        run(after, {"N": n}, {}, got)
        assert got == want, n
    # rows of N + 3, N rows of 2, N rows of 3 (+ the y loops' own iterations)
    n = 12
    assert iterations(before, {"N": n}) == 3 * (n + n * (n + 3))
    assert iterations(after, {"N": n}) <= n + 1 + n * (2 + 1) + n * (3 + 1)


def test_a_serial_or_long_phase_loop_is_left_alone():
    for s in (phase_box(kind=ir.ForKind.SERIAL), phase_box(phases=17)):
        out = trim_no_ops(s)
        assert isinstance(out, ir.For) and out.name == "z" and out.kind == s.kind


ROWS_MIN, COLS_MAX = ph.pipeline(rows_min), ph.pipeline(cols_max)


@pytest.mark.parametrize("shape", [(300, 4), (4, 300), (1, 7), (0, 4), (5, 0)])
def test_one_axis_reductions_in_a_loop_against_python(shape):
    a = np.random.default_rng(shape[0] * 10 + shape[1]).standard_normal(shape)
    # (n = 0 of an empty reduced axis: a false ValueError, the size check
    # does not know the loop runs no iteration; not this file's subject)
    for n in (0, 1, 3) if 0 not in shape else (1, 3):
        for kernel, fn in ((ROWS_MIN, rows_min), (COLS_MAX, cols_max)):
            want, got = outcome(fn, a, n), outcome(kernel, a, n)
            assert type(got) is type(want), (shape, n, got, want)
            if isinstance(want, np.ndarray):
                assert np.array_equal(got, want), (shape, n)


def outcome(f, *args):
    """f's value, or the exception it raised (a reduction of an empty axis:
    ValueError, where the loop runs)."""
    try:
        return f(*args)
    except ValueError as e:
        return e


def test_no_phase_loop_runs_over_the_whole_box():
    ROWS_MIN(np.ones((30, 4)), 2)
    text = ROWS_MIN.lower("final")
    # the box's extent (the largest size over the phases) untrimmed
    assert not re.search(r"for \(state_phases[^,]*, 0, max\(max\(", text), text
