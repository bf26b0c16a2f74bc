"""A loop folding one stream of integer vectors of one cache line each into
its accumulator (an int32 max or sum 16 lanes wide) is not unrolled by LLVM
(codegen_ops.one_line_stream), as Halide leaves it; other loops are."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench import suite1
from pyhalide.lowering.codegen_llvm import codegen
from pyhalide.lowering.runtime import BufferArg
from tests.backend.test_wide_vectors import I32, cube_sum, reduce_loop


def _plain(stmt, t=I32) -> bool:
    bufs = [BufferArg("inp", t, 1, False), BufferArg("out", t, 1, True)]
    return "llvm.loop.unroll.disable" in str(codegen(stmt, "k", bufs, []).module)


@pytest.mark.parametrize("lanes,t,op,plain", [
    (16, I32, ir.Max, True), (16, I32, ir.Add, True), (64, ir.UInt(8), ir.Min, True),
    (8, ir.Int(64), ir.Add, True),
    (8, I32, ir.Max, False), (32, I32, ir.Max, False), (64, I32, ir.Add, False),
    (16, ir.Float(32), ir.Add, False), (8, ir.Float(64), ir.Max, False)])
def test_only_one_line_integer_streams_stay_rolled(lanes, t, op, plain):
    assert _plain(reduce_loop(lanes, t, op=op, start=0), t) == plain


def test_more_work_per_load_is_unrolled():
    assert not _plain(cube_sum(16))


@pytest.mark.parametrize("op", ["max", "sum"])
def test_rolled_reduction_results(op):
    """The rfactor schedule of suite 1 at 16 int32 lanes (the rolled loop),
    against NumPy, on 2^14 values and a chunk that is not a multiple of 16."""
    a = np.random.default_rng(13).integers(-2**31, 2**31 - 1, 1 << 14, dtype=np.int32)
    A = ph.Buffer(a, "A")
    r = ph.RDom([(0, a.size)], "r")
    f = ph.Func("red")
    if op == "sum":
        f[()] = ph.cast(ph.Int(32), 0)
        f[()] = f[()] + A[r.x]
        want = np.int32(a.astype(np.int64).sum() % 2**32 - 2**32 * (a.astype(np.int64).sum()
                                                                    % 2**32 >= 2**31))
    else:
        f[()] = ph.Int(32).min()
        f[()] = ph.max(f[()], A[r.x])
        want = a.max()
    suite1.sched_max(ph, f, r, {"chunk": 1000, "lanes": 16})
    assert "llvm.loop.unroll.disable" in ph.Pipeline([f]).lower("llvm")
    assert int(np.asarray(f.realize([]))) == int(want)
