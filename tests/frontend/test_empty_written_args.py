"""Empty array arguments the function writes: NumPy gives a (0, 3) array
strides (0, 0), which the check for several elements at one location
(a stride of 0) refused with a false ValueError (session 15; an empty array
has no element to write twice: frontend_ast/arg_writes.py)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import same


@ph.pipeline
def scaled_in_place(b):
    b[:] = b * 3
    return b


@ph.pipeline
def scaled_then_summed(b):
    b *= 3
    return b.sum()


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 3)])
def test_empty_written_argument_is_not_refused(shape):
    b = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
    mine, theirs = b.copy(), b.copy()
    got, want = scaled_in_place(mine), scaled_in_place.py_func(theirs)
    assert got is mine and want is theirs       # the argument itself is returned
    assert same(mine, theirs)


def test_stride_zero_written_argument_is_still_refused():
    b = np.broadcast_to(np.arange(3.0), (2, 3)).copy()
    b = np.lib.stride_tricks.as_strided(b, (2, 3), (0, 8))
    with pytest.raises(ValueError, match="one location in memory"):
        scaled_in_place(b)


# a written empty argument read again by a sum: the sum's tail reads under an
# RDom predicate that holds nowhere (session 17; was a false IndexError)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (5,), (2, 9)])
def test_empty_written_argument_summed(shape):
    b = np.zeros(shape)
    assert same(scaled_then_summed(b), scaled_then_summed.py_func(b.copy()))
