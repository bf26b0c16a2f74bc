"""Issue 20's held-out kinds written as @pipeline loops, the way users write
them, rfactored by a hand schedule (chunks of 16 points, merged in order)
and compared with the plain Python loop: select-form saturating adds,
products of 2x2, quaternion and triangular matrices, `{x0 + y0, x0 + y1}`
(a one-sided identity), a shifted product, a 3-word carry chain
(tables/wide_words.py) and a lexicographic argmin over two keys."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.test_guarded_updates import _chunks

N = 301


def sat_add_u8(a):
    s = np.uint8(0)
    for i in range(a.shape[0]):
        if s > 255 - a[i]:
            s = np.uint8(255)
        else:
            s = s + a[i]
    return s


def sat_add_u16_carry_test(a):
    s = np.uint16(0)
    for i in range(a.shape[0]):
        t = s + a[i]
        if t < s:
            t = np.uint16(65535)
        s = t
    return s


def sat_add_u32(a):
    s = np.uint32(0)
    for i in range(a.shape[0]):
        s = np.uint32(4294967295) if s > np.uint32(4294967295) - a[i] else s + a[i]
    return s


def matrix_product(a, b, c, d):
    p, q, r, s = np.int32(1), np.int32(0), np.int32(0), np.int32(1)
    for i in range(a.shape[0]):
        p, q, r, s = (p * a[i] + q * c[i], p * b[i] + q * d[i],
                      r * a[i] + s * c[i], r * b[i] + s * d[i])
    return p, q, r, s


def quaternion_product(a, b, c, d):
    w, x, y, z = np.int32(1), np.int32(0), np.int32(0), np.int32(0)
    for i in range(a.shape[0]):
        w, x, y, z = (w * a[i] - x * b[i] - y * c[i] - z * d[i],
                      w * b[i] + x * a[i] + y * d[i] - z * c[i],
                      w * c[i] - x * d[i] + y * a[i] + z * b[i],
                      w * d[i] + x * c[i] - y * b[i] + z * a[i])
    return w, x, y, z


def triangular_product(a, b, c, d):
    p, q, s = np.int32(1), np.int32(0), np.int32(1)
    for i in range(a.shape[0]):
        p, q, s = p * a[i], p * b[i] + q * c[i], s * c[i]
    return p, q, s


def one_sided(a, b, c, d):
    s0, s1 = np.int32(0), np.int32(0)
    for i in range(a.shape[0]):
        s0, s1 = s0 + a[i], s0 + b[i]
    return s0, s1


def shifted_product(a, b, c, d):
    p = np.int32(-1)
    for i in range(a.shape[0]):
        p = p * a[i] + 2 * p + 2 * a[i] + 2
    return p


def three_word_sum(a, b, c):
    w0, w1, w2 = np.uint32(0), np.uint32(0), np.uint32(0)
    for i in range(a.shape[0]):
        t0 = w0 + a[i]
        c0 = np.uint32(1) if t0 < w0 else np.uint32(0)
        t1 = w1 + b[i] + c0
        c1 = np.uint32(1) if (t1 < w1 or (t1 == w1 and c0 == 1)) else np.uint32(0)
        w0, w1, w2 = t0, t1, w2 + c[i] + c1
    return w0, w1, w2


def lexicographic_argmin(a, b):
    k1, k2, idx = np.int32(2**31 - 1), np.int32(2**31 - 1), -1
    for i in range(a.shape[0]):
        ai, bi = a[i], b[i]
        if ai < k1 or (ai == k1 and bi < k2):
            k1, k2, idx = ai, bi, i
    return k1, k2, idx


def _u(dtype, rng):
    top = np.iinfo(dtype).max
    a = rng.integers(0, top, N, dtype=np.uint64, endpoint=True).astype(dtype)
    a[::3] = top - a[::3] % 4               # sums that overflow and carries that ripple
    return (a,)


def _small(rng, k=4):
    return tuple(rng.integers(-3, 4, N).astype(np.int32) for _ in range(k))


CASES = {
    sat_add_u8: ("s", lambda rng: (rng.integers(0, 8, N).astype(np.uint8),)),
    sat_add_u16_carry_test: ("s", lambda rng: _u(np.uint16, rng)),
    sat_add_u32: ("s", lambda rng: _u(np.uint32, rng)),
    matrix_product: ("p_q_r_s", _small),
    quaternion_product: ("w_x_y_z", _small),
    triangular_product: ("p_q_s", _small),
    one_sided: ("s0_s1", _small),
    shifted_product: ("p", _small),
    three_word_sum: ("w0_w1_w2", lambda rng: sum((_u(np.uint32, rng) for _ in range(3)), ())),
    lexicographic_argmin: ("k1_k2_idx", lambda rng: _small(rng, 2)),
}


def _same(want, got):
    if isinstance(want, tuple):
        return len(want) == len(got) and all(_same(w, g) for w, g in zip(want, got))
    return int(want) == int(got)


@pytest.mark.parametrize("fn", list(CASES), ids=lambda f: f.__name__)
def test_heldout_loop_rfactored_equals_python(fn):
    name, make = CASES[fn]
    p = ph.pipeline(fn, schedule=_chunks(name))
    for seed in range(2):
        args = make(np.random.default_rng(seed))
        with np.errstate(over="ignore"):
            want = fn(*args)
        got = p(*args)                  # the schedule's rfactor raises if not proven
        assert _same(want, got), (fn.__name__, seed, want, got)
