"""Parallel loops: outlined tasks on the LLVM-IR thread pool."""
import sys
import threading
import time

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.ir.config import override
from pyhalide.lowering import parallel_runtime
from pyhalide.lowering.jit import generate_text
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import compile_kernel, geom, i32, var

I32, F32, F64 = ir.Int(32), ir.Float(32), ir.Float(64)


def heavy_rows(kind="parallel", work=8):
    """out[y, x] = f(inp[y, x]) with f a chain of float ops; rows in a loop
    of the given kind, a per-row scratch Allocate of dynamic size, and a
    let bound outside the loop."""
    x, y = var("x"), var("y")
    scale = ir.Variable(F64, "scale")
    v = ir.Load(F64, "inp", ir.Add(x, ir.Mul(y, geom("inp", "stride", 1))))
    for _ in range(work):
        v = ir.Add(ir.Call(F64, "sin", (v,), ir.INTRINSIC), ir.Mul(v, scale))
    w = geom("out", "extent", 0)
    row = ir.Allocate("row", F64, (w,), ir.block(
        ir.For("x", i32(0), w, "serial", ir.Store("row", v, x)),
        ir.For("x", i32(0), w, "serial",
               ir.Store("out", ir.Load(F64, "row", ir.Sub(ir.Sub(w, i32(1)), x)),
                        ir.Add(x, ir.Mul(y, geom("out", "stride", 1)))))))
    loop = ir.For("y", i32(0), geom("out", "extent", 1), kind, row)
    return ir.LetStmt("scale", ir.Const(F64, 0.25), loop)


def run_heavy(kind, threads, shape=(300, 200), seed=0):
    inp = np.random.default_rng(seed).standard_normal(shape)
    out = np.zeros(shape)
    k = compile_kernel(heavy_rows(kind), [("inp", inp, False), ("out", out, True)])
    with override(num_threads=threads):
        k([inp, out], [])
    return k, out


def test_parallel_equals_serial_bit_for_bit_for_any_thread_count():
    _, serial = run_heavy("serial", 1)
    k, par1 = run_heavy("parallel", 1)
    assert k.parallel
    _, par2 = run_heavy("parallel", 2)
    _, par4 = run_heavy("parallel", 4)
    for p in (par1, par2, par4):
        assert np.array_equal(p.view(np.uint64), serial.view(np.uint64))


def test_workers_take_part():
    inp = np.random.default_rng(0).standard_normal((256, 256))
    out = np.zeros_like(inp)
    k = compile_kernel(heavy_rows("parallel", work=30), [("inp", inp, False), ("out", out, True)])
    with override(num_threads=2):
        before = parallel_runtime.worker_chunks()
        for _ in range(100):
            k([inp, out], [])
            if parallel_runtime.worker_chunks() > before:
                break
        assert parallel_runtime.num_threads() == 2
        assert parallel_runtime.worker_chunks() > before
    with override(num_threads=1):
        before = parallel_runtime.worker_chunks()
        k([inp, out], [])
        assert parallel_runtime.worker_chunks() == before
        assert parallel_runtime.num_threads() == 1


def test_nested_parallel_loops_and_parallel_inside_serial():
    # out[z, y, x] = x + 10*y + 100*z with z serial, y parallel, x parallel
    x, y, z = var("x"), var("y"), var("z")
    idx = ir.Add(x, ir.Add(ir.Mul(y, geom("out", "stride", 1)),
                           ir.Mul(z, geom("out", "stride", 2))))
    val = ir.Add(x, ir.Add(ir.Mul(y, i32(10)), ir.Mul(z, i32(100))))
    s = ir.For("z", i32(0), geom("out", "extent", 2), "serial",
               ir.For("y", i32(0), geom("out", "extent", 1), "parallel",
                      ir.For("x", i32(0), geom("out", "extent", 0), "parallel",
                             ir.Store("out", val, idx))))
    out = np.zeros((5, 70, 90), np.int32)
    k = compile_kernel(s, [("out", out, True)])
    want = (np.arange(90)[None, None, :] + 10 * np.arange(70)[None, :, None]
            + 100 * np.arange(5)[:, None, None])
    for threads in (1, 2, 3):
        out[:] = 0
        with override(num_threads=threads):
            k([out], [])
        np.testing.assert_array_equal(out, want)


def test_failure_inside_parallel_loop_raises_and_does_not_hang():
    y = var("y")
    bad = ir.Variable(I32, "bad", "param")
    body = ir.block(
        ir.AssertStmt(ir.NE(y, bad), "IndexError", "row {} is bad", (y,)),
        ir.Store("out", y, y))
    s = ir.For("y", i32(0), geom("out", "extent"), "parallel",
               ir.Allocate("tmp", F64, (ir.Mul(geom("out", "extent"), i32(1000)),),
                           ir.block(ir.Store("tmp", ir.Const(F64, 1.0), i32(0)), body)))
    out = np.zeros(500, np.int32)
    k = compile_kernel(s, [("out", out, True)], [("bad", I32, 0)])
    with override(num_threads=2):
        for bad_row in (0, 250, 499):
            with pytest.raises(IndexError, match=f"^row {bad_row} is bad$"):
                k([out], [bad_row])
        k([out], [-1])
    np.testing.assert_array_equal(out, np.arange(500))


def test_concurrent_python_threads_running_parallel_kernels():
    k, _ = run_heavy("parallel", 2, shape=(4, 4))
    _, want = run_heavy("serial", 1, shape=(64, 48), seed=5)
    inp = np.random.default_rng(5).standard_normal((64, 48))
    failures = []

    def worker():
        out = np.zeros((64, 48))
        for _ in range(30):
            out[:] = 0
            k([inp, out], [])
            if not np.array_equal(out, want):
                failures.append(1)

    with override(num_threads=2):
        ts = [threading.Thread(target=worker) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in ts)
    assert failures == []


def test_no_python_code_runs_during_a_parallel_loop():
    inp = np.random.default_rng(0).standard_normal((128, 64))
    out = np.zeros_like(inp)
    k = compile_kernel(heavy_rows("parallel"), [("inp", inp, False), ("out", out, True)])
    with override(num_threads=2):
        k([inp, out], [])                    # sets up the scratch and the pool
        args = k._scratch.args
        events = []

        def profiler(frame, event, arg):
            if event == "call":
                events.append(frame.f_code.co_name)

        sys.setprofile(profiler)
        try:
            rc = k._fn(args)                 # the raw entry call, GIL released
        finally:
            sys.setprofile(None)
    assert rc == 0
    assert events == []


@pytest.mark.exclusive    # times microseconds of a parallel loop on both cores
def test_empty_parallel_loop_dispatch_overhead():
    n = ir.Variable(I32, "n", "param")
    s = ir.For("y", i32(0), n, "parallel", ir.Evaluate(i32(0)))
    k = compile_kernel(s, [], [("n", I32, 64)])
    with override(num_threads=2):
        k([], [64])
        k._scratch.cells[0].value = 64
        args = k._scratch.args
        best = float("inf")
        for _ in range(30):
            t0 = time.perf_counter()
            for _ in range(100):
                k._fn(args)
            best = min(best, (time.perf_counter() - t0) / 100)
    assert best < 20e-6, f"{best * 1e6:.1f} us per empty parallel loop"


def test_parallel_can_be_disabled_in_codegen():
    from pyhalide.lowering.codegen_llvm import codegen
    s = heavy_rows("parallel")
    bufs = [BufferArg("inp", F64, 2, False), BufferArg("out", F64, 2, True)]
    on = codegen(s, "k", bufs, [])
    off = codegen(s, "k", bufs, [], parallel=False)
    assert on.uses_parallel and "pyhalide_par_for" in str(on.module)
    assert not off.uses_parallel and "pyhalide_par_for" not in str(off.module)
    assert "pyhalide_par_for" in generate_text(s, "k", bufs, [], stage="llvm")


@pytest.mark.parametrize("lo,n", [(-7, 1), (0, 0), (3, -5), (-100, 64), (5, 65), (-3, 1000)])
def test_parallel_loop_bounds(lo, n):
    # out[i] = i + 1 for i in [lo, lo + n): every index exactly once.
    i = var("i")
    s = ir.For("i", ir.Variable(I32, "lo", "param"), ir.Variable(I32, "n", "param"), "parallel",
               ir.Store("out", ir.Add(ir.Load(I32, "out", ir.Sub(i, ir.Variable(I32, "lo", "param"))),
                                      ir.Add(i, i32(1))),
                        ir.Sub(i, ir.Variable(I32, "lo", "param"))))
    out = np.zeros(max(n, 1), np.int32)
    k = compile_kernel(s, [("out", out, True)], [("lo", I32, 0), ("n", I32, 0)])
    with override(num_threads=2):
        k([out], [lo, n])
    want = np.zeros(max(n, 1), np.int32)
    if n > 0:
        want[:n] = np.arange(lo, lo + n) + 1
    np.testing.assert_array_equal(out, want)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_parallel_kernel_in_a_forked_child():
    import os
    k, want = run_heavy("parallel", 2)
    with override(num_threads=2):
        k([np.random.default_rng(0).standard_normal((300, 200)), np.zeros((300, 200))], [])
        pid = os.fork()
        if pid == 0:                                      # pragma: no cover - child
            try:
                inp = np.random.default_rng(0).standard_normal((300, 200))
                out = np.zeros_like(inp)
                k([inp, out], [])
                os._exit(0 if np.array_equal(out, want) else 3)
            finally:
                os._exit(4)
        _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
