"""Session 19's first-compile savings change no result: codegen_text prints
the module codegen builds and leaves no llvmlite cycle to the collector;
index_overflow's WholeRanges, shared by a pass's calls, answers as a fresh
one per call does."""
import gc

import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering import index_overflow
from pyhalide.lowering.codegen_llvm import codegen
from pyhalide.lowering.codegen_text import codegen_text
from pyhalide.lowering.runtime import BufferArg
from tests.backend.backend_util import geom, i32, var

I32, I64 = ir.Int(32), ir.Int(64)


def _loop_stmt():
    """for i: out[i] = in[i] * 3 + in[i + 1] (a loop: a phi and its update)."""
    i = var("i")
    value = ir.Add(ir.Mul(ir.Load(I32, "inp", i), i32(3)), ir.Load(I32, "inp", ir.Add(i, i32(1))))
    return ir.For("i", i32(0), geom("out", "extent"), "serial", ir.Store("out", value, i))


def test_codegen_text_is_the_printed_module():
    bufs = [BufferArg("inp", I32, 1, False), BufferArg("out", I32, 1, True)]
    whole = codegen(_loop_stmt(), "k", bufs, [])
    out, text = codegen_text(_loop_stmt(), "k", bufs, [])
    assert text == str(whole.module)
    assert out.module is None
    assert (out.entry_name, out.errors, out.uses_parallel) == \
        (whole.entry_name, whole.errors, whole.uses_parallel)


def test_codegen_text_leaves_no_cycles():
    """The module taken apart is freed by reference counting: a collection
    right after finds nothing of it (a whole module is left to it)."""
    bufs = [BufferArg("inp", I32, 1, False), BufferArg("out", I32, 1, True)]
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        whole = codegen(_loop_stmt(), "k", bufs, [])
        del whole
        left_whole = gc.collect()
        codegen_text(_loop_stmt(), "k", bufs, [])
        left_text = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert left_whole > 100
    assert left_text < left_whole / 4


def test_kernel_through_codegen_text_matches_numpy():
    x = ph.Var("x")
    a = np.arange(50, dtype=np.int32) * 7 - 100
    inp = ph.Buffer(a)
    f = ph.Func("f_ct19")
    f[x] = inp[x] * 3 + inp[x + 1]
    got = np.asarray(f.realize([49]))
    np.testing.assert_array_equal(got, a[:49] * 3 + a[1:])


def test_shared_ranges_answer_as_fresh_ones():
    """One WholeRanges over several calls (as bounds inference and access
    checks share theirs) gives each call the list a fresh one gives, also
    where a later call names `n` with another type than an earlier one."""
    n32, n64 = ir.Variable(I32, "n"), ir.Variable(I64, "n")
    m = ir.Variable(I32, "m")
    k32, k64 = ir.Const(I32, 1), ir.Const(I64, 1)
    fits = ir.Add(ir.Div(n32, ir.Const(I32, 4)), k32)
    wraps = ir.Add(n32, k32)
    wide = ir.Cast(I32, ir.Add(n64, k64))
    wide_wraps = ir.Add(n64, ir.Const(I64, 2 ** 40))
    other = ir.Mul(m, ir.Const(I32, 3))
    calls = [[fits, wraps], [wide, wide_wraps, fits], [other, wraps, fits, other], [wide]]
    shared = index_overflow.WholeRanges()
    for exprs in calls:
        fresh = index_overflow._distinct(exprs)
        again = index_overflow._distinct(exprs, shared)
        assert len(fresh) == len(again) and all(a is b for a, b in zip(fresh, again))
    assert index_overflow._distinct(calls[0], shared) == [wraps]
    assert not index_overflow._distinct([fits, fits], shared)


def test_distinct_keeps_order_and_drops_equal_repeats():
    n, m = ir.Variable(I32, "n"), ir.Variable(I32, "m")
    a = ir.Add(n, ir.Const(I32, 1))
    b = ir.Mul(m, ir.Const(I32, 5))
    a2 = ir.Add(n, ir.Const(I32, 1))
    got = index_overflow._distinct([b, a, a2, b])
    assert got == [b, a] and got[0] is b and got[1] is a


def test_an_expression_codegen_has_no_emitter_for_is_refused():
    """emit's dispatch by class (cached) refuses an Expr class it has no
    emit_ method for, as a CodegenError naming the class."""
    import pytest

    from pyhalide.ir.nodes import node
    from pyhalide.lowering.codegen_ops import CodegenError

    @node
    class Unheard(ir.Expr):
        type: ir.Type

    i = var("i")
    stmt = ir.For("i", i32(0), geom("out", "extent"), "serial",
                  ir.Store("out", Unheard(I32), i))
    bufs = [BufferArg("out", I32, 1, True)]
    for _ in range(2):
        with pytest.raises(CodegenError, match="cannot handle expression Unheard"):
            codegen(stmt, "k", bufs, [])
