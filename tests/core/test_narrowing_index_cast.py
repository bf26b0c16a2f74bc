"""An index that narrows an int64 value to int32 is unbounded to bounds
inference (it may wrap), unless the value is fixed where it is read (a
Param: the cast is its own point, as in Halide). Such a read of an intermediate used to count as
"bounded by construction": it got neither a region nor a run-time check, and
read outside the intermediate's allocation (a silent wrong result from the
frontend's slice arithmetic on Python-int bounds). It is checked now: an
IndexError where it leaves the computed region, NumPy's result where the
frontend can state the bounds."""
import numpy as np
import pytest

import pyhalide as ph


def _shifted(offset: int, fixed: bool = False):
    x = ph.Var("x")
    p = ph.Param(ph.Int(64), "p", offset)
    f = ph.Func("f")
    f[x] = x * 2
    f.compute_root()
    g = ph.Func("g")
    if fixed:       # int32(p) is its own point (as Halide's): it bounds the region
        g[x] = f[x] + f[ph.cast(ph.Int(32), p) + x]
    else:
        g[x] = f[x] + f[ph.cast(ph.Int(32), ph.cast(ph.Int(64), x) + p)]
    return g


def test_narrowed_read_outside_the_region_raises():
    with pytest.raises(IndexError, match=r"Func f(\$\d+)? is read at index 10 in dimension 0"):
        _shifted(10).realize([4])


def test_narrowed_read_inside_the_region_is_exact():
    out = np.asarray(_shifted(0).realize([4]))
    np.testing.assert_array_equal(out, 4 * np.arange(4))


@pytest.mark.parametrize("offset", [0, 10, -7, 2**32 + 3])
def test_narrowed_point_bounds_the_region(offset):
    out = np.asarray(_shifted(offset, fixed=True).realize([4]))
    shift = np.int64(offset).astype(np.int32)        # the cast wraps, as Halide's
    np.testing.assert_array_equal(out, 2 * np.arange(4) + 2 * (np.arange(4) + shift))


def _slices_by_python_int(a, k):
    d = a[1:] - a[:k]
    e = d * d
    return e[1:] + e[:-1]


def _slices_by_shape(img):
    m, n = img.shape
    dx = (img[1:, :] - img[:m - 1, :])[:, 1:]
    dy = (img[:, 1:] - img[:, :n - 1])[1:, :]
    tr = dx * dx + dy * dy
    return tr * tr


@pytest.mark.parametrize("k", [6, -1, 3])
def test_slice_stop_from_a_python_int(k):
    a = np.arange(7.0) ** 2
    f = ph.pipeline(_slices_by_python_int)
    if k == 3:          # shapes (6,) and (3,) do not broadcast
        with pytest.raises(ValueError):
            _slices_by_python_int(a, k)
        with pytest.raises(ValueError):
            f(a, k)
        return
    np.testing.assert_array_equal(f(a, k), _slices_by_python_int(a, k))


@pytest.mark.parametrize("shape", [(6, 4), (2, 2), (5, 9)])
def test_slice_stop_from_the_shape(shape):
    img = np.random.default_rng(0).standard_normal(shape)
    np.testing.assert_array_equal(ph.pipeline(_slices_by_shape)(img), _slices_by_shape(img))
