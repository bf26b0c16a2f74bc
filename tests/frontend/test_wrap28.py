"""trim_no_ops' bounds over loop variables and one Param (session 28, h2).

trim_no_ops rearranged an RDom.where over the enclosing loop's variable
into an int32 bound that wrapped where the user's own expression did not:
`r.x + r.y < b` at b = -2**31 became `r.x <= b - r.y - 1`, so every point
ran (225.0, Python 0.0); `r.x > b - r.y` at b = 2**31 - 1 became `r.x >=
b - r.y + 1` (-2**31 at r.y = 0: the process crashed). `r.x < b` at b =
-2**31 raised a located OverflowError (bounds inference's b - 1) where the
sum is empty. Plain Python is the oracle, on the arguments where the
user's expression stays in int32 for every point (Halide leaves an int32
overflow undefined). docs/wrap28.md.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyhalide as ph

I32 = (-2**31, 2**31 - 1)
VALS = [-2**31, -2**31 + 5, -3, 0, 7, 2**31 - 5, 2**31 - 1]
XS = np.arange(1.0, 6.0)
N = len(XS)

# (the predicate over r.x, r.y, a, b; the user's intermediate values, which
# must stay in int32)
FORMS = {
    "x_plus_y_lt_b": (lambda x, y, a, b: x + y < b, lambda x, y, a, b: [x + y]),
    "x_gt_b_minus_y": (lambda x, y, a, b: x > b - y, lambda x, y, a, b: [b - y]),
    "x_plus_a_lt_b_plus_y": (lambda x, y, a, b: x + a < b + y,
                             lambda x, y, a, b: [x + a, b + y]),
    "x_lt_b": (lambda x, y, a, b: x < b, lambda x, y, a, b: []),
}


def _pipeline(pred):
    x = ph.ImageParam(ph.Float(64), 1, "x")
    a, b = ph.Param(ph.Int(32), "a"), ph.Param(ph.Int(32), "b")
    r = ph.RDom([(0, x.dim(0).extent()), (0, x.dim(0).extent())])
    r.where(pred(r.x, r.y, a, b))
    t = ph.Func("t")
    t[()] = ph.cast(ph.Float(64), 0)
    t[()] += x[r.x] * (r.y + 1)
    x.set(ph.Buffer(XS))
    return ph.Pipeline([t]), a, b


@pytest.mark.parametrize("form", sorted(FORMS))
def test_where_over_loop_variables_equals_python(form):
    pred, inner = FORMS[form]
    p, a, b = _pipeline(pred)
    checked = 0
    avals = VALS if form == "x_plus_a_lt_b_plus_y" else [0]     # (the forms without a)
    for av, bv in itertools.product(avals, VALS):
        if not all(I32[0] <= v <= I32[1] for x in range(N) for y in range(N)
                   for v in inner(x, y, av, bv)):
            continue
        a.set(av)
        b.set(bv)
        want = sum(float(XS[x]) * (y + 1) for y in range(N) for x in range(N)
                   if pred(x, y, av, bv))
        assert float(np.asarray(p.realize([]))) == want, (form, av, bv)
        checked += 1
    assert checked >= 6
