"""Histogram loops shared by the histogram tests, and the comparison of a
call that writes its last argument with plain Python (the values, or the
exception type and the writes Python made before it)."""
import numpy as np
import pytest


def hist_loop(data, hist):
    for v in data:
        hist[v] += 1
    return hist


def weighted_loop(x, w, hist):
    k = hist.shape[0]
    for i in range(x.shape[0]):
        hist[int(x[i] * k)] += w[i]
    return hist


def compare_with_python(p, make_out, *args):
    want_out, got_out = make_out(), make_out()
    try:
        want = p.py_func(*args, want_out)
    except Exception as e:
        with pytest.raises(type(e)):
            p(*args, got_out)
        assert np.array_equal(got_out, want_out)     # Python's writes before the error
        return
    got = p(*args, got_out)
    assert got is got_out and np.array_equal(got, want) and got.dtype == want.dtype
