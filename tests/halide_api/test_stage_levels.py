"""compute_at(g, x) where several stages of g use the Func (Halide's lesson
09): the Func is computed inside loop x of each stage that uses it, as
Halide does. Results compared with the reference evaluator and plain
Python; the trace of stores is Halide 21's (printed by its wheel for the
same program)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _pair(case, tag):
    x = ph.Var("x")
    producer, consumer = ph.Func(f"producer_{tag}"), ph.Func(f"consumer_{tag}")
    producer[x] = x * 17
    if case == "pure":
        consumer[x] = 2 * producer[x]
        consumer[x] += 1
    elif case == "update":
        consumer[x] = x
        consumer[x] += producer[x]
    else:
        consumer[x] = producer[x] * x
        consumer[x] += producer[x]
    return x, producer, consumer


@pytest.mark.parametrize("case,expected", [
    ("pure", [2 * 17 * i + 1 for i in range(10)]),
    ("update", [i + 17 * i for i in range(10)]),
    ("both", [17 * i * i + 17 * i for i in range(10)]),
])
def test_producer_computed_in_each_stage_that_uses_it(case, expected):
    x, producer, consumer = _pair(case, "st_" + case)
    producer.compute_at(consumer, x)
    check(consumer, [10], [np.array(expected)])


def test_store_root_compute_at_two_stages_and_trace_order(capfd):
    x, producer, consumer = _pair("both", "st_trace")
    producer.store_root().compute_at(consumer, x)
    producer.trace_stores()
    consumer.trace_stores()
    got = np.asarray(consumer.realize([3]))
    np.testing.assert_array_equal(got, [0, 34, 102])
    lines = [l for l in capfd.readouterr().out.splitlines() if l.startswith("Store")]
    p, c = "Store producer_st_trace.0", "Store consumer_st_trace.0"
    assert lines == [f"{p}(0) = 0", f"{c}(0) = 0", f"{p}(1) = 17", f"{c}(1) = 17",
                     f"{p}(2) = 34", f"{c}(2) = 68",
                     f"{p}(0) = 0", f"{c}(0) = 0", f"{p}(1) = 17", f"{c}(1) = 34",
                     f"{p}(2) = 34", f"{c}(2) = 102"]


def test_producer_under_a_one_dimensional_rdom():
    x = ph.Var("x")
    r = ph.RDom([(0, 5)])
    producer, consumer = ph.Func("producer_st_r"), ph.Func("consumer_st_r")
    producer[x] = x * 17
    consumer[x] = x + 10
    consumer[x] += r + producer[x + r]
    producer.compute_at(consumer, r)
    expected = [i + 10 + sum(k + (i + k) * 17 for k in range(5)) for i in range(10)]
    check(consumer, [10], [np.array(expected)])


def test_two_dimensional_stages_with_a_stencil_and_an_updated_producer():
    # the producer has an update of its own (reading itself) and is read at
    # shifted points in both stages of a 2-D consumer, computed per row
    x, y = ph.vars("x y")
    p, g = ph.Func("p_st_2d"), ph.Func("g_st_2d")
    p[x, y] = x + 3 * y
    p[x, y] = p[x, y] * 2 + 1
    g[x, y] = p[x, y] + p[x + 1, y]
    g[x, y] += p[x - 1, y] * g[x, y]
    p.compute_at(g, y)
    check(g, [6, 4])


def test_a_multi_dimensional_rdom_is_refused_as_a_level():
    x = ph.Var("x")
    r = ph.RDom([(0, 2), (0, 3)])
    p, g = ph.Func("p_st_r2"), ph.Func("g_st_r2")
    p[x] = x
    g[x] = 0
    g[x] += p[x + r.x + r.y]
    with pytest.raises(ph.CompileError, match="the RDom has 2 dimensions"):
        p.compute_at(g, r)


def test_another_consumer_outside_the_level_is_still_refused():
    x = ph.Var("x")
    p, g, h = ph.Func("p_st_h"), ph.Func("g_st_h"), ph.Func("h_st_h")
    p[x] = x * 3
    g[x] = p[x]
    g[x] += p[x + 1]
    g.compute_root()
    h[x] = g[x] + p[x]
    p.compute_at(g, x)
    with pytest.raises(ph.CompileError, match="compute p_st_h at root"):
        h.realize([5])
