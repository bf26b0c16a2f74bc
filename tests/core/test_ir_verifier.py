"""The IR verifier (lowering/verify.py), which the tests run after every
lowering pass: what it finds, and that an expression whose DAG shares its
subexpressions is checked in time linear in the DAG (walked as a tree, a
chain of 20 `x + x` nodes has 2**20 leaves)."""
import time

import pytest

from pyhalide import ir
from pyhalide.lowering.verify import verify
from pyhalide.lowering.verify_summary import passes as summary_passes

I32 = ir.Int(32)


def v(name):
    return ir.Variable(I32, name)


def c(k):
    return ir.Const(I32, k)


def store(value, index=None, name="out"):
    return ir.Store(name, value, c(0) if index is None else index)


def fails(stmt, match, defined=("n",), buffers=("out", "a"), flattened=True):
    """The walk reports `match`, the summaries (the pipeline's fast path) a
    problem, and the memoized verify the walk's message."""
    with pytest.raises(AssertionError, match=match):
        verify(stmt, set(defined), set(buffers), flattened)
    assert not summary_passes(stmt, set(defined), set(buffers), flattened, {})
    with pytest.raises(AssertionError, match=match):
        verify(stmt, set(defined), set(buffers), flattened, {})


def passes(stmt, defined=("n",), buffers=("out", "a"), flattened=True):
    verify(stmt, set(defined), set(buffers), flattened)
    assert summary_passes(stmt, set(defined), set(buffers), flattened, {})


def test_variables_are_checked_in_their_scopes():
    passes(ir.For("x", c(0), v("n"), ir.ForKind.SERIAL, store(v("x"), v("x"))))
    fails(ir.Block((ir.For("x", c(0), v("n"), ir.ForKind.SERIAL, store(v("x"))), store(v("x")))),
          "variable x is used outside its scope")
    passes(ir.LetStmt("t", v("n"), store(ir.Add(v("t"), c(1)))))
    fails(store(ir.Add(v("t"), v("n"))), "variable t is used outside its scope")


def test_a_let_expression_binds_its_name_in_its_body_only():
    let = ir.Let("t", v("n"), ir.Mul(v("t"), v("t")))
    passes(store(let))
    fails(store(ir.Add(let, v("t"))), "variable t is used outside its scope")
    fails(store(ir.Let("t", v("t"), v("n"))), "variable t is used outside its scope")


def test_a_shared_expression_is_checked_in_each_scope():
    e = ir.Add(v("x"), c(1))            # the same node inside and outside x's loop
    loop = ir.For("x", c(0), v("n"), ir.ForKind.SERIAL, store(e))
    passes(loop)
    fails(ir.Block((loop, store(e))), "variable x is used outside its scope")


def test_loads_and_stores_name_buffers_in_scope():
    passes(store(ir.Load(I32, "a", c(0))))
    fails(store(ir.Load(I32, "tmp", c(0))), "load from tmp, which is not allocated here")
    fails(store(c(1), name="tmp"), "store to tmp, which is not allocated here")
    alloc = ir.Allocate("tmp", I32, (c(4),), ir.Block((store(c(1), name="tmp"),
                                                       store(ir.Load(I32, "tmp", c(0))))))
    passes(alloc)


def test_multi_dimensional_nodes_after_flattening():
    call = ir.Call(I32, "f", (c(0),), ir.FUNC)
    passes(store(call), flattened=False)
    fails(store(call), "call to f after storage flattening")
    passes(store(ir.Call(ir.Float(32), "sqrt", (ir.Const(ir.Float(32), 2.0),), ir.INTRINSIC)))
    fails(ir.Provide("f", (c(1),), (c(0),)), "Provide to f after storage flattening")


def test_a_shared_dag_is_checked_in_linear_time():
    e = v("n")
    for _ in range(20):
        e = ir.Add(e, e)
    t0 = time.perf_counter()
    passes(store(e))
    fails(store(ir.Add(e, v("y"))), "variable y is used outside its scope")
    assert time.perf_counter() - t0 < 1.0
