"""The access errors of an input with a min (Buffer.set_min) name the
Buffer's own coordinates: a Buffer of extent 3 with min 1 covers [1, 3]
(before: the kernel's shifted [0, 2], and the read range shifted too)."""
import numpy as np
import pytest

import pyhalide as hl
from pyhalide.shifted_inputs import unshifted_message


def _buffer(values, mins):
    b = hl.Buffer(np.asarray(values, dtype=np.int32))
    b.set_min(mins)
    return b


def test_read_over_range_in_the_buffers_coordinates():
    x = hl.Var("x")
    b = _buffer([10, 20, 30], [1])
    f = hl.Func("f")
    f[x] = b[x]
    with pytest.raises(ValueError, match=r"read over \[0, 4\] in dimension 0, "
                                         r"but it covers only \[1, 3\]"):
        f.realize([5])
    # inside the Buffer's domain the values are its own
    g = hl.Func("g")
    g[x] = b[x + 1]
    np.testing.assert_array_equal(g.realize([3]), [10, 20, 30])


def test_image_param_second_dimension_and_an_unshifted_input():
    x, y = hl.Var("x"), hl.Var("y")
    im = hl.ImageParam(hl.Int(32), 2, "im")
    im.set(_buffer(np.zeros((4, 5)), [0, -2]))      # x in [0, 4], y in [-2, 1]
    plain = hl.Buffer(np.zeros((4, 5), np.int32))   # x in [0, 4], y in [0, 3]
    f = hl.Func("f")
    f[x, y] = im[x, y] + plain[x, y]
    with pytest.raises(ValueError, match=r"input buffer im is read over \[0, 3\] in dimension "
                                         r"1, but it covers only \[-2, 1\]"):
        f.realize([5, 4])


def test_data_dependent_read_in_the_buffers_coordinates():
    x = hl.Var("x")
    b = _buffer([10, 20, 30], [1])
    idx = hl.Buffer(np.array([1, 2, 3, 7, 1], dtype=np.int32))
    f = hl.Func("f")
    f[x] = b[idx[x]]
    with pytest.raises(IndexError, match=r"read at index 7 in dimension 0, "
                                         r"outside its extent \[1, 3\]"):
        f.realize([5])
    np.testing.assert_array_equal(f.realize([3]), [10, 20, 30])


def test_unshifted_message_leaves_other_inputs_and_text():
    text = ("input buffer a is read over [-1, 3] in dimension 1, but it covers only [0, 2] "
            "(read by Func f at x.py:3)")
    assert unshifted_message(text, {"a": [0, 5]}) == (
        "input buffer a is read over [4, 8] in dimension 1, but it covers only [5, 7] "
        "(read by Func f at x.py:3)")
    assert unshifted_message(text, {"b": [5, 5]}) == text
    assert unshifted_message("something else", {"a": [1]}) == "something else"
