"""The argmin/argmax position key is 32-bit when the RDom provably has fewer
than 2^31 - 1 points (constant extents, or distinct dimensions of one input
buffer: the runtime refuses buffers of 2^31 elements or more), else 64-bit."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.rfactor_lex import linear_index


def _key_type_of(rdom) -> ir.Type:
    f = ph.Func("kw")
    f[()] = 0
    f[()] = f[()] + 1 + 0 * rdom.x
    rvars = f.function().updates[0].schedule.rvars
    return linear_index(rvars)[1]


def test_constant_extents():
    assert _key_type_of(ph.RDom([(0, 1000), (0, 1000)])) == ph.Int(32)
    assert _key_type_of(ph.RDom([(0, 65536), (0, 65536)])) == ph.Int(64)


def test_dimensions_of_one_image_param():
    a = ph.ImageParam(ph.Int(8), 3, "kw_a")
    r = ph.RDom([(0, a.dim(0).extent()), (0, a.dim(1).extent()), (0, a.dim(2).extent())])
    assert _key_type_of(r) == ph.Int(32)


def test_other_symbolic_extents_stay_64_bit():
    a = ph.ImageParam(ph.Int(8), 2, "kw_b")
    b = ph.ImageParam(ph.Int(8), 2, "kw_c")
    n = ph.Param(ph.Int(32), "kw_n", 5)
    assert _key_type_of(ph.RDom([(0, a.width()), (0, b.width())])) == ph.Int(64)
    assert _key_type_of(ph.RDom([(0, a.width()), (0, a.width())])) == ph.Int(64)
    assert _key_type_of(ph.RDom([(0, a.width()), (0, n)])) == ph.Int(64)
    assert _key_type_of(ph.RDom([(0, a.width()), (0, 2)])) == ph.Int(64)


def test_runtime_refuses_buffers_of_2_to_the_31_elements():
    huge = np.broadcast_to(np.zeros(1, np.int8), (2 ** 16, 2 ** 15))     # no memory
    a = ph.ImageParam(ph.Int(8), 2, "kw_huge")
    x = ph.Var("x")
    f = ph.Func("kw_f")
    f[x] = a[x, 0]
    a.set(ph.Buffer(huge))
    with pytest.raises(ValueError, match="32 bits"):
        f.realize([4])


def test_argmin_over_a_4d_image_param_is_exact():
    a = ph.ImageParam(ph.Int(8), 4, "kw_4d")
    r = ph.RDom([(0, a.dim(i).extent()) for i in range(4)], "r")
    f = ph.Func("kw_argmin")
    f[()] = (ph.Int(8).max(), 0, 0, 0, 0)
    better = a[r.x, r.y, r.z, r.w] < f[()][0]
    f[()] = (ph.select(better, a[r.x, r.y, r.z, r.w], f[()][0]),
             ph.select(better, r.x, f[()][1]), ph.select(better, r.y, f[()][2]),
             ph.select(better, r.z, f[()][3]), ph.select(better, r.w, f[()][4]))
    u = ph.Var("u")
    intm = f.update().rfactor(r.w, u)
    intm.compute_root().update().parallel(u)
    data = np.random.default_rng(3).integers(-128, 128, (5, 6, 7, 9), dtype=np.int8)
    data[1, 2, 3, 4] = data[3, 0, 0, 0] = -128
    a.set(ph.Buffer(data))
    got = [int(np.asarray(b)[()]) for b in f.realize([])]
    w, z, y, x = np.unravel_index(np.argmin(data), data.shape)
    assert got == [-128, x, y, z, w]
