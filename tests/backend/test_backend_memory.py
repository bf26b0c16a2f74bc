"""Allocate (stack and heap), AssertStmt errors and their cleanup."""

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.lowering.codegen_llvm import CodegenError
from tests.backend.backend_util import compile_kernel, geom, heap_in_use, i32, run, var

I32 = ir.Int(32)


def scratch_pipeline(n_expr, inner_assert=None):
    """out[x] = sum_{i < n} tmp[i] where tmp[i] = inp[x] + i, over an
    Allocate of n elements; optionally with an assert inside the Allocate."""
    x, i = var("x"), var("i")
    fill = ir.For("i", i32(0), n_expr, "serial",
                  ir.Store("tmp", ir.Add(ir.Load(I32, "inp", x), i), i))
    acc = ir.For("i", i32(0), n_expr, "serial",
                 ir.Store("out", ir.Add(ir.Load(I32, "out", x), ir.Load(I32, "tmp", i)), x))
    body = ir.block(ir.Store("out", i32(0), x), fill, acc)
    if inner_assert is not None:
        body = ir.block(inner_assert, body)
    alloc = ir.Allocate("tmp", I32, (n_expr,), body)
    return ir.For("x", i32(0), geom("out", "extent"), "serial", alloc)


@pytest.mark.parametrize("n", [1, 7, 100, 5000, 100000])
def test_allocate_constant_size(n):
    inp = np.arange(5, dtype=np.int32)
    out = np.zeros(5, np.int32)
    run(scratch_pipeline(i32(n)), [("inp", inp, False), ("out", out, True)])
    want = (inp.astype(np.int64) * n + n * (n - 1) // 2).astype(np.int32)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("n", [0, -3, 1, 50, 70000])
def test_allocate_dynamic_size_including_zero(n):
    inp = np.arange(3, dtype=np.int32)
    out = np.full(3, 99, np.int32)
    nvar = ir.Variable(I32, "n", "param")
    run(scratch_pipeline(nvar), [("inp", inp, False), ("out", out, True)], [("n", I32, n)])
    m = max(n, 0)
    np.testing.assert_array_equal(out, (inp.astype(np.int64) * m + m * (m - 1) // 2).astype(np.int32))


def test_allocate_bool_and_multidim():
    # A 2-D bool scratch of 3 x 5, flattened by hand; then counted.
    out = np.zeros(1, np.int32)
    x, y = var("x"), var("y")
    fill = ir.For("y", i32(0), i32(3), "serial", ir.For("x", i32(0), i32(5), "serial",
                  ir.Store("m", ir.LT(x, y), ir.Add(ir.Mul(y, i32(5)), x))))
    count = ir.For("k", i32(0), i32(15), "serial",
                   ir.Store("out", ir.Add(ir.Load(I32, "out", i32(0)),
                                          ir.Cast(I32, ir.Load(ir.Bool(), "m", var("k")))), i32(0)))
    run(ir.Allocate("m", ir.Bool(), (i32(5), i32(3)), ir.block(fill, count)),
        [("out", out, True)])
    assert out[0] == sum(1 for yy in range(3) for xx in range(5) if xx < yy)


def test_allocation_size_overflow_is_memory_error():
    nvar = ir.Variable(I32, "n", "param")
    body = ir.Store("o", i32(1), i32(0))
    s = ir.Allocate("t", ir.Float(64), (nvar, nvar, nvar, nvar), body)
    out = np.zeros(1, np.int32)
    with pytest.raises(MemoryError):
        run(s, [("o", out, True)], [("n", I32, 2**31 - 1)])


def _assert(cond, error="IndexError", message="index {} out of range [0, {})", args=()):
    return ir.AssertStmt(cond, error, message, tuple(args))


def test_assert_raises_formatted_python_exception():
    x = var("x")
    k = ir.Variable(I32, "k", "param")
    check = _assert(ir.LT(k, geom("inp", "extent")), "IndexError",
                    "index {} out of range [0, {})", (k, geom("inp", "extent")))
    s = ir.block(check, ir.For("x", i32(0), geom("out", "extent"), "serial",
                               ir.Store("out", ir.Load(I32, "inp", k), x)))
    inp = np.arange(10, dtype=np.int32)
    out = np.zeros(4, np.int32)
    kern = compile_kernel(s, [("inp", inp, False), ("out", out, True)], [("k", I32, 0)])
    kern([inp, out], [3])
    assert out.tolist() == [3, 3, 3, 3]
    with pytest.raises(IndexError, match=r"^index 12 out of range \[0, 10\)$"):
        kern([inp, out], [12])
    kern([inp, out], [9])                # the kernel is still usable after a failure
    assert out.tolist() == [9] * 4


def test_assert_arguments_of_every_kind_and_exception_names():
    f = ir.Variable(ir.Float(32), "f", "param")
    u = ir.Variable(ir.UInt(64), "u", "param")
    b = ir.Variable(ir.Bool(), "b", "param")
    i8 = ir.Variable(ir.Int(8), "i8", "param")
    for name, exc in (("ValueError", ValueError), ("ZeroDivisionError", ZeroDivisionError),
                      ("NoSuchError", RuntimeError), ("KeyboardInterrupt", RuntimeError)):
        s = _assert(b, name, "f={} u={} b={} i8={}", (f, u, b, i8))
        out = np.zeros(1, np.int32)
        params = [("f", ir.Float(32), 0.0), ("u", ir.UInt(64), 0), ("b", ir.Bool(), False),
                  ("i8", ir.Int(8), 0)]
        kern = compile_kernel(ir.block(s, ir.Store("o", i32(1), i32(0))), [("o", out, True)],
                              params)
        with pytest.raises(exc, match=r"^f=-2.5 u=18446744073709551615 b=False i8=-128$"):
            kern([out], [-2.5, 2**64 - 1, False, -128])
        assert out[0] == 0
        kern([out], [0.0, 0, True, 0])
        assert out[0] == 1


def test_assert_inside_loops_frees_heap_allocations():
    # Each call allocates 8 MB on the heap, then fails an assert inside the
    # allocation's scope; the failure path must free it.
    x = var("x")
    nvar = ir.Variable(I32, "n", "param")
    fail_at = ir.Variable(I32, "fail_at", "param")
    check = _assert(ir.NE(x, fail_at), "ValueError", "failed at x={}", (x,))
    inner = ir.Allocate("big", ir.Float(64), (nvar,), ir.block(
        ir.Store("big", ir.Cast(ir.Float(64), x), ir.Sub(nvar, i32(1))),
        ir.Allocate("big2", ir.Int(8), (nvar,), ir.block(
            ir.Store("big2", ir.Cast(ir.Int(8), x), i32(0)),
            check,
            ir.Store("out", ir.Add(ir.Load(ir.Float(64), "big", ir.Sub(nvar, i32(1))),
                                   ir.Cast(ir.Float(64), ir.Load(ir.Int(8), "big2", i32(0)))),
                     x)))))
    s = ir.For("x", i32(0), geom("out", "extent"), "serial", inner)
    out = np.zeros(6, np.float64)
    kern = compile_kernel(s, [("out", out, True)], [("n", I32, 0), ("fail_at", I32, 0)])
    kern([out], [1 << 20, -1])
    np.testing.assert_array_equal(out, 2.0 * np.arange(6))
    with pytest.raises(ValueError, match="failed at x=2"):
        kern([out], [1 << 20, 2])     # warm up malloc's bookkeeping
    before = heap_in_use()
    if before is None:
        pytest.skip("mallinfo2 not available")
    for _ in range(50):
        with pytest.raises(ValueError, match="failed at x=3"):
            kern([out], [1 << 20, 3])
    after = heap_in_use()
    assert after - before < 4 << 20, f"leaked {(after - before) >> 20} MB"


def test_unlowered_nodes_are_internal_errors():
    out = np.zeros(2, np.int32)
    for s, what in [
        (ir.Provide("f", (i32(1),), (i32(0),)), "Provide"),
        (ir.Realize("f", (I32,), (ir.Range(i32(0), i32(2)),), ir.Evaluate(i32(0))), "Realize"),
        (ir.Store("o", ir.Call(I32, "g", (i32(0),), ir.FUNC), i32(0)), "func call"),
        (ir.Store("o", ir.Call(I32, "img", (i32(0),), ir.IMAGE), i32(0)), "image call"),
        (ir.Store("nowhere", i32(0), i32(0)), "unknown buffer"),
        (ir.Store("o", var("undefined_name"), i32(0)), "undefined variable"),
        (ir.Store("o", ir.Const(ir.Float(32), 1.0), i32(0)), "store of float32"),
    ]:
        with pytest.raises(CodegenError):
            run(s, [("o", out, True)])


def test_shared_expression_dag_is_emitted_once_per_node():
    # e_{k+1} = e_k * 3 + e_k: 60 levels of sharing, 2^60 paths.
    x = var("x")
    e = ir.Load(I32, "inp", x)
    for _ in range(60):
        e = ir.Add(ir.Mul(e, i32(3)), e)
    s = ir.For("x", i32(0), geom("out", "extent"), "serial", ir.Store("out", e, x))
    inp = np.arange(-4, 4, dtype=np.int32)
    out = np.zeros(8, np.int32)
    run(s, [("inp", inp, False), ("out", out, True)])
    assert out.tolist() == [ir.Int(32).wrap(int(v) * 4**60) for v in inp]


def test_let_shadowing_with_shared_subexpressions():
    # let a = 1 in ((let a = 10 in e) + e) with e = a * 2 shared: 20 + 2.
    a = ir.Variable(I32, "a")
    e = ir.Mul(a, i32(2))
    expr = ir.Let("a", i32(1), ir.Add(ir.Let("a", i32(10), e), e))
    expr2 = ir.Let("a", i32(1), ir.Add(e, ir.Let("a", i32(10), e)))
    out = np.zeros(2, np.int32)
    run(ir.block(ir.Store("out", expr, i32(0)), ir.Store("out", expr2, i32(1))),
        [("out", out, True)])
    assert out.tolist() == [22, 22]


def test_loads_are_not_reused_across_stores():
    # The same Load object read before and after a store sees the new value.
    ld = ir.Load(I32, "buf", i32(0))
    s = ir.block(ir.Store("out", ld, i32(0)),
                 ir.Store("buf", ir.Add(ld, i32(5)), i32(0)),
                 ir.Store("out", ld, i32(1)))
    buf = np.array([7], np.int32)
    out = np.zeros(2, np.int32)
    run(s, [("buf", buf, True), ("out", out, True)])
    assert out.tolist() == [7, 12] and buf[0] == 12
