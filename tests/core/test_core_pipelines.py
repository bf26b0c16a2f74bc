"""End-to-end pipelines through the Func API, each compared with the
reference evaluator and NumPy."""
import numpy as np

import pyhalide as ph
from tests.core.jitcheck import check

rng = np.random.default_rng(1234)


def test_pointwise_and_reversed_axes():
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("f")
    f[x, y] = x + 10 * y
    (got,) = check(f, [4, 3])
    assert got.shape == (3, 4)
    assert got[2, 1] == 1 + 20


def test_two_stage_blur_uint16():
    a = rng.integers(0, 60000, size=(34, 45), dtype=np.uint16)
    x, y = ph.Var("x"), ph.Var("y")
    inp = ph.Buffer(a, "inp")
    bx, by = ph.Func("bx"), ph.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) // 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 3
    with np.errstate(over="ignore"):
        rx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3
        ry = (rx[:-2] + rx[1:-1] + rx[2:]) // 3
    check(by, [43, 32], [ry])
    bx.compute_root()
    check(by, [43, 32], [ry])


def test_histogram_uint8():
    img = rng.integers(0, 256, size=(30, 40), dtype=np.uint8)
    x = ph.Var("x")
    r = ph.RDom([(0, 40), (0, 30)], "r")
    inp = ph.Buffer(img, "img")
    h = ph.Func("hist")
    h[x] = 0
    h[ph.cast(ph.Int(32), inp[r.x, r.y])] += 1
    check(h, [256], [np.bincount(img.ravel(), minlength=256)])


def test_histogram_intermediate_gets_type_range():
    img = rng.integers(0, 256, size=(50,), dtype=np.uint8)
    x = ph.Var("x")
    r = ph.RDom([(0, 50)])
    inp = ph.Buffer(img, "img8")
    h = ph.Func("h8")
    h[x] = 0
    h[ph.cast(ph.Int(32), inp[r.x])] += 1
    out = ph.Func("twice")
    out[x] = h[x] * 2
    check(out, [256], [2 * np.bincount(img, minlength=256)])


def test_scan():
    x = ph.Var("x")
    f = ph.Func("scan")
    r = ph.RDom([(1, 19)])
    f[x] = x * x
    f[r.x] = f[r.x] + f[r.x - 1]
    check(f, [20], [np.cumsum(np.arange(20) ** 2)])


def test_update_writes_beyond_requested_region():
    x = ph.Var("x")
    f = ph.Func("wide")
    r = ph.RDom([(0, 31)])
    f[x] = 1
    f[r.x] = f[r.x] + r.x
    check(f, [23], [1 + np.arange(23)])


def test_sum_product_min_max_zero_dim():
    a = rng.integers(-100, 100, size=1000).astype(np.int32)
    A = ph.Buffer(a, "a")
    k = ph.RDom([(0, 1000)])
    for fn, ref in ((ph.sum, a.sum()), (ph.minimum, a.min()), (ph.maximum, a.max()),
                    (ph.product, np.prod(a[:20], dtype=np.int32))):
        g = ph.Func("g")
        kk = k if fn is not ph.product else ph.RDom([(0, 20)])
        g[()] = fn(A[kk.x])
        check(g, [], [ref])


def test_argmin_argmax_tuple_first_occurrence():
    a = np.array([5, 1, 7, 1, 9, 9, 0, 0], dtype=np.int32)
    A = ph.Buffer(a, "arr")
    r = ph.RDom([(0, a.size)])
    f = ph.Func("am")
    f[()] = ph.argmin(A[r.x])
    check(f, [], [np.int32(6), np.int32(0)])
    g = ph.Func("ax")
    g[()] = ph.argmax(A[r.x])
    check(g, [], [np.int32(4), np.int32(9)])


def test_hand_written_tuple_update():
    a = rng.integers(-50, 50, size=200).astype(np.int16)
    A = ph.Buffer(a, "a16")
    r = ph.RDom([(0, 200)])
    f = ph.Func("best")
    f[()] = (ph.Int(16).max(), 0)
    better = A[r.x] < f[()][0]
    f[()] = (ph.select(better, A[r.x], f[()][0]), ph.select(better, r.x, f[()][1]))
    check(f, [], [a.min(), int(np.argmin(a))])


def test_rdom_where_predicate():
    a = rng.integers(-100, 100, size=300).astype(np.int32)
    A = ph.Buffer(a, "aw")
    r = ph.RDom([(0, 300)])
    r.where(A[r.x] > 0)
    r.where(r.x % 3 != 0)
    f = ph.Func("w")
    f[()] = 0
    f[()] += A[r.x]
    idx = np.arange(300)
    check(f, [], [a[(a > 0) & (idx % 3 != 0)].sum()])


def test_inline_reduction_with_pure_var():
    m = rng.random((5, 7)).astype(np.float32)
    M = ph.Buffer(m, "m")
    k = ph.RDom([(0, 7)])
    y = ph.Var("y")
    rs = ph.Func("rowsum")
    rs[y] = ph.sum(M[k.x, y])
    check(rs, [5], [m.sum(1)], exact=False)


def test_update_with_pure_var_and_rvar():
    m = rng.integers(0, 10, size=(6, 8)).astype(np.int32)
    M = ph.Buffer(m, "m2")
    x, _y = ph.Var("x"), ph.Var("y")
    r = ph.RDom([(0, 6)])
    f = ph.Func("colsum")
    f[x] = 0
    f[x] = f[x] + M[x, r.x]
    check(f, [8], [m.sum(0)])


def test_params_and_image_params():
    p = ph.Param(ph.Int(32), "p", 5)
    x, y = ph.Var("x"), ph.Var("y")
    q = ph.Func("q")
    q[x] = x * p
    check(q, [4], [np.arange(4) * 5])
    p.set(-3)
    check(q, [4], [np.arange(4) * -3])
    ip = ph.ImageParam(ph.Float(32), 2, "ip")
    m = rng.random((5, 7)).astype(np.float32)
    ip.set(m)
    z = ph.Func("z")
    z[x, y] = ip[x, y] * 2 + ip.width()
    check(z, [7, 5], [m * 2 + 7], exact=False)


def test_rdom_over_image_param_bounds():
    ip = ph.ImageParam(ph.Int(32), 1, "vals")
    a = rng.integers(0, 100, size=37).astype(np.int32)
    ip.set(a)
    r = ph.RDom(ip)
    f = ph.Func("total")
    f[()] = 0
    f[()] += ip[r.x]
    check(f, [], [a.sum()])


def test_tuple_func_and_element_access():
    x = ph.Var("x")
    f = ph.Func("pair")
    f[x] = (x * 2, ph.cast(ph.Float(64), x) / 4)
    g = ph.Func("use")
    g[x] = f[x][0] + ph.cast(ph.Int(32), f[x][1])
    check(f, [6], [np.arange(6) * 2, np.arange(6) / 4])
    check(g, [6], [np.arange(6) * 2 + (np.arange(6) / 4).astype(np.int32)])


def test_pipeline_with_two_outputs():
    x = ph.Var("x")
    f, g = ph.Func("o1"), ph.Func("o2")
    f[x] = x + 1
    g[x] = x * 3
    check([f, g], [5], [np.arange(5) + 1, np.arange(5) * 3])


def test_strided_input_is_not_copied():
    base = rng.integers(0, 100, size=(10, 12)).astype(np.int32)
    view = base[::2, ::3]
    x, y = ph.Var("x"), ph.Var("y")
    B = ph.Buffer(view, "view")
    f = ph.Func("fv")
    f[x, y] = B[x, y] + 1
    check(f, [4, 5], [view + 1])


def test_realize_into_given_buffer_shares_memory():
    x = ph.Var("x")
    f = ph.Func("into")
    f[x] = x * 7
    out = np.zeros(9, dtype=np.int32)
    buf = ph.Buffer(out)
    res = f.realize([buf])
    assert np.shares_memory(np.asarray(res), out)
    np.testing.assert_array_equal(out, np.arange(9) * 7)
