"""The lazy select `if_then_else(cond, a, b)`: only the branch the condition
picks is evaluated (a read in the untaken branch never happens), in
scalar code and inside vectorized loops; the simplifier folds a constant
condition; bounds are the union of the branches."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.ir.config import override
from pyhalide.lowering.codegen_llvm import CodegenError
from pyhalide.lowering.interval import Interval, bounds_of
from pyhalide.lowering.simplify import simplify
from tests.vectorize.vectorize_util import (
    I32,
    check_vectorizes,
    count_loops,
    i32,
    load,
    loop,
    lower_vectors,
    max_lanes,
    run_stmt,
    split_vectorized,
    var,
)

FAR = 1 << 30          # an element index whose address is far outside any buffer
rng = np.random.default_rng(3)


def ite(cond, a, b):
    return ir.Call(a.type, "if_then_else", (cond, a, b), ir.INTRINSIC)


def guarded_read(a, x, n):
    """a[x] when x < n, else a[x + FAR] (which must never be read); the
    result is used only when x < n."""
    far = ir.Select(ir.LT(x, i32(n)), x, ir.Add(x, i32(FAR)))
    return ite(ir.LT(x, i32(n)), load(a, "a", far), ir.const(ir.Type.from_numpy(a.dtype), -1))


def test_scalar_untaken_branch_is_never_read():
    n = 20
    a = rng.integers(0, 100, n).astype(np.int32)
    out = np.zeros(2 * n, np.int32)
    x = var("x")
    stmt = loop("x", 2 * n, ir.Store("out", guarded_read(a, x, n), x))
    (got,) = run_stmt(stmt, [("a", a, False), ("out", out, True)])
    np.testing.assert_array_equal(got, np.concatenate([a, -np.ones(n, np.int32)]))


def test_nested_lazy_selects_and_shared_subexpressions():
    # the same Load node is used inside a branch and after the merge: the
    # branch's value must not be reused where it does not dominate
    n = 24
    a = rng.standard_normal(n)
    out = np.zeros(n)
    x = var("x")
    shared = load(a, "a", x)
    inner = ite(ir.GT(shared, ir.const(ir.Float(64), 0)), ir.Mul(shared, shared), shared)
    value = ir.Add(ite(ir.LT(x, i32(12)), inner, ir.const(ir.Float(64), 0.5)), shared)
    (got,) = run_stmt(loop("x", n, ir.Store("out", value, x)),
                      [("a", a, False), ("out", out, True)])
    first = np.where(a[:12] > 0, a[:12] * a[:12], a[:12])
    np.testing.assert_array_equal(got, np.concatenate([first, np.full(12, 0.5)]) + a)


def test_uniform_condition_inside_a_vectorized_loop_stays_lazy():
    # per vector of 8: if xo < 2 read a, else the far element (never)
    n = 32
    a = rng.integers(0, 100, n).astype(np.int16)
    out = np.zeros(n, np.int16)
    xo = var("xo")

    def body(x):
        far = ir.Select(ir.LT(xo, i32(2)), x, ir.Add(x, i32(FAR)))
        value = ite(ir.LT(xo, i32(2)), load(a, "a", far), ir.const(ir.Int(16), 9))
        return ir.Store("out", value, x)

    lowered, (got,) = check_vectorizes(split_vectorized(n // 8, 8, body),
                                       [("a", a, False), ("out", out, True)], lanes=8)
    assert "if_then_else((xo < 2), a[" in ir.to_str(lowered)
    np.testing.assert_array_equal(got, np.concatenate([a[:16], np.full(16, 9, np.int16)]))


def test_lane_dependent_condition_without_reads_becomes_a_select():
    n = 32
    a = rng.integers(-50, 50, n).astype(np.int32)
    out = np.zeros(n, np.int32)

    def body(x):
        v = load(a, "a", x)
        return ir.Store("out", ir.Add(v, ite(ir.LT(v, i32(0)), ir.Mul(x, i32(3)), i32(7))), x)

    lowered, _ = check_vectorizes(split_vectorized(n // 8, 8, body),
                                  [("a", a, False), ("out", out, True)], lanes=8)
    text = ir.to_str(lowered)
    assert "select((a[ramp" in text and "if_then_else" not in text


def test_lane_dependent_condition_with_a_read_keeps_the_loop_serial(capsys):
    n = 20
    a = rng.integers(0, 100, n).astype(np.int32)
    out = np.zeros(24, np.int32)
    stmt = split_vectorized(3, 8, lambda x: ir.Store("out", guarded_read(a, x, n), x))
    with override(debug=1):
        lowered = lower_vectors(stmt)
    assert "lazy if_then_else" in capsys.readouterr().err
    assert max_lanes(lowered) == 1 and count_loops(lowered, "serial") == 2
    (got,) = run_stmt(lowered, [("a", a, False), ("out", out, True)])
    np.testing.assert_array_equal(got, np.concatenate([a, -np.ones(4, np.int32)]))


def test_codegen_refuses_a_vector_condition():
    v = ir.Ramp(i32(0), i32(1), 4)
    bad = ite(ir.LT(v, ir.Broadcast(i32(2), 4)), v, ir.Broadcast(i32(0), 4))
    out = np.zeros(4, np.int32)
    with pytest.raises(CodegenError, match="scalar bool condition"):
        run_stmt(ir.Store("out", bad, v), [("out", out, True)])


def test_simplifier_picks_the_branch_of_a_constant_condition():
    x = var("x")
    two = ir.Add(i32(1), i32(1))
    assert simplify(ite(ir.LT(i32(1), i32(2)), x, ir.Load(I32, "a", i32(FAR)))) is x
    picked = simplify(ite(ir.Broadcast(ir.Const(ir.Bool(), False), 4), ir.Broadcast(x, 4),
                          ir.Broadcast(two, 4)))
    assert ir.to_str(picked) == "x4(2)"
    kept = simplify(ite(ir.LT(x, i32(3)), two, ir.Mul(x, i32(1))))
    assert ir.to_str(kept) == "if_then_else((x < 3), 2, x)"


def test_bounds_are_the_union_of_the_branches():
    x = var("x")
    e = ite(ir.GT(var("c"), i32(0)), ir.Add(x, i32(1)), i32(-4))
    iv = bounds_of(e, {"x": Interval(i32(0), i32(9))})
    assert (iv.lo.value, iv.hi.value) == (-4, 10)
