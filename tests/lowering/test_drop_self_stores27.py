"""Dropping a tuple update's stores of a member's own unchanged element
(lowering/drop_self_stores.py): the pass on hand-built IR, before/expected,
each result also run against its input in the small interpreter of
tests/backend/ir_interp.py (its log of stores loses only the dropped
ones, which store the value the element holds). Left alone: another index, another buffer's
element, two stores to one buffer."""
from pyhalide import ir
from pyhalide.lowering.drop_self_stores import drop_self_stores
from tests.backend.ir_interp import run

I32 = ir.Int(32)
N = ir.Variable(I32, "N", "param")
X = ir.Variable(I32, "x")


def c(k):
    return ir.Const(I32, k)


def var(name):
    return ir.Variable(I32, name)


def tuple_store(values, idx=X):
    """let f.value<k> = values[k] ... f.<k>[idx] = f.value<k> (as storage
    flattening makes a tuple Provide), in a loop over x < N."""
    body = ir.block(*[ir.Store(f"f.{k}", var(f"f.value{k}"), idx) for k in range(len(values))])
    for k in reversed(range(len(values))):
        body = ir.LetStmt(f"f.value{k}", values[k], body)
    return ir.For("x", c(0), N, ir.ForKind.SERIAL, body)


MEM = {"f.0": [3 * i + 1 for i in range(8)], "f.1": [5 * i + 2 for i in range(8)]}


def stores(s, n=6):
    """(buffer, index, value) of each store s makes, in order."""
    log = []
    run(s, {"N": n}, MEM, log)
    return log


def test_a_member_stored_back_is_dropped():
    before = tuple_store([ir.Load(I32, "f.0", X), ir.Add(ir.Load(I32, "f.1", X), c(1))])
    after = drop_self_stores(before)
    assert ir.to_str(after) == """\
for (x, 0, N) {
  let f.value1 = (f.1[x] + 1)
  f.1[x] = f.value1
}
"""
    dropped = [e for e in stores(before) if e[0] == "f.0"]
    assert dropped and all(MEM["f.0"][i] == v for _, i, v in dropped)
    assert stores(after) == [e for e in stores(before) if e[0] != "f.0"]


def test_every_member_stored_back_leaves_no_store():
    before = tuple_store([ir.Load(I32, "f.0", X), ir.Load(I32, "f.1", X)])
    after = drop_self_stores(before)
    assert "f.0[" not in ir.to_str(after) and "f.1[" not in ir.to_str(after)


def test_other_index_or_buffer_is_kept():
    shifted = tuple_store([ir.Load(I32, "f.0", ir.Add(X, c(1))), c(0)])
    crossed = tuple_store([ir.Load(I32, "f.1", X), ir.Load(I32, "f.0", X)])
    for before in (shifted, crossed):
        after = drop_self_stores(before)
        assert ir.to_str(after) == ir.to_str(before)


def test_two_stores_to_one_buffer_are_kept():
    body = ir.block(ir.Store("f.0", var("f.value0"), X),
                    ir.Store("f.0", c(7), ir.Add(X, c(1))))
    before = ir.For("x", c(0), N, ir.ForKind.SERIAL,
                    ir.LetStmt("f.value0", ir.Load(I32, "f.0", X), body))
    after = drop_self_stores(before)
    assert ir.to_str(after) == ir.to_str(before)


def test_trim_by_the_conjuncts_that_read_no_memory():
    """lowering/trim_no_ops.py trims a loop by the conjuncts of its guard
    that read no memory; the others stay in the guard (phase mode's
    `x < n && r[y] == 0 && a[x] == 0`)."""
    from pyhalide.lowering.trim_no_ops import trim_no_ops
    y = var("y")
    cond = ir.And(ir.LT(X, y), ir.EQ(ir.Load(I32, "f.0", X), c(4)))
    before = ir.For("y", c(0), N, ir.ForKind.SERIAL, ir.For(
        "x", c(0), N, ir.ForKind.SERIAL, ir.IfThenElse(cond, ir.Store("f.1", X, X), None)))
    after = trim_no_ops(before)
    assert ir.to_str(after) == """\
for (y, 0, N) {
  for (x, 0, max((min((N - 1), (y - 1)) + 1), 0)) {
    if ((f.0[x] == 4)) {
      f.1[x] = x
    }
  }
}
"""
    for n in range(8):
        mem = {"f.0": [4 if i % 3 else 1 for i in range(n)], "f.1": [0] * n}
        want, got = [], []
        run(before, {"N": n}, mem, want)
        run(after, {"N": n}, mem, got)
        assert got == want and (n < 3 or got)
