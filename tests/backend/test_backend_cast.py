"""Casts between every pair of types: NumPy semantics, except that
float -> int saturates and NaN -> 0."""
import math

import numpy as np
import pytest

from pyhalide import ir
from tests.backend.backend_util import elementwise, special_values

TYPES = list(ir.ALL_SCALAR_TYPES)


def cast_ref(src: ir.Type, dst: ir.Type, v):
    """The value of casting Python value v of type src to dst."""
    if dst.is_bool():
        return bool(v != 0) or (isinstance(v, float) and math.isnan(v))
    if src.is_bool():
        v = int(v)
    if dst.is_float():
        return np.array([v], dst.to_numpy())[0] if not src.is_float() else \
            np.array([v], src.to_numpy()).astype(dst.to_numpy())[0]
    if src.is_float():
        if math.isnan(v):
            return 0
        if v == math.inf:
            return dst.max_value()
        if v == -math.inf:
            return dst.min_value()
        return max(dst.min_value(), min(dst.max_value(), math.trunc(v)))
    return dst.wrap(int(v))


def source_values(t: ir.Type):
    vals = special_values(t)
    if t.is_float():
        vals += [2.0**31, -2.0**31, 2.0**31 - 1, -2.0**31 - 1, 2.0**63, -2.0**63, 2.0**64,
                 255.5, 256.0, -128.5, -129.0, 65535.9, 0.999, -0.999, 4294967295.0,
                 4294967296.0, 1e20, 3.4e38]
    return vals


@pytest.mark.parametrize("lanes", [1, 8])
@pytest.mark.parametrize("src", TYPES, ids=str)
def test_casts_from(src, lanes):
    vals = source_values(src)
    vals += [vals[0]] * (-len(vals) % lanes)
    with np.errstate(all="ignore"):
        a = np.array(vals, src.to_numpy())
    outs = {f"o{i}": ((lambda x, dst=dst: ir.Cast(dst.with_lanes(x.type.lanes), x)),
                      dst.to_numpy()) for i, dst in enumerate(TYPES)}
    res = elementwise(outs, {"a": a}, lanes=lanes)
    stored = [v.item() for v in a]          # the value after rounding to src
    for i, dst in enumerate(TYPES):
        with np.errstate(all="ignore"):
            want = np.array([cast_ref(src, dst, v) for v in stored], dst.to_numpy())
        got = res[f"o{i}"]
        if dst.is_float():
            ok = (got == want) | (np.isnan(got) & np.isnan(want))
            assert ok.all(), (src, dst, a[~ok], got[~ok], want[~ok])
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{src} -> {dst}")


def test_saturation_examples():
    a = np.array([np.nan, np.inf, -np.inf, 1e10, -1e10, 300.7, -300.7, -0.5], np.float32)
    res = elementwise({"i8": (lambda x: ir.Cast(ir.Int(8), x), np.int8),
                       "u8": (lambda x: ir.Cast(ir.UInt(8), x), np.uint8),
                       "i64": (lambda x: ir.Cast(ir.Int(64), x), np.int64),
                       "u64": (lambda x: ir.Cast(ir.UInt(64), x), np.uint64)}, {"a": a})
    assert res["i8"].tolist() == [0, 127, -128, 127, -128, 127, -128, 0]
    assert res["u8"].tolist() == [0, 255, 0, 255, 0, 255, 0, 0]
    assert res["i64"].tolist() == [0, 2**63 - 1, -2**63, 10**10, -10**10, 300, -300, 0]
    assert res["u64"].tolist() == [0, 2**64 - 1, 0, 10**10, 0, 300, 0, 0]
