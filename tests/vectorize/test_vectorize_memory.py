"""Vector memory accesses and loop structure inside vectorized loops:
dense, reversed, strided, gathered and scattered accesses; uniform loads;
nested serial loops (kept as loops with vector bodies, or as loops over an
offset when only their min depends on the lanes); per-lane copies of
allocations made inside the loop; nested vectorized loops; a vectorized
loop inside a parallel one. Each equals the serial loop bit for bit."""
import numpy as np
import pytest

from pyhalide import ir
from tests.vectorize.vectorize_util import (
    I32,
    check_vectorizes,
    count_loops,
    i32,
    load,
    loop,
    split_vectorized,
    var,
)

F32, F64 = ir.Float(32), ir.Float(64)
rng = np.random.default_rng(11)


@pytest.mark.parametrize("stride", [1, -1, 2, 3, 4, -2, -3, 5, 7])
@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float64])
def test_strided_loads(stride, dtype):
    n, width = 48, 8
    a = rng.integers(0, 100, n * 8 + 16).astype(dtype)
    out = np.zeros(n, dtype)
    base = 8 * 7 if stride < 0 else 0

    def body(x):
        idx = ir.Add(ir.Mul(x, i32(stride)), i32(base + (n * 7 if stride < 0 else 0)))
        return ir.Store("out", load(a, "a", idx), x)

    lowered, _ = check_vectorizes(split_vectorized(n // width, width, body),
                                  [("a", a, False), ("out", out, True)], lanes=width)
    assert f", {stride}, {width})]" in ir.to_str(lowered)


@pytest.mark.parametrize("stride", [-1, 2, 3])
def test_strided_and_reversed_stores(stride):
    n, width = 32, 8
    a = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n * 3 + 8, np.float32)

    def body(x):
        idx = ir.Add(ir.Mul(x, i32(stride)), i32(n * 3 if stride < 0 else 0))
        return ir.Store("out", load(a, "a", x), idx)

    check_vectorizes(split_vectorized(n // width, width, body),
                     [("a", a, False), ("out", out, True)], lanes=width)


def test_gather_through_an_index_buffer_and_uniform_loads():
    n = 64
    table = rng.standard_normal(200)
    idx = rng.integers(0, 200, n).astype(np.int32)
    out = np.zeros(n, np.float64)

    def body(x):
        gathered = load(table, "table", load(idx, "idx", x))
        uniform = load(table, "table", ir.Add(var("xo"), i32(3)))     # the same in every lane
        return ir.Store("out", ir.Add(gathered, uniform), x)

    bufs = [("table", table, False), ("idx", idx, False), ("out", out, True)]
    lowered, _ = check_vectorizes(split_vectorized(n // 8, 8, body), bufs, lanes=8)
    assert "table[(xo + 3)]" in ir.to_str(lowered)


def test_scatter_with_repeated_indices_keeps_the_last_iteration():
    n = 64
    dest = rng.integers(0, 10, n).astype(np.int32)      # many lanes hit one element
    out = np.zeros(10, np.int32)
    stmt = split_vectorized(n // 16, 16, lambda x: ir.Store("out", ir.Add(x, i32(1000)),
                                                              load(dest, "dest", x)))
    _, (got,) = check_vectorizes(stmt, [("dest", dest, False), ("out", out, True)], lanes=16)
    want = np.zeros(10, np.int32)
    for x in range(n):
        want[dest[x]] = x + 1000
    np.testing.assert_array_equal(got, want)


def test_inner_serial_loop_accumulates_at_a_fixed_ramp():
    # out[x] = sum over k of a[k, x] (an update whose reduction loop is inside x)
    n, K = 32, 5
    a = rng.integers(-50, 50, (K, n)).astype(np.int32)
    out = np.zeros(n, np.int32)

    def body(x):
        acc = ir.Add(load(out, "out", x), load(a, "a", ir.Add(ir.Mul(var("k"), i32(n)), x)))
        return ir.block(ir.Store("out", i32(0), x),
                        loop("k", K, ir.Store("out", acc, x)))

    lowered, (got,) = check_vectorizes(split_vectorized(n // 8, 8, body),
                                       [("a", a, False), ("out", out, True)], lanes=8)
    assert count_loops(lowered, "serial") == 2
    np.testing.assert_array_equal(got, a.sum(axis=0))


def test_allocation_inside_the_loop_gets_one_copy_per_lane():
    # per x: tmp[0] = 0; for k: tmp[0] += a[x + k]; out[x] = tmp[0] * 2
    n, K = 40, 3
    a = rng.standard_normal(n + K).astype(np.float32)
    out = np.zeros(n, np.float32)

    def body(x):
        tmp = lambda: ir.Load(F32, "tmp", i32(0))        # noqa: E731
        update = ir.Store("tmp", ir.Add(tmp(), load(a, "a", ir.Add(x, var("k")))), i32(0))
        return ir.Allocate("tmp", F32, (i32(1),), ir.block(
            ir.Store("tmp", ir.Const(F32, 0), i32(0)),
            loop("k", K, update),
            ir.Store("out", ir.Mul(tmp(), ir.Const(F32, 2)), x)))

    lowered, _ = check_vectorizes(split_vectorized(n // 8, 8, body),
                                  [("a", a, False), ("out", out, True)], lanes=8)
    text = ir.to_str(lowered)
    assert "allocate tmp[float32 * 1 * 8]" in text
    assert "tmp[ramp(0, 1, 8)]" in text


def test_nested_loop_whose_min_depends_on_the_lanes_loops_over_an_offset():
    # for x: for k in [x, x + 3): out[x] += a[k]   (a producer's stencil window)
    n = 48
    a = rng.integers(0, 1000, n + 3).astype(np.int64)
    out = np.zeros(n, np.int64)

    def body(x):
        acc = ir.Add(load(out, "out", x), load(a, "a", var("k")))
        return ir.block(ir.Store("out", ir.Const(ir.Int(64), 0), x),
                        loop("k", 3, ir.Store("out", acc, x), lo=x))

    lowered, _ = check_vectorizes(split_vectorized(n // 8, 8, body),
                                  [("a", a, False), ("out", out, True)], lanes=8)
    text = ir.to_str(lowered)
    assert "for (k.offset, 0, 3)" in text
    assert "a[ramp((k.offset + (xo * 8)), 1, 8)]" in text


def test_nested_loop_of_extent_one_with_lane_dependent_min_is_a_let():
    n = 32
    a = rng.integers(0, 100, n).astype(np.int16)
    out = np.zeros(n, np.int16)
    stmt = split_vectorized(n // 8, 8, lambda x: loop(
        "g", 1, ir.Store("out", load(a, "a", var("g")), var("g")), lo=x))
    lowered, _ = check_vectorizes(stmt, [("a", a, False), ("out", out, True)], lanes=8)
    assert count_loops(lowered) == 1


def test_nested_vectorized_loops_vectorize_the_inner_one():
    # for y vectorized(4): for x vectorized(8): out[y*8 + x] = a[y*8 + x] + y
    a = rng.integers(0, 100, 32 * 4).astype(np.int32)
    out = np.zeros_like(a)
    y, x = var("y"), var("x")
    idx = ir.Add(ir.Mul(ir.Add(ir.Mul(var("yo"), i32(4)), y), i32(8)), x)
    inner = loop("x", 8, ir.Store("out", ir.Add(load(a, "a", idx), y), idx), "vectorized")
    stmt = loop("yo", 4, loop("y", 4, inner, "vectorized"))
    lowered, _ = check_vectorizes(stmt, [("a", a, False), ("out", out, True)], lanes=8)
    assert count_loops(lowered, "serial") == 2       # yo and the outer vectorized y


def test_vectorized_loop_inside_a_parallel_loop():
    a = rng.standard_normal((16, 32))
    out = np.zeros_like(a)
    y = var("y")

    def body(x):
        idx = ir.Add(ir.Mul(y, i32(32)), x)
        return ir.Store("out", ir.Mul(load(a, "a", idx), load(a, "a", idx)), idx)

    stmt = loop("y", 16, split_vectorized(8, 4, body), "parallel")
    check_vectorizes(stmt, [("a", a, False), ("out", out, True)], lanes=4)


def test_vector_loop_with_a_symbolic_min_and_bool_buffers():
    n = 64
    a = rng.integers(0, 2, n + 5).astype(bool)
    out = np.zeros(n + 5, bool)
    lo = var("m", I32)
    body = ir.Store("out", ir.Not(load(a, "a", var("x"))), var("x"))
    stmt = loop("xo", n // 16, loop("x", 16, body, "vectorized",
                                    lo=ir.Add(lo, ir.Mul(var("xo"), i32(16)))))
    check_vectorizes(stmt, [("a", a, False), ("out", out, True)], [("m", I32, 5)], lanes=16)
