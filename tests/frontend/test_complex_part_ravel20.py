"""z.real.ravel() / z.imag.ravel() of a complex array is a copy in NumPy
(the part's strides are twice a C array's: not C-contiguous) except of one
element (then a view, as here); it was always taken as a view, so writes
into it changed z (and the caller's argument)."""
import numpy as np
import pytest

import pyhalide as ph


def write_real_ravel(a):
    r = a.real.ravel()
    r[0] = 5.0
    return a, r


def write_local_imag_ravel(a):
    z = a * 2
    r = z.imag.ravel()
    r[1:] = -1.0
    return z, r.sum()


def read_ravel(a):
    return a.real.ravel()[::2].sum() + a.imag.ravel()[-1]


def data(shape, rng):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize("f", [write_real_ravel, write_local_imag_ravel, read_ravel])
def test_part_ravel_is_a_copy_as_numpy(f):
    rng = np.random.default_rng(4)
    g = ph.pipeline(f)
    for shape in [(2, 3), (5, 7), (4,)]:
        for dt in (np.complex128, np.complex64):
            a = data(shape, rng).astype(dt)
            mine, theirs = a.copy(), a.copy()
            got, want = g(mine), f(theirs)
            assert np.array_equal(mine, theirs)         # the argument as NumPy left it
            for x, y in zip(got if isinstance(got, tuple) else (got,),
                            want if isinstance(want, tuple) else (want,)):
                assert np.asarray(x).dtype == np.asarray(y).dtype
                assert np.asarray(x).tobytes() == np.asarray(y).tobytes()


def test_part_ravel_of_one_element_is_a_view_as_numpy():
    # a size-1 axis is a constant of the compiled specialization: decided exactly
    g = ph.pipeline(write_real_ravel)
    for a in (np.array([1 + 2j]), np.array([[3 - 1j]], dtype=np.complex64)):
        mine, theirs = a.copy(), a.copy()
        got, want = g(mine), write_real_ravel(theirs)
        assert np.array_equal(mine, theirs) and mine[(0,) * a.ndim] == 5 + a.flat[0].imag * 1j
        assert got[0].tobytes() == want[0].tobytes() and got[1].tobytes() == want[1].tobytes()
