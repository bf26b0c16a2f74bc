"""The enumerator's canonical forms and observational-equivalence pruning."""
import numpy as np
import pytest

from pyhalide import ir
from pyhalide.tables import grammar
from pyhalide.tables.candidates import build_pool
from pyhalide.tables.grammar import VALUE
from pyhalide.tables.syntax import format_expr


@pytest.fixture(scope="module")
def int32_pool():
    return build_pool(ir.Int(32), 1, 3, seed=0)


def texts(pool, kind=None):
    names = grammar.variables((pool.t,) * pool.size)
    return [format_expr(pool.to_ir(i, names)) for i in range(len(pool))
            if kind is None or bool(pool.is_value[i]) == (kind == VALUE)]


def test_commutative_operands_are_ordered(int32_pool):
    t = set(texts(int32_pool))
    assert "x0 + y0" in t and "y0 + x0" not in t
    assert "min(x0, y0)" in t and "min(y0, x0)" not in t
    assert "(x0 + y0) + k0" in t
    assert not any(s.startswith("k0 +") or s.startswith("k0 *") for s in t)


def test_no_constant_only_or_trivial_subtrees(int32_pool):
    t = set(texts(int32_pool))
    for bad in ("k0 + k0", "k0 * k0", "x0 - x0", "min(x0, x0)", "x0 & x0", "x0 ^ x0"):
        assert bad not in t
    assert not any("(k0 + k0)" in s or "(k0 * k0)" in s for s in t)


def test_comparisons_put_x_on_the_left(int32_pool):
    t = set(texts(int32_pool, grammar.BOOL))
    assert {"x0 < y0", "x0 > y0", "x0 <= y0", "x0 >= y0"} <= t
    assert "y0 < x0" not in t and "y0 > x0" not in t


def test_each_function_is_kept_once(int32_pool):
    pool = int32_pool
    for level in range(1, pool.max_level + 1):
        _, vals = pool.level(VALUE, level)
        assert len(np.unique(vals, axis=0)) == len(vals)


def test_enumeration_is_deterministic(int32_pool):
    again = build_pool(ir.Int(32), 1, 3, seed=0)
    assert texts(again) == texts(int32_pool)


def test_bool_pool_uses_logical_kinds():
    pool = build_pool(ir.Bool(), 1, 2, seed=0)
    t = set(texts(pool))
    assert {"x0 and y0", "x0 or y0", "x0 != y0", "x0 == y0"} <= t
