"""Vector loads at a constant stride of +-2..4 are dense loads of vectors of
the lanes' width over the span the lanes cover (the last one moved back to
end at the span's last element, never past it) and one shuffle: LLVM made a
31-float load into loads of 16, 8, 4, 2 and 1 floats plus inserts (the
downsampling stages of Halide's interpolate app); now two loads and one
vpermt2ps. Results equal NumPy, reading up to the input's last element."""
import numpy as np
import pytest

import pyhalide as ph

TYPES = {"f32": (ph.Float(32), np.float32), "u16": (ph.UInt(16), np.uint16),
         "f64": (ph.Float(64), np.float64), "i8": (ph.Int(8), np.int8)}


@pytest.mark.parametrize("stride", [2, 3, 4, -2, -3, -4])
@pytest.mark.parametrize("lanes,tname", [(8, "u16"), (16, "f32"), (4, "f64"), (32, "i8")])
def test_strided_vector_load_equals_numpy(stride, lanes, tname):
    t, dt = TYPES[tname]
    n = 3 * lanes + 5                       # a whole-vector loop and a tail
    span = abs(stride) * (n - 1) + 1
    x = ph.Var("x")
    img = ph.ImageParam(t, 1, f"img_stride{stride}_{lanes}_{tname}".replace("-", "m"))
    f = ph.Func(f"f_stride{stride}_{lanes}_{tname}".replace("-", "m"))
    start = 0 if stride > 0 else span - 1
    f[x] = img[start + stride * x] + img[start + stride * x]
    f.vectorize(x, lanes)
    a = (np.arange(span) * 7 % 101).astype(dt)
    img.set(ph.Buffer(a))
    got = np.asarray(f.realize([n]))
    picked = a[start + stride * np.arange(n)]
    np.testing.assert_array_equal(got, (picked + picked).astype(dt))
