"""Reductions with vectors wider than the native width (32-64 lanes: 2-8 AVX2
or AVX-512 vectors per partial result), as Halide runs the rfactor
benchmarks at its best: the prefetch of their streams
(codegen_ops.prefetch_vector, min_work_per_stream), their accumulators, and
wide stores split line by line in address order (codegen_ops.store_lines)."""
import platform
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite1
from pyhalide.lowering import codegen_ops as ops
from pyhalide.lowering.codegen_llvm import codegen
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import compile_kernel, geom, i32, var

I32 = ir.Int(32)


def reduce_loop(lanes, t=I32, work=lambda v: v, op=ir.Max, start=-2**31):
    """acc[0..lanes) = op over x of work(inp[lanes*x .. lanes*x + lanes)), then
    out[0..lanes) = acc: a loop that only reads its stream."""
    vt = t.with_lanes(lanes)
    x = var("x")
    at = ir.Ramp(i32(0), i32(1), lanes)
    load = ir.Load(vt, "inp", ir.Ramp(ir.Mul(x, i32(lanes)), i32(1), lanes))
    return ir.Allocate("acc", t, (i32(lanes),), ir.block(
        ir.Store("acc", ir.Broadcast(ir.Const(t, start), lanes), at),
        ir.For("x", i32(0), ir.Div(geom("inp", "extent"), i32(lanes)), "serial",
               ir.Store("acc", op(ir.Load(vt, "acc", at), work(load)), at)),
        ir.Store("out", ir.Load(vt, "acc", at), at)))


def cube_sum(lanes):
    """acc += v * v * v + v: three vector operations per streamed load, plus the sum."""
    return reduce_loop(lanes, work=lambda v: ir.Add(ir.Mul(ir.Mul(v, v), v), v), op=ir.Add,
                       start=0)


def prefetch_offsets(stmt, cpu, t=I32):
    bufs = [BufferArg("inp", t, 1, False), BufferArg("out", t, 1, True)]
    text = str(codegen(stmt, "k", bufs, [], cpu=cpu).module)
    return sorted(int(m) for m in re.findall(
        r'getelementptr \w+, ptr %"[^"]+", i64 (-?\d+)\n\s+call void @"llvm\.prefetch', text))


@pytest.mark.parametrize("lanes,t", [(8, I32), (32, I32), (64, ir.Float(32)), (32, ir.UInt(8)),
                                     (16, ir.Int(64))])
def test_every_cache_line_of_a_wide_vector_is_prefetched(lanes, t):
    """One prefetch per 64-byte line the vector covers (a 32-lane int32 load
    is two lines): with one per vector, every other line of the stream went
    unprefetched, which made the 32-lane reductions 1.4-2.4x slower on Zen 3."""
    step = ops.PREFETCH_BYTES // t.bytes()
    line = 64 // t.bytes()
    lines = max(lanes * t.bytes() // 64, 1)
    got = prefetch_offsets(reduce_loop(lanes, t, start=0), "haswell", t)
    assert got == [step + k * line for k in range(lines)]


def test_work_per_stream():
    body = lambda s: s.body.stmts[1].body            # noqa: E731  the loop's body
    assert ops.work_per_stream("x", body(reduce_loop(32))) == 1          # max
    assert ops.work_per_stream("x", body(cube_sum(32))) == 4             # 2 mul, 2 add
    # the accumulator's own load does not move with the loop: not a stream
    acc_only = ir.Store("acc", ir.Load(I32.with_lanes(8), "acc", ir.Ramp(i32(0), i32(1), 8)),
                        ir.Ramp(i32(0), i32(1), 8))
    assert ops.work_per_stream("x", acc_only) == float("inf")
    # a stream read through a let that moves with the loop counts; equal loads once
    v = ir.Load(I32.with_lanes(8), "inp", ir.Ramp(var("t"), i32(1), 8))
    v2 = ir.Load(I32.with_lanes(8), "inp", ir.Ramp(var("t"), i32(1), 8))
    s = ir.LetStmt("t", ir.Mul(var("x"), i32(8)),
                   ir.Store("acc", ir.Add(ir.Min(v, v2), v), ir.Ramp(i32(0), i32(1), 8)))
    assert ops.work_per_stream("x", s) == 2


def test_zen_prefetches_only_streams_with_work():
    """On AMD Zen a loop doing one operation per streamed vector (max, dot)
    is not prefetched, one doing more is; other CPUs prefetch both."""
    assert ops.min_work_per_stream("znver3") == 2 and ops.min_work_per_stream("haswell") == 0
    assert prefetch_offsets(reduce_loop(32), "znver3") == []
    assert len(prefetch_offsets(cube_sum(32), "znver3")) == 2
    assert len(prefetch_offsets(reduce_loop(32), "haswell")) == 2
    assert len(prefetch_offsets(reduce_loop(32), "skylake-avx512")) == 2


@pytest.mark.parametrize("lanes", [32, 64])
@pytest.mark.parametrize("make,fold", [(reduce_loop, np.max),
                                       (cube_sum, lambda a, axis: (a * a * a + a).sum(axis))])
def test_wide_reductions_are_exact(lanes, make, fold):
    for n in (lanes, lanes * 3, lanes * 1000):
        inp = np.random.default_rng(n).integers(-2**31, 2**31 - 1, n, dtype=np.int32)
        out = np.zeros(lanes, np.int32)
        k = compile_kernel(make(lanes), [("inp", inp, False), ("out", out, True)])
        k([inp, out], [])
        with np.errstate(over="ignore"):
            want = fold(inp.reshape(-1, lanes), axis=0).astype(np.int32)
        np.testing.assert_array_equal(out, want)


def _rfactor_max(a, chunk, lanes):
    """Suite 1's max with the rfactor schedule at `chunk` and `lanes`."""
    f, r, _ = suite1.alg_max(ph, {"a": a})
    rxo, rxi, rxio, rxii = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("rxio"), ph.RVar("rxii")
    u, v = ph.Var("u"), ph.Var("v")
    f.update().split(r.x, rxo, rxi, chunk)
    intm = f.update().rfactor(rxo, u)
    intm.compute_root()
    intm.update().parallel(u).split(rxi, rxio, rxii, lanes) \
        .rfactor(rxii, v).compute_at(intm, u).vectorize(v).update().vectorize(v)
    return f


def _hot_loop(asm: str) -> list:
    """The instructions of the innermost loop with the most vector maxima."""
    best: list = []
    for m in re.finditer(r"^(\.LBB\d+_\d+):\n(.*?)^\s+j\w+\s+\1$", asm, re.M | re.S):
        body = [ln.strip() for ln in m.group(2).splitlines() if ln.strip()]
        if sum("vpmaxsd" in ln for ln in body) > sum("vpmaxsd" in ln for ln in best):
            best = body
    return best


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="reads x86 assembly")
@pytest.mark.parametrize("lanes", [32, 64])
def test_wide_rfactor_accumulators_stay_in_registers(lanes):
    """A 32- or 64-lane partial maximum (4 or 8 AVX2 vectors, 2 or 4
    AVX-512 vectors) is kept in registers through the chunk's loop: no load
    or store of the stack frame in it, and the result is exact."""
    a = np.random.default_rng(lanes).integers(-2**31, 2**31 - 1, 1 << 16, dtype=np.int32)
    f = _rfactor_max(a, 1 << 12, lanes)
    assert int(np.asarray(f.realize([]))) == int(a.max())
    loop = _hot_loop(ph.Pipeline([f]).lower("asm"))
    assert sum("vpmaxsd" in ln for ln in loop) >= lanes // 16
    assert not [ln for ln in loop if "(%rsp)" in ln or "(%rbp)" in ln], loop


def _store_offsets(lanes, t=ir.Float(32)):
    """The element offsets of the vector stores of out[ramp(lanes*x, 1, lanes)] =
    inp[...] * 2 in the LLVM IR, with their lane counts."""
    x = var("x")
    at = ir.Ramp(ir.Mul(x, i32(lanes)), i32(1), lanes)
    two = ir.Broadcast(ir.Cast(t, i32(2)), lanes)
    stmt = ir.For("x", i32(0), ir.Div(geom("inp", "extent"), i32(lanes)), "serial",
                  ir.Store("out", ir.Mul(ir.Load(t.with_lanes(lanes), "inp", at), two), at))
    bufs = [BufferArg("inp", t, 1, False), BufferArg("out", t, 1, True)]
    text = str(codegen(stmt, "k", bufs, []).module)
    stores = re.findall(r'store <(\d+) x \w+> [^,]+, ptr (%"[^"]+")', text)
    geps = dict(re.findall(r'(%"[^"]+") = getelementptr \w+, ptr %"[^"]+", i64 (-?\d+)', text))
    return [(int(n), int(geps.get(p, 0))) for n, p in stores]


@pytest.mark.parametrize("lanes", [16, 32, 64])
def test_wide_stores_go_line_by_line_in_address_order(lanes):
    """A dense store wider than a cache line is stored one line's worth of
    lanes at a time, in increasing address order (LLVM's own split of a
    64-lane float store came out at +128, +192, +0, +64 bytes); the result
    is the same."""
    assert _store_offsets(lanes) == [(16, k) for k in range(0, lanes, 16)]
    inp = np.random.default_rng(lanes).standard_normal(lanes * 5).astype(np.float32)
    out = np.zeros_like(inp)
    x = var("x")
    at = ir.Ramp(ir.Mul(x, i32(lanes)), i32(1), lanes)
    two = ir.Broadcast(ir.Const(ir.Float(32), 2.0), lanes)
    k = compile_kernel(ir.For("x", i32(0), ir.Div(geom("inp", "extent"), i32(lanes)), "serial",
                              ir.Store("out", ir.Mul(ir.Load(ir.Float(32).with_lanes(lanes), "inp",
                                                             at), two), at)),
                       [("inp", inp, False), ("out", out, True)])
    k([inp, out], [])
    np.testing.assert_array_equal(out, inp * 2)
