"""float32 -> int32 vector casts through x86's cvttps2dq (lowering/codegen_cvt.py):
saturating, NaN -> 0, exactly as the scalar llvm.fptosi.sat, at every lane
count the module may use (4, 8, 16 lanes and pieces of them; 12 lanes take
the portable form). Compared with plain Python (cast_ref)."""
import numpy as np
import pytest

from pyhalide import ir
from tests.backend.backend_util import elementwise
from tests.backend.test_backend_cast import cast_ref, source_values

F32, I32 = ir.Float(32), ir.Int(32)


def _values():
    rng = np.random.default_rng(7)
    vals = list(source_values(F32))
    vals += [2.0**31 - 128, -2.0**31 + 128, 2147483520.0, -2147483648.0, 2.0**31 + 256,
             -0.0, 1.5, -1.5, 2.5, -2.5, 1e-45, -1e-45]
    vals += list(rng.normal(0, 1e9, 64)) + list(rng.uniform(-300, 300, 64))
    return vals


@pytest.mark.parametrize("lanes", [4, 8, 12, 16, 32, 64])
def test_float32_to_int32_lanes(lanes):
    vals = _values()
    vals += [vals[3]] * (-len(vals) % lanes)
    with np.errstate(all="ignore"):
        a = np.array(vals, np.float32)
    res = elementwise({"o": (lambda x: ir.Cast(I32.with_lanes(x.type.lanes), x), np.int32)},
                      {"a": a}, lanes=lanes)
    want = np.array([cast_ref(F32, I32, v.item()) for v in a], np.int32)
    bad = res["o"] != want
    assert not bad.any(), (a[bad], res["o"][bad], want[bad])


def test_clamped_lut_index():
    """The form local Laplacian uses: clamp(int32(f * 256), 0, hi) of vectors,
    with NaN, infinities and huge values among the f."""
    f = np.array([0.5, np.nan, np.inf, -np.inf, 3e9, -3e9, 7.99, 1.0] * 4, np.float32)

    def lut(x):
        t = x.type
        i = ir.Cast(I32.with_lanes(t.lanes), ir.Mul(x, ir.const(t, 256.0)))
        return ir.Max(ir.Min(i, ir.const(i.type, 1792)), ir.const(i.type, 0))
    res = elementwise({"o": (lut, np.int32)}, {"f": f}, lanes=8)
    want = [max(0, min(1792, cast_ref(F32, I32, float(np.float32(v) * np.float32(256)))))
            for v in f]
    assert res["o"].tolist() == want
