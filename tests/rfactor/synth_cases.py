"""Updates outside the shipped tables whose operators synthesis finds
(tables/synth.py), each as a builder of an algorithm over a 2-D RDom, and
near misses that are not associative.

A case is `make(rng) -> (f, r, commutative)`: the Func `f` with one update
over the RDom `r` (inputs drawn from `rng`), and whether its operator
commutes (an inner RVar may be rfactored only then)."""
from __future__ import annotations

import numpy as np

import pyhalide as ph

N = (6, 7)          # the RDom's extents (r.x, r.y)


def _inputs(rng, count, dtype, lo=-4, hi=5):
    info = np.iinfo(dtype)
    lo, hi = max(lo, info.min), min(hi, info.max)
    return [ph.Buffer(rng.integers(lo, hi, N[::-1]).astype(dtype), f"in{i}")
            for i in range(count)]


def _func(types, init, r):
    f = ph.Func("f")
    vals = tuple(ph.cast(t, v) for t, v in zip(types, init))
    f[()] = vals if len(vals) > 1 else vals[0]
    return f


def _elems(f, n):
    return [f[()][i] for i in range(n)] if n > 1 else [f[()]]


def saturating_add(dtype, carry_test=False):
    """select(f > max - a, max, f + a), or with the overflow test written on
    the wrapped sum (f + a < f)."""
    def make(rng):
        r = ph.RDom([(0, N[0]), (0, N[1])], "r")
        (a,) = _inputs(rng, 1, dtype, 0, np.iinfo(dtype).max)
        top = ph.cast(dtype, np.iinfo(dtype).max)
        f = _func([dtype], [0], r)
        x, y = f[()], a[r.x, r.y]
        f[()] = ph.select(x + y < x if carry_test else x > top - y, top, x + y)
        return f, r, True
    return make


def matrix_product(rng):
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b, c, d = (i[r.x, r.y] for i in _inputs(rng, 4, np.int32))
    f = _func([np.int32] * 4, [1, 0, 0, 1], r)
    x = _elems(f, 4)
    f[()] = (x[0] * a + x[1] * c, x[0] * b + x[1] * d, x[2] * a + x[3] * c, x[2] * b + x[3] * d)
    return f, r, False


def float_matrix_product(rng):
    """The 2x2 matrix product over float32 (proven over the reals: the schedule
    reassociates, compared within a tolerance)."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b, c, d = (ph.Buffer((rng.random(N[::-1]) * 0.5 + 0.5).astype(np.float32), f"in{i}")
                  [r.x, r.y] for i in range(4))
    f = _func([np.float32] * 4, [1, 0, 0, 1], r)
    x = _elems(f, 4)
    f[()] = (x[0] * a + x[1] * c, x[0] * b + x[1] * d, x[2] * a + x[3] * c, x[2] * b + x[3] * d)
    return f, r, False


def quaternion_product(rng):
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b, c, d = (i[r.x, r.y] for i in _inputs(rng, 4, np.int32))
    f = _func([np.int32] * 4, [1, 0, 0, 0], r)
    w, x, y, z = _elems(f, 4)
    f[()] = (w * a - x * b - y * c - z * d, w * b + x * a + y * d - z * c,
             w * c - x * d + y * a + z * b, w * d + x * c - y * b + z * a)
    return f, r, False


def shifted_product(rng):
    """(f + 2) * (a + 2) - 2, written out."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    (a,) = (i[r.x, r.y] for i in _inputs(rng, 1, np.int32))
    f = _func([np.int32], [-1], r)
    x = f[()]
    f[()] = x * a + 2 * x + 2 * a + 2
    return f, r, True


def affine_composition(rng):
    """v -> a*v + b applied after the map (m, c)."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b = (i[r.x, r.y] for i in _inputs(rng, 2, np.int32))
    f = _func([np.int32] * 2, [1, 0], r)
    m, c = _elems(f, 2)
    f[()] = (a * m, a * c + b)
    return f, r, False


def guarded_affine_composition(rng):
    """affine_composition where a mask holds (the guard becomes y = identity
    elsewhere)."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b, mask = (i[r.x, r.y] for i in _inputs(rng, 3, np.int32, -1, 2))
    f = _func([np.int32] * 2, [1, 0], r)
    m, c = _elems(f, 2)
    f[()] = (ph.select(mask > 0, a * m, m), ph.select(mask > 0, a * c + b, c))
    return f, r, False


def sum_and_shifted_product(rng):
    """A table element (a sum) beside a synthesized one."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b = (i[r.x, r.y] for i in _inputs(rng, 2, np.int32))
    f = _func([np.int32] * 2, [0, -2], r)
    s, p = _elems(f, 2)
    f[()] = (s + a, p * b + 2 * p + 2 * b + 2)
    return f, r, True


def two_word_sum(rng):
    """A 64-bit sum in two uint32 words (low, high) with the carry."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    lo_in, hi_in = _inputs(rng, 2, np.uint32, 0, 2**32 - 1)
    f = _func([np.uint32] * 2, [0, 0], r)
    lo, hi = _elems(f, 2)
    a, b = lo_in[r.x, r.y], hi_in[r.x, r.y]
    f[()] = (lo + a, hi + b + ph.select(lo + a < lo, ph.cast(np.uint32, 1), ph.cast(np.uint32, 0)))
    return f, r, True


def three_word_sum(rng):
    """A 96-bit sum in three uint32 words with the carries written out (the
    middle word's carry test covers a carry-in that wraps it exactly):
    proven as the sum of the concatenated words (tables/wide_words.py)."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    arrays = [rng.integers(0, 2**32 - 1, N[::-1]).astype(np.uint32) for _ in range(3)]
    for arr in arrays[:2]:               # carries that ripple: words near the top
        arr[::2] = np.uint32(2**32 - 1) - arr[::2] % 3
    ins = [ph.Buffer(arr, f"in{i}") for i, arr in enumerate(arrays)]
    f = _func([np.uint32] * 3, [0, 0, 0], r)
    w0, w1, w2 = _elems(f, 3)
    a, b, c = (i[r.x, r.y] for i in ins)
    one, zero = ph.cast(np.uint32, 1), ph.cast(np.uint32, 0)
    c0 = ph.select(w0 + a < w0, one, zero)
    t1 = w1 + b + c0
    c1 = ph.select((t1 < w1) | ((t1 == w1) & (c0 == one)), one, zero)
    f[()] = (w0 + a, t1, w2 + c + c1)
    return f, r, True


def triangular_product(rng):
    """Upper-triangular 2x2 matrices (p, q; 0, s)."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b, c = (i[r.x, r.y] for i in _inputs(rng, 3, np.int32))
    f = _func([np.int32] * 3, [1, 0, 1], r)
    p, q, s = _elems(f, 3)
    f[()] = (p * a, p * b + q * c, s * c)
    return f, r, False


def lexicographic_argmin(rng):
    """The first position of the least (key1, key2): a right identity only
    (not in CASES: rfactor needs a two-sided one where a slice can be empty)."""
    r = ph.RDom([(0, N[0]), (0, N[1])], "r")
    a, b = (i[r.x, r.y] for i in _inputs(rng, 2, np.int32, 0, 3))
    big = np.iinfo(np.int32).max
    f = _func([np.int32] * 3, [big, big, -1], r)
    k1, k2, i = _elems(f, 3)
    better = (a < k1) | ((a == k1) & (b < k2))
    f[()] = (ph.select(better, a, k1), ph.select(better, b, k2),
             ph.select(better, r.x + N[0] * r.y, i))
    return f, r, False


CASES = {
    "saturating_add_uint8": saturating_add(np.uint8),
    "saturating_add_uint16": saturating_add(np.uint16),
    "saturating_add_uint32": saturating_add(np.uint32),
    "saturating_add_carry_uint8": saturating_add(np.uint8, True),
    "saturating_add_carry_uint16": saturating_add(np.uint16, True),
    "saturating_add_carry_uint32": saturating_add(np.uint32, True),
    "matrix_product": matrix_product,
    "quaternion_product": quaternion_product,
    "shifted_product": shifted_product,
    "affine_composition": affine_composition,
    "two_word_sum": two_word_sum,
    "three_word_sum": three_word_sum,
    "guarded_affine_composition": guarded_affine_composition,
    "sum_and_shifted_product": sum_and_shifted_product,
    "triangular_product": triangular_product,
}
