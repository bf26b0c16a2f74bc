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
