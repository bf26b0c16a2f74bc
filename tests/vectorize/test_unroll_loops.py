"""Unrolled loops become one copy of the body per iteration, with the loop
variable bound to min + i; results equal the serial loop."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.lowering.unroll import unroll_loops
from tests.vectorize.vectorize_util import (
    I32,
    check_vectorizes,
    count_loops,
    i32,
    load,
    loop,
    lower_vectors,
    run_stmt,
    split_vectorized,
    var,
)

rng = np.random.default_rng(9)


def test_unrolled_loop_becomes_copies_of_its_body():
    out = np.zeros(8, np.int32)
    stmt = loop("x", 4, ir.Store("out", ir.Mul(var("x"), var("x")), ir.Add(var("x"), i32(2))),
                "unrolled")
    lowered = lower_vectors(stmt)
    assert count_loops(lowered) == 0
    assert ir.to_str(lowered) == "out[2] = 0\nout[3] = 1\nout[4] = 4\nout[5] = 9\n"
    (got,) = run_stmt(lowered, [("out", out, True)])
    np.testing.assert_array_equal(got, [0, 0, 0, 1, 4, 9, 0, 0])


def test_nested_unrolled_loops_and_a_symbolic_min():
    a = rng.integers(0, 100, 64).astype(np.int32)
    out = np.zeros(64, np.int32)
    idx = ir.Add(ir.Mul(var("y"), i32(8)), var("x"))
    body = ir.Store("out", ir.Add(load(a, "a", idx), var("y")), idx)
    stmt = loop("yo", 2, loop("y", 4, loop("x", 8, body, "unrolled"), "unrolled",
                              lo=ir.Mul(var("yo"), i32(4))))
    lowered = unroll_loops(stmt)
    assert count_loops(lowered) == 1 and len(lowered.body.stmts) == 4
    text = ir.to_str(lowered)
    assert "let y = (yo * 4)" in text and "let y = ((yo * 4) + 3)" in text
    (got,) = run_stmt(lowered, [("a", a, False), ("out", out, True)])
    np.testing.assert_array_equal(got, a + np.repeat(np.arange(8), 8))


def test_unrolled_loop_inside_a_vectorized_loop():
    a = rng.standard_normal(3 * 32).astype(np.float32)
    out = np.zeros(32, np.float32)

    def body(x):
        acc = ir.Add(ir.Load(ir.Float(32), "out", x),
                     load(a, "a", ir.Add(ir.Mul(var("c"), i32(32)), x)))
        return ir.block(ir.Store("out", ir.Const(ir.Float(32), 0), x),
                        loop("c", 3, ir.Store("out", acc, x), "unrolled"))

    lowered, (got,) = check_vectorizes(split_vectorized(4, 8, body),
                                       [("a", a, False), ("out", out, True)], lanes=8)
    assert count_loops(lowered) == 1
    np.testing.assert_array_equal(got, (np.float32(0) + a[:32] + a[32:64]) + a[64:])


def test_empty_unrolled_loop_and_non_constant_extent():
    body = ir.Store("out", var("x"), var("x"))
    assert count_loops(unroll_loops(loop("x", ir.Sub(i32(2), i32(5)), body, "unrolled"))) == 0
    with pytest.raises(ir.CompileError, match=r"cannot unroll loop x:.*not a constant"):
        unroll_loops(loop("x", var("n", I32), body, "unrolled"))
