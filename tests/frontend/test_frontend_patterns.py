"""More loop patterns users write: images (integral image, dilation with
bounds tests), lookups, prefix maxima, flags instead of `break`, reversed and
strided loops, 0-d arrays, Python-int arithmetic done at call time."""

import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check

SEED = 4242


@ph.pipeline
def integral(a):
    H, W = a.shape
    s = np.zeros((H, W), np.int64)
    for y in range(H):
        for x in range(W):
            v = int(a[y, x])
            if y > 0:
                v += s[y - 1, x]
            if x > 0:
                v += s[y, x - 1]
            if y > 0 and x > 0:
                v -= s[y - 1, x - 1]
            s[y, x] = v
    return s


@ph.pipeline
def dilate(img):
    H, W = img.shape
    out = np.zeros_like(img)
    for y in range(H):
        for x in range(W):
            m = img[y, x]
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    yy = y + dy
                    xx = x + dx
                    if 0 <= yy < H and 0 <= xx < W:
                        m = max(m, img[yy, xx])
            out[y, x] = m
    return out


@ph.pipeline
def row_cumsum(a):
    H, W = a.shape
    out = np.zeros((H, W), np.int64)
    for y in range(H):
        acc = 0
        for x in range(W):
            acc += int(a[y, x])
            out[y, x] = acc
    return out


@ph.pipeline
def lookup(a, table):
    out = np.empty(len(a), table.dtype)
    for i in range(len(a)):
        out[i] = table[a[i]]
    return out


@ph.pipeline
def prefix_max(a):
    out = np.empty_like(a)
    m = a[0]
    for i in range(len(a)):
        if a[i] > m:
            m = a[i]
        out[i] = m
    return out


@ph.pipeline
def first_above(a, t):
    found = False
    idx = -1
    for i in range(len(a)):
        if not found and a[i] > t:
            found = True
            idx = i
    return found, idx


@ph.pipeline
def reverse_and_stride(a):
    out = np.zeros(len(a), a.dtype)
    for i in range(len(a) - 1, -1, -1):
        out[len(a) - 1 - i] = a[i]
    s = 0
    for i in range(1, len(a), 3):
        s += int(a[i])
    return out, s


@ph.pipeline
def zero_d(a):
    z = np.zeros(())
    for i in range(len(a)):
        z[()] += a[i]
    return z


@ph.pipeline
def python_ints(x, y):
    return x * y + 1, x // 3, -x % 7


@ph.pipeline
def welford(a):
    n = 0
    mean = 0.0
    m2 = 0.0
    for i in range(len(a)):
        n += 1
        d = a[i] - mean
        mean += d / n
        m2 += d * (a[i] - mean)
    return mean, (m2 / (n - 1) if n > 1 else 0.0)


def test_images():
    rng = np.random.default_rng(SEED)
    check(integral, rng.integers(0, 9, (5, 7)).astype(np.uint8))
    check(dilate, rng.integers(0, 255, (6, 7)).astype(np.uint8))
    check(row_cumsum, rng.integers(-9, 9, (3, 5)).astype(np.int8))


def test_lookups_and_running_values():
    rng = np.random.default_rng(SEED + 1)
    check(lookup, rng.integers(0, 10, 9).astype(np.uint8), rng.random(10))
    check(prefix_max, rng.integers(-50, 50, 17).astype(np.int16))
    a = rng.integers(0, 10, 20).astype(np.int32)
    check(first_above, a, 7)
    check(first_above, a, 100)


def test_loop_shapes_and_small_things():
    rng = np.random.default_rng(SEED + 2)
    check(reverse_and_stride, rng.integers(0, 99, 11).astype(np.int64))
    check(zero_d, np.arange(5.0))
    assert check(python_ints, 2 ** 40, 2 ** 30) == (2 ** 70 + 1, 2 ** 40 // 3, -(2 ** 40) % 7)
    check(welford, rng.standard_normal(30))
    check(welford, np.zeros(1))


@ph.pipeline
def last_positive(a):
    for i in range(len(a)):
        if a[i] > 0:
            last = i
    return last


def test_variable_assigned_only_in_a_loop():
    check(last_positive, np.array([1, -1, 2, -3]))
    check(last_positive, np.array([-1, -1]))          # UnboundLocalError, as in Python
