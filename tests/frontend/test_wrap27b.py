"""trim_no_ops' bound of a user condition 2**31 apart (session 27, h3b).

trim_no_ops rearranged `r.x + a < b` into `r.x <= b - a - 1`, an int32
difference: with a and b (int32 Params) 2**31 or more apart it wrapped, so an
RDom.where kept none or every point where it should keep the other
(a = 7, b = -2**31 + 5: 55.0, exact 0.0). Plain Python is the oracle, on the
arguments where the user's own expression stays in int32 for every r (Halide
leaves an int32 overflow undefined).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyhalide as ph

I32 = (-2**31, 2**31 - 1)
VALS = [-2**31, -2**31 + 5, -3, 0, 7, 2**31 - 5, 2**31 - 1]
XS = np.arange(1.0, 11.0)

# (the predicate over r, a, b as an RDom.where; the same in Python; the
# user's intermediate value, which must stay in int32)
FORMS = {
    "r_plus_a_lt_b": (lambda r, a, b: r + a < b, lambda r, a, b: r + a),
    "b_minus_r_gt_a": (lambda r, a, b: b - r > a, lambda r, a, b: b - r),
    "a_minus_r_le_b": (lambda r, a, b: a - r <= b, lambda r, a, b: a - r),
}


def _pipeline(pred):
    x = ph.ImageParam(ph.Float(64), 1, "x")
    a, b = ph.Param(ph.Int(32), "a"), ph.Param(ph.Int(32), "b")
    r = ph.RDom([(0, x.dim(0).extent())])
    r.where(pred(r.x, a, b))
    t = ph.Func("t")
    t[()] = ph.cast(ph.Float(64), 0)
    t[()] += x[r.x]
    x.set(ph.Buffer(XS))
    return ph.Pipeline([t]), a, b


@pytest.mark.parametrize("form", sorted(FORMS))
def test_where_far_apart_equals_python(form):
    pred, inner = FORMS[form]
    p, a, b = _pipeline(pred)
    checked = 0
    for av, bv in itertools.product(VALS, VALS):
        if not all(I32[0] <= inner(r, av, bv) <= I32[1] for r in range(len(XS))):
            continue
        a.set(av)
        b.set(bv)
        want = sum(float(XS[r]) for r in range(len(XS)) if pred(r, av, bv))
        assert float(np.asarray(p.realize([]))) == want, (form, av, bv)
        checked += 1
    assert checked >= 30
