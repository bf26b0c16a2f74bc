"""lowering/clamp_chains.collapse_clamps (the input-bounds requirements'
read hulls, bounds_inference.image_requirements): the same value as the
expression it rewrites for every input, and the requirements built with it
still raise for every input read out of bounds, with the interval of the
reads (compared with plain Python and NumPy)."""
import itertools

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.clamp_chains import collapse_clamps
from tests.core.jitcheck import check
from tests.frontend.test_broadcast_unswitch21 import check_gray_scott, eval_expr
from tests.frontend.test_broadcast_unswitch21 import gray_scott as gray_scott_pipeline

_N, _M = ir.Variable(ir.INDEX, "n"), ir.Variable(ir.INDEX, "m")
_X = ir.Variable(ir.INDEX, "x")


def _c(v):
    return ir.index(v)


def _length(n):
    """len(a[1:-1]) of a length-n axis, as the frontend writes it."""
    return ir.Max(ir.Sub(ir.Max(ir.Sub(n, _c(1)), _c(0)), ir.Min(n, _c(1))), _c(0))


def _bcast(a, b):
    return ir.Select(ir.EQ(a, _c(1)), b, a)


def _clamp(e, n):
    return ir.Max(ir.Min(e, ir.Sub(n, _c(1))), _c(0))


def _chains():
    """Broadcast extents and nested clamps as the reads of gray_scott nest
    them, and the forms each rewrite matches in both operand orders."""
    lu, lv = _length(_N), _length(_M)
    b = _bcast(lu, lv)
    bb = _bcast(b, lv)
    bbb = _bcast(lu, bb)
    chain = _clamp(_clamp(_clamp(_X, ir.Select(ir.EQ(bbb, _c(1)), lu, bbb)), bbb), lu)
    return [
        ir.Add(chain, ir.Min(_N, _c(1))),
        ir.Max(ir.Add(_clamp(_clamp(_X, bb), lv), ir.Min(_M, _c(2))), chain),
        ir.Max(_c(-3), ir.Min(ir.Sub(_N, _c(2)), ir.Max(_X, _c(-3)))),
        ir.Select(ir.EQ(bb, _c(1)), lu, bb),
        ir.Select(ir.EQ(_N, _c(2)), ir.Select(ir.EQ(_N, _c(2)), _X, _M), _c(7)),
        ir.Select(ir.EQ(_N, _c(2)), _c(7), ir.Select(ir.EQ(_N, _c(2)), _X, _M)),
        ir.Select(ir.EQ(_M, _c(1)), _N, _bcast(_N, _M)),        # not rewritten: m == 1
    ]


@pytest.mark.parametrize("k", range(len(_chains())))
def test_collapse_clamps_keeps_every_value(k):
    e = _chains()[k]
    out = collapse_clamps(e)
    values = [-5, -1, 0, 1, 2, 3, 4, 7, 2 ** 31 - 1, -2 ** 31]
    for n, m, x in itertools.product(values, values, values):
        env = {"n": n, "m": m, "x": x}
        assert eval_expr(out, env) == eval_expr(e, env), (ir.expr_to_str(e), env)


def test_collapse_clamps_shrinks_the_broadcast_chain():
    e = _chains()[0]
    out = collapse_clamps(e)
    assert len(ir.expr_to_str(out)) < len(ir.expr_to_str(e)) // 2, ir.expr_to_str(out)


def _stencil(w):
    """A gray_scott-like Func over ImageParams: the centre and four
    neighbours of u and v through clamps by broadcast extents."""
    x, y = ph.Var("x"), ph.Var("y")
    u = ph.ImageParam(ph.Float(64), 2, "u")
    v = ph.ImageParam(ph.Float(64), 2, "v")
    lu = ph.max(u.width() - 2, 0)
    lv = ph.max(v.width() - 2, 0)
    b = ph.select(lu == 1, lv, lu)
    cx = ph.clamp(ph.clamp(x, 0, b - 1), 0, lu - 1)
    cv = ph.clamp(ph.clamp(x, 0, b - 1), 0, lv - 1)
    f = ph.Func("f")
    f[x, y] = (u[cx + 1, y + 1] + u[cx, y + 1] + u[cx + 2, y + 1] + u[cx + 1, y] +
               u[cx + 1, y + 2] - 4.0 * u[cx + 1, y + 1] * v[cv + 1, y + 1] + w * v[cv, y])
    return f, u, v


def _reads(n, m, width):
    """The columns of u and v the Func reads over x in [0, width), in Python."""
    lu, lv = max(n - 2, 0), max(m - 2, 0)
    b = lv if lu == 1 else lu

    def clamp(e, hi):
        return max(min(e, hi), 0)
    cx = [clamp(clamp(x, b - 1), lu - 1) for x in range(width)]
    cv = [clamp(clamp(x, b - 1), lv - 1) for x in range(width)]
    return (min(cx), max(cx) + 2), (min(cv), max(cv) + 1)


@pytest.mark.parametrize("n,m,width", [(6, 6, 4), (3, 6, 4), (6, 3, 4), (1, 6, 4), (6, 1, 4),
                                       (6, 6, 9), (2, 2, 3)])
def test_gray_scott_like_reads_raise_exactly_where_python_reads_out_of_bounds(n, m, width):
    f, u, v = _stencil(0.5)
    u.set(ph.Buffer(np.arange(n * 5, dtype=np.float64).reshape(5, n)))
    v.set(ph.Buffer(np.arange(m * 5, dtype=np.float64).reshape(5, m) * 0.25))
    (ulo, uhi), (vlo, vhi) = _reads(n, m, width)
    if uhi > n - 1:
        msg = f"input buffer u is read over [{ulo}, {uhi}] in dimension 0, " \
              f"but it covers only [0, {n - 1}]"
    elif vhi > m - 1:
        msg = f"input buffer v is read over [{vlo}, {vhi}] in dimension 0, " \
              f"but it covers only [0, {m - 1}]"
    else:
        check(f, [width, 3])
        return
    with pytest.raises(ValueError) as e:
        f.realize([width, 3])
    assert msg in str(e.value), (msg, str(e.value))


def test_stencil_rows_too_few_raise_the_rows_read():
    f, u, v = _stencil(0.5)
    u.set(ph.Buffer(np.ones((4, 6))))
    v.set(ph.Buffer(np.ones((4, 6))))
    check(f, [4, 2])
    with pytest.raises(ValueError) as e:
        f.realize([4, 3])
    assert "input buffer u is read over [0, 4] in dimension 1, but it covers only [0, 3]" \
        in str(e.value)


# (test_broadcast_unswitch21.SHAPES has the compatible and most refused pairs)
_PAIRS = [((2, 2), (6, 7)), ((1, 1), (3, 3)), ((4, 9), (5, 9)), ((1, 4), (1, 4))]


@pytest.mark.parametrize("us,vs", _PAIRS)
def test_suite4_gray_scott_small_and_broadcast_inputs_as_numpy(us, vs):
    """Suite 4's gray_scott (the kernel whose requirements collapse_clamps
    shrinks) on inputs NumPy finds empty or refuses: its arrays, or a
    ValueError where NumPy raises one."""
    check_gray_scott(gray_scott_pipeline, us, vs, 7)
