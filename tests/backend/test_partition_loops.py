"""partition_loops: guard-free copies of guarded loop bodies, before/expected,
and exactness checked by running both versions of each nest in a small
interpreter for every extent up to a few chunks (empty and tiny ones too)."""
import random

import pytest

from pyhalide import ir
from pyhalide.lowering.partition_loops import partition_loops
from tests.backend.ir_interp import run

I32 = ir.Int(32)
N = ir.Variable(I32, "N", "param")
S = ir.Variable(I32, "S", "param")
SERIAL, VEC, PAR = ir.ForKind.SERIAL, ir.ForKind.VECTORIZED, ir.ForKind.PARALLEL


def v(name):
    return ir.Variable(I32, name)


def c(k):
    return ir.Const(I32, k)


def add(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = ir.Add(out, x)
    return out


def loop(name, extent, body, kind=SERIAL, lo=None):
    return ir.For(name, c(0) if lo is None else lo, extent, kind, body)


def chunks(n, f):
    """(n + f - 1) / f: the chunks of a split of n by f."""
    return ir.Div(ir.Add(n, c(f - 1)), c(f))


def same_stores(before, after, params):
    """Both versions store the same values at the same places, in the same
    order, and read only inside the input `a` (of N elements)."""
    for p in params:
        mem = {"a": [10 * i + 1 for i in range(max(p["N"], 0))]}
        want, got = [], []
        run(before, dict(p), mem, want)
        run(after, dict(p), mem, got)
        assert got == want, p


def count_ifs(s) -> int:
    n = 0

    class V(ir.Visitor):
        memoize = False

        def visit_IfThenElse(self, x):
            nonlocal n
            n += 1
            self.visit_children(x)
    V().visit(s)
    return n


def guarded_store(e, bound=N, clamp=True):
    idx = ir.Min(e, ir.Sub(bound, c(1))) if clamp else e
    return ir.IfThenElse(ir.LT(e, bound), ir.Store("out", ir.Load(I32, "a", idx), e))


def chunked(f=64, lanes=8):
    """An rfactor'd 1-D reduction's intermediate: chunks of f in parallel,
    each `lanes` wide, guarded against N that f does not divide."""
    u, r, x = v("u"), v("r"), v("x")
    e = add(ir.Mul(u, c(f)), ir.Mul(r, c(lanes)), x)
    return loop("u", chunks(N, f), loop("r", c(f // lanes),
                loop("x", c(lanes), guarded_store(e), VEC)), PAR)


EVERY_N = [{"N": n} for n in range(0, 140)]


# ---- before / expected --------------------------------------------------------------------
def test_chunks_get_a_copy_without_guard_and_clamp():
    before = chunked()
    after = partition_loops(before)
    assert ir.to_str(after) == """\
parallel for (u, 0, ((N + 63) / 64)) {
  if ((((u * 64) + 63) < N)) {
    for (r, 0, 8) {
      vectorized for (x, 0, 8) {
        out[(((u * 64) + (r * 8)) + x)] = a[(((u * 64) + (r * 8)) + x)]
      }
    }
  } else {
    for (r, 0, 8) {
      if (((((r * 8) + (u * 64)) + 7) < N)) {
        vectorized for (x, 0, 8) {
          out[(((u * 64) + (r * 8)) + x)] = a[(((u * 64) + (r * 8)) + x)]
        }
      } else {
        vectorized for (x, 0, 8) {
          if (((((u * 64) + (r * 8)) + x) < N)) {
            out[(((u * 64) + (r * 8)) + x)] = a[(((u * 64) + (r * 8)) + x)]
          }
        }
      }
    }
  }
}
"""
    same_stores(before, after, EVERY_N)


def test_lets_and_loops_of_extent_one_are_substituted():
    # for u { for w in [u, u+1) { for r { vec for x { let i = w*32 + r*8 + x; if (i < N) } } } }
    w, r, x = v("w"), v("r"), v("x")
    body = ir.LetStmt("i", add(ir.Mul(w, c(32)), ir.Mul(r, c(8)), x), guarded_store(v("i")))
    before = loop("u", chunks(N, 32), loop("w", c(1), loop("r", c(4), loop("x", c(8), body, VEC)),
                                         lo=v("u")), PAR)
    after = partition_loops(before)
    text = ir.to_str(after)
    assert text.startswith("parallel for (u, 0, ((N + 31) / 32)) {\n  if ((((u * 32) + 31) < N)) {")
    assert "a[min(" not in text                          # the clamp is gone in both copies
    same_stores(before, after, EVERY_N)


def test_divisibility_test_when_the_guard_does_not_depend_on_the_outer_loop():
    # argmin4d's inner intermediate: the chunked loop is inside other loops
    _o, _y, r, x = v("o"), v("y"), v("r"), v("x")
    body = guarded_store(add(ir.Mul(r, c(16)), x))
    before = loop("o", c(3), loop("y", c(2), loop("r", chunks(N, 16), loop("x", c(16), body, VEC))),
                  PAR)
    after = partition_loops(before)
    assert after.body.condition is not None
    assert ir.expr_to_str(after.body.condition) == "(((((N + 15) / 16) * 16) - 1) < N)"
    # the else copy partitions the chunks of the last loop
    assert "((((r * 16) + 15) < N))" in ir.to_str(after.body.else_case)
    same_stores(before, after, EVERY_N)


def test_lower_and_upper_bounds_and_a_negative_coefficient():
    # S <= e && N - e > 0, e = u*16 + r*4 + x: hardest at the low end for S, high end for N
    u, r, x = v("u"), v("r"), v("x")
    e = add(ir.Mul(u, c(16)), ir.Mul(r, c(4)), x)
    cond = ir.And(ir.LE(S, e), ir.GT(ir.Sub(N, e), c(0)))
    before = loop("u", chunks(N, 16), loop("r", c(4), loop("x", c(4), ir.IfThenElse(
        cond, ir.Store("out", ir.Load(I32, "a", e), e)), VEC)), PAR)
    after = partition_loops(before)
    assert ir.expr_to_str(after.body.condition) == \
        "((S <= (u * 16)) && (((N - (u * 16)) + -15) > 0))" or \
        "S <= (u * 16)" in ir.expr_to_str(after.body.condition)
    same_stores(before, after, [{"N": n, "S": s} for n in range(0, 70, 3) for s in (-5, 0, 7, 33)])


def test_two_guards_share_one_partition():
    u, r, x = v("u"), v("r"), v("x")
    e = add(ir.Mul(u, c(32)), ir.Mul(r, c(8)), x)
    two = ir.block(guarded_store(e), ir.IfThenElse(ir.LT(ir.Add(e, c(3)), N),
                                                   ir.Store("out", c(7), ir.Add(e, c(3)))))
    before = loop("u", chunks(N, 32), loop("r", c(4), loop("x", c(8), two, VEC)), PAR)
    after = partition_loops(before)
    assert "&&" in ir.expr_to_str(after.body.condition)
    assert count_ifs(after.body.then_case) == 0
    same_stores(before, after, EVERY_N)


def test_code_growth_is_bounded():
    # three guards on three tiled dimensions, each depending on its own loops
    names = ["a0", "b0", "c0", "a1", "b1", "c1"]
    a0, b0, c0, a1, b1, c1 = map(v, names)
    body = ir.Store("out", c(1), c(0))
    for o, i in ((a0, a1), (b0, b1), (c0, c1)):
        body = ir.IfThenElse(ir.LT(add(ir.Mul(o, c(4)), i), N), body)
    nest = body
    for n in reversed(names):
        nest = loop(n, c(4) if n.endswith("1") else chunks(N, 4), nest)
    after = partition_loops(nest)
    assert count_ifs(after) <= 3 * 2 ** 4
    same_stores(nest, after, [{"N": n} for n in range(0, 14)])


@pytest.mark.parametrize("seed", range(25))
def test_random_linear_guards_are_exact(seed):
    """Random nests of three loops (symbolic and constant extents and mins,
    one of them vectorized) around one or two guards, each a random linear
    comparison: the partitioned nest stores exactly what the original does,
    for every N and S tried."""
    rnd = random.Random(seed)
    i, j, k = v("i"), v("j"), v("k")

    def term():
        e = c(rnd.randint(-9, 9))
        for x in (i, j, k):
            if rnd.random() < 0.8:
                e = ir.Add(e, ir.Mul(x, c(rnd.choice([-8, -3, -1, 1, 2, 4, 16]))))
        return e

    def comparison():
        bound = rnd.choice([N, S, ir.Add(N, c(rnd.randint(-5, 5))), ir.Sub(c(0), N)])
        return rnd.choice([ir.LT, ir.LE, ir.GT, ir.GE])(term(), bound)

    body = ir.Store("out", c(1), term())
    for _ in range(rnd.randint(1, 2)):
        cond = comparison()
        if rnd.random() < 0.3:
            cond = ir.And(cond, comparison())
        body = ir.IfThenElse(cond, body)
    kinds = [SERIAL, SERIAL, SERIAL]
    kinds[rnd.randrange(3)] = VEC
    k_lo = rnd.choice([c(0), j, S])
    nest = loop("k", c(rnd.choice([1, 3, 4])), body, kinds[2], lo=k_lo)
    nest = loop("j", rnd.choice([c(3), chunks(N, 3)]), nest, kinds[1], lo=rnd.choice([c(0), i]))
    nest = loop("i", rnd.choice([c(2), chunks(N, 4)]), nest, kinds[0], lo=rnd.choice([c(0), S]))
    after = partition_loops(nest)
    same_stores(nest, after, [{"N": n, "S": s} for n in range(-2, 23) for s in (-3, 0, 2)])


# ---- guards that must stay ----------------------------------------------------------------
def test_nonlinear_guard_is_kept():
    r, x = v("r"), v("x")
    before = loop("u", c(4), loop("r", c(4), loop("x", c(8), ir.IfThenElse(
        ir.LT(ir.Mul(r, x), N), ir.Store("out", c(1), x)), VEC)))
    assert partition_loops(before) is before


def test_guard_that_reads_memory_is_kept():
    r, x = v("r"), v("x")
    e = ir.Add(ir.Mul(r, c(8)), x)
    before = loop("u", c(4), loop("r", c(4), loop("x", c(8), ir.IfThenElse(
        ir.LT(e, ir.Load(I32, "a", c(0))), ir.Store("out", c(1), e)), VEC)))
    assert partition_loops(before) is before


def test_guard_on_the_loops_own_variable_alone_is_kept():
    # nothing inside the loop varies the guard: a copy would gain nothing
    r, x = v("r"), v("x")
    before = loop("r", c(4), loop("x", c(8), ir.IfThenElse(ir.LT(r, N), ir.Store(
        "out", c(1), x)), VEC))
    assert partition_loops(before) is before


def test_guard_of_a_shift_inwards_tail_is_left_to_loop_synthesis():
    # x = min(o*8, max(e - 8, 0)) + i: not linear in o
    o, i, e = v("o"), v("i"), v("e")
    base = ir.Min(ir.Mul(o, c(8)), ir.Max(ir.Sub(e, c(8)), c(0)))
    before = ir.LetStmt("e", N, loop("o", chunks(e, 8), loop("i", c(8), ir.LetStmt(
        "x", ir.Add(base, i), ir.IfThenElse(ir.LE(v("x"), ir.Sub(e, c(1))),
                                            ir.Store("out", c(1), v("x")))), VEC)))
    assert partition_loops(before) is before


def test_guard_already_partitioned_by_an_enclosing_branch_is_not_copied_again():
    before = chunked()
    once = partition_loops(before)
    assert ir.to_str(partition_loops(once)) == ir.to_str(once)


@pytest.mark.parametrize("cmp, bound, clamp, removed", [
    (ir.LT, N, ir.Sub(N, c(1)), True),         # e < N: min(e, N - 1) is e
    (ir.LT, N, N, True),                       # and min(e, N)
    (ir.LE, N, N, True),                       # e <= N: min(e, N)
    (ir.LE, N, ir.Sub(N, c(1)), False),        # but not min(e, N - 1)
    (ir.LT, N, ir.Sub(N, c(2)), False),
    (ir.LT, N, ir.Max(ir.Sub(N, c(1)), c(0)), True),    # rfactor's clamp: at least N - 1
    (ir.LT, N, ir.Min(ir.Sub(N, c(1)), c(0)), False),
])
def test_clamps_under_guards(cmp, bound, clamp, removed):
    x = v("x")
    e = ir.Mul(x, c(2))
    before = loop("x", c(8), ir.IfThenElse(cmp(e, bound), ir.Store(
        "out", ir.Load(I32, "a", ir.Min(e, clamp)), x)))
    text = ir.to_str(partition_loops(before))
    assert ("min(" not in text) == removed, text


def test_max_clamp_under_lower_bound_guard():
    x = v("x")
    before = loop("x", c(8), ir.IfThenElse(ir.GE(x, S), ir.Store(
        "out", ir.Load(I32, "a", ir.Max(S, x)), x)))
    assert "max(" not in ir.to_str(partition_loops(before))


def test_clamp_outside_its_guard_is_kept():
    x = v("x")
    before = loop("x", c(8), ir.block(
        ir.IfThenElse(ir.LT(x, N), ir.Store("out", c(1), x)),
        ir.Store("out", ir.Load(I32, "a", ir.Min(x, ir.Sub(N, c(1)))), x)))
    assert partition_loops(before) is before
