"""index_overflow._surely_fits: an endpoint whose checked value (sums,
differences, products, min and max computed exactly over int32 leaves) stays
in int32 for every value of its leaves gets no run-time check; a leaf's range
is its own interval where no step of it leaves int32 (`x / 2` is within
+-2^30). Checks that can fail stay (a select's branches are checked exactly)."""
from pyhalide import ir
from pyhalide.lowering.index_overflow import _surely_fits, overflow_asserts

I32 = ir.Int(32)
A, B = ir.Variable(I32, "a"), ir.Variable(I32, "b")
C = ir.Variable(ir.Bool(), "c")


def k(v):
    return ir.Const(I32, v)


def test_min_max_of_leaves_fits():
    assert _surely_fits(ir.Max(ir.Div(A, k(2)), ir.Div(ir.Add(A, k(1)), k(2))))
    assert _surely_fits(ir.Min(ir.Max(A, B), ir.Div(A, k(3))))


def test_halved_leaves_leave_room():
    e = ir.Add(ir.Max(ir.Div(A, k(2)), ir.Div(B, k(2))), k(1))
    assert _surely_fits(e)
    assert overflow_asserts([e], "f") == []


def test_what_can_overflow_is_checked():
    assert not _surely_fits(ir.Add(ir.Max(A, B), k(1)))
    assert not _surely_fits(ir.Mul(ir.Div(A, k(2)), k(4)))
    # the checked value of a select is its branch's exact value
    assert not _surely_fits(ir.Select(C, ir.Add(A, k(1)), B))
    assert len(overflow_asserts([ir.Add(ir.Max(A, B), k(1))], "f")) == 1
