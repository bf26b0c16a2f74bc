"""Bad input raises the error API.md names, with a message that says what and
where (counts agree in number; realize() sizes must be integers); never a
crash."""
import numpy as np
import pytest

import pyhalide as ph


def _gather_pipeline():
    ip = ph.ImageParam(ph.UInt(8), 1, "src")
    x = ph.Var("x")
    f = ph.Func("shift")
    f[x] = ip[x + 2]
    return ip, f


def test_wrong_dtype_is_type_error():
    ip, f = _gather_pipeline()
    ip.set(np.zeros(20, dtype=np.int16))
    with pytest.raises(TypeError, match="src"):
        f.realize([10])


def test_wrong_dimensions_is_value_error():
    ip, f = _gather_pipeline()
    ip.set(np.zeros((4, 5), dtype=np.uint8))
    with pytest.raises(ValueError, match="src"):
        f.realize([2])


def test_too_small_input_is_value_error_before_running():
    ip, f = _gather_pipeline()
    ip.set(np.zeros(11, dtype=np.uint8))
    with pytest.raises(ValueError, match=r"src is read over \[2, 11\]"):
        f.realize([10])
    ip.set(np.zeros(12, dtype=np.uint8))
    assert np.asarray(f.realize([10])).shape == (10,)


def test_histogram_out_of_range_is_index_error():
    v = np.array([1, 2, 300, 4], dtype=np.uint16)
    V = ph.Buffer(v, "v16")
    x = ph.Var("x")
    r = ph.RDom([(0, 4)])
    h = ph.Func("h16")
    h[x] = 0
    h[ph.cast(ph.Int(32), V[r.x])] += 1
    with pytest.raises(IndexError, match=r"h16 is written at index 300"):
        h.realize([256])
    assert np.asarray(h.realize([301]))[300] == 1


def test_gather_out_of_range_is_index_error():
    lut = ph.Buffer(np.arange(10, dtype=np.int32), "lut")
    idx = ph.Buffer(np.array([0, 3, 12], dtype=np.int32), "idx")
    x = ph.Var("x")
    f = ph.Func("gather")
    f[x] = lut[idx[x]]
    with pytest.raises(IndexError, match="lut is read at index 12"):
        f.realize([3])
    np.testing.assert_array_equal(np.asarray(f.realize([2])), [0, 3])


def test_unset_param_and_bad_param_value():
    p = ph.Param(ph.UInt(8), "gain")
    x = ph.Var("x")
    f = ph.Func("gain_f")
    f[x] = ph.cast(ph.UInt(8), x) * p
    with pytest.raises(ValueError, match="gain"):
        f.realize([4])
    with pytest.raises(TypeError):
        p.set(300)


def test_compile_errors_name_the_func_and_line():
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("bad")
    with pytest.raises(ph.CompileError, match="undefined variable y"):
        f[x] = y
    g = ph.Func("needs_pure")
    r = ph.RDom([(0, 3)])
    with pytest.raises(ph.CompileError, match="pure definition") as info:
        g[r.x] = 1
    assert "test_core_errors.py" in str(info.value)
    h = ph.Func("typed")
    h[x] = ph.cast(ph.UInt(8), x)
    with pytest.raises(ph.CompileError, match="cast it"):
        h[x] = h[x] + ph.cast(ph.Int(32), x)
    with pytest.raises(ph.CompileError, match="has 0 update definitions"):
        h.update(3)
    u = ph.Func("undefined")
    with pytest.raises(ph.CompileError, match="not defined"):
        u.realize([3])


def test_wrong_number_of_realize_sizes():
    x = ph.Var("x")
    f = ph.Func("one_d")
    f[x] = x
    with pytest.raises(ValueError, match="has 1 dimension but"):
        f.realize([2, 3])


def test_one_dimension_is_singular():
    x = ph.Var("x")
    f = ph.Func("one_dim")
    f[x] = x
    with pytest.raises(ValueError, match=r"has 1 dimension but realize\(\) was given 2 sizes"):
        f.realize([2, 3])
    b = ph.Buffer(np.zeros(3, np.int32), "b1")
    with pytest.raises(IndexError, match="Buffer b1 has 1 dimension$"):
        b[0, 0]


@pytest.mark.parametrize("sizes", [[8.7], 8.7, [np.float64(8.0)], [4, 2.5]])
def test_realize_refuses_non_integer_sizes(sizes):
    x = ph.Var("x")
    f = ph.Func("nonint")
    f[x] = x
    with pytest.raises(TypeError, match=r"realize\(\) sizes must be integers, not "):
        f.realize(sizes)
    np.testing.assert_array_equal(np.asarray(f.realize([np.int64(3)])), [0, 1, 2])
