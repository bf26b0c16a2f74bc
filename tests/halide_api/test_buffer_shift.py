"""Buffer.set_min and realizing over shifted domains (Halide's lesson 6), and
Halide's whole-Buffer helpers; results compared with the reference evaluator
over the same region and with plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.graph import collect_graph
from pyhalide.reference import evaluate


def _reference(f, region):
    graph = collect_graph([f.function()])
    return evaluate(graph.env, [f.name()], region,
                    {n: graph.input_array(n) for n in graph.image_names()},
                    {n: graph.param_value(n) for n in graph.param_names()})


def test_realize_into_a_shifted_buffer():
    x, y = ph.vars("x y")
    f = ph.Func("gradient")
    f[x, y] = x * 100 + y
    f.vectorize(x, 4)
    out = ph.Buffer(ph.Int(32), [8, 3])
    out.set_min([100, -7])
    f.realize(out)
    assert [out.dim(0).min(), out.dim(1).min(), out.dim(0).max()] == [100, -7, 107]
    assert out[100, -7] == 100 * 100 - 7 and out[107, -5] == 107 * 100 - 5
    np.testing.assert_array_equal(np.asarray(out), _reference(f, [(100, 8), (-7, 3)])[0])
    out.set_min([0, 0])                              # same Func, another min: same kernel
    f.realize(out)
    np.testing.assert_array_equal(np.asarray(out), _reference(f, [(0, 8), (0, 3)])[0])
    with pytest.raises(IndexError, match="outside"):
        out[8, 0]


def test_shifted_realize_of_updates_and_tuples():
    x = ph.Var("x")
    r = ph.RDom([(0, 5)])
    f = ph.Func("f")
    f[x] = (x, ph.f32(x) * 0.5)
    f[r.x] = (f[r.x][0] + 10, f[r.x][1] + 1)
    a, b = ph.Buffer(ph.Int(32), [9]), ph.Buffer(ph.Float(32), [9])
    a.set_min([-3])
    b.set_min([-3])
    f.realize([a, b])
    ref = _reference(f, [(-3, 9)])
    np.testing.assert_array_equal(np.asarray(a), ref[0])
    np.testing.assert_array_equal(np.asarray(b), ref[1])
    assert list(np.asarray(a)) == [-3, -2, -1, 10, 11, 12, 13, 14, 5]


def test_buffer_helpers():
    b = ph.Buffer(ph.UInt(16), [3, 2])
    b.fill(5)
    assert b.all_equal(5)
    c = b.copy()
    c[1, 1] = 9
    assert b[1, 1] == 5 and c[1, 1] == 9
    seen = []
    c.set_min([10, 20])
    c.for_each_element(seen.append)
    assert seen[:4] == [[10, 20], [11, 20], [12, 20], [10, 21]] and len(seen) == 6
    values = []
    b.for_each_value(lambda v, w: values.append((v, w)), np.asarray(c))
    assert values[4] == (5, 9)
    t = c.translated([-10, -20])
    assert t[1, 1] == 9 and t.mins() == [0, 0] and c.mins() == [10, 20]
    i = ph.Buffer.make_interleaved(ph.UInt(8), 4, 3, 3)
    assert [i.dim(d).extent() for d in range(3)] == [4, 3, 3] and i.dim(2).stride() == 1
    assert ph.Buffer.make_scalar(ph.Float(32)).dimensions() == 0
    assert b.copy_to_host() == 0
