"""float16 Buffers (Halide's buffer test): held and converted to and from
NumPy without copies; pyhalide computes nothing in float16, so reading one in
a Func or realizing into one raises NotImplementedError naming float16."""
import numpy as np
import pytest

import pyhalide as hl


def test_float16_buffer_round_trip_shares_memory():
    a = np.zeros((8, 6, 3), dtype=np.float16, order="F")
    b = hl.Buffer(a)
    assert np.shares_memory(np.array(b, copy=False), a)
    b[2, 5, 7] = 0.333
    assert a[7, 5, 2] == np.float16(0.333)
    assert b[2, 5, 7] == np.float16(0.333)
    assert np.array(b, copy=True).dtype == np.float16


def test_float16_buffer_is_refused_in_pipelines():
    b = hl.Buffer(np.ones(4, np.float16))
    x = hl.Var("x")
    f = hl.Func("f")
    with pytest.raises(NotImplementedError, match="float16"):
        f[x] = b[x] * 2
    g = hl.Func("g")
    g[x] = hl.f32(x)
    with pytest.raises(NotImplementedError, match="float16"):
        g.realize(hl.Buffer(np.zeros(4, np.float16)))
    # the float32 copy works, and equals NumPy
    h = hl.Func("h")
    c = hl.Buffer(np.asarray(b).astype(np.float32))
    h[x] = c[x] * 2
    np.testing.assert_array_equal(np.asarray(h.realize([4])), np.full(4, 2, np.float32))
