"""Complex scalars carried by loops (frontend_ast/complex_loops.py):
escape-time loops (`z = z*z + c` while `abs(z) < 2`), complex accumulators
(`s += a[i] * b[i]`), running values, break, conditional updates, type
changes (Python complex -> complex128), compared with plain Python bit for
bit (types included)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError
from tests.frontend.test_complex import check

RNG = np.random.default_rng(17)


def crandom(n, dtype=np.complex128):
    return (RNG.standard_normal(n) + 1j * RNG.standard_normal(n)).astype(dtype)


@ph.pipeline
def escape_point(c: complex, maxiter: int):
    z = 0j
    i = 0
    while i < maxiter and abs(z) < 2:
        z = z * z + c
        i += 1
    return i, z


@pytest.mark.parametrize("c", [0.3 + 0.5j, -0.75 + 0.1j, 1 + 1j, 0j, -2 + 0j, 0.25 - 0.0j])
def test_escape_time_point_python_complex(c):
    check(escape_point, c, 60)


@ph.pipeline
def escape_image(cs, maxiter: int):
    h, w = cs.shape
    counts = np.zeros((h, w), dtype=np.int64)
    last = np.zeros((h, w), dtype=np.complex128)
    for y in range(h):
        for x in range(w):
            c = cs[y, x]
            z = 0j
            n = 0
            while n < maxiter and abs(z) < 2.0:
                z = z * z + c
                n += 1
            counts[y, x] = n
            last[y, x] = z
    return counts, last


def test_escape_time_image_complex128_elements():
    """z starts as a Python complex and becomes complex128 in the loop."""
    ys, xs = np.mgrid[-1.2:1.2:9j, -2:0.6:11j]
    check(escape_image, xs + 1j * ys, 40)


@ph.pipeline
def escape_break(c, maxiter: int):
    z = np.complex64(0)
    k = maxiter
    for i in range(maxiter):
        z = z * z + c
        if z.real * z.real + z.imag * z.imag > 4:
            k = i
            break
    return k, z


@pytest.mark.parametrize("c", [0.3 + 0.5j, 0.5 + 0.5j, -1 + 0.2j])
def test_escape_with_break_complex64(c):
    check(escape_break, np.complex64(c), 50)


@ph.pipeline
def dot_conj(a, b):
    s = 0j
    for i in range(a.shape[0]):
        s += a[i] * np.conj(b[i])
    return s


@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_accumulator(n, dtype):
    """s stays a Python complex when the loop does not run, else takes the
    arrays' type (as in Python)."""
    check(dot_conj, crandom(n, dtype), crandom(n, dtype))


@ph.pipeline
def masked_sum_2d(a):
    s = np.complex128(0)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if abs(a[i, j]) > 1.0:
                s = s + a[i, j] / (1 + 1j)
    return s


def test_conditional_update_over_a_nest():
    check(masked_sum_2d, crandom(24).reshape(4, 6))


@ph.pipeline
def running_product(a):
    out = np.zeros(a.shape[0], dtype=a.dtype)
    p = a[0] * 0 + 1
    for i in range(a.shape[0]):
        p = p * a[i]
        out[i] = p
    return out, p


def test_running_value_read_in_the_loop():
    check(running_product, crandom(9) * 0.9)


@ph.pipeline
def rotate(z, w, n: int):
    for _ in range(n):
        z = z * w
    return z


def test_weak_complex_stays_python_complex():
    check(rotate, 1 + 0j, complex(np.cos(0.1), np.sin(0.1)), 25)
    check(rotate, 1 + 0j, complex(np.cos(0.1), np.sin(0.1)), 0)


@ph.pipeline
def real_start(c, n: int):
    z = 0.0
    for _ in range(n):
        z = z * z + c
    return z


@ph.pipeline
def becomes_real(a):
    z = 0j
    for i in range(a.shape[0]):
        z = abs(z + a[i])
    return z


@ph.pipeline
def first_assigned_in_loop(a):
    for i in range(a.shape[0]):
        z = a[i] * 2
    return z


@pytest.mark.parametrize("fn, args, text", [
    (real_start, (0.5j, 3), "not complex before this loop"),
    (first_assigned_in_loop, (crandom(3),), "not complex before this loop"),
    (becomes_real, (crandom(3),), "complex before this loop"),
])
def test_type_changes_between_real_and_complex_are_located_errors(fn, args, text):
    with pytest.raises(CompileError, match=text) as e:
        fn(*args)
    assert "test_complex_loops.py" in str(e.value)
