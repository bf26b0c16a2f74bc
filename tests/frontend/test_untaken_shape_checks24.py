"""Call-time shape checks of a statement in a loop are made only where the
loop runs in this call, as in Python: a mask, a slice assignment or an
in-place operand or a broadcast operand of the wrong shape in `for n in range(k)` with k = 0 raises
nothing (the result is the array as it was), and the same error as Python
with k >= 1. Each kernel compiles once (a module-level pipeline)."""
import numpy as np
import pytest

from pyhalide import pipeline


def _masked(a0, m, k):
    a = a0.copy()
    for n in range(k):
        a[m] = a[m] + 1.0
    return a


def _sliced(a0, b, k):
    a = a0.copy()
    for n in range(k):
        a[:] = b
    return a


def _gathered(a0, idx, k):
    a = a0.copy()
    for n in range(k):
        a[:] = a0[idx]
    return a


def _nested(a0, m, k):
    a = a0.copy()
    for i in range(2):
        for n in range(k):
            a[m] = a[m] * 2.0 + 1.0
    return a


def _added(a0, b, k):
    a = a0.copy()
    for n in range(k):
        a[:] = a + b
    return a


def _augmented(a0, b, k):
    a = a0.copy()
    for n in range(k):
        a += b
    return a


_KERNELS = {f: pipeline(f) for f in (_masked, _nested, _sliced, _gathered, _added, _augmented)}


def _outcome(f, *args):
    try:
        return f(*args)
    except (IndexError, ValueError) as e:
        return type(e)


CASES = [
    (_masked, np.zeros((3, 4)), np.ones((3, 5), bool)),
    (_masked, np.zeros((3, 4)), np.ones((2, 3), bool)),      # smaller: nothing read at k = 0
    (_nested, np.zeros((3, 4)), np.ones((3, 5), bool)),
    (_sliced, np.zeros((3, 4)), np.ones((3, 5))),
    (_gathered, np.zeros(4), np.array([0, 1, 2])),
    (_gathered, np.zeros(4), np.array([0, 9, 1, 2])),        # an index out of range
    (_added, np.zeros((3, 4)), np.ones((3, 5))),
    (_augmented, np.zeros((3, 4)), np.ones((3, 5))),
]


@pytest.mark.parametrize("f,a0,b", CASES, ids=lambda x: getattr(x, "__name__", ""))
def test_wrong_shape_in_loop_checked_only_when_it_runs(f, a0, b):
    for k in (0, 1, 2):
        want, got = _outcome(f, a0, b, k), _outcome(_KERNELS[f], a0, b, k)
        if isinstance(want, type):
            assert got is want, (k, got)
        else:
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("f", [_masked, _nested], ids=lambda f: f.__name__)
def test_mask_message_kept_when_the_loop_runs(f):
    # (_nested runs in phase mode, carried_phases.py: its inner loop counts too)
    a0, m = np.zeros((3, 4)), np.ones((3, 5), bool)
    with pytest.raises(IndexError, match="boolean index did not match indexed array along "
                                         "axis 1; size of axis is 4 but size of corresponding "
                                         "boolean axis is 5"):
        _KERNELS[f](a0, m, 1)


def test_right_shapes_still_computed():
    rng = np.random.default_rng(0)
    a0, m = rng.random((3, 4)), rng.random((3, 4)) > 0.5
    for k in (0, 3):
        np.testing.assert_array_equal(_KERNELS[_masked](a0, m, k), _masked(a0, m, k))
        np.testing.assert_array_equal(_KERNELS[_nested](a0, m, k), _nested(a0, m, k))
        np.testing.assert_array_equal(_KERNELS[_sliced](a0, a0[0], k), _sliced(a0, a0[0], k))
        np.testing.assert_array_equal(_KERNELS[_added](a0, a0[:1], k), _added(a0, a0[:1], k))
        np.testing.assert_array_equal(_KERNELS[_augmented](a0, a0[:, :1], k),
                                      _augmented(a0, a0[:, :1], k))
    idx = np.array([3, 0, 2, 1])
    np.testing.assert_array_equal(_KERNELS[_gathered](a0[0], idx, 2), _gathered(a0[0], idx, 2))
