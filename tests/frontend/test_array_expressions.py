"""Whole-array expressions: element-wise operators with NumPy broadcasting
and NEP 50 promotion, stored when named or returned, compared with plain
Python on the same inputs."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def chain(a, b):
    c = a * 2 + b
    d = (c - 1.5) * c
    return d


@ph.pipeline
def scalar_weak(a, k):
    return (a + 1) * k - a // 3


@ph.pipeline
def compare_neg(a, b):
    return -a < b


@ph.pipeline
def mixed_types(a, b):
    return a * b + 1


@ph.pipeline
def snapshot(a):
    b = a.copy()
    c = b + 1
    b[0] = 100
    return c, b


@ph.pipeline
def bits(a, b):
    return (a & b) ^ ~a | (a >> 1)


@ph.pipeline
def sum_of_named(a):
    t = a * a
    u = t + a
    s = 0
    for i in range(len(u)):
        s += u[i]
    return s


def test_chain_broadcast_rows():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    check(chain, a, np.linspace(0, 1, 4).astype(np.float32))
    check(chain, a, a)


def test_broadcast_size_one_axes_specialize():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    check(chain, a, np.ones((3, 1)))
    check(chain, a, np.ones((1, 4)))
    check(chain, np.ones((3, 1)), np.arange(4.0))


def test_broadcast_mismatch_raises_value_error():
    with pytest.raises(ValueError):
        chain(np.ones((3, 4)), np.ones(5))


@pytest.mark.parametrize("dt", [np.uint8, np.int16, np.int64, np.float32, np.float64])
def test_weak_python_scalars(dt):
    a = np.arange(20).astype(dt)
    check(scalar_weak, a, 3)
    check(scalar_weak, a, 2.5)


def test_comparison_and_negation():
    check(compare_neg, np.arange(6, dtype=np.int16), np.int16(-2))
    check(compare_neg, np.arange(6, dtype=np.int16), np.arange(6, dtype=np.int16) - 4)


@pytest.mark.parametrize("ta,tb", [(np.uint8, np.int8), (np.int32, np.float32),
                                   (np.uint16, np.float64), (np.bool_, np.uint8)])
def test_promotion(ta, tb):
    rng = np.random.default_rng(1)
    a = rng.integers(0, 100, 17).astype(ta)
    b = rng.integers(0, 50, 17).astype(tb)
    check(mixed_types, a, b)


def test_named_value_is_a_snapshot():
    check(snapshot, np.arange(5.0))


def test_bitwise_operators():
    rng = np.random.default_rng(2)
    check(bits, rng.integers(0, 255, 30).astype(np.uint8), rng.integers(0, 255, 30).astype(np.uint8))
    check(bits, rng.integers(-99, 99, 30).astype(np.int32), np.int32(7))


def test_named_values_read_by_loops():
    check(sum_of_named, np.arange(10, dtype=np.int64))
    check(sum_of_named, np.arange(10, dtype=np.float32))


def test_named_value_is_a_func():
    a = np.arange(6.0)
    sum_of_named(a)
    assert "t" in sum_of_named.funcs and "u" in sum_of_named.funcs


@ph.pipeline
def branch_values(a, flip):
    if flip:
        x = a * -1
    else:
        x = a + 10
    return x * 2


@ph.pipeline
def branch_then_write(a, n):
    if n > 2:
        x = a * 2
    else:
        x = a.copy()
    x[0] = 7
    return x, a


@ph.pipeline
def branch_aliases(a, b, c):
    u = a.copy()
    v = b.copy()
    if c:
        x = u
    else:
        x = v
    x[0] = 5
    return u, v


def test_array_bound_in_both_branches():
    for flip in (True, False):
        check(branch_values, np.arange(5.0), flip)
    for n in (1, 5):
        check(branch_then_write, np.arange(4), n)


def test_array_alias_bound_in_branches_is_refused():
    with pytest.raises(ph.CompileError, match="also known by another name"):
        branch_aliases(np.arange(3.0), np.arange(3.0), True)


@ph.pipeline
def returns_argument(a):
    return a


@ph.pipeline
def zero_d_arithmetic(a, b):
    return a * 2, a + b, b


def test_zero_dimensional_argument():
    z = np.array(6, np.uint32)
    got = check(returns_argument, z)
    assert isinstance(got, np.ndarray) and got.shape == ()
    check(zero_d_arithmetic, z, np.arange(3, dtype=np.uint8))
    check(zero_d_arithmetic, np.array(2.5), np.array(1.5))
    check(returns_argument, 7)
    check(returns_argument, np.float32(1.5))


@ph.pipeline
def sized_by_argument(a, n):
    b = np.zeros(n) + 0.5
    return a + b, b - a


def test_size_one_only_at_call_time_broadcasts():
    check(sized_by_argument, np.arange(3.0), 3)
    check(sized_by_argument, np.arange(3.0), 1)      # b stretches
    check(sized_by_argument, np.ones(1), 4)          # a's axis is 1 (specialized)
    check(sized_by_argument, np.arange(3.0), 2)      # ValueError as NumPy


@ph.pipeline
def laplacien(image):
    out = np.abs(4 * image[1:-1, 1:-1] - image[0:-2, 1:-1] - image[2:, 1:-1] -
                 image[1:-1, 0:-2] - image[1:-1, 2:])
    valmax = np.max(out)
    valmax = max(1., valmax) + 1.E-9
    out /= valmax
    return out


@ph.pipeline
def union_changes_dtype(a, b):
    s = max(1.0, b.max())
    return a * s


def test_scalar_whose_type_depends_on_data():
    rng = np.random.default_rng(3)
    check(laplacien, rng.random((9, 11)))
    check(laplacien, rng.random((9, 11)) * 0.01)
    with pytest.raises(ph.CompileError, match="dtype of this array would depend"):
        union_changes_dtype(np.ones(3, np.float32), np.ones(3))


@ph.pipeline
def gather_then_slice(a, idx):
    g = a[idx]
    return g[1:]


def test_named_array_with_checks_is_computed_whole():
    # NumPy checks every index of a[idx] although only g[1:] is returned
    a = np.arange(5.0)
    check(gather_then_slice, a, np.array([7, 1, 2]))
    check(gather_then_slice, a, np.array([0, 1, 2]))
