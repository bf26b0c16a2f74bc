"""Default-schedule sums over several axes, with keepdims, of integers and of
3-D arrays (issue 16's spot checks): NumPy's values, dtypes and shapes bit
for bit (whole-array sums and sums over merged trailing axes read a chunk
as one vector where the last axis is a multiple of 8, else lane by lane:
both cases here); and the 3-D row sums' accumulators computed per row, with no loop
over the outer kept axis around them (its loop of unknown extent kept them
out of registers: 1.8x NumPy's time, session 18)."""
import re

import numpy as np
import pytest

import pyhalide as ph


def s_ax02(a):
    return a.sum(axis=(0, 2))


def s_ax1_keep(a):
    return a.sum(axis=1, keepdims=True)


def s_ax0(a):
    return a.sum(axis=0)


def s_last(a):
    return a.sum(axis=-1)


def s_ax12(a):
    return a.sum(axis=(1, 2))


def s_all(a):
    return a.sum()


def np_sum_keep(a):
    return np.sum(a, axis=(0, 2), keepdims=True)


def mean_ax02(a):
    return a.mean(axis=(0, 2))


def _arrays():
    rng = np.random.default_rng(7)
    return {
        "f64": rng.standard_normal((6, 19, 37)),
        "f64_F": np.asfortranarray(rng.standard_normal((5, 9, 140))),
        "f64_8": rng.standard_normal((5, 6, 40)),           # last axis a multiple of 8
        "f64_2d8": rng.standard_normal((33, 64)),
        "f64_wide": rng.standard_normal((3, 2, 1000)),      # rows of several leaves
        "f32": rng.standard_normal((3, 11, 300)).astype(np.float32),
        "u8": rng.integers(0, 256, (7, 13, 29), dtype=np.uint8),
        "i32": rng.integers(-1000, 1000, (4, 17, 9), dtype=np.int32),
        "empty_mid": np.zeros((3, 0, 5)),
    }


ARRAYS = _arrays()


CASES = [(s_ax02, "f64"), (s_ax02, "f64_F"), (s_ax02, "u8"), (s_ax02, "empty_mid"),
         (s_ax1_keep, "f64"), (s_ax1_keep, "i32"), (s_ax0, "f64_F"), (s_ax0, "u8"),
         (s_last, "f64"), (s_last, "f32"), (s_last, "empty_mid"), (s_ax12, "f64"),
         (s_ax12, "i32"), (s_all, "f64"), (s_all, "f32"), (s_all, "f64_8"),
         (s_all, "f64_2d8"), (s_all, "f64_wide"), (s_all, "f64_F"), (s_ax12, "f64_8"),
         (s_ax12, "f64_wide"), (np_sum_keep, "f64_F"),
         (np_sum_keep, "u8"), (mean_ax02, "f64"), (mean_ax02, "i32")]


@pytest.mark.parametrize("fn,key", CASES, ids=[f"{f.__name__}-{k}" for f, k in CASES])
def test_sums_equal_numpy(fn, key):
    a = ARRAYS[key]
    got, want = ph.pipeline(fn)(a), fn(a)
    got = np.asarray(got)
    assert got.dtype == want.dtype and got.shape == np.shape(want)
    assert got.tobytes() == np.asarray(want).tobytes()


def test_uint8_sums_are_uint64_without_wrapping():
    a = np.full((4, 300, 3), 255, dtype=np.uint8)
    got = ph.pipeline(s_ax02)(a)
    assert got.dtype == np.uint64 and (got == 255 * 12).all()


def test_row_sums_of_3d_keep_no_loop_of_the_outer_axis_around_their_lanes():
    text = ph.pipeline(s_last).lower(stage="loops",
                                     arg_specs=[("a", np.dtype(np.float64), (16, 32, 128))])
    lanes = [ln.strip() for ln in text.splitlines() if re.search(r"for \(sum\S*_lanes\S*\.s1\.", ln)]
    assert lanes, text[:2000]
    outer = [ln for ln in lanes if re.search(r"_lanes\S*\.s1\.i0,", ln)]
    assert all(ln.endswith(", 1) {") for ln in outer), outer     # one index: no loop
