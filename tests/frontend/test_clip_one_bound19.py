"""`a.clip(lo)`, `a.clip(max=hi)` and `np.clip(a, max=hi)`: a bound not given
is None, as NumPy's method and keywords take it (was refused: "np.clip takes
3 argument(s), got 2")."""
import numpy as np
import pytest

import pyhalide as ph


def clip_low(a):
    return a.clip(0.3)


def clip_high_keyword(a):
    return a.clip(max=0.5)


def np_clip_high_keyword(a):
    return np.clip(a, max=0.5)


def clip_low_keyword(a):
    return a.clip(min=0.2)


@pytest.mark.parametrize("kernel", [clip_low, clip_high_keyword, np_clip_high_keyword,
                                    clip_low_keyword])
def test_clip_with_one_bound_as_numpy(kernel):
    for a in (np.arange(7.0) / 6, (np.arange(12, dtype=np.float32) / 11).reshape(3, 4)):
        want = kernel(a)
        got = ph.pipeline(kernel)(a)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(got, want)
