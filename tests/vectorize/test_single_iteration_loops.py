"""A serial loop of constant extent 1 (a split whose factor is the whole
extent: the outer loop of `vectorize(j, 8)` over 8 lanes) becomes its body
under a LetStmt in the unroll pass, unless the body leaves the loop early;
results equal the loop's."""
import numpy as np

from pyhalide import ir
from pyhalide.lowering.unroll import unroll_loops
from tests.vectorize.vectorize_util import (
    count_loops,
    i32,
    loop,
    lower_vectors,
    run_stmt,
    var,
)


def _store_x(value=None):
    return ir.Store("out", var("x") if value is None else value, var("x"))


def test_a_serial_loop_of_one_iteration_is_a_let():
    stmt = loop("y", 3, loop("x", 1, _store_x(ir.Add(var("x"), var("y"))), lo=var("y")))
    lowered = lower_vectors(stmt)
    assert count_loops(lowered) == 1
    out = np.zeros(4, np.int32)
    (got,) = run_stmt(lowered, [("out", out, True)])
    np.testing.assert_array_equal(got, [0, 2, 4, 0])


def test_extent_one_after_simplification():
    stmt = loop("x", ir.Div(ir.Add(i32(8), i32(7)), i32(8)), _store_x(), lo=2)
    assert isinstance(unroll_loops(stmt), ir.LetStmt)


def test_other_loops_stay():
    for kind, extent in (("parallel", 1), ("serial", 2), ("vectorized", 1)):
        stmt = loop("x", extent, _store_x(), kind)
        assert isinstance(unroll_loops(stmt), ir.For), kind


def test_a_loop_with_an_early_exit_stays():
    # for x in [0, 1) { for k in [0, 3) { if (k == 1) exit x else out[k] = k } }:
    # the exit leaves x's body, so k = 2 is never stored
    body = ir.IfThenElse(ir.EQ(var("k"), i32(1)), ir.LoopExit("x"),
                         ir.Store("out", var("k"), var("k")))
    stmt = loop("x", 1, loop("k", 3, body))
    assert count_loops(unroll_loops(stmt)) == 2
    out = np.full(4, -1, np.int32)
    (got,) = run_stmt(lower_vectors(stmt), [("out", out, True)])
    np.testing.assert_array_equal(got, [0, -1, -1, -1])
