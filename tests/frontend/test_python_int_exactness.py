"""Python ints beyond 2**53 (wrong results found in session 18; plain Python
and NumPy are the oracles, bit for bit):

- `int / int` is the exact quotient rounded once; converting both ints to
  float64 first rounds again: `(10**17 + 1) / 3` was one ulp off;
- `int < float` (and the other comparisons) compare values exactly in Python:
  `2**53 + 1 > 2.0**53` is True, it was False;
- NumPy converts a Python int to float32 through a double: storing or
  combining `2**60 + 2**36 + 1` with float32 values rounded once, to another
  float32."""
import math
import random

import numpy as np
import pytest

import pyhalide as ph

EDGES = [0, 1, -1, 3, 7, 2**53 - 1, 2**53, 2**53 + 1, -(2**53 + 1), 2**54 + 3,
         10**17 + 1, -(10**17 + 7), 2**62 + 12345, 2**63 - 1, -(2**63), 3 * 2**60 + 1]


def divide_all(nums, dens):
    out = np.zeros(nums.shape[0])
    for i in range(nums.shape[0]):
        out[i] = int(nums[i]) / int(dens[i])
    return out


def python_divisions(pairs):
    return np.array([n / d for n, d in pairs])


def pairs_with_seed(seed, count):
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        n = rng.choice([rng.randrange(-2**63, 2**63), rng.randrange(-2**56, 2**56),
                        rng.choice(EDGES), rng.randrange(-1000, 1000)])
        d = rng.choice([rng.randrange(-2**63, 2**63), rng.randrange(1, 2**55),
                        rng.choice(EDGES), rng.randrange(1, 1000)])
        pairs.append((n, d or 1))
    return pairs


@pytest.mark.parametrize("schedule", [None, "auto"])
def test_random_and_edge_quotients_equal_python_bit_for_bit(schedule):
    seed = 18
    print("seed", seed)
    pairs = [(n, d) for n in EDGES for d in EDGES if d] + pairs_with_seed(seed, 3000)
    nums = np.array([n for n, _ in pairs], dtype=np.int64)
    dens = np.array([d for _, d in pairs], dtype=np.int64)
    got = ph.pipeline(schedule=schedule)(divide_all)(nums, dens)
    want = python_divisions(pairs)
    bad = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
    assert bad.size == 0, [(pairs[i], got[i], want[i]) for i in bad[:5]]


def test_a_python_int_accumulation_divided_like_python():
    def f(n):
        s = 0.0
        for i in range(1, n):
            s += (10**17 + i) / 3
        return s
    assert ph.pipeline(f)(7) == f(7) == 2.0000000000000003e+17


def test_zero_quotients_keep_python_sign():
    def f(n, d):
        return n / d
    for n, d in [(0, -5), (0, -(2**60)), (0, 2**60), (-0, 7)]:
        got = ph.pipeline(f)(n, d)
        assert math.copysign(1.0, got) == math.copysign(1.0, f(n, d)), (n, d)


def test_division_by_zero_still_raises():
    def f(n, d):
        return (n + 2**60) / d
    with pytest.raises(ZeroDivisionError):
        ph.pipeline(f)(1, 0)


def test_small_ints_keep_the_plain_division():
    def f(n):
        s = 0.0
        for i in range(n):
            s += i / 7
        return s
    p = ph.pipeline(f)
    assert p(100) == f(100)
    assert "int_true_divide" not in p.lower()

    def g(n):
        return (n * 2**40) / 3
    q = ph.pipeline(g)
    assert q(10**6) == g(10**6)
    assert "int_true_divide" in q.lower()


INTS = [0, 1, -1, 2**24 + 1, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**62 + 1, 2**63 - 1,
        -(2**63), -(2**63) + 1, 10**17 + 1]
FLOATS = [0.0, -0.0, 0.5, -1.5, 2.0**53, 2.0**53 + 2, -(2.0**53), 2.0**63, -(2.0**63),
          9.2e18, -9.3e18, 1e300, float("inf"), float("-inf"), float("nan"), 1e17, 2.0**62]


def compare_all(ints, floats):
    out = np.zeros((ints.shape[0], floats.shape[0], 6), dtype=np.bool_)
    for i in range(ints.shape[0]):
        for j in range(floats.shape[0]):
            n = int(ints[i])
            x = float(floats[j])
            out[i, j, 0] = n < x
            out[i, j, 1] = n <= x
            out[i, j, 2] = x > n
            out[i, j, 3] = x >= n
            out[i, j, 4] = n == x
            out[i, j, 5] = x != n
    return out


def test_python_int_and_float_compare_exactly():
    ints = np.array(INTS, dtype=np.int64)
    floats = np.array(FLOATS)
    got = ph.pipeline(compare_all)(ints, floats)
    want = compare_all(ints, floats)
    bad = np.argwhere(got != want)
    assert bad.size == 0, [(INTS[i], FLOATS[j], k) for i, j, k in bad[:6]]


def test_a_numpy_float_compares_with_the_int_rounded_as_numpy_does():
    def f(x, n):
        return x < n, x[0] == n
    x = np.array([2.0**53, 1.0])
    got, want = ph.pipeline(f)(x, 2**53 + 1), f(x, 2**53 + 1)
    assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def float32_uses(x, n):
    y = x.copy()
    y[1] = n
    z = np.zeros(3, dtype=np.float32)
    for i in range(3):
        z[i] = n + i
    return y, z, np.full(2, n, dtype=np.float32), x * n, x * 2**60 < n


@pytest.mark.parametrize("n", [2**60 + 2**36 + 1, -(2**61 + 2**37 + 3), 2**24 + 1, 7])
def test_python_ints_reach_float32_through_a_double(n):
    x = np.ones(3, dtype=np.float32)
    got, want = ph.pipeline(float32_uses)(x, n), float32_uses(x, n)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w), (g, w)


def powers(base, count):
    out = []
    for k in range(count):
        out.append(base ** k)
    return out


def digit_sum(n):
    s = 0
    for k in range(19):
        s += (n // 10**k) % 10
    return s


def sum_of_powers(b, count):
    s = 0
    for k in range(count):
        s += b ** k
    return s


def test_python_int_powers_with_a_loop_exponent():
    p = ph.pipeline(sum_of_powers)
    for base in [0, 1, -1, 2, -3, 10, 7**10]:
        assert p(base, 2) == sum_of_powers(base, 2)
        if max(powers(base, 40), key=abs) >= 2**63:       # int64 policy: OverflowError
            with pytest.raises(OverflowError):
                p(base, 40)
        else:
            assert p(base, 40) == sum_of_powers(base, 40)


def test_a_digit_sum_with_powers_of_ten():
    p = ph.pipeline(digit_sum)
    for n in [0, 7, 1234567890123456789, 999999999999999999]:
        assert p(n) == digit_sum(n)
