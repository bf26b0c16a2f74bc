"""`a /= s` (any in-place operation over a whole local array) after another
statement read `a`: the new version of `a` is the value itself, not a copy of
the old version overwritten at every point (two passes over the array, one
now); results equal plain Python."""
import numpy as np
import pytest

import pyhalide as ph


def _normalize(x):
    a = x * 2.0
    m = a.max()
    a /= m
    a -= a.mean()
    return a


def _laplace_scaled(image):
    out = np.abs(4 * image[1:-1, 1:-1] - image[:-2, 1:-1] - image[2:, 1:-1]
                 - image[1:-1, :-2] - image[1:-1, 2:])
    valmax = max(1.0, np.max(out)) + 1e-9
    out /= valmax
    return out


def _partial_then_whole(x):
    a = x + 1.0
    s = a.sum()
    a[0] = -1.0                  # an element write: the copy is not fresh any more
    a *= s
    return a


def _self_reading(x):
    a = x * 1.0
    t = a.sum()
    a[:] = a[::-1] + t           # reads the array it writes (reversed)
    return a


def _int_inplace(x):
    a = x.astype(np.int64)
    m = a.max()
    a //= (m + 1)
    a += 3
    return a


@pytest.mark.parametrize("fn", [_normalize, _laplace_scaled, _partial_then_whole,
                                _self_reading, _int_inplace], ids=lambda f: f.__name__)
def test_whole_inplace_updates_equal_python(fn):
    rng = np.random.default_rng(7)
    p = ph.pipeline(fn)
    for shape in [(5, 6), (3, 4), (33, 17)]:
        x = rng.standard_normal(shape) * 10
        expected = fn(x.copy())
        got = p(x.copy())
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_the_copy_is_not_made():
    p = ph.pipeline(_normalize)
    p(np.ones((4, 4)))
    final = p.funcs["a"].function()
    assert not final.updates                 # a pure definition: one pass
    assert all(not f.function().updates for name, f in p.funcs.items()
               if name.startswith("a"))
