"""An RDom whose extent is computed in a wider type and narrowed
(int32(clamp(n64, 0, width))): interval arithmetic cannot bound the
narrowing cast, so bounds inference leaves the reads over that RDom out of
the producer's region. The access checks took the loop's own bounds as
bounding them, so the producer was read where it was not computed: with
n64 = 1 the result was 0.0 instead of 1.0, and np.median of a one-element
slice returned uninitialized memory (6.9e-310). An expression of fixed
symbols is now its own point (the extent bounds the RDom) and bounds
inference uses RDom predicates (the frontend's predicated hull loops keep
reads inside their inputs: tests/frontend/*loop_bounds*)."""
import numpy as np
import pytest

import pyhalide as ph


def _build(schedule):
    x, y = ph.Var("x"), ph.Var("y")
    a = ph.ImageParam(ph.Float(64), 1, "a")
    n64 = ph.Param(ph.Int(64), "n64")
    n = ph.cast(ph.Int(32), ph.max(ph.min(n64, ph.cast(ph.Int(64), a.width())), ph.i64(0)))
    f = ph.Func("f")
    f[x, y] = a[x] + ph.cast(ph.Float(64), y)
    r = ph.RDom([(0, n), (0, n - 1)], "r")
    f[r.x, 1 - (r.y % 2)] = f[r.x, r.y % 2] * 2.0
    g = ph.Func("g")
    g[x] = ph.f64(0.0)
    q = ph.RDom([(0, n)], "q")
    g[x] = g[x] + f[q.x, (n - 1) % 2] * ph.cast(ph.Float(64), x + 1)
    if schedule == "split":
        g.update(0).split(q.x, ph.RVar("qo"), ph.RVar("qi"), 4)
    if schedule == "compute_at":
        f.compute_at(g, x)
    return a, n64, g


def _expected(buf, n):
    f = np.stack([buf, buf + 1])
    for y in range(max(n - 1, 0)):
        f[1 - y % 2, :n] = f[y % 2, :n] * 2
    return f[(n - 1) % 2, :n].sum() * np.arange(1.0, 4.0)


@pytest.mark.parametrize("schedule", ["none", "split", "compute_at"])
def test_never_a_value_read_where_it_was_not_computed(schedule):
    buf = np.arange(10.0) + 1
    a, n64, g = _build(schedule)
    a.set(ph.Buffer(buf))
    for n in (0, 1, 2, 3, 7, 10, 12):
        n64.set(n)
        try:
            got = np.asarray(g.realize([3]))
        except IndexError:
            continue
        assert np.array_equal(got, _expected(buf, min(n, 10))), (n, got)


@pytest.mark.parametrize("schedule", ["none", "split", "compute_at"])
def test_every_extent_is_computed(schedule):
    buf = np.arange(10.0) + 1
    a, n64, g = _build(schedule)
    a.set(ph.Buffer(buf))
    for n in (0, 1, 2, 3, 7, 10, 12):
        n64.set(n)
        assert np.array_equal(np.asarray(g.realize([3])), _expected(buf, min(n, 10))), n


# RDom predicates bound the reads of the update they guard (as Halide's bounds
# inference: a hull wider than the input, the predicate keeps reads inside) --------
def _predicated_sum(producer: bool):
    x = ph.Var("x")
    a = ph.ImageParam(ph.Float(64), 1, "a")
    n = ph.Param(ph.Int(32), "n")
    src = a
    if producer:
        src = ph.Func("g")
        src[x] = a[x] * 2.0 + 1.0
        src.compute_root()
    r = ph.RDom([(-5, 40)], "r")
    r.where(r.x >= 0)
    r.where(r.x < ph.min(n, a.width()))
    f = ph.Func("f")
    f[x] = ph.f64(0.0)
    f[x] = f[x] + src[r.x] * ph.cast(ph.Float(64), x + 1)
    return a, n, f


@pytest.mark.parametrize("producer", [False, True])
def test_predicates_keep_reads_inside_the_input(producer):
    buf = np.arange(7.0) + 1
    a, n, f = _predicated_sum(producer)
    a.set(ph.Buffer(buf))
    for k in (-3, 0, 1, 4, 7, 30):
        n.set(k)
        vals = buf * 2 + 1 if producer else buf
        expected = vals[:max(min(k, 7), 0)].sum() * np.arange(1.0, 3.0)
        assert np.array_equal(np.asarray(f.realize([2])), expected), k


def test_select_conditions_bound_their_branches():
    # a is read at select(i > 0, i, 0) + x with i = r - k: the condition bounds
    # the branch (read over [0, max(5 - k, 0) + 2], not [-k, ...])
    x = ph.Var("x")
    a = ph.ImageParam(ph.Float(64), 1, "a")
    k = ph.Param(ph.Int(32), "k")
    r = ph.RDom([(0, 6)], "r")
    i = r.x - k
    f = ph.Func("f")
    f[x] = ph.f64(0.0)
    f[x] = f[x] + a[ph.select(i > 0, i, 0) + x]
    buf = np.arange(9.0) + 1
    a.set(ph.Buffer(buf))
    for kv in (-1, 0, 3, 100):
        k.set(kv)
        idx = [max(j - kv, 0) for j in range(6)]
        expected = [sum(buf[v + xx] for v in idx) for xx in range(3)]
        assert np.array_equal(np.asarray(f.realize([3])), expected), kv
    k.set(-2)
    with pytest.raises((ValueError, IndexError)):
        f.realize([3])
