"""What loop partitioning copies (lowering/partition_loops.py): the
guard-free copy covers only the statements of the loop body that hold the
guards, so a Func computed in the loop (a `produce` beside its consumer's
guarded loop) stays one copy; and a test on extents alone is not made by
copying a loop nest that computes a Func when an inner loop partitions
the same guard by chunks (NumPy-order row sums: their `_lanes` and `_tree`
Funcs are computed per block of rows, and were copied three times)."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.partition_loops import partition_loops
from tests.core.test_core_partition_loops import (
    EVERY_N,
    N,
    add,
    c,
    chunks,
    count_ifs,
    guarded_store,
    loop,
    same_stores,
    v,
)


class _NoMarkers(ir.Mutator):
    """The Stmt without its produce/consume markers (for the interpreter)."""

    def visit_ProducerConsumer(self, s):
        return self.mutate(s.body)


def _same_stores(before, after, params=EVERY_N):
    same_stores(_NoMarkers().mutate(before), _NoMarkers().mutate(after), params)


def _produce_p():
    """A Func `p` computed in the enclosing loop: 8 stores of its own."""
    k = v("k")
    return ir.ProducerConsumer("p", True, loop("k", c(8), ir.Store("p", k, k)))


def _produces(s) -> int:
    return ir.to_str(s).count("produce p")


def test_a_func_computed_in_the_loop_is_not_copied():
    # for u { produce p {...}; for x { if (u*4 + x < N) out[..] = a[..] } }
    u, x = v("u"), v("x")
    consumer = loop("x", c(4), guarded_store(add(ir.Mul(u, c(4)), x)))
    before = loop("u", chunks(N, 4), ir.block(_produce_p(), consumer))
    after = partition_loops(before)
    assert _produces(after) == 1
    # the branch is the loop body's second statement, at the loop's level
    branch = after.body.stmts[1]
    assert isinstance(branch, ir.IfThenElse)
    assert ir.expr_to_str(branch.condition) == "(((u * 4) + 3) < N)"
    assert count_ifs(branch.then_case) == 0
    _same_stores(before, after)


def test_no_extent_test_copies_a_nest_that_computes_a_func():
    # for o { for u { produce p {...}; for x { if (u*4 + x < N) ... } } }: at o, the guard's
    # condition is the extent test ((N + 3)/4*4 - 1 < N); u partitions it by chunks instead
    u, x = v("u"), v("x")
    consumer = loop("x", c(4), guarded_store(add(ir.Mul(u, c(4)), x)))
    before = loop("o", c(3), loop("u", chunks(N, 4), ir.block(_produce_p(), consumer)))
    after = partition_loops(before)
    assert isinstance(after.body, ir.For)          # no branch at the top of o's body
    assert _produces(after) == 1
    assert count_ifs(after) == 2                   # u's branch, and the guard in its else
    _same_stores(before, after)


def test_extent_test_without_a_func_still_copies_the_nest():
    # the same nest without p: the extent test at o stays (a guard-free nest when 4 | N)
    u, x = v("u"), v("x")
    consumer = loop("x", c(4), guarded_store(add(ir.Mul(u, c(4)), x)))
    before = loop("o", c(3), loop("u", chunks(N, 4), consumer))
    after = partition_loops(before)
    assert ir.expr_to_str(after.body.condition) == "(((((N + 3) / 4) * 4) - 1) < N)"
    same_stores(before, after, EVERY_N)


@ph.pipeline
def row_sums(a):
    return np.sum(a, axis=-1), np.mean(a, axis=-1, keepdims=True)


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 5, 21),
                                   pytest.param((1, 9, 130), marks=pytest.mark.slow)])
def test_row_sums_compute_their_funcs_once_and_equal_numpy(shape):
    a = (np.random.default_rng(1).standard_normal(shape) * 10).astype(np.float32)
    s, m = row_sums(a)
    # NumPy's own order: bit for bit
    np.testing.assert_array_equal(s, np.sum(a, axis=-1))
    np.testing.assert_array_equal(m, np.mean(a, axis=-1, keepdims=True))
    text = row_sums.lower("final")
    for name in ("sum_tree", "mean_tree"):
        assert len(re.findall(rf"produce {name}\b", text)) == 1, name
    # _lanes: computed per slot of _tree, 8 rows at a time; one copy for the
    # blocks of 8 rows that the rows fill, one for the last block
    for name in ("sum_lanes", "mean_lanes"):
        assert len(re.findall(rf"produce {name}\b", text)) <= 2, name


def _guarded_group(u, rows, g_extent, outer=None):
    """for g in [0, g_extent) { if (u*rows + g < N) { produce p {...}; out[..] = a[..] } },
    inside `for w in [0, N)` when outer: the guard of a group of rows (sum_axis1's
    schedule: the group's Funcs are computed under it)."""
    g = v("g")
    e = add(ir.Mul(u, c(rows)), g)
    body = ir.IfThenElse(ir.LT(e, N), ir.block(_produce_p(), guarded_store(e).then_case))
    nest = loop("g", c(g_extent), body)
    return loop("w", N, nest) if outer else nest


def test_a_guard_tested_a_few_times_does_not_copy_a_func():
    # tested 4 times per iteration of u: no copy of p's computation for it
    u = v("u")
    before = loop("u", chunks(N, 4), _guarded_group(u, 4, 4))
    after = partition_loops(before)
    assert _produces(after) == 1 and count_ifs(after) == 1
    _same_stores(before, after)


def test_a_guard_tested_many_times_still_copies_a_func():
    # tested N * 4 times per iteration of u: the copy is made
    u = v("u")
    before = loop("u", chunks(N, 4), _guarded_group(u, 4, 4, outer=True))
    after = partition_loops(before)
    assert _produces(after) == 2, ir.to_str(after)
    _same_stores(before, after, EVERY_N[:24])
