"""Row-extent specialization (lowering/specialize_rows.py): a loop nest whose
innermost loop chooses between values (an argmin over rows) and runs to an
input's extent gets a copy for the extent seen at the first compile, under a
test of that extent; every other extent runs the general copy. Results are
compared with the same function run by plain Python; the kernel cache keeps
one kernel per first extent."""
import numpy as np

import pyhalide as ph
from pyhalide.ir.config import override
from tests.backend.backend_util import forget_compiled
from tests.backend.row_kernels import argmin2d


def squares(a):
    total = 0
    for i in range(a.shape[0]):
        row = 0
        for j in range(a.shape[1]):
            row += a[i, j] * a[i, j]
        total += row
    return total


def _same(got, a):
    """got equals plain Python's result: NaN as NaN, -0.0 as -0.0, the
    value of a's dtype."""
    want = argmin2d(a)
    pairs = [(float(g), float(w)) for g, w in zip(got, want)]
    return len(got) == len(want) and np.asarray(got[0]).dtype == a.dtype and all(
        (np.isnan(g) and np.isnan(w)) or (g == w and np.signbit(g) == np.signbit(w))
        for g, w in pairs)


def _data(shape, dtype=np.int32, seed=0, lo=-50, hi=50):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)


def test_the_first_extent_is_specialized_and_every_extent_is_right(capsys):
    p = ph.pipeline(argmin2d, schedule="serial")
    a = _data((9, 128))
    with override(debug=1):
        assert _same(p(a), a)
    assert "specialize rows: the nest of" in capsys.readouterr().err
    assert "(a.extent.0 == 128)" in p.last_specialization.pipeline().lower("final")
    # the same kernel on other extents (the general copy), ties (the first
    # occurrence wins), the minimum in the last row and column
    for k, shape in enumerate([(9, 128), (5, 37), (3, 6), (4, 2), (7, 200), (2, 8), (6, 127)]):
        a = _data(shape, seed=k, lo=-3, hi=3)
        assert _same(p(a), a), shape
        a[-1, -1] = -100
        assert _same(p(a), a), shape
    b = _data((3, 128))[:, ::-1]                      # a view with a negative stride
    assert _same(p(b), b)


def test_floats_with_nan_and_signed_zeros():
    p = ph.pipeline(argmin2d, schedule="serial")
    a = np.random.default_rng(3).standard_normal((5, 64))
    a[0, 0] = np.nan                 # best starts at NaN: nothing is smaller
    assert _same(p(a), a)
    a[0, 0] = 0.0
    a[2, 5] = np.nan
    a[1, 3] = -np.inf
    assert _same(p(a), a)
    z = np.zeros((4, 64))
    z[2, 7] = -0.0
    assert _same(p(z), z)


def test_a_loop_without_a_choice_is_left_alone(capsys):
    p = ph.pipeline(squares, schedule="serial")
    a = _data((9, 128))
    with override(debug=1):
        assert p(a) == squares(a)
    assert "specialize rows: the nest" not in capsys.readouterr().err


def test_each_first_extent_gets_its_own_cached_kernel(tmp_path, capsys):
    """A kernel specialized on 128 is found again for 128, and for an extent
    not worth a copy (5000: longer than MAX_EXTENT); a first call with 6
    compiles (and stores) its own."""
    a128, a6, a10 = _data((4, 128)), _data((4, 6), seed=1), _data((2, 5000), seed=2)
    with override(cache_dir=str(tmp_path), debug=1):
        for a, compiled, size in [(a128, True, 128), (a128, False, 128), (a6, True, 6),
                                  (a6, False, 6), (a10, False, None)]:
            forget_compiled()
            capsys.readouterr()
            assert _same(ph.pipeline(argmin2d, schedule="serial")(a), a)
            err = capsys.readouterr().err
            assert ("specialize rows: the nest" in err) == compiled, (a.shape, err)
            if compiled:
                assert f"a.extent.0 == {size}" in err
            else:
                assert "kernel cache hit" in err
