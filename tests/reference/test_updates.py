"""Update definitions: pure-var updates, reductions, scans, scatters,
tuples, predicates, RDom order, and the serial semantics of every path."""
import time

import numpy as np
import pytest

from pyhalide import ir
from pyhalide.reference import updates

F32 = ir.Float(32)


def add(a, b):
    return ir.Add(a, b)


def force_serial(value):
    """The same value, in a form the vector path does not take."""
    return ir.Select(ir.Const(ir.Bool(), True), value, value)


def runs_vectorized(f, i=0):
    return updates.UpdateInfo(f, f.updates[i]).vector is not None


def test_update_with_pure_vars_only(hb):
    x, y = hb.var("x"), hb.var("y")
    f = hb.func("f", ["x", "y"], ir.Add(x, ir.Mul(y, hb.const(10))))
    hb.update(f, [x, y], ir.Mul(hb.call(f, [x, y]), hb.const(2)))
    hb.update(f, [x, hb.const(1)], hb.const(-1))              # row y == 1 only
    out = hb.run(f, f, [(0, 3), (0, 3)])[0]
    assert out.tolist() == [[0, 2, 4], [-1, -1, -1], [40, 42, 44]]


@pytest.mark.parametrize("serial", [False, True])
def test_matrix_multiply_sums_in_rdom_order(hb, serial):
    i, j, k = hb.var("i"), hb.var("j"), hb.rvar("k")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((6, 9)).astype(np.float32)        # a(k, j) = a[j, k]
    b = rng.standard_normal((9, 5)).astype(np.float32)        # b(i, k) = b[k, i]
    c = hb.func("c", ["i", "j"], ir.Const(F32, 0))
    prod = ir.Mul(hb.image("a", F32, [k, j]), hb.image("b", F32, [i, k]))
    value = add(hb.call(c, [i, j]), prod)
    hb.update(c, [i, j], force_serial(value) if serial else value, rdom=[("k", 0, 9)])
    assert runs_vectorized(c) != serial
    out = hb.run(c, c, [(0, 5), (0, 6)], {"a": a, "b": b})[0]
    want = np.zeros((6, 5), np.float32)
    for kk in range(9):                                       # the serial order, in float32
        want = want + a[:, kk:kk + 1] * b[kk:kk + 1, :]
    np.testing.assert_array_equal(out, want)


def test_scan(hb):
    r = hb.rvar("r")
    v = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    f = hb.func("f", ["x"], hb.image("v", F32, [hb.var("x")]))
    hb.update(f, [r], add(hb.call(f, [ir.Sub(r, hb.const(1))]), hb.call(f, [r])),
              rdom=[("r", 1, 999)])
    out = hb.run(f, f, [(0, 1000)], {"v": v})[0]
    np.testing.assert_array_equal(out, np.cumsum(v, dtype=np.float32))  # cumsum is sequential


def test_scan_along_y_for_every_x(hb):
    x, r = hb.var("x"), hb.rvar("r")
    img = np.random.default_rng(2).integers(-50, 50, (7, 4)).astype(np.int32)
    f = hb.func("f", ["x", "y"], hb.image("in", hb.I32, [x, hb.var("y")]))
    prev = hb.call(f, [x, ir.Sub(r, hb.const(1))])
    hb.update(f, [x, r], add(ir.Mul(prev, hb.const(3)), hb.call(f, [x, r])), rdom=[("r", 1, 6)])
    out = hb.run(f, f, [(0, 4), (0, 7)], {"in": img})[0]
    want = img.copy()
    for yy in range(1, 7):
        want[yy] = want[yy - 1] * 3 + img[yy]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("serial", [False, True])
def test_histogram(hb, serial):
    rx, ry = hb.rvar("r.x"), hb.rvar("r.y")
    img = np.random.default_rng(3).integers(0, 256, (40, 30)).astype(np.uint8)
    h = hb.func("h", ["x"], hb.const(0))
    bucket = ir.Cast(hb.I32, hb.image("img", ir.UInt(8), [rx, ry]))
    value = add(hb.call(h, [bucket]), hb.const(1))
    hb.update(h, [bucket], force_serial(value) if serial else value,
              rdom=[("r.x", 0, 30), ("r.y", 0, 40)])
    assert runs_vectorized(h) != serial
    out = hb.run(h, h, [(-3, 262)], {"img": img})[0]
    want = np.concatenate([[0, 0, 0], np.bincount(img.ravel(), minlength=256), [0] * 3])
    np.testing.assert_array_equal(out, want)
    # A region that misses most buckets.
    np.testing.assert_array_equal(hb.run(h, h, [(100, 5)], {"img": img})[0], want[103:108])


def test_sparse_scatter_far_from_region(hb):
    r = hb.rvar("r")
    keys = np.array([10**9, -5, 3, 10**9, 3, 3, -(10**9)], np.int32)
    h = hb.func("h", ["x"], ir.Mul(hb.var("x"), hb.const(100)))
    k = hb.image("k", hb.I32, [r])
    hb.update(h, [k], add(hb.call(h, [k]), hb.const(1)), rdom=[("r", 0, 7)])
    out = hb.run(h, h, [(0, 5)], {"k": keys})[0]
    assert out.tolist() == [0, 100, 200, 303, 400]
    # g reads h at two far-apart points: h(-5) (written once) and h(10**9 - 5) (not written).
    g = hb.func("g", ["x"], hb.call(h, [ir.Sub(ir.Mul(hb.var("x"), hb.const(10**9)), hb.const(5))]))
    out = hb.run([h, g], g, [(0, 2)], {"k": keys})[0]
    wrap32 = lambda v: (v + 2**31) % 2**32 - 2**31
    assert out.tolist() == [-499, wrap32((10**9 - 5) * 100)]


@pytest.mark.parametrize("serial", [False, True])
def test_float_sum_is_sequential(hb, serial):
    r = hb.rvar("r")
    v = (np.random.default_rng(4).standard_normal(5000) * 1e4).astype(np.float32)
    s = hb.func("s", [], ir.Const(F32, 0.5))
    value = add(hb.image("v", F32, [r]), hb.call(s, []))       # y + f: commuted form
    hb.update(s, [], force_serial(value) if serial else value, rdom=[("r", 0, 5000)])
    assert runs_vectorized(s) != serial
    got = hb.run(s, s, [], {"v": v})[0]
    want = np.cumsum(np.concatenate([[np.float32(0.5)], v]), dtype=np.float32)[-1]
    assert got.shape == () and got.dtype == np.float32 and got == want


def argmin_func(hb, name, n, image_name="v"):
    r = hb.rvar("r")
    v = hb.image(image_name, hb.I32, [r])
    a = hb.func(name, [], (hb.const(2**31 - 1), hb.const(-1)))
    best = hb.call(a, [], 0)
    better = ir.LT(v, best)
    hb.update(a, [], (ir.Select(better, v, best), ir.Select(better, r, hb.call(a, [], 1))),
              rdom=[("r", 0, n)])
    return a


def test_argmin_first_occurrence(hb):
    v = np.random.default_rng(5).integers(0, 20, 300).astype(np.int32)
    a = argmin_func(hb, "a", 300)
    value, index = hb.run(a, a, [], {"v": v})
    assert int(value) == v.min() and int(index) == int(np.argmin(v))


def test_tuple_elements_read_the_old_state(hb):
    # (a, b) = (b, a + b): Fibonacci pairs, every value read before any write.
    f = hb.func("f", [], (hb.const(0), hb.const(1)))
    hb.update(f, [], (hb.call(f, [], 1), add(hb.call(f, [], 0), hb.call(f, [], 1))),
              rdom=[("r", 0, 10)])
    assert [int(v) for v in hb.run(f, f, [])] == [55, 89]


def test_tuple_histogram_vector_path(hb):
    r = hb.rvar("r")
    keys = np.array([2, 0, 2, 2, 1], np.int32)
    vals = np.array([1.5, 2.0, -1.0, 4.0, 8.0], np.float32)
    h = hb.func("h", ["x"], (hb.const(0), ir.Const(F32, 0), hb.const(-1)))
    k = hb.image("k", hb.I32, [r])
    hb.update(h, [k], (add(hb.call(h, [k], 0), hb.const(1)),
                       add(hb.call(h, [k], 1), hb.image("v", F32, [r])),
                       r), rdom=[("r", 0, 5)])                     # last writer's index
    assert runs_vectorized(h)
    count, total, last = hb.run(h, h, [(0, 4)], {"k": keys, "v": vals})
    assert count.tolist() == [1, 1, 3, 0]
    assert total.tolist() == [2.0, 8.0, 4.5, 0.0]
    assert last.tolist() == [1, 4, 3, -1]


def test_nested_rdom_runs_innermost_first(hb):
    # f() = f()*2 + r.x over r.x in [0, 3) (inner) and r.y in [0, 2) (outer).
    f = hb.func("f", [], hb.const(0))
    hb.update(f, [], add(ir.Mul(hb.call(f, []), hb.const(2)), hb.rvar("r.x")),
              rdom=[("r.x", 0, 3), ("r.y", 0, 2)])
    acc = 0
    for _ in range(2):
        for rx in range(3):
            acc = acc * 2 + rx
    assert int(hb.run(f, f, [])[0]) == acc == 36
    # A 3-D RDom writing its linear order into a 1-D Func.
    g = hb.func("g", ["x"], hb.const(-1))
    rx, ry, rz = hb.rvar("a"), hb.rvar("b"), hb.rvar("c")
    counter = hb.call(g, [hb.const(100)])
    hb.update(g, [hb.const(100)], add(counter, hb.const(1)),
              rdom=[("a", 0, 2), ("b", 0, 3), ("c", 0, 2)])
    pos = add(add(rx, ir.Mul(ry, hb.const(2))), ir.Mul(rz, hb.const(6)))
    hb.update(g, [pos], ir.Add(ir.Mul(rx, hb.const(100)), ir.Add(ir.Mul(ry, hb.const(10)), rz)),
              rdom=[("a", 0, 2), ("b", 0, 3), ("c", 0, 2)])
    out = hb.run(g, g, [(0, 12)])[0]
    assert out.tolist() == [a * 100 + b * 10 + c for c in range(2) for b in range(3) for a in range(2)]
    assert hb.run(g, g, [(100, 1)])[0].tolist() == [11]


def test_predicates(hb):
    r = hb.rvar("r")
    v = np.arange(10, dtype=np.int32) * 3
    s = hb.func("s", [], hb.const(0))
    val = hb.image("v", hb.I32, [r])
    even = ir.EQ(ir.Mod(val, hb.const(2)), hb.const(0))
    hb.update(s, [], add(hb.call(s, []), val), rdom=[("r", 0, 10)],
              where=[even, ir.GT(val, hb.const(5))])
    assert int(hb.run(s, s, [], {"v": v})[0]) == sum(x for x in v.tolist() if x % 2 == 0 and x > 5)


@pytest.mark.parametrize("serial", [False, True])
def test_predicate_guards_reads(hb, serial):
    """Values are evaluated only where the predicates hold."""
    r = hb.rvar("r")
    v = np.arange(5, dtype=np.int32)
    s = hb.func("s", [], hb.const(0))
    value = add(hb.call(s, []), hb.image("v", hb.I32, [r]))
    hb.update(s, [], force_serial(value) if serial else value, rdom=[("r", 0, 9)],
              where=[ir.LT(r, ir.Variable(hb.I32, "v.extent.0", "param"))])
    assert int(hb.run(s, s, [], {"v": v})[0]) == 10


def test_predicate_reading_the_state(hb):
    # f(r) = f(r - 1) + 1 where f(r - 1) < 3, over a Func that starts as x * 10.
    r = hb.rvar("r")
    f = hb.func("f", ["x"], hb.const(0))
    prev = hb.call(f, [ir.Sub(r, hb.const(1))])
    hb.update(f, [r], add(prev, hb.const(1)), rdom=[("r", 1, 6)], where=[ir.LT(prev, hb.const(3))])
    assert hb.run(f, f, [(0, 7)])[0].tolist() == [0, 1, 2, 3, 0, 1, 2]


def test_predicate_reading_the_state_guards_reads(hb):
    # (count, total) += (1, v(r)) where count < 4: v has 4 elements, the RDom 10.
    r = hb.rvar("r")
    v = np.array([5, 6, 7, 8], np.int32)
    s = hb.func("s", [], (hb.const(0), hb.const(0)))
    count = hb.call(s, [], 0)
    hb.update(s, [], (add(count, hb.const(1)), add(hb.call(s, [], 1), hb.image("v", hb.I32, [r]))),
              rdom=[("r", 0, 10)], where=[ir.LT(count, hb.const(4))])
    assert [int(a) for a in hb.run(s, s, [], {"v": v})] == [4, 26]


def test_reads_of_unwritten_points_use_the_pure_definition(hb):
    r, x = hb.rvar("r"), hb.var("x")
    f = hb.func("f", ["x"], ir.Mul(x, x))
    hb.update(f, [r], hb.call(f, [add(r, hb.const(10))]), rdom=[("r", 0, 3)])
    hb.update(f, [hb.const(1)], add(hb.call(f, [hb.const(0)]), hb.call(f, [hb.const(11)])))
    assert hb.run(f, f, [(0, 4)])[0].tolist() == [100, 221, 144, 9]


def test_coordinates_that_read_the_state(hb):
    # f(f(r)) = r: writes wherever the current state points.
    r, x = hb.rvar("r"), hb.var("x")
    f = hb.func("f", ["x"], ir.Sub(hb.const(9), x))
    hb.update(f, [hb.call(f, [r])], r, rdom=[("r", 0, 4)])
    want = [9 - i for i in range(12)]
    for i in range(4):
        want[want[i]] = i
    assert hb.run(f, f, [(0, 12)])[0].tolist() == want


def test_per_row_histogram(hb):
    # h(x, in(x, r)) += 1: the scattered coordinate depends on the pure Var.
    x, r = hb.var("x"), hb.rvar("r")
    img = np.random.default_rng(6).integers(0, 4, (4, 6)).astype(np.int32)   # in(x, r) = img[r, x]
    h = hb.func("h", ["x", "b"], hb.const(0))
    k = hb.image("in", hb.I32, [x, r])
    hb.update(h, [x, k], add(hb.call(h, [x, k]), hb.const(1)), rdom=[("r", 0, 4)])
    out = hb.run(h, h, [(0, 6), (0, 4)], {"in": img})[0]
    want = np.stack([np.bincount(img[:, c], minlength=4) for c in range(6)], axis=1)
    np.testing.assert_array_equal(out, want)


def test_updated_func_consumed_by_a_stencil(hb):
    x, r = hb.var("x"), hb.rvar("r")
    f = hb.func("f", ["x"], x)
    hb.update(f, [ir.Mul(r, hb.const(2))], hb.const(0), rdom=[("r", 0, 5)])    # zero even points
    g = hb.func("g", ["x"], add(hb.call(f, [ir.Sub(x, hb.const(1))]), hb.call(f, [add(x, hb.const(1))])))
    fx = [0 if (i % 2 == 0 and 0 <= i < 10) else i for i in range(-1, 12)]
    assert hb.run([f, g], g, [(0, 11)])[0].tolist() == [fx[i] + fx[i + 2] for i in range(11)]


def test_rdom_bounds_from_params_and_empty_rdoms(hb):
    r = hb.rvar("r")
    p = ir.Variable(hb.I32, "n", "param")
    s = hb.func("s", [], hb.const(0))
    hb.update(s, [], add(hb.call(s, []), r), rdom=[("r", 2, p)])
    assert int(hb.run(s, s, [], params={"n": 4})[0]) == 2 + 3 + 4 + 5
    assert int(hb.run(s, s, [], params={"n": 0})[0]) == 0
    assert int(hb.run(s, s, [], params={"n": -3})[0]) == 0


def test_many_chunks_equal_one(hb, monkeypatch):
    """Small chunks (growing key sets, several flushes) give the same result."""
    rx, ry = hb.rvar("r.x"), hb.rvar("r.y")
    img = np.random.default_rng(7).integers(-30, 30, (9, 11)).astype(np.int32)

    def build():
        h = hb.func("h", ["x"], ir.Mul(hb.var("x"), hb.const(1000)))
        k = hb.image("in", hb.I32, [rx, ry])
        hb.update(h, [k], add(hb.call(h, [k]), rx), rdom=[("r.x", 0, 11), ("r.y", 0, 9)])
        hb.update(h, [k], force_serial(ir.Sub(hb.call(h, [k]), ry)), rdom=[("r.x", 0, 11), ("r.y", 0, 9)])
        return h

    h = build()
    whole = hb.run(h, h, [(-40, 80)], {"in": img})[0]
    monkeypatch.setattr(updates, "CHUNK", 7)
    h = build()
    np.testing.assert_array_equal(hb.run(h, h, [(-40, 80)], {"in": img})[0], whole)
    want = np.arange(-40, 40) * 1000
    for yy in range(9):
        for xx in range(11):
            want[img[yy, xx] + 40] += xx
    for yy in range(9):
        for xx in range(11):
            want[img[yy, xx] + 40] -= yy
    np.testing.assert_array_equal(whole, want)


def test_update_definition_errors(hb):
    x, r = hb.var("x"), hb.rvar("r")
    f = hb.func("f", ["x"], x)
    hb.update(f, [x], hb.call(f, [add(x, hb.const(1))]))
    with pytest.raises(ValueError, match="pure Var x"):
        hb.run(f, f, [(0, 3)])
    g = hb.func("g", ["x"], x)
    hb.update(g, [r], x, rdom=[("r", 0, 3)])
    with pytest.raises(ValueError, match="pure Var x"):
        hb.run(g, g, [(0, 3)])
    k = hb.func("k", ["x"], x)
    hb.update(k, [x], ir.Const(F32, 1.0))
    with pytest.raises(TypeError, match="value types"):
        hb.run(k, k, [(0, 3)])


def test_large_rdoms_are_fast_enough(hb):
    n = 100_000
    rng = np.random.default_rng(8)
    v = rng.integers(-10**6, 10**6, n).astype(np.int32)
    a = argmin_func(hb, "a", n)                   # serial path, one instance
    r = hb.rvar("r")
    s = hb.func("s", ["x"], hb.const(0))          # serial scan over n points
    hb.update(s, [r], add(hb.call(s, [ir.Sub(r, hb.const(1))]), hb.image("v", hb.I32, [r])),
              rdom=[("r", 0, n)])
    h = hb.func("h", ["x"], hb.const(0))          # vector path
    k = ir.Mod(hb.image("v", hb.I32, [r]), hb.const(1000))
    hb.update(h, [k], add(hb.call(h, [k]), hb.const(1)), rdom=[("r", 0, n)])
    start = time.process_time()         # CPU time: other processes on the machine do not count
    value, index = hb.run(a, a, [], {"v": v})
    scan = hb.run(s, s, [(0, n)], {"v": v})[0]
    hist = hb.run(h, h, [(0, 1000)], {"v": v})[0]
    elapsed = time.process_time() - start
    assert int(value) == v.min() and int(index) == int(np.argmin(v))
    np.testing.assert_array_equal(scan, np.cumsum(v, dtype=np.int32))
    np.testing.assert_array_equal(hist, np.bincount(v % 1000, minlength=1000))
    assert elapsed < 20, elapsed


def runs_as_chain(f, i=0):
    return updates.UpdateInfo(f, f.updates[i]).chain is not None


def chain_func(hb, name, t, n, serial):
    """A 0-d tuple reduction using every chain form; `serial` hides them."""
    r = hb.rvar("r")
    v = hb.image("v", t, [r])
    zero = ir.Const(t, 0)
    f = hb.func(name, [], (ir.Const(t, 5), hb.const(-1), zero, hb.const(-1), zero, hb.const(0),
                           hb.const(7)))
    old = [hb.call(f, [], i) for i in range(7)]
    values = (ir.Select(ir.LT(v, old[0]), v, old[0]),          # improve: first minimum
              ir.Select(ir.LT(v, old[0]), r, old[1]),          # choose, reads element 0
              ir.Select(ir.GE(v, old[2]), v, old[2]),          # improve: last maximum
              ir.Select(ir.GE(v, old[2]), old[3], r),          # choose on the false side
              ir.Sub(old[4], v),                               # accumulate in order
              ir.Add(old[1], old[3]),                          # assign from other elements
              old[6])                                          # keep
    if serial:
        values = tuple(force_serial(x) for x in values)
    hb.update(f, [], values, rdom=[("r", 0, n)], where=[ir.NE(r, hb.const(3))])
    return f


def bits(arrays):
    return [np.asarray(a).view(f"u{np.asarray(a).itemsize}").tolist() for a in arrays]


@pytest.mark.parametrize("t", [F32, ir.Int(8), ir.UInt(16), ir.Float(64)], ids=str)
def test_chain_equals_serial(hb, t, monkeypatch):
    rng = np.random.default_rng(9)
    n = 400
    if t.is_float():
        v = rng.integers(-4, 5, n).astype(t.to_numpy()) * 0.5
        v[[10, 50, 51, 200]] = [np.nan, -0.0, 0.0, np.nan]
    else:
        v = rng.integers(0, 100, n).astype(t.to_numpy())
    chain = chain_func(hb, "c", t, n, serial=False)
    serial = chain_func(hb, "s", t, n, serial=True)
    assert runs_as_chain(chain) and not runs_as_chain(serial)
    want = hb.run(serial, serial, [], {"v": v})
    assert bits(hb.run(chain, chain, [], {"v": v})) == bits(want)
    monkeypatch.setattr(updates, "CHUNK", 13)          # chunks continue from the state
    assert bits(hb.run(chain, chain, [], {"v": v})) == bits(want)
    # The serial result itself, element by element in Python.
    st = [t.to_numpy().type(5), -1, t.to_numpy().type(0), -1, t.to_numpy().type(0), 0, 7]
    with np.errstate(all="ignore"):
        for i, x in enumerate(v):
            if i == 3:
                continue
            st = [x if x < st[0] else st[0], i if x < st[0] else st[1],
                  x if x >= st[2] else st[2], st[3] if x >= st[2] else i,
                  st[4] - x, st[1] + st[3], st[6]]
    assert bits(want) == bits([np.asarray(s, want[k].dtype) for k, s in enumerate(st)])


def test_chain_starts_from_a_nan(hb):
    r = hb.rvar("r")
    f = hb.func("f", [], (ir.Const(F32, float("nan")), hb.const(-1)))
    v = hb.image("v", F32, [r])
    hb.update(f, [], (ir.Select(ir.LT(v, hb.call(f, [], 0)), v, hb.call(f, [], 0)),
                      ir.Select(ir.LT(v, hb.call(f, [], 0)), r, hb.call(f, [], 1))),
              rdom=[("r", 0, 3)])
    assert runs_as_chain(f)
    value, index = hb.run(f, f, [], {"v": np.array([1, 0, -1], np.float32)})
    assert np.isnan(value) and int(index) == -1


def test_coupled_elements_run_serially(hb):
    # A product of complex numbers: each element reads the other.
    r = hb.rvar("r")
    re = np.array([0.5, 1.5, -2.0, 0.25], np.float32)
    im = np.array([1.0, -0.5, 0.75, 2.0], np.float32)
    f = hb.func("f", [], (ir.Const(F32, 1), ir.Const(F32, 0)))
    a, b = hb.call(f, [], 0), hb.call(f, [], 1)
    x, y = hb.image("re", F32, [r]), hb.image("im", F32, [r])
    hb.update(f, [], (ir.Sub(ir.Mul(a, x), ir.Mul(b, y)), ir.Add(ir.Mul(a, y), ir.Mul(b, x))),
              rdom=[("r", 0, 4)])
    assert not runs_as_chain(f) and not runs_vectorized(f)
    p, q = np.float32(1), np.float32(0)
    for u, w in zip(re, im):
        p, q = p * u - q * w, p * w + q * u
    assert [float(z) for z in hb.run(f, f, [], {"re": re, "im": im})] == [p, q]


def test_kitchen_sink_of_a_million_iterations_is_fast(hb):
    n = 1 << 20
    v = np.random.default_rng(10).integers(-1000, 1000, n).astype(np.int32)
    r = hb.rvar("r")
    x = hb.image("v", hb.I32, [r])
    f = hb.func("ks", [], (hb.const(0), hb.const(2**31 - 1), hb.const(0), hb.const(0)))
    old = [hb.call(f, [], i) for i in range(4)]
    hb.update(f, [], (ir.Add(old[0], x), ir.Min(old[1], x),
                      ir.Select(ir.LT(x, old[1]), r, old[2]), ir.BitXor(old[3], x)),
              rdom=[("r", 0, n)])
    start = time.process_time()         # CPU time: other processes on the machine do not count
    got = [int(g) for g in hb.run(f, f, [], {"v": v})]
    assert time.process_time() - start < 5
    assert got == [int(v.sum(dtype=np.int32)), int(v.min()), int(np.argmin(v)),
                   int(np.bitwise_xor.reduce(v))]


@pytest.mark.parametrize("cmp", [ir.LT, ir.LE, ir.GT, ir.GE], ids=lambda c: c.__name__)
def test_improve_keeps_the_serial_choice_among_equals(hb, cmp):
    # Equal values differ only in the sign of zero: the serial comparison decides.
    v = np.array([0.0, -0.0, np.nan, 0.0, -0.0, 1.0, -1.0, -0.0, 0.0], np.float32)
    v = v if cmp in (ir.LT, ir.LE) else -v
    results = []
    for serial in (False, True):
        r = hb.rvar("r")
        x = hb.image("v", F32, [r])
        f = hb.func("f", [], ir.Const(F32, 5.0 if cmp in (ir.LT, ir.LE) else -5.0))
        value = ir.Select(cmp(x, hb.call(f, [])), x, hb.call(f, []))
        hb.update(f, [], force_serial(value) if serial else value, rdom=[("r", 0, 5)])
        assert runs_as_chain(f) != serial
        results.append(bits(hb.run(f, f, [], {"v": v})))
    want = np.float32(5.0 if cmp in (ir.LT, ir.LE) else -5.0)
    for x in v[:5]:
        if {ir.LT: x < want, ir.LE: x <= want, ir.GT: x > want, ir.GE: x >= want}[cmp]:
            want = x
    assert results[0] == results[1] == bits([want])
