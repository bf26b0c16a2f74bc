"""store_root().compute_at(consumer, x) slides the producer's region along
both consumer loops, as Halide does (lesson 08): each producer value is
computed once (25 stores for a 4x4 consumer of a 2x2 stencil, Halide 21's
count), and the storage folds along y. Results compared with the reference
evaluator; a schedule fuzz of splits and stencils checks the same."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_each_producer_value_is_computed_once(capfd):
    x, y = ph.Var("x"), ph.Var("y")
    p, c = ph.Func("p_slide2"), ph.Func("c_slide2")
    p[x, y] = ph.sqrt(x * y)
    c[x, y] = p[x, y] + p[x, y + 1] + p[x + 1, y] + p[x + 1, y + 1]
    p.store_root().compute_at(c, x)
    p.trace_stores()
    got = np.asarray(c.realize([4, 4]))
    stores = [l for l in capfd.readouterr().out.splitlines() if l.startswith("Store p_slide2")]
    assert len(stores) == 25
    assert len(set(stores)) == 25
    yy, xx = np.mgrid[0:4, 0:4].astype(np.float32)
    ref = sum(np.sqrt((xx + a) * (yy + b)) for a in (0, 1) for b in (0, 1))
    np.testing.assert_allclose(got, ref, rtol=1e-6)


@pytest.mark.parametrize("split", [None, 2, 3])
@pytest.mark.parametrize("radius", [1, 2])
def test_sliding_over_split_loops_equals_the_reference(split, radius):
    x, y, xo, xi = ph.vars("x y xo xi")
    name = f"s{split}_r{radius}"
    p, c = ph.Func(f"p_slide_{name}"), ph.Func(f"c_slide_{name}")
    p[x, y] = x * 7 + y * y
    c[x, y] = sum(p[x + i, y + j] * (i + 2 * j + 1)
                  for i in range(-radius, radius + 1) for j in range(-radius, radius + 1))
    if split:
        c.split(x, xo, xi, split, ph.TailStrategy.GuardWithIf)
        p.store_root().compute_at(c, xi)
    else:
        p.store_root().compute_at(c, x)
    check(c, [9, 7])
