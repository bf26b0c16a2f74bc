"""Loop partitioning (lowering/partition_loops.py), in one place.

The pass on hand-built IR: guard-free copies of guarded loop bodies,
before/expected, and exactness checked by running both versions of each nest
in a small interpreter for every extent up to a few chunks (empty and tiny
ones too); guards and clamps that must stay.

End to end: a GuardWithIf tail gets its guard-free copy; rfactor schedules
whose split factors do not divide the extents (symbolic extents of
@pipeline, a Param extent, and constant extents of the Func API), 1-D and
2-D, down to extents smaller than one chunk, compared with the reference
evaluator, NumPy and plain Python; and the guard-free copy is vector code."""
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.partition_loops import partition_loops
from tests.backend.ir_interp import run
from tests.core.jitcheck import check
from tests.example_scripts import load_example

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


# ---- the pass: before / expected -------------------------------------------------------------
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


# ---- guards that must stay -------------------------------------------------------------------
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


# ---- end to end: a GuardWithIf tail ----------------------------------------------------------
def test_guard_tail_is_partitioned():
    x = ph.Var("x")
    f = ph.Func("g")
    f[x] = x * 2
    f.update  # noqa: B018 - pure stage only
    f.split(x, ph.Var("xo"), ph.Var("xi"), 4, ph.TailStrategy.GuardWithIf)
    # loop partitioning makes the guard-free copy (loop synthesis leaves the guard)
    assert ph.Pipeline([f]).lower("loops").count(f"for ({f.name()}.s0.xi, 0, 4)") == 1
    text = ph.Pipeline([f]).lower("final")
    assert text.count(f"for ({f.name()}.s0.xi, 0, 4)") == 2   # guarded and unguarded copies
    check(f, [10], [np.arange(10) * 2])


# ---- end to end: rfactor schedules -----------------------------------------------------------
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RNG = np.random.default_rng(20240611)
SIZES = [1, 3, 8, 63, 64, 65, 130, 1000, 4099]


# the paper's schedules: Func API (chunks of 64 here) and @pipeline
rfactor_benchmarks = load_example("rfactor_benchmarks.py", "_partition_rfactor_benchmarks")
common = load_example("pipelines/paper_reductions_schedules/_common.py", "_partition_common")


def max_func(a, n):
    A = ph.Buffer(a, "pa")
    r = ph.RDom([(0, n)], "r")
    f = ph.Func("pmax")
    f[()] = ph.Int(32).min()
    f[()] = ph.max(f[()], A[r.x])
    rfactor_benchmarks._one_d(f, 64)
    return f


@pytest.mark.parametrize("n", [5, 1000, 1021])
def test_func_api_constant_extent_not_divisible(n):
    a = RNG.integers(-10 ** 6, 10 ** 6, n, dtype=np.int32)
    check(max_func(a, n), [], [a.max()])


def test_func_api_param_extent_every_size():
    a = RNG.integers(-10 ** 6, 10 ** 6, max(SIZES), dtype=np.int32)
    n = ph.Param(ph.Int(32), "pn", 1)
    f = max_func(a, n)
    for size in SIZES:
        n.set(size)
        check(f, [], [a[:size].max()])


def test_fast_copy_is_vector_code():
    a = RNG.integers(-100, 100, 1000, dtype=np.int32)
    f = max_func(a, 1000)
    final = ph.Pipeline([f]).lower("final")
    assert "a[min(" not in final and "pa[ramp(" in final
    # the guard-free copy of a chunk has no guard left inside its vector loop
    assert re.search(r"if \(\(\(\(pmax(\$\d+)?_intm\.s1\.u \* 64\) \+ 63\) < 1000\)\)", final)
    assert "<8 x i32>" in ph.Pipeline([f]).lower("llvm")


def test_func_api_two_dimensional_sum_every_shape():
    img = RNG.integers(-1000, 1000, (40, 70), dtype=np.int32)
    for h, w in [(1, 1), (3, 5), (4, 8), (7, 17), (40, 70)]:
        A = ph.Buffer(img[:h, :w].copy(), "img2")
        r = ph.RDom([(0, w), (0, h)], "r")
        f = ph.Func("sum2")
        f[()] = 0
        f[()] += A[r.x, r.y]
        ryo, ryi, rxo, rxi = ph.RVar("ryo"), ph.RVar("ryi"), ph.RVar("rxo"), ph.RVar("rxi")
        u, v = ph.Var("u"), ph.Var("v")
        intm = f.update().split(r.y, ryo, ryi, 4).rfactor(ryo, u)
        intm.compute_root().update().parallel(u)
        inner = intm.update().split(r.x, rxo, rxi, 8).rfactor(rxi, v)
        inner.compute_at(intm, u).vectorize(v).update().vectorize(v)
        check(f, [], [img[:h, :w].sum(dtype=np.int32)])


# ---- @pipeline: symbolic extents -------------------------------------------------------------
@ph.pipeline(schedule=lambda p: common.one_d(p, "m", "i", 64, 8))
def running_max(a):
    m = np.int32(-2 ** 31)
    for i in range(len(a)):
        m = max(m, a[i])
    return m


def test_pipeline_one_d_every_size():
    a = RNG.integers(-10 ** 6, 10 ** 6, max(SIZES), dtype=np.int32)
    for size in SIZES + [0]:
        x = a[:size].copy()
        assert running_max(x) == running_max.py_func(x), size


@ph.pipeline(schedule=lambda p: common.argmin4d(p, 8))
def argmin2d(a):
    """argmin4d's schedule: rows in parallel, 16 positions of a row at once."""
    best = np.int16(32767)
    bi = bl = 0
    for i in range(a.shape[0]):
        for l in range(a.shape[1]):                # noqa: E741 (argmin4d's loop names)
            if a[i, l] < best:
                best = a[i, l]
                bi, bl = i, l
    return best, bi, bl


def test_pipeline_two_d_every_shape():
    img = RNG.integers(-300, 300, (20, 70), dtype=np.int16)
    img[3, 5] = img[11, 40] = -1000                 # a tie: the first occurrence wins
    for h, w in [(1, 1), (2, 3), (4, 16), (5, 17), (12, 45), (20, 70)]:
        x = img[:h, :w].copy()
        assert argmin2d(x) == argmin2d.py_func(x), (h, w)


def test_pipeline_guard_free_copy_is_vector_code():
    spec = [("a", np.int32, (100,))]
    text = running_max.lower("final", arg_specs=spec)
    assert "a[min(" not in text
    assert "a[ramp(" in text
    # lowered for a contiguous array, as a call with one compiles it: dense loads
    llvm = running_max.lower("llvm", arg_specs=spec)
    assert "load <8 x i32>" in llvm and "gather" not in llvm


def test_frontend_vs_func_example_agrees():
    """examples/pipelines/frontend_vs_func.py: both writings of the six
    benchmarks give the same results."""
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "pipelines",
                                                       "frontend_vs_func.py"), "12", "1"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr + out.stdout
    rows = [line for line in out.stdout.splitlines() if line.endswith("yes")]
    assert len(rows) == 6, out.stdout
