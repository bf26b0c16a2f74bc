"""When a vectorized loop's body cannot be vectorized exactly, the loop stays
serial (and says why at PYHALIDE_DEBUG=1); results equal the serial loop.
A non-constant extent is a CompileError naming the loop."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.ir.config import override
from pyhalide.lowering.vectorize import vectorize_loops
from tests.vectorize.vectorize_util import (
    I32,
    as_serial,
    bits,
    check_vectorizes,
    count_loops,
    i32,
    load,
    loop,
    lower_vectors,
    max_lanes,
    run_stmt,
    split_vectorized,
    var,
)

rng = np.random.default_rng(5)
N = 32


def falls_back(capsys, stmt, bufs, reason, params=()):
    """Assert that the vectorized loop stays serial for `reason` and that
    the result equals the serial loop's."""
    with override(debug=1):
        lowered = lower_vectors(stmt)
    err = capsys.readouterr().err
    assert "vectorize: loop xi stays serial" in err and reason in err, err
    assert max_lanes(lowered) == 1 and count_loops(lowered, "vectorized") == 0
    assert count_loops(lowered, "serial") == count_loops(stmt)
    got = run_stmt(lowered, bufs, params, name="fallback")
    want = run_stmt(as_serial(stmt), bufs, params, name="serial_ref")
    assert all(bits(g) == bits(w) for g, w in zip(got, want))
    return got


def test_if_with_a_lane_dependent_condition(capsys):
    a = rng.integers(0, 100, N).astype(np.int32)
    out = np.zeros(N, np.int32)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.IfThenElse(
        ir.LT(load(a, "a", x), i32(50)), ir.Store("out", i32(1), x)))
    got = falls_back(capsys, stmt, [("a", a, False), ("out", out, True)], "of an if depends")
    np.testing.assert_array_equal(got[0], (a < 50).astype(np.int32))


def test_if_with_a_uniform_condition_stays_and_the_loop_vectorizes():
    a = rng.integers(0, 100, N).astype(np.int32)
    out = np.zeros(N, np.int32)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.IfThenElse(
        ir.LT(var("xo"), i32(2)), ir.Store("out", load(a, "a", x), x),
        ir.Store("out", i32(7), x)))
    check_vectorizes(stmt, [("a", a, False), ("out", out, True)], lanes=8)


def test_store_to_a_uniform_index_of_a_lane_dependent_value(capsys):
    # a scalar accumulator: acc[0] = acc[0] + a[x]
    a = rng.integers(-9, 9, N).astype(np.int64)
    acc = np.zeros(1, np.int64)
    stmt = split_vectorized(N // 4, 4, lambda x: ir.Store(
        "acc", ir.Add(ir.Load(ir.Int(64), "acc", i32(0)), load(a, "a", x)), i32(0)))
    got = falls_back(capsys, stmt, [("a", a, False), ("acc", acc, True)], "store to acc")
    assert got[0][0] == a.sum()


def test_nested_loop_whose_extent_depends_on_the_lanes(capsys):
    out = np.zeros(N, np.int32)
    inner = loop("k", var("x"), ir.Store("out", ir.Add(ir.Load(I32, "out", var("x")), var("k")),
                                        var("x")))
    stmt = split_vectorized(N // 8, 8, lambda x: ir.LetStmt("x", x, ir.block(
        ir.Store("out", i32(0), var("x")), inner)))
    got = falls_back(capsys, stmt, [("out", out, True)], "extent of the inner loop k")
    np.testing.assert_array_equal(got[0], [x * (x - 1) // 2 for x in range(N)])


def test_scan_is_a_loop_carried_dependence(capsys):
    a = rng.integers(0, 10, N).astype(np.int32)
    out = np.zeros(N + 1, np.int32)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.Store(
        "out", ir.Add(ir.Load(I32, "out", x), load(a, "a", x)), ir.Add(x, i32(1))))
    got = falls_back(capsys, stmt, [("a", a, False), ("out", out, True)],
                     "loop-carried dependence")
    np.testing.assert_array_equal(got[0][1:], np.cumsum(a))


def test_histogram_read_modify_write_through_a_gather(capsys):
    keys = rng.integers(0, 4, N).astype(np.int32)
    hist = np.zeros(4, np.int32)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.Store(
        "hist", ir.Add(ir.Load(I32, "hist", load(keys, "keys", x)), i32(1)),
        load(keys, "keys", x)))
    got = falls_back(capsys, stmt, [("keys", keys, False), ("hist", hist, True)], "hist is written")
    np.testing.assert_array_equal(got[0], np.bincount(keys, minlength=4))


def test_two_stores_whose_ramps_overlap_across_lanes(capsys):
    out = np.zeros(N + 8, np.int32)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.block(
        ir.Store("out", x, x), ir.Store("out", ir.Sub(i32(0), x), ir.Add(x, i32(3)))))
    falls_back(capsys, stmt, [("out", out, True)], "out is written")


def test_inner_loop_writing_where_other_lanes_read(capsys):
    # for x: for k: out[x + k] = out[x + k] + 1 reaches one element from several lanes
    out = np.zeros(N + 4, np.int32)
    idx = ir.Add(var("x"), var("k"))
    stmt = split_vectorized(N // 8, 8, lambda x: ir.LetStmt("x", x, loop(
        "k", 4, ir.Store("out", ir.Add(ir.Load(I32, "out", idx), ir.Mul(var("x"), var("k"))),
                         idx))))
    falls_back(capsys, stmt, [("out", out, True)], "loop-carried dependence")


def test_body_that_already_holds_vectors(capsys):
    out = np.zeros(N * 4, np.int32)
    stmt = split_vectorized(N // 8, 8, lambda x: ir.Store(
        "out", ir.Broadcast(x, 4), ir.Ramp(ir.Mul(x, i32(4)), i32(1), 4)))
    with override(debug=1):
        lowered = lower_vectors(stmt)
    assert "already holds vector code" in capsys.readouterr().err
    got = run_stmt(lowered, [("out", out, True)])
    np.testing.assert_array_equal(got[0], np.repeat(np.arange(N), 4))


def test_non_constant_extent_is_a_compile_error():
    stmt = loop("x", var("n"), ir.Store("out", i32(1), var("x")), "vectorized")
    with pytest.raises(ir.CompileError, match=r"loop x.*not a constant.*split"):
        vectorize_loops(stmt)


def test_extents_zero_and_one_and_a_simplifiable_extent():
    body = ir.Store("out", var("x"), var("x"))
    assert count_loops(vectorize_loops(loop("x", 0, body, "vectorized"))) == 0
    one = vectorize_loops(loop("x", 1, body, "vectorized", lo=3))
    assert isinstance(one, ir.LetStmt) and one.name == "x" and one.value.value == 3
    four = vectorize_loops(loop("x", ir.Sub(i32(6), i32(2)), body, "vectorized"))
    assert ir.to_str(four) == "out[ramp(0, 1, 4)] = ramp(0, 1, 4)\n"



def test_a_lane_dependent_bounds_guard_makes_a_fallback_loop(capsys):
    """A guard that reads no memory (the tail copy of a partitioned loop)
    leaves a `fallback` loop: serial, and codegen asks LLVM not to unroll or
    vectorize it; the result equals the serial loop's."""
    a = rng.integers(0, 100, N).astype(np.int32)
    out = np.zeros(N, np.int32)
    n = ir.Variable(I32, "n", "param")
    stmt = split_vectorized(N // 8, 8, lambda x: ir.IfThenElse(
        ir.LT(x, n), ir.Store("out", load(a, "a", x), x)))
    with override(debug=1):
        lowered = lower_vectors(stmt)
    assert "of an if depends" in capsys.readouterr().err
    assert count_loops(lowered, "fallback") == 1 and count_loops(lowered, "vectorized") == 0
    got = run_stmt(lowered, [("a", a, False), ("out", out, True)], [("n", I32, 21)], name="guarded")
    np.testing.assert_array_equal(got[0], np.where(np.arange(N) < 21, a, 0))
