"""branch_facts.impossible: a condition that enclosing else branches, lets
and loop ranges rule out; and partition_loops skipping the guard-free copy
that could never run (the else branch of loop synthesis' `if (extent >= 32)`)."""
import pytest

from pyhalide import ir
from pyhalide.lowering.branch_facts import impossible
from pyhalide.lowering.partition_loops import partition_loops
from tests.backend.ir_interp import run

I32 = ir.Int(32)
E = ir.Variable(I32, "e", "param")


def v(name):
    return ir.Variable(I32, name)


def c(k):
    return ir.Const(I32, k)


LETS = (("ext", ir.Max(E, c(0))), ("mx", ir.Sub(E, c(1))))
RANGES = (("y", c(0), ir.Sub(ir.Div(ir.Add(v("ext"), c(31)), c(32)), c(1))),)
# the guard-free copy's condition of a ShiftInwards tile of 32 rows
FULL_TILE = ir.LE(ir.Add(ir.Min(ir.Mul(v("y"), c(32)), ir.Max(ir.Sub(v("ext"), c(32)), c(0))),
                         c(31)), v("mx"))


@pytest.mark.parametrize("false_cond, expected", [
    (ir.GE(v("ext"), c(32)), True),        # fewer than 32 rows: no full tile
    (ir.LT(c(31), v("ext")), True),        # the same, written the other way
    (ir.GE(v("ext"), c(64)), False),       # up to 63 rows: a full tile may exist
    (ir.LE(v("ext"), c(40)), False),       # more than 40 rows says nothing against it
])
def test_full_tile_under_an_enclosing_else(false_cond, expected):
    assert impossible(FULL_TILE, LETS, RANGES, [(false_cond, len(LETS))]) is expected


def test_no_facts_no_verdict():
    assert impossible(FULL_TILE, LETS, RANGES, []) is False


def test_a_let_rebound_after_the_branch_is_not_confused():
    # `k >= 32` was found false while k meant e (so e <= 31); k then means
    # e + 1000, and k >= 1000 can hold. Reading the new k into the old
    # condition would give e <= -969 and call it impossible.
    lets = (("k", E), ("k", ir.Add(E, c(1000))))
    assert impossible(ir.GE(v("k"), c(1000)), lets, (), [(ir.GE(v("k"), c(32)), 1)]) is False
    assert impossible(ir.GE(v("k"), c(1000)), lets, (), [(ir.GE(v("k"), c(32)), 2)]) is True


def _tiled(guarded_store):
    """for y (tiles of 32 rows, ShiftInwards), xo, yi, x: the row guard, in
    the else branch of `ext >= 32`, as loop synthesis writes it."""
    yy = ir.Add(ir.Min(ir.Mul(v("y"), c(32)), ir.Max(ir.Sub(v("ext"), c(32)), c(0))), v("yi"))
    body = ir.For("xo", c(0), c(2), ir.ForKind.SERIAL, ir.For(
        "yi", c(0), c(32), ir.ForKind.SERIAL, ir.For(
            "x", c(0), c(4), ir.ForKind.SERIAL, guarded_store(yy))))
    loop = ir.For("y", c(0), ir.Div(ir.Add(v("ext"), c(31)), c(32)), ir.ForKind.SERIAL, body)
    nest = ir.IfThenElse(ir.GE(v("ext"), c(32)), ir.Store("big", c(1), c(0)), loop)
    return ir.LetStmt("ext", ir.Max(E, c(0)), ir.LetStmt("mx", ir.Sub(E, c(1)), nest))


def test_partition_makes_no_dead_copy_in_the_small_image_branch():
    def store(yy):
        return ir.IfThenElse(ir.LE(yy, v("mx")), ir.Store("out", yy, ir.Add(v("x"), ir.Mul(
            v("xo"), c(4)))))
    before = _tiled(store)
    after = partition_loops(before)
    assert ir.to_str(after).count("out[") == 1          # no guard-free copy was made
    for e in range(0, 40):
        got, want = [], []
        run(before, {"e": e}, {}, want)
        run(after, {"e": e}, {}, got)
        assert got == want, e
