"""allocation_bounds through a select: a Func computed per iteration of a
loop over r (a per-row reduction of a `@pipeline` loop nest) has the extent
`select(n > 0, r, r - 1) - r + 1`, bounded by 1 over both arms, so its
storage goes on the stack instead of one aligned_alloc/free per row
(row_argmax over 32768 rows of 128 int32: 6.7 -> 2.3 ms CPU)."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.allocation_bounds import allocation_bounds
from tests.backend.backend_util import allocates, i32, var
from tests.backend.row_kernels import row_argmax

I32 = ir.Int(32)


def _per_iteration(extent):
    """for (r, 0, n) { let hi = select(0 < n, r, r - 1) { allocate tmp[extent] } }"""
    n, r = ir.Variable(I32, "n", "param"), var("r")
    alloc = ir.Allocate("tmp", I32, (extent,), ir.Store("tmp", r, i32(0)))
    hi = ir.Select(ir.LT(i32(0), n), r, ir.Sub(r, i32(1)))
    return ir.For("r", i32(0), n, "serial", ir.LetStmt("hi", hi, alloc)), alloc


def test_a_select_of_the_loop_variable_is_bounded_over_both_arms():
    hi, r = var("hi"), var("r")
    s, alloc = _per_iteration(ir.Max(ir.Add(ir.Sub(hi, r), i32(1)), i32(0)))
    assert allocation_bounds(s) == {id(alloc): 1}
    # the select subtracted: r - select(c, r - 2, r) + 1 is at most 3
    sel = ir.Select(ir.LT(i32(0), ir.Variable(I32, "n", "param")), ir.Sub(r, i32(2)), r)
    s, alloc = _per_iteration(ir.Add(ir.Sub(r, sel), i32(1)))
    assert allocation_bounds(s) == {id(alloc): 3}


def test_an_arm_without_a_bound_leaves_the_allocation_unbounded():
    n, r = ir.Variable(I32, "n", "param"), var("r")
    sel = ir.Select(ir.LT(i32(0), n), ir.Add(r, n), r)
    s, _ = _per_iteration(ir.Add(ir.Sub(sel, r), i32(1)))
    assert allocation_bounds(s) == {}


def test_per_row_storage_is_bounded_and_the_rows_right():
    p = ph.pipeline(row_argmax, schedule="serial")
    for k, shape in enumerate([(50, 128), (7, 3), (33, 200), (2, 2)]):
        a = np.random.default_rng(k).integers(-4, 4, shape).astype(np.int32)
        out = np.full(shape[0], -1, np.int64)
        want = row_argmax(a, np.full(shape[0], -1, np.int64))      # plain Python
        assert np.array_equal(p(a, out), want)
        assert np.array_equal(want, np.argmax(a, axis=1))
    stmt = p.last_specialization.pipeline().lowered_stmt()
    inner = []

    class Allocs(ir.Visitor):
        def visit_For(self, s):
            inner.extend(x for x in allocates(s.body))

    Allocs().visit(stmt)
    assert inner
    bounds = allocation_bounds(stmt)
    assert all(bounds.get(id(x)) == 1 for x in inner), [x.name for x in inner]

