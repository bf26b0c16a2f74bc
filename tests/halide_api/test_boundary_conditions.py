"""ph.BoundaryConditions (Halide 21's index mappings), realized over a region
larger than the source and shifted to negative coordinates: compared with the
mapping written in plain Python (Halide's own test's checkers) and with the
reference evaluator over the same region."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.graph import collect_graph
from pyhalide.reference import evaluate

W, H = 7, 5
REGION = [(-9, 24), (-6, 17)]          # (min, extent) per dimension


def _source():
    b = ph.Buffer(ph.UInt(8), [W, H])
    for r in range(H):
        for c in range(W):
            b[c, r] = (c + r * W * 3) & 0xFF
    return b


def _mirror_image(v, n):
    v = -(v + 1) if v < 0 else v
    v %= 2 * n
    return 2 * n - 1 - v if v > n - 1 else v


def _mirror_interior(v, n):
    v = abs(v) % (2 * n - 2)
    return 2 * n - 2 - v if v > n - 1 else v


MAPPINGS = {
    "repeat_edge": lambda v, n: min(n - 1, max(0, v)),
    "repeat_image": lambda v, n: v % n,
    "mirror_image": _mirror_image,
    "mirror_interior": _mirror_interior,
}


def _expected(name, src, bounded=(True, True)):
    (x0, xe), (y0, ye) = REGION
    out = np.zeros((ye, xe), np.uint8)
    for j, y in enumerate(range(y0, y0 + ye)):
        for i, x in enumerate(range(x0, x0 + xe)):
            if name == "constant_exterior":
                inside = (not bounded[0] or 0 <= x < W) and (not bounded[1] or 0 <= y < H)
                out[j, i] = src[min(W - 1, max(0, x)), min(H - 1, max(0, y))] if inside else 42
            else:
                m = MAPPINGS[name]
                out[j, i] = src[m(x, W) if bounded[0] else x, m(y, H) if bounded[1] else y]
    return out


def _realize_shifted(f):
    x, y = ph.vars("x y")
    g = ph.lambda_func(x, y, f[x, y])
    out = ph.Buffer(ph.UInt(8), [e for _, e in REGION])
    out.set_min([m for m, _ in REGION])
    g.realize(out)
    assert out.dim(0).min() == REGION[0][0] and out.dim(1).min() == REGION[1][0]
    graph = collect_graph([g.function()])
    ref = evaluate(graph.env, [g.name()], REGION,
                   {n: graph.input_array(n) for n in graph.image_names()}, {})[0]
    np.testing.assert_array_equal(np.asarray(out), ref)
    return np.asarray(out)


def _make(name, source, bounds=None):
    bc = getattr(ph.BoundaryConditions, name)
    kw = {"f": source}
    if bounds is not None:
        kw["bounds"] = bounds
    if name == "constant_exterior":
        kw["exterior"] = 42
    return bc(**kw)


NAMES = ["constant_exterior", *MAPPINGS]


@pytest.mark.parametrize("name", NAMES)
def test_on_a_buffer_with_implicit_bounds(name):
    src = _source()
    np.testing.assert_array_equal(_realize_shifted(_make(name, src)), _expected(name, src))


@pytest.mark.parametrize("name", NAMES)
def test_on_a_func_with_bounds(name):
    src = _source()
    x, y = ph.vars("x y")
    f = ph.Func("f")
    f[x, y] = src[x, y]
    got = _realize_shifted(_make(name, f, [(0, W), (0, H)]))
    np.testing.assert_array_equal(got, _expected(name, src))


@pytest.mark.parametrize("name", ["constant_exterior", "repeat_edge", "mirror_interior"])
def test_an_undefined_bound_leaves_the_dimension_unbounded(name):
    src = _source()
    x, y = ph.vars("x y")
    f = ph.Func("f")
    f[x, y] = src[x, ph.clamp(y, 0, H - 1)]          # defined for every y
    g = _make(name, f, [(0, W), (ph.Expr(), ph.Expr())])
    expected = _expected(name, _Clamped(src), (True, False))
    np.testing.assert_array_equal(_realize_shifted(g), expected)


class _Clamped:
    """src read with y clamped, indexable as src[x, y]."""

    def __init__(self, src):
        self.src = src

    def __getitem__(self, key):
        x, y = key
        return self.src[x, min(H - 1, max(0, y))]


def test_on_an_image_param():
    p = ph.ImageParam(ph.UInt(8), 2, "p")
    g = ph.BoundaryConditions.mirror_image(p)
    src = _source()
    p.set(src)
    np.testing.assert_array_equal(_realize_shifted(g), _expected("mirror_image", src))


def test_constant_exterior_of_a_tuple_func():
    src = _source()
    x, y = ph.vars("x y")
    f = ph.Func("f")
    f[x, y] = (src[x, y], ph.f32(src[x, y]) * 0.5)
    g = ph.BoundaryConditions.constant_exterior(f, (7, -1.0), [(0, W), (0, H)])
    a, b = g.realize([W + 2, H + 1])
    a, b = np.asarray(a), np.asarray(b)
    arr = np.asarray(src)
    np.testing.assert_array_equal(a[:H, :W], arr)
    np.testing.assert_array_equal(b[:H, :W], arr.astype(np.float32) * 0.5)
    assert (a[H, :] == 7).all() and (a[:, W:] == 7).all()
    assert (b[H, :] == -1.0).all() and (b[:, W:] == -1.0).all()


def test_a_func_needs_bounds():
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = x
    with pytest.raises(ph.CompileError, match="needs its bounds"):
        ph.BoundaryConditions.repeat_edge(f)
