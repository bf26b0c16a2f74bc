"""A write whose value or index reduces the array it writes: `a[a.argmax()]
= 0`, `a -= a.mean()`, `a[mask] = a.min()`. NumPy evaluates the right side
and the index before it writes, so the reduction sees the array as it was.
These were refused with "the Funcs call each other in a cycle" (the write's
update read the reduction, which read the array being updated); the write
now goes to a new version of the array. Each case compares the result and
the arguments after the call with plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace

RNG = np.random.default_rng(11)
VEC = RNG.random(10)
MAT = RNG.random((4, 5))


@ph.pipeline
def replace_argmax(z):
    z[z.argmax()] = 0
    return z


@ph.pipeline
def argmax_of_argmin(z):
    z[np.argmin(z[::-1])] = np.sum(z)
    return z


@ph.pipeline
def fill_with_sum(z):
    z[:] = z.sum()
    return z


@ph.pipeline
def slice_gets_max(z):
    z[1:3] = z.max()
    return z


@ph.pipeline
def element_gets_mean(z):
    z[0] = z.mean()
    return z


@ph.pipeline
def local_swap_extremes(z):
    w = z * 2
    w[w.argmin()] = w.max()
    return w


@ph.pipeline
def shifted_times_sum(z):
    w = z + 1
    w[1:] = w[:-1] * w.sum()
    return w


@ph.pipeline
def mask_gets_min(z):
    z[z > z.mean()] = z.min()
    return z


@ph.pipeline
def add_own_sum(z):
    z += z.sum()
    return z


@ph.pipeline
def center_a_slice(z):
    z[2:5] -= z[2:5].mean()
    return z


@ph.pipeline
def augmented_at_argmax(z):
    z[z.argmax()] += z[z.argmin()]
    return z


@ph.pipeline
def marks_after_marks(z):
    w = np.zeros(10)
    w[z.argmax()] = 1
    w[w.argmax() + 1] = 2
    return w


@ph.pipeline
def center_columns(m):
    m -= m.mean(axis=0)
    return m


@ph.pipeline
def column_of_row_sums(m):
    m[:, 0] = m.sum(axis=1)
    return m


@ph.pipeline
def scale_then_zero_row(m):
    m /= m.max()
    m[m.argmin() // 5, :] = 0
    return m


@ph.pipeline
def complex_first_is_sum(z):
    z[0] = z.sum()
    return z


@ph.pipeline
def after_a_shifting_loop(z):
    for i in range(3):
        z[i] = z[i + 1]
    z[9] = z.mean()
    return z


@pytest.mark.parametrize("p,arg", [
    (replace_argmax, VEC), (argmax_of_argmin, np.arange(10)), (fill_with_sum, VEC),
    (slice_gets_max, VEC), (element_gets_mean, VEC), (local_swap_extremes, VEC),
    (shifted_times_sum, VEC), (mask_gets_min, VEC), (add_own_sum, VEC),
    (center_a_slice, VEC), (augmented_at_argmax, np.arange(10)),
    (marks_after_marks, VEC), (center_columns, MAT), (column_of_row_sums, MAT),
    (scale_then_zero_row, MAT), (complex_first_is_sum, VEC * (1 + 2j)),
    (after_a_shifting_loop, np.arange(10.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_write_reads_a_reduction_of_its_array(p, arg):
    check_inplace(p, arg)


@ph.pipeline
def argmax_written_in_a_loop(z):
    for i in range(3):
        z[i] = z.sum()
    return z


def test_reduction_of_the_array_a_loop_writes_is_refused_with_its_line():
    with pytest.raises(ph.CompileError) as e:
        argmax_written_in_a_loop(np.arange(10.0))
    assert "cycle" not in str(e.value) and "z" in str(e.value)
    assert f"{__file__}:" in str(e.value)
