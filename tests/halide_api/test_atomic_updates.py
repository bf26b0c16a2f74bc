"""Stage.atomic(): an integer update `f[args] = f[args] op e` run by a
parallel loop whose iterations write the same elements, one atomicrmw per
update, equals the serial result (the reference evaluator's and NumPy's);
float updates and other forms are refused."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _histogram(name, n, bins, op="+", t=ph.Int(32)):
    x = ph.Var("x")
    im, f = ph.Func(f"im_{name}"), ph.Func(f"f_{name}")
    im[x] = (x * x + 3 * x) % bins
    r = ph.RDom([(0, n)])
    f[x] = ph.cast(t, 0) if op != "min" else ph.cast(t, 1000)
    v = ph.cast(t, r % 7)
    if op == "+":
        f[ph.Expr(im[r])] += ph.cast(t, 1)
    elif op == "-":
        f[ph.Expr(im[r])] -= v
    elif op == "max":
        f[ph.Expr(im[r])] = ph.max(f[ph.Expr(im[r])], v * 3)
    elif op == "min":
        f[ph.Expr(im[r])] = ph.min(v + 2, f[ph.Expr(im[r])])
    else:
        f[ph.Expr(im[r])] = f[ph.Expr(im[r])] ^ v
    im.compute_root()
    return f, r


@pytest.mark.parametrize("op,t", [("+", ph.Int(32)), ("-", ph.Int(16)), ("max", ph.UInt(8)),
                                  ("min", ph.Int(64)), ("^", ph.UInt(32))])
def test_parallel_atomic_update_equals_serial(op, t):
    f, r = _histogram(f"atomic_{op}_{t.bits}", 20000, 5, op, t)
    f.compute_root().update().atomic().parallel(r)
    check(f, [5])


def test_histogram_counts():
    f, r = _histogram("atomic_counts", 100, 5)
    f.update().atomic().parallel(r)
    ref = np.zeros(5, np.int32)
    for i in range(100):
        ref[(i * i + 3 * i) % 5] += 1
    check(f, [5], [ref])


def test_refusals():
    x = ph.Var("x")
    r = ph.RDom([(0, 10)])
    g = ph.Func("g_atomic_float")
    g[x] = 0.0
    g[r % 3] += 1.0
    with pytest.raises(ph.CompileError, match="only integer updates are atomic"):
        g.update().atomic()
    h = ph.Func("h_atomic_mul")
    h[x] = 1
    h[r % 3] *= 2
    with pytest.raises(ph.CompileError, match="is not h_atomic_mul"):
        h.update().atomic()
    f, r2 = _histogram("atomic_vec", 64, 5)
    with pytest.raises(ph.CompileError, match="cannot vectorize"):
        f.update().atomic().vectorize(r2, 8)
    f2, r3 = _histogram("atomic_none", 64, 5)
    with pytest.raises(ph.CompileError, match="write the same location"):
        f2.update().parallel(r3)
