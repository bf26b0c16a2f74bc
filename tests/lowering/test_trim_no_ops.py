"""Trimming loops to where their bodies do something (lowering/trim_no_ops.py).

The pass on hand-built IR, before/expected, each result also run against
its input in the small interpreter of tests/backend/ir_interp.py for every
extent up to 12 (empty ones too): the same stores in the same order. Loops
the pass must leave alone: constant extents, parallel loops, guards with an
else or reading memory. End to end: forward substitution's inner loop runs
over its own row only and equals plain Python bit for bit."""
import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.trim_no_ops import trim_no_ops
from tests.backend.ir_interp import run
from tests.frontend.test_imperative_nests import forward

I32 = ir.Int(32)
N = ir.Variable(I32, "N", "param")
SERIAL, PAR = ir.ForKind.SERIAL, ir.ForKind.PARALLEL
TRUE = ir.const(ir.Bool(), True)


def v(name):
    return ir.Variable(I32, name)


def c(k):
    return ir.Const(I32, k)


def store(idx, value):
    return ir.Store("out", value, idx)


def load(idx):
    return ir.Load(I32, "a", idx)


def rows(body, kind=SERIAL, extent=N, lo=c(0)):
    """for (y, 0, N) { for (x, lo, extent) { body } }"""
    return ir.For("y", c(0), N, SERIAL, ir.For("x", lo, extent, kind, body))


def same_stores(before, after):
    """Both store the same values at the same places in the same order, for
    N in [0, 12]; reads stay inside `a` (N elements: an index error fails)."""
    for n in range(13):
        mem = {"a": [7 * i + 3 for i in range(n)]}
        want, got = [], []
        run(before, {"N": n}, mem, want)
        run(after, {"N": n}, mem, got)
        assert got == want, n


X, Y = v("x"), v("y")


# ---- trim ------------------------------------------------------------------------------------
def test_a_triangular_guard_trims_the_inner_loop():
    before = rows(ir.IfThenElse(ir.LT(X, Y), store(ir.Add(ir.Mul(Y, c(64)), X), load(X))))
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  for (x, 0, max((min((N - 1), (y - 1)) + 1), 0)) {
    out[(x + (y * 64))] = a[x]
  }
}
"""
    same_stores(before, after)


def test_a_lower_bound_and_a_kept_conjunct():
    """`y <= x` raises the start; `x % 3 == 0` (not a bound) stays a guard."""
    cond = ir.And(ir.LE(Y, X), ir.EQ(ir.Mod(X, c(3)), c(0)))
    before = rows(ir.IfThenElse(cond, store(X, load(X))))
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  for (x, max(y, 0), (max(N, max(y, 0)) - max(y, 0))) {
    if (((x % 3) == 0)) {
      out[x] = a[x]
    }
  }
}
"""
    same_stores(before, after)


# ---- peel ------------------------------------------------------------------------------------
def test_the_slots_of_an_imperative_nest():
    """Slot -1 starts, slots [0, E) run the inner loop where x < y, slot E
    writes (frontend_ast/imperative_nests.py); the read's clamp into the
    loop's hull goes with the peeled ends (both peels always run: the
    simplifier decides `-1 <= max(N - 1, 0)`; the next simplify drops the
    `if (true)`)."""
    last = ir.Max(ir.Sub(N, c(1)), c(0))
    q = ir.Max(ir.Min(X, ir.Sub(last, c(1))), c(0))
    value = ir.lazy_select(ir.EQ(X, c(-1)), c(0),
                           ir.lazy_select(ir.EQ(X, last), c(1), ir.Add(load(q), c(2))))
    guard = ir.lazy_select(ir.EQ(X, c(-1)), TRUE, ir.lazy_select(
        ir.EQ(X, last), TRUE, ir.And(ir.LE(c(0), q), ir.LT(q, Y))))
    before = rows(ir.IfThenElse(guard, store(Y, value)), lo=c(-1), extent=ir.Add(last, c(2)))
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  if (true) {
    out[y] = 0
  }
  for (x, 0, max((min((max((N - 1), 0) - 1), (y - 1)) + 1), 0)) {
    out[y] = (a[x] + 2)
  }
  if (true) {
    out[y] = 1
  }
}
"""
    same_stores(before, after)


def test_an_iteration_inside_the_range_is_split_off():
    """`x != y`: the loops below and above y; y's own iteration does nothing."""
    before = rows(ir.IfThenElse(ir.NE(X, Y), store(X, load(X))))
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  for (x, 0, max((min((N - 1), (y - 1)) + 1), 0)) {
    out[x] = a[x]
  }
  for (x, max((y + 1), 0), (max(N, max((y + 1), 0)) - max((y + 1), 0))) {
    out[x] = a[x]
  }
}
"""
    same_stores(before, after)


def test_a_likely_index_check_splits_where_it_fails():
    """An index check `likely(select(x < B, 0, x + 1))` (0 while in range):
    the loop up to B - 1 reads index 0, the rest the failing index."""
    B = ir.Variable(I32, "B", "param")
    idx = ir.Call(I32, "likely", (ir.Select(ir.LT(X, B), c(0), ir.Add(X, c(1))),),
                  ir.INTRINSIC)
    before = rows(ir.IfThenElse(ir.LT(X, Y), store(X, idx)))
    after = trim_no_ops(before)
    text = ir.to_str(after)
    assert text == """\
for (y, 0, N) {
  if (((int64(B) - (int64)1) >= (int64)-2147483648)) {
    for (x, 0, max((min(min((N - 1), (B - 1)), (y - 1)) + 1), 0)) {
      out[x] = likely(0)
    }
    for (x, max(B, 0), (max((min((N - 1), (y - 1)) + 1), max(B, 0)) - max(B, 0))) {
      out[x] = likely((x + 1))
    }
  } else {
    for (x, 0, max(N, 0)) {
      if ((x < y)) {
        out[x] = likely(select((x < B), 0, (x + 1)))
      }
    }
  }
}
""", text
    # (B - 1 wraps at B = -2**31: there the loop is not split)
    for b in (0, 3, 20, -2**31):
        same_stores(ir.LetStmt("B", c(b), before), ir.LetStmt("B", c(b), after))


def test_conditions_every_statement_shares_trim_the_outer_loop():
    """LU's row loop: a peeled slot and the column loop under `k < y`."""
    k = ir.Variable(I32, "k", "param")
    cond = ir.LT(k, Y)
    inner = ir.For("x", c(0), N, SERIAL, ir.IfThenElse(ir.And(cond, ir.LT(X, Y)),
                                                    store(ir.Add(ir.Mul(Y, c(64)), X), load(X))))
    before = ir.For("y", c(0), N, SERIAL, ir.Block((ir.IfThenElse(cond, store(Y, c(5))), inner)))
    after = trim_no_ops(before)
    # (k + 1 computed in int64: it leaves int32 at k = 2**31 - 1)
    assert ir.to_str(after).startswith(
        "for (y, max(int32(max(min((int64(k) + (int64)1), (int64)2147483647), "
        "(int64)-2147483648)), 0), ")
    for kk in (-2, 0, 4, 15, 2**31 - 1):
        same_stores(ir.LetStmt("k", c(kk), before), ir.LetStmt("k", c(kk), after))


# ---- left alone -----------------------------------------------------------------------------
def test_loops_the_pass_leaves_alone():
    body = ir.IfThenElse(ir.LT(X, Y), store(X, load(X)))
    constant = ir.For("x", c(0), c(8), SERIAL, body)       # a tile's inner loop
    parallel = ir.For("x", c(0), N, PAR, body)
    with_else = ir.For("x", c(0), N, SERIAL, ir.IfThenElse(ir.LT(X, Y), store(X, c(1)),
                                                           store(X, c(2))))
    reads = ir.For("x", c(0), N, SERIAL, ir.IfThenElse(ir.LT(load(X), Y), store(X, c(1))))
    unguarded = ir.For("x", c(0), N, SERIAL, ir.Block((body, store(X, c(3)))))
    for s in (constant, parallel, with_else, reads, unguarded):
        assert trim_no_ops(s) is s


# ---- end to end ------------------------------------------------------------------------------
def test_forward_substitution_runs_its_row_only():
    p = ph.pipeline(forward)
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7):
        L = np.tril(rng.random((n, n))) + 2 * np.eye(n)
        b = rng.random(n)
        got, want = p(L, b), forward(L, b)
        assert got.tobytes() == want.tobytes(), n
    text = p.lower("final")
    # an inner loop whose extent is bounded by the row (the outer loop's variable)
    inner = [line for line in text.splitlines() if line.strip().startswith("for (") and
             "_seq$x" in line]
    assert inner and any("_seq$y - 1" in line for line in inner), inner


def test_a_trimmed_loop_is_unswitched_and_loses_its_check_selects():
    """A lazy select on a condition the loop does not change becomes two
    loops; `select(check[i] != 0, 0, v)` (pyhalide/checks.py: a check image
    holds 0, its access check raises first) becomes v."""
    B = ir.Variable(I32, "B", "param")
    checked = ir.Select(ir.NE(ir.Load(I32, "__pyhalide_check0", c(0)), c(0)), c(0), load(X))
    value = ir.lazy_select(ir.LT(c(0), B), checked, c(9))
    before = rows(ir.IfThenElse(ir.LT(X, Y), store(X, value)))
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  if ((0 < B)) {
    for (x, 0, max((min((N - 1), (y - 1)) + 1), 0)) {
      out[x] = a[x]
    }
  } else {
    for (x, 0, max((min((N - 1), (y - 1)) + 1), 0)) {
      out[x] = 9
    }
  }
}
"""
    for b in (0, 2):
        env = ir.LetStmt("B", c(b), before), ir.LetStmt("B", c(b), after)
        for n in range(6):
            mem = {"a": list(range(n)), "__pyhalide_check0": [0]}
            logs = [], []
            for s, log in zip(env, logs):
                run(s, {"N": n}, mem, log)
            assert logs[0] == logs[1]


def test_a_value_bound_in_the_body_is_no_place_to_split():
    """`x == t` with t a let of the body (it changes with x): no peel or
    split at t (it is not in scope outside the body)."""
    body = ir.LetStmt("t", ir.Sub(N, X), ir.IfThenElse(
        ir.And(ir.LT(X, Y), ir.NE(X, v("t"))), store(X, load(X))))
    before = rows(body)
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  for (x, 0, max((min((N - 1), (y - 1)) + 1), 0)) {
    let t = (N - x)
    if ((x != t)) {
      out[x] = a[x]
    }
  }
}
"""
    same_stores(before, after)


def test_a_loop_with_an_exit_of_its_own_is_left_alone():
    """`if (x == y) leave x` would leave only one piece: the others would run."""
    body = ir.IfThenElse(ir.LT(X, Y), ir.Block((
        store(X, load(X)), ir.IfThenElse(ir.EQ(X, c(2)), ir.LoopExit("x"), None))))
    inner = ir.For("x", c(0), N, SERIAL, body)
    assert trim_no_ops(inner) is inner


def test_a_lazy_select_of_the_guard_splits_where_it_changes():
    """The slots of imperative_writes.py: `x < E ? <the loop's condition> :
    <the write's>`, E the hull's size: the loop's slots and the write's.
    (E over a size that is never negative: the cut E - 1 cannot wrap, so the
    split needs no int64 test.)"""
    size = v("size")
    E = ir.Sub(size, c(1))
    guard = ir.lazy_select(ir.LT(X, E), ir.LT(X, Y), ir.LT(c(2), Y))
    value = ir.lazy_select(ir.LT(X, E), load(X), c(-1))
    before = ir.LetStmt("size", ir.Max(N, c(0)), rows(
        ir.IfThenElse(guard, store(ir.Add(ir.Mul(Y, c(64)), X), value)), extent=ir.Add(E, c(1))))
    after = trim_no_ops(before)
    text = ir.to_str(after)
    assert "if_then_else" not in text, text
    same_stores(before, after)
