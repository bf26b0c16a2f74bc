"""A `while` (or a loop with `break`) inside a loop over elements leaves its
own loop when it stops (the lowered loop has an exit, tested at run time to
hold the element loop at one iteration): a huge bound costs nothing, and the
results equal plain Python's under the default and the automatic schedule."""
import numpy as np
import pytest

import pyhalide as ph


def per_element_while(a, n):
    out = np.empty_like(a)
    for k in range(a.shape[0]):
        x = a[k]
        i = 0
        while i < n and x < 100.0:
            x = x * 2.0
            i += 1
        out[k] = x
    return out


def per_pixel_break(img, maxiter):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            z = 0.0
            for it in range(maxiter):
                z = z * z + img[y, x]
                if abs(z) > 2.0:
                    out[y, x] = it
                    break
    return out


def per_pixel_count(img, maxiter):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            z = 0.0
            k = 0
            for it in range(maxiter):
                z = z * z + img[y, x]
                if abs(z) > 2.0:
                    break
                k += 1
            out[y, x] = k
    return out


def per_pixel_while(img, maxiter):
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.int64)
    for y in range(h):
        for x in range(w):
            z = 0j
            c = complex(img[y, x], 0.1)
            n = 0
            while abs(z) <= 2 and n < maxiter:
                z = z * z + c
                n += 1
            out[y, x] = n
    return out


A = np.linspace(-3.0, 60.0, 37)
IMG = np.linspace(-2.0, 0.4, 35).reshape(5, 7)


@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("n", [0, 1, 3, 10**9])
def test_per_element_while(schedule, n):
    a = A if n < 10**9 else np.abs(A) + 0.5          # every element reaches 100
    p = ph.pipeline(per_element_while, schedule=schedule)
    np.testing.assert_array_equal(p(a, n), per_element_while(a, n))
    if schedule is None:
        assert "exit loop" in p.lower("loops")


@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("maxiter", [0, 2, 50])
def test_per_pixel_break(schedule, maxiter):
    p = ph.pipeline(per_pixel_break, schedule=schedule)
    np.testing.assert_array_equal(p(IMG, maxiter), per_pixel_break(IMG, maxiter))


@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("fn", [per_pixel_count, per_pixel_while])
@pytest.mark.parametrize("maxiter", [0, 3, 50, 10**9])
def test_escape_time_leaves_its_loop(fn, schedule, maxiter):
    img = IMG if maxiter < 10**9 else IMG + 3.0       # every pixel escapes
    p = ph.pipeline(fn, schedule=schedule)
    np.testing.assert_array_equal(p(img, maxiter), fn(img, maxiter))
    if schedule is None:
        assert "exit loop" in p.lower("loops")
