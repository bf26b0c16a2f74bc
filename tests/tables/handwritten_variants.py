"""Table entries written by hand the way users write them: operands
commuted, select conditions negated with the branches swapped, min/max
written as selects, tie-breaks spelled out (issue 20). Each variant is an
update `f[x] = value(s, v, i)` of a 1-D Func over an RDom r of N points:
`s` the Func's own value(s) at x, `v` the new value(s) (an input read at r
plus x), `i` the point's index r.x; the table entry it stands for is named
in the comment. The tests (test_handwritten_variants*.py) check that the
matcher recognizes each and that rfactor then reproduces the serial loop."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import pyhalide as ph

sel, mn, mx = ph.select, ph.min, ph.max


@dataclass
class Variant:
    name: str
    dtype: object                   # numpy dtype of the values
    size: int                       # tuple elements
    init: object                    # f[x] = init(x)
    value: object                   # (s, v, i) -> the update's value(s)
    entry: str                      # the table entry it is written from
    commutative: bool = True        # preserve the inner RVar too (else the outer only)
    data: object = None             # (rng, n) -> numpy array of v's values


def _ints(lo, hi):
    return lambda rng, n: rng.integers(lo, hi, n)


def _nan_floats(rng, n):
    d = rng.integers(-4, 5, n).astype(np.float32)
    d[rng.random(n) < 0.2] = np.nan
    return d


U8 = np.uint8
I32 = np.int32
F32 = np.float32

VARIANTS = [
    # ---- sums, products, bitwise, commuted ----------------------------------
    Variant("add_commuted", I32, 1, lambda x: x, lambda s, v, i: v + s, "x0 + y0"),
    Variant("add_k_spread", I32, 1, lambda x: x, lambda s, v, i: 3 + (v + s), "(x0 + y0) + k0"),
    Variant("mul_commuted", I32, 1, lambda x: x + 1, lambda s, v, i: v * s, "x0 * y0"),
    Variant("xor_commuted", I32, 1, lambda x: x, lambda s, v, i: v ^ s, "x0 ^ y0"),
    Variant("or_and_k", I32, 1, lambda x: x, lambda s, v, i: v & (0x5A | s), "(x0 | k0) & y0",
            commutative=False),
    Variant("and_k_xor", I32, 1, lambda x: x, lambda s, v, i: v ^ (0x33 & s), "(x0 & k0) ^ y0",
            commutative=False),
    Variant("sub_initial", I32, 1, lambda x: x, lambda s, v, i: -v + s, "x0 + y0 (x0 - e)"),
    Variant("x_plus_y_plus_xy", I32, 1, lambda x: x, lambda s, v, i: v + s + s * v,
            "((x0 * y0) + x0) + y0", data=_ints(-3, 4)),
    # ---- min / max as selects -----------------------------------------------
    Variant("min_select_lt", I32, 1, lambda x: x, lambda s, v, i: sel(s < v, s, v), "min(x0, y0)"),
    Variant("min_select_gt", I32, 1, lambda x: x, lambda s, v, i: sel(v > s, s, v), "min(x0, y0)"),
    Variant("min_select_new_lt", I32, 1, lambda x: x, lambda s, v, i: sel(v < s, v, s),
            "min(x0, y0)"),
    Variant("min_select_ge", I32, 1, lambda x: x, lambda s, v, i: sel(v >= s, s, v), "min(x0, y0)"),
    Variant("min_select_not", I32, 1, lambda x: x, lambda s, v, i: sel(~(s < v), v, s),
            "min(x0, y0)"),
    Variant("max_select_gt", I32, 1, lambda x: x, lambda s, v, i: sel(s > v, s, v), "max(x0, y0)"),
    Variant("max_select_lt", I32, 1, lambda x: x, lambda s, v, i: sel(s < v, v, s), "max(x0, y0)"),
    Variant("max_select_le", I32, 1, lambda x: x, lambda s, v, i: sel(v <= s, s, v), "max(x0, y0)"),
    Variant("max_commuted", I32, 1, lambda x: x, lambda s, v, i: mx(v, s), "max(x0, y0)"),
    Variant("clamp_max_min_k", I32, 1, lambda x: x, lambda s, v, i: mx(v, mn(40, s)),
            "max(min(x0, k0), y0)", commutative=False),
    Variant("first_below_k", I32, 1, lambda x: x + 100, lambda s, v, i: sel(40 <= s, v, s),
            "select(x0 < k0, x0, y0)", commutative=False),
    Variant("last_below_k", I32, 1, lambda x: x + 100, lambda s, v, i: sel(v >= 40, s, v),
            "select(y0 < k0, y0, x0)", commutative=False),
    # ---- argmin / argmax, tie-breaks spelled out --------------------------------
    Variant("argmin_first_swapped", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(v, s[0]), sel(s[0] <= v, s[1], i)), "argmin, first", False,
            _ints(0, 6)),
    Variant("argmin_first_gt", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(s[0], v), sel(s[0] > v, i, s[1])), "argmin, first", False,
            _ints(0, 6)),
    Variant("argmin_first_not", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(s[0], v), sel(~(v < s[0]), s[1], i)), "argmin, first", False,
            _ints(0, 6)),
    Variant("argmin_select_min", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (sel(v < s[0], v, s[0]), sel(v < s[0], i, s[1])), "argmin, first",
            False, _ints(0, 6)),
    Variant("argmin_last_ge", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(s[0], v), sel(s[0] >= v, i, s[1])), "argmin, last", False,
            _ints(0, 6)),
    Variant("argmax_select_max", I32, 2, lambda x: (ph.Int(32).min(), 0),
            lambda s, v, i: (sel(s[0] < v, v, s[0]), sel(s[0] < v, i, s[1])), "argmax, first",
            False, _ints(0, 6)),
    Variant("argmax_index_first", I32, 2, lambda x: (0, ph.Int(32).min()),
            lambda s, v, i: (sel(v > s[1], i, s[0]), mx(v, s[1])), "argmax, first (index first)",
            False, _ints(0, 6)),
    Variant("argmin_lex_spelled", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(v, s[0]), sel((v < s[0]) | ((v == s[0]) & (i < s[1])), i, s[1])),
            "argmin, lexicographic", True, _ints(0, 6)),
    # ---- saturating adds ---------------------------------------------------------
    Variant("satadd_carry_new", U8, 1, lambda x: ph.u8(x), lambda s, v, i: sel(s + v < v, 255, s + v),
            "select(x0 + y0 < x0, 255, x0 + y0)", data=_ints(0, 120)),
    Variant("satadd_commuted_sum", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: sel(v + s < s, 255, v + s), "select(x0 + y0 < x0, 255, x0 + y0)",
            data=_ints(0, 120)),
    Variant("satadd_negated", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: sel(s + v >= s, s + v, 255), "select(x0 + y0 < x0, 255, x0 + y0)",
            data=_ints(0, 120)),
    Variant("satadd_headroom_commuted", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: sel(255 - v < s, 255, s + v), "select(x0 > 255 - y0, 255, x0 + y0)",
            data=_ints(0, 120)),
    Variant("satadd_headroom_negated", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: sel(s <= 255 - v, s + v, 255), "select(x0 > 255 - y0, 255, x0 + y0)",
            data=_ints(0, 120)),
    Variant("satadd_wide_min", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: ph.u8(mn(255, ph.u16(v) + ph.u16(s))),
            "uint8(min(uint16(x0) + uint16(y0), 255))", data=_ints(0, 120)),
    # ---- tuples -----------------------------------------------------------------
    Variant("complex_mul_commuted", I32, 2, lambda x: (1, 0),
            lambda s, v, i: (v * s[0] - s[1] * (v + 1), s[1] * v + (v + 1) * s[0]),
            "complex product", data=_ints(-3, 4)),
    Variant("wide_add_carry_new", np.uint32, 2, lambda x: (ph.u32(x), ph.u32(0)),
            lambda s, v, i: (s[0] + v, s[1] + ph.u32(1) + sel(s[0] + v < v, ph.u32(1), ph.u32(0))),
            "{x0 + y0, x1 + y1 + carry}", data=_ints(0, 2 ** 31)),
    Variant("pair_sum_commuted", I32, 2, lambda x: (x, x),
            lambda s, v, i: (v + s[0], s[1] + v * 2), "{x0 + y0, x1 + y1}"),
    Variant("pair_min_max_select", I32, 2, lambda x: (x, x),
            lambda s, v, i: (sel(v < s[0], v, s[0]), sel(s[1] < v, v, s[1])),
            "{min(x0, y0), max(x1, y1)}"),
    # ---- floats -----------------------------------------------------------------
    Variant("fmax_nan_propagating_swapped", F32, 1, lambda x: ph.f32(x) - 50,
            lambda s, v, i: sel(~ph.is_nan(s), sel(ph.is_nan(v), v, mx(s, v)), s),
            "select(is_nan(x0), x0, select(is_nan(y0), y0, max(x0, y0)))", data=_nan_floats),
    Variant("fmin_select_commuted", F32, 1, lambda x: ph.f32(x) + 50,
            lambda s, v, i: sel(v < s, v, s), "min(x0, y0) / select(y0 < x0, y0, x0)",
            data=lambda rng, n: rng.integers(-9, 9, n).astype(np.float32)),
    Variant("fmax_nan_or_commuted", F32, 1, lambda x: ph.f32(x) - 50,
            lambda s, v, i: sel(ph.is_nan(s) | (v < s), s, v),
            "select(x0 > y0 or is_nan(x0), x0, y0)", data=_nan_floats),
    Variant("fmax_nan_not_or", F32, 1, lambda x: ph.f32(x) - 50,
            lambda s, v, i: sel(~(ph.is_nan(s) | (s > v)), v, s),
            "select(x0 > y0 or is_nan(x0), x0, y0)", data=_nan_floats),
]

# Variants the matcher did not recognize before the canonical forms learned
# them (session 9): De Morgan's laws in negated select conditions, selects of
# booleans with a constant branch, a bool cast to an integer, the unsigned
# headroom test with the operands of `M - a` exchanged, spelled-out
# lexicographic tie-breaks, a float `x + (0 - e)`, an x-free select that is a
# min or max inside a pattern's min/max.
HARDER = [
    Variant("fmax_nan_de_morgan", F32, 1, lambda x: ph.f32(x) - 50,
            lambda s, v, i: sel(~ph.is_nan(s) & (s <= v), v, s),
            "select(x0 > y0 or is_nan(x0), x0, y0)", data=_nan_floats),
    Variant("fmin_nan_de_morgan", F32, 1, lambda x: ph.f32(x) + 50,
            lambda s, v, i: sel(~ph.is_nan(s) & ~(v > s), v, s),
            "select(x0 < y0 or is_nan(x0), x0, y0)", data=_nan_floats),
    Variant("bool_any_select", np.bool_, 1, lambda x: x < 0, lambda s, v, i: sel(v, True, s),
            "x0 or y0", data=lambda rng, n: rng.random(n) < 0.1),
    Variant("bool_all_select", np.bool_, 1, lambda x: x >= 0, lambda s, v, i: sel(v, s, False),
            "x0 and y0", data=lambda rng, n: rng.random(n) < 0.9),
    Variant("bool_any_select_self", np.bool_, 1, lambda x: x < 0,
            lambda s, v, i: sel(s, True, v), "x0 or y0", data=lambda rng, n: rng.random(n) < 0.1),
    Variant("bool_all_select_not", np.bool_, 1, lambda x: x >= 0,
            lambda s, v, i: sel(~v, False, s), "x0 and y0",
            data=lambda rng, n: rng.random(n) < 0.9),
    Variant("wide_add_carry_cast", np.uint32, 2, lambda x: (ph.u32(x), ph.u32(0)),
            lambda s, v, i: (s[0] + v, s[1] + v + ph.u32(s[0] + v < s[0])),
            "{x0 + y0, x1 + y1 + carry}", data=_ints(0, 2 ** 32)),
    Variant("satadd_headroom_other_side", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: sel(v > 255 - s, 255, s + v), "select(x0 > 255 - y0, 255, x0 + y0)",
            data=_ints(0, 120)),
    Variant("satadd_headroom_other_side_negated", U8, 1, lambda x: ph.u8(x),
            lambda s, v, i: sel(v <= 255 - s, v + s, 255),
            "select(x0 > 255 - y0, 255, x0 + y0)", data=_ints(0, 120)),
    Variant("float_negated_product_term", F32, 1, lambda x: ph.f32(x) * 0.25,
            lambda s, v, i: s + (0.0 - s * v) + v, "(x0 - (x0 * y0)) + y0",
            data=lambda rng, n: (rng.integers(-4, 5, n) / 8).astype(np.float32)),
    Variant("min_or_new_select_max", U8, 1, lambda x: ph.u8(x) + 200,
            lambda s, v, i: mn(s | v, sel(v > 40, v, 40)), "min(x0 | y0, max(y0, k0))",
            data=_ints(0, 120)),
    Variant("argmin_lex_tie_spelled", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(v, s[0]), sel((v < s[0]) | ((v == s[0]) & (i < s[1])), i, s[1])),
            "argmin, lexicographic", True, _ints(0, 6)),
    Variant("argmin_lex_tie_commuted", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(s[0], v),
                             sel(((s[0] == v) & (s[1] > i)) | (s[0] > v), i, s[1])),
            "argmin, lexicographic", True, _ints(0, 6)),
    Variant("argmin_lex_tie_negated", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (sel(v < s[0], v, s[0]),
                             sel((s[0] < v) | ((s[0] == v) & (s[1] <= i)), s[1], i)),
            "argmin, lexicographic", True, _ints(0, 6)),
    Variant("argmin_lex_index_first", I32, 2, lambda x: (0, ph.Int(32).max()),
            lambda s, v, i: (sel((v < s[1]) | ((s[1] == v) & (i < s[0])), i, s[0]),
                             mn(s[1], v)),
            "argmin, lexicographic (index first)", True, _ints(0, 6)),
]

# Near misses: not the operator they look like; every one must stay refused
# (or be recognized as what it is; the differential test decides).
NEAR_MISSES = [
    # the tie-break compares the index with the value, not with the index
    Variant("lex_wrong_tie", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(v, s[0]), sel((v < s[0]) | ((v == s[0]) & (i < s[0])), i, s[1])),
            "none", False, _ints(0, 6)),
    # the equality tests another element
    Variant("lex_wrong_eq", I32, 2, lambda x: (ph.Int(32).max(), 0),
            lambda s, v, i: (mn(v, s[0]), sel((v < s[0]) | ((v == s[1]) & (i < s[1])), i, s[1])),
            "none", False, _ints(0, 6)),
    # floats: a NaN is neither less, greater nor equal
    Variant("lex_float", F32, 2, lambda x: (ph.f32(1e30), ph.f32(0)),
            lambda s, v, i: (mn(v, s[0]),
                             sel((v < s[0]) | ((v == s[0]) & (ph.f32(i) < s[1])), ph.f32(i), s[1])),
            "none", False, _nan_floats),
    # signed: 127 - s wraps for negative s
    Variant("headroom_signed", np.int8, 1, lambda x: ph.i8(x),
            lambda s, v, i: sel(v > 127 - s, 127, s + v), "none", False, _ints(-60, 60)),
]
