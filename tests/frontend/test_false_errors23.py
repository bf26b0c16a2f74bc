"""False errors from loop bounds (session 23): compiled calls that raised
where plain Python runs. Every case is compared with plain Python, on inputs
where Python returns and where it raises (the exception type stays
Python's)."""
import numpy as np
import pytest

from pyhalide import pipeline


def _outcome(f, *args):
    try:
        return f(*args)
    except Exception as e:  # noqa: BLE001 - the type is compared
        return type(e)


def _same(kernel, f, *args):
    want = _outcome(f, *args)
    got = _outcome(kernel, *args)
    if isinstance(want, type):
        assert got is want
    else:
        assert not isinstance(got, type), got
        np.testing.assert_array_equal(got, want)


# -- an input read at a cancelling index (bounds_inference: cancelling_bounds) --
def cancelling(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[0]):
            s += a[j - i + i] * (i + 1)
    return s


def cancelling_past_the_end(a):
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(a.shape[0]):
            s += a[j - i + i + 1] * (i + 1)
    return s


def split_inner(a):
    # merged into one loop read at `i + (x - max(0, i))`: i cancels
    s = 0.0
    for i in range(a.shape[0]):
        for j in range(i):
            s += a[j]
        for j in range(i, a.shape[0]):
            s += 2 * a[j]
    return s


_CANCELLING = pipeline(cancelling)
_CANCELLING_PAST = pipeline(cancelling_past_the_end)
_SPLIT_INNER = pipeline(split_inner)


@pytest.mark.parametrize("n", [4, 1, 0])
def test_cancelling_index_reads_only_its_values(n):
    a = np.arange(n, dtype=np.float64) + 0.5
    _same(_CANCELLING, cancelling, a)
    # one past the end: IndexError as in Python (none for n = 0)
    _same(_CANCELLING_PAST, cancelling_past_the_end, a)


@pytest.mark.parametrize("n", [5, 1, 0])
def test_second_inner_loop_on_the_same_variable(n):
    _same(_SPLIT_INNER, split_inner, np.arange(n, dtype=np.float64) * 1.5)
