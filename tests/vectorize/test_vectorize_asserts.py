"""Assertions whose condition depends on the lanes: each becomes a check of
all lanes at once and, when it fails, a lane-by-lane re-run of the
original scalar assertions, so the error raised is the serial loop's (the
first failing iteration, with its values). Where that could differ from
the serial loop, the loop stays serial."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.ir.config import override
from tests.vectorize.vectorize_util import (
    I32,
    check_vectorizes,
    i32,
    load,
    loop,
    lower_vectors,
    max_lanes,
    run_stmt,
    split_vectorized,
    var,
)

N = 32
FAR = 1 << 30
rng = np.random.default_rng(17)


def checked(cond, message, *args):
    return ir.AssertStmt(cond, "IndexError", message, tuple(args))


def in_range(e, n):
    return ir.And(ir.LE(i32(0), e), ir.LT(e, i32(n)))


def gather_body(idx, table):
    """x -> assert idx[x] in range; assert table[idx[x]] < 1000; out[x] = table[idx[x]]"""
    def body(x):
        i = load(idx, "idx", var("x"))
        t = load(table, "table", i)
        return ir.LetStmt("x", x, ir.block(
            checked(in_range(i, len(table)), "index {} of lane {}", i, var("x")),
            checked(ir.LT(t, i32(1000)), "value {} at {}", t, var("x")),
            ir.Store("out", t, var("x"))))
    return body


def bufs(idx, table):
    return [("idx", idx, False), ("table", table, False), ("out", np.zeros(N, np.int32), True)]


def test_checks_every_lane_at_once_and_rechecks_lane_by_lane():
    table = rng.integers(0, 500, 50).astype(np.int32)
    idx = rng.integers(0, 50, N).astype(np.int32)
    stmt = split_vectorized(N // 8, 8, gather_body(idx, table))
    lowered, (got,) = check_vectorizes(stmt, bufs(idx, table), lanes=8)
    text = ir.to_str(lowered)
    assert text.count("if (!vector_reduce_and(") == 2 and "for (xi.lane, 0, 8)" in text
    np.testing.assert_array_equal(got, table[idx])


def test_the_error_is_the_first_failing_iteration_of_the_serial_loop():
    table = rng.integers(0, 500, 50).astype(np.int32)
    table[7] = 5000
    idx = rng.integers(0, 7, N).astype(np.int32)
    lowered = lower_vectors(split_vectorized(N // 8, 8, gather_body(idx, table)))
    # lane 13 fails the second check, lane 14 the first: iteration 13 comes first
    idx[13], idx[14] = 7, 60
    with pytest.raises(IndexError, match=r"^value 5000 at 13$"):
        run_stmt(lowered, bufs(idx, table))
    # the first check fails at lane 10, where the second would read far outside
    # the table: the second check is not evaluated for any lane
    idx[10] = FAR
    with pytest.raises(IndexError, match=rf"^index {FAR} of lane 10$"):
        run_stmt(lowered, bufs(idx, table))


def falls_back(capsys, stmt, reason):
    with override(debug=1):
        lowered = lower_vectors(stmt)
    err = capsys.readouterr().err
    assert "stays serial" in err and reason in err, err
    assert max_lanes(lowered) == 1
    return lowered


def test_assertion_inside_a_nested_loop_keeps_the_loop_serial(capsys):
    a = np.arange(N * 2, dtype=np.int32)
    out = np.zeros(N, np.int32)
    idx = ir.Add(ir.Mul(var("x"), i32(2)), var("k"))
    body = lambda x: ir.LetStmt("x", x, ir.block(              # noqa: E731
        ir.Store("out", i32(0), var("x")),
        loop("k", 2, ir.block(checked(ir.LT(load(a, "a", idx), i32(40)), "big {}",
                                      load(a, "a", idx)),
                              ir.Store("out", ir.Add(ir.Load(I32, "out", var("x")),
                                                     load(a, "a", idx)), var("x"))))))
    lowered = falls_back(capsys, split_vectorized(N // 8, 8, body), "inside a nested loop")
    with pytest.raises(IndexError, match="^big 40$"):
        run_stmt(lowered, [("a", a, False), ("out", out, True)])


def test_assertions_at_two_places_keep_the_loop_serial(capsys):
    a = np.arange(N, dtype=np.int32)
    body = lambda x: ir.LetStmt("x", x, ir.block(              # noqa: E731
        checked(ir.LT(load(a, "a", var("x")), i32(100)), "first {}", var("x")),
        ir.Store("out", load(a, "a", var("x")), var("x")),
        checked(ir.LT(ir.Load(I32, "out", var("x")), i32(100)), "second {}", var("x"))))
    falls_back(capsys, split_vectorized(N // 8, 8, body), "another one elsewhere")


def test_assertion_reading_per_lane_storage_keeps_the_loop_serial(capsys):
    a = np.arange(N, dtype=np.int32)
    tmp = ir.Load(I32, "tmp", i32(0))
    body = lambda x: ir.Allocate("tmp", I32, (i32(1),), ir.block(    # noqa: E731
        ir.Store("tmp", load(a, "a", x), i32(0)),
        checked(ir.LT(tmp, i32(100)), "tmp {}", tmp),
        ir.Store("out", tmp, x)))
    falls_back(capsys, split_vectorized(N // 8, 8, body), "per-lane storage")


def test_func_gather_with_a_wide_index_type_is_vectorized_and_checked():
    lut = ph.Buffer(rng.standard_normal(100).astype(np.float32), "wide_lut")
    data = rng.integers(0, 100, 64).astype(np.int32)
    idx = ph.Buffer(data, "wide_idx")
    x = ph.Var("x")
    f = ph.Func("wide_gather")
    f[x] = lut[idx[x]] * 2
    f.vectorize(x, 8)
    p = ph.Pipeline([f])
    assert "vector_reduce_and(" in p.lower("final")
    np.testing.assert_array_equal(np.asarray(p.realize([64])), np.asarray(lut)[data] * 2)
    data[37] = 100
    with pytest.raises(IndexError, match="wide_lut.*100"):
        p.realize([64])


def test_assertion_where_a_widened_name_is_shadowed_keeps_the_loop_serial(capsys):
    # let t = a[x]; let t = 5: the re-check could not rebind both meanings of t
    a = np.arange(N, dtype=np.int32)
    t = var("t")
    body = lambda x: ir.LetStmt("t", load(a, "a", x), ir.LetStmt(     # noqa: E731
        "u", ir.Add(t, i32(1)), ir.LetStmt("t", i32(5), ir.block(
            checked(ir.LT(var("u"), ir.Add(t, i32(100))), "u {}", var("u")),
            ir.Store("out", ir.Add(var("u"), t), x)))))
    lowered = falls_back(capsys, split_vectorized(N // 8, 8, body), "is shadowed")
    a[20] = 200
    with pytest.raises(IndexError, match="^u 201$"):
        run_stmt(lowered, [("a", a, False), ("out", np.zeros(N, np.int32), True)])
