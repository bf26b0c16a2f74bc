"""lowering/cold_copies: the small-extent copies codegen compiles cold (an
else branch of `if (f.rD.extent >= k)` outside every loop of its function)
are found before codegen, and the optimizing passes leave them as they are
(the copies' results: tests/codegen/test_cold_small_extent.py). No compile:
hand-built statements only."""
from pyhalide import ir
from pyhalide.lowering.cold_copies import cold_copies
from pyhalide.lowering.promote_accumulators import promote_accumulators

I32 = ir.Int(32)


def _accumulate(tag):
    """for (k, 0, n) acc[0] = acc[0] + k: a loop promote_accumulators promotes."""
    k = ir.index_var(f"k{tag}")
    body = ir.Store("acc", ir.Add(ir.Load(I32, "acc", ir.index(0)), k), ir.index(0))
    return ir.For(f"k{tag}", ir.index(0), ir.Variable(I32, "n"), ir.ForKind.SERIAL, body)


def _small_test(then_case, else_case):
    extent = ir.Variable(I32, "f.s0.r1.extent")
    return ir.IfThenElse(ir.GE(extent, ir.index(8)), then_case, else_case)


def test_top_level_and_parallel_body_tests_are_cold_loop_ones_are_not():
    top = _small_test(_accumulate("a"), _accumulate("b"))
    in_task = _small_test(_accumulate("c"), _accumulate("d"))
    in_loop = _small_test(_accumulate("e"), _accumulate("f"))
    y = ir.index(0)
    stmt = ir.block(
        top,
        ir.For("yo", y, ir.index(4), ir.ForKind.PARALLEL, in_task),
        ir.For("yi", y, ir.index(4), ir.ForKind.SERIAL, in_loop),
        # an if without else, and a test that is not of a required extent
        _small_test(_accumulate("g"), None),
        ir.IfThenElse(ir.GE(ir.Variable(I32, "n"), ir.index(8)), _accumulate("h"),
                      _accumulate("i")))
    assert set(cold_copies(stmt)) == {id(top), id(in_task)}


def test_promote_leaves_the_cold_copy_and_promotes_the_rest():
    cold_loop, hot_loop = _accumulate("b"), _accumulate("a")
    out = promote_accumulators(_small_test(hot_loop, cold_loop))
    assert isinstance(out, ir.IfThenElse)
    assert out.else_case is cold_loop               # the very same statement
    assert out.then_case is not hot_loop
    assert "acc.acc" in ir.to_str(out.then_case)    # the hot loop's scratch
