"""Negative-step slices of computed arrays (`np.tile(a, 2)[::-3]`,
`np.diag(m)[::-1]`, `np.convolve(a, k)[::-1]`): their read indices go
through a narrowing cast of the slice start, which interval arithmetic could
not bound, so the call raised a false IndexError ("input buffer a is read
over [-9, 2]") or was refused. Bounds inference now takes such a value as
exact where it cannot vary (session 14). Each result equals plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def reversed_tiles(a):
    return np.tile(a, 3)[::-1], np.tile(a, 2)[::-3], np.repeat(a, 3)[::-2]


@ph.pipeline
def reversed_diagonals(m):
    return np.diag(m)[::-1], np.diag(m)[1::-1], np.diag(m)[-1:0:-1], m.diagonal(1)[::-1]


@ph.pipeline
def reversed_convolution(a):
    return np.convolve(a, a[:3])[::-1]


@pytest.mark.parametrize("p,arg", [
    (reversed_tiles, np.arange(3.0)), (reversed_tiles, np.zeros(0)),
    (reversed_tiles, np.arange(7)),
    (reversed_diagonals, np.arange(12.0).reshape(3, 4)),
    (reversed_diagonals, np.arange(16.0).reshape(4, 4)),
    (reversed_convolution, np.arange(7.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_equals_python(p, arg):
    check(p, arg)
