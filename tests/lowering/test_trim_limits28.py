"""trim_limits / int_ranges (session 28, h2): trim_no_ops' bounds past int32.

No kernel is compiled: the bounds are folded at argument values and the
iterations they keep are compared with the exact ones (Python integers).
"""
from __future__ import annotations

import pyhalide  # noqa: F401  (maps pyhalide.lowering in a checkout)
from pyhalide import ir
from pyhalide.lowering.int_ranges import exact_range, loop_range
from pyhalide.lowering.simplify import simplify
from pyhalide.lowering.trim_limits import limit_of, split_guard, trim_forms

I32 = ir.Int(32)
MIN, MAX = -2**31, 2**31 - 1
B = ir.Variable(I32, "b", "param")
EXT = ir.Variable(I32, "a.extent.0", "param")
Y = ir.Variable(I32, "y")


def c(k):
    return ir.Const(I32, k)


def _at(e, b):
    """e folded at b (a Python int)."""
    out = simplify(ir.substitute(e, {"b": c(b)}))
    assert isinstance(out, ir.Const), ir.to_str(out)
    return out.value


def test_exact_range_over_loop_ranges_and_extents():
    assert exact_range(ir.Sub(EXT, c(1)), {}) == (-1, MAX - 1)
    assert exact_range(ir.Sub(B, c(1)), {}) is None             # b - 1 wraps at b = -2**31
    assert exact_range(ir.Sub(Y, c(1)), {"y": (0, 9)}) == (-1, 8)
    assert exact_range(ir.Sub(ir.Sub(B, Y), c(1)), {"y": (0, 9)}) is None
    assert loop_range(c(0), EXT, {}) == (0, MAX - 1)
    # a narrowing cast is a leaf of its type
    n64 = ir.Variable(ir.Int(64), "n")
    assert exact_range(ir.Cast(I32, n64), {}) == (MIN, MAX)


def test_a_bound_proven_in_int32_keeps_its_form():
    v = ir.Sub(Y, c(1))
    limit = limit_of(True, v, {"y": (0, 9)})
    assert limit.wide is None and limit.value is v
    assert split_guard(limit) is None and trim_forms(limit) == (v, None)


def test_trims_keep_exactly_the_iterations_where_the_bound_holds():
    """var <= b + k (upper) or var >= b + k (lower) on [lo, hi], hi <= 2**31 - 2."""
    bs = [MIN, MIN + 1, MIN + 2, -1, 0, 1, MAX - 2, MAX - 1, MAX]
    ranges = [(MIN, MIN + 3), (MIN, 5), (-3, 4), (MAX - 5, MAX - 1)]
    for k in (-2, -1, 1, 2):
        value = ir.Add(B, c(k))
        for is_upper in (True, False):
            limit = limit_of(is_upper, value, {})
            assert limit.wide is not None
            bound, guard = trim_forms(limit)
            for b in bs:
                exact = b + k
                runs = guard is None or bool(_at(guard, b))
                v = _at(bound, b)
                for lo, hi in ranges:
                    if is_upper:
                        want = max(0, min(hi, exact) - lo + 1)
                        got = max(0, min(hi, v) - lo + 1) if runs else 0
                    else:
                        want = max(0, hi - max(lo, exact) + 1)
                        got = max(0, hi - max(lo, v) + 1) if runs else 0
                    assert got == want, (k, is_upper, b, lo, hi)


def test_a_split_whose_cut_may_wrap_is_tested():
    limit = limit_of(True, ir.Sub(B, c(1)), {})
    guard = split_guard(limit)
    assert not _at(guard, MIN) and _at(guard, MIN + 1) and _at(guard, MAX)
    lower = limit_of(False, ir.Add(B, c(1)), {})
    g = split_guard(lower)
    assert not _at(g, MAX) and _at(g, MAX - 1) and _at(g, MIN)
