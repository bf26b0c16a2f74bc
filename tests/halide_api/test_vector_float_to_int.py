"""Vectorized float -> int casts (codegen_ops._float_to_int_vector) give the
saturating results of the scalar conversion: truncation, values past the
type's range clamp to its min/max, NaN -> 0; every lane count, every integer
type, float32 and float64 sources, values at and next to each bound."""
import math

import numpy as np
import pytest

import pyhalide as hl

INT_TYPES = [hl.Int(8), hl.Int(16), hl.Int(32), hl.Int(64),
             hl.UInt(8), hl.UInt(16), hl.UInt(32), hl.UInt(64)]


def _values(ft):
    vals = [math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5]
    for bits in (8, 16, 32, 64):
        for edge in (2.0 ** (bits - 1), -2.0 ** (bits - 1), 2.0 ** bits):
            e = ft(edge)
            vals += [float(e), float(np.nextafter(e, ft(0))), float(np.nextafter(e, ft(np.inf))),
                     float(np.nextafter(e, ft(-np.inf)))]
    vals += [255.9, -128.9, 65535.5, 1e30, -1e30]
    a = np.array(vals, ft)
    return np.concatenate([a, np.zeros(-len(a) % 16, ft)])


def _reference(vals, dtype):
    info = np.iinfo(dtype)
    out = []
    for v in vals.tolist():
        if math.isnan(v):
            out.append(0)
        elif math.isinf(v):
            out.append(info.max if v > 0 else info.min)
        else:
            out.append(max(info.min, min(info.max, math.trunc(v))))
    return np.array(out, dtype=object).astype(dtype)


@pytest.mark.parametrize("lanes", [1, 8, 16])
@pytest.mark.parametrize("ft", [np.float32, np.float64], ids=["f32", "f64"])
def test_vector_cast_saturates_like_scalar(ft, lanes):
    vals = _values(ft)
    src = hl.Buffer(vals)
    x = hl.Var("x")
    funcs = []
    for t in INT_TYPES:
        f = hl.Func(f"to_{t}")
        f[x] = hl.cast(t, src[x])
        if lanes > 1:
            f.vectorize(x, lanes)
        funcs.append(f)
    outs = hl.Pipeline(funcs).realize([len(vals)])
    for t, out in zip(INT_TYPES, outs):
        got = np.asarray(out)
        want = _reference(vals, got.dtype)
        bad = np.nonzero(got != want)[0]
        assert not len(bad), (t, ft, lanes, [(vals[i], got[i], want[i]) for i in bad[:4]])
