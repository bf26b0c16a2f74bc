"""Halide's wrapper and clone Funcs (lessons 19 and 20): f.in_(g), f.in_([g, h]),
f.in_() (consumers defined later included), ImageParam/Buffer .in_(), and
f.clone_in(g), scheduled apart from f. Every result is compared with the
reference evaluator and with NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check
from tests.halide_api.test_lowered_stmt_deep import deep_func

X, Y = np.meshgrid(np.arange(8), np.arange(8), indexing="xy")   # X[y, x] = x


def _calls(func) -> set:
    return {c.name for d in func.function().definitions() for v in d.values
            for c in ph.ir.find_calls(v)}


def test_local_wrapper_scheduled_apart():
    x, y, xo, xi = ph.vars("x y xo xi")
    f, g, h = ph.Func("f_sched"), ph.Func("g_sched"), ph.Func("h_sched")
    f[x, y] = x + y
    g[x, y] = 2 * f[x, y]
    h[x, y] = 3 + g[x, y] - f[x + 93, y - 87]
    g.compute_root()
    h.compute_root()
    fg = f.in_(g)
    assert f.in_(g) is fg and fg.name().startswith("f_sched_in_g_sched")
    fg.compute_at(g, y).vectorize(x, 4)
    f.in_(h).compute_at(h, y).split(x, xo, xi, 2).reorder(xo, xi)
    assert fg.name() in _calls(g) and "f_sched" not in _calls(g) | _calls(h)
    got = check(h, [8, 8])[0]
    np.testing.assert_array_equal(got, 3 + 2 * (X + Y) - (X + 93 + Y - 87))


def test_global_wrapper_reaches_consumers_defined_later():
    x, y = ph.vars("x y")
    f, g = ph.Func("f_global"), ph.Func("g_global")
    f[x, y] = x * 10 + y
    g[x, y] = 2 * f[x, y]
    f.compute_root()
    w = f.in_()
    w.compute_root()
    h = ph.Func("h_global")
    h[x, y] = 3 + g[x, y] - f[y, x]
    assert w.name() in _calls(g) and w.name() in _calls(h) and "f_global" in _calls(w)
    got = check(h, [8, 8])[0]
    np.testing.assert_array_equal(got, 3 + 2 * (X * 10 + Y) - (Y * 10 + X))


def test_one_wrapper_for_several_consumers_and_tuples():
    x, y = ph.vars("x y")
    f, g, h, out = ph.Func("ft"), ph.Func("gt"), ph.Func("ht"), ph.Func("outt")
    f[x, y] = (x + y, x - y)
    g[x, y] = f[x, y][0] * 2
    h[x, y] = f[x, y][1] + 10
    out[x, y] = g[x, y] + h[x, y] + f[x, y][0]
    for fn in (f, g, h):
        fn.compute_root()
    w = f.in_([g, h])
    w.compute_root()
    assert w.outputs() == 2 and _calls(g) == {w.name()} and "ft" in _calls(out)
    got = check(out, [8, 8])[0]
    np.testing.assert_array_equal(got, 2 * (X + Y) + (X - Y) + 10 + (X + Y))


@pytest.mark.parametrize("source", ["ImageParam", "Buffer"])
def test_input_wrapper(source):
    x, y, xo, yo, xi, yi = ph.vars("x y xo yo xi yi")
    data = (np.arange(10 * 12, dtype=np.int32).reshape(12, 10) * 7) % 23
    if source == "ImageParam":
        img = ph.ImageParam(ph.Int(32), 2, "img_w")
        img.set(ph.Buffer(data))
    else:
        img = ph.Buffer(data, name="buf_w")
    blur = ph.Func("blur_w")
    blur[x, y] = img[x, y] + img[x + 1, y] + img[x, y + 1]
    blur.tile(x, y, xo, yo, xi, yi, 4, 4)
    img.in_(blur).compute_at(blur, xo)
    got = check(blur, [8, 8])[0]
    np.testing.assert_array_equal(got, data[:8, :8] + data[:8, 1:9] + data[1:9, :8])


def test_clone_keeps_updates_and_schedule():
    x = ph.Var("x")
    r = ph.RDom([(1, 7)], "r")
    f, g, h = ph.Func("f_cl"), ph.Func("g_cl"), ph.Func("h_cl")
    f[x] = x * 3 % 5
    f[r.x] = f[r.x] + f[r.x - 1]          # a scan: the clone must read itself
    f.compute_root()
    g[x] = f[x] * 2
    h[x] = f[x] + g[x]
    g.compute_root()
    c = f.clone_in(g)
    assert f.clone_in(g) is c and c.num_update_definitions() == 1
    assert c.name() in _calls(g) and "f_cl" in _calls(h)
    c.compute_at(g, x)
    scan = np.cumsum(np.arange(8) * 3 % 5)
    got = check(h, [8])[0]
    np.testing.assert_array_equal(got, scan + 2 * scan)


def test_wrapping_a_func_the_consumer_does_not_call():
    x = ph.Var("x")
    f, g = ph.Func("f_nc"), ph.Func("g_nc")
    f[x] = x
    g[x] = x + 1
    with pytest.raises(ph.CompileError, match=r"(?s)g_nc does not call f_nc.*test_wrappers.py"):
        f.in_(g)
    with pytest.raises(ph.CompileError, match="reorder_storage"):
        f.reorder_storage(ph.Var("zz"))


def test_global_wrapper_beside_a_deep_func():
    # f.in_() redirects the calls of f in every live Func; a live Func with an
    # expression deeper than the interpreter's default recursion limit made it
    # raise RecursionError (the walk ran outside pyhalide's raised limit)
    deep, _ = deep_func("beside")    # alive while f.in_() walks the live Funcs
    x = ph.Var("x")
    f, g = ph.Func("f_beside"), ph.Func("g_beside")
    f[x] = x * 3
    g[x] = f[x] + 1
    f.compute_root()
    w = f.in_()
    assert w.name() in _calls(g)
    np.testing.assert_array_equal(np.asarray(g.realize([5])), np.arange(5) * 3 + 1)
