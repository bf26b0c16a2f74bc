"""A producer computed at an outer loop of a nest serves consumers computed at
inner loops of the same nest (Halide accepts it): a separable 5x5
convolution with `tmp` computed per `out.xo` and `sy` per `out.xi`. Its
region at the outer loop is the union over the inner loops; every result is
compared with the reference evaluator and NumPy. A consumer computed
outside the producer's loop stays refused."""
import numpy as np
import pytest

import pyhalide as ph
from tests.schedules.schedule_check import check

W = [1, 4, 6, 4, 1]
IMG = np.random.default_rng(11).integers(0, 256, (72, 104), dtype=np.uint8)


def _numpy(sizes):
    w, h = sizes
    a = IMG.astype(np.int32)
    tmp = sum(W[k] * a[:, k:k + w] for k in range(5))
    return sum(W[k] * tmp[k:k + h, :] for k in range(5))


def _conv():
    inp = ph.Buffer(IMG, "img")
    x, y = ph.Var("x"), ph.Var("y")
    tmp, sy, out = ph.Func("tmp"), ph.Func("sy"), ph.Func("out")
    tmp[x, y] = sum(W[k] * ph.cast(ph.Int(32), inp[x + k, y]) for k in range(5))
    sy[x, y] = sum(W[k] * tmp[x, y + k] for k in range(5))
    out[x, y] = sy[x, y]
    v = {n: ph.Var(n) for n in ("x", "y", "xo", "yo", "xi", "yi")}
    v["x"], v["y"] = x, y
    return tmp, sy, out, v


def _tiled():
    tmp, sy, out, v = _conv()
    out.tile(v["x"], v["y"], v["xo"], v["yo"], v["xi"], v["yi"], 16, 8)
    return tmp, sy, out, v


def _issue_schedule():
    tmp, sy, out, v = _tiled()
    tmp.compute_at(out, v["xo"])
    sy.compute_at(out, v["xi"])
    return out


def _store_outside():
    # tmp stored per row of tiles, computed per tile: a sliding window in x
    tmp, sy, out, v = _tiled()
    tmp.store_at(out, v["yo"]).compute_at(out, v["xo"])
    sy.compute_at(out, v["xi"])
    return out


def _parallel_outer():
    tmp, sy, out, v = _tiled()
    out.parallel(v["yo"])
    tmp.compute_at(out, v["xo"])
    sy.compute_at(out, v["xi"])
    return out


def _vectorized_inner():
    tmp, sy, out, v = _tiled()
    out.vectorize(v["xi"], 8)
    tmp.compute_at(out, v["xo"]).vectorize(v["x"], 8)
    sy.compute_at(out, v["yi"]).vectorize(v["x"], 4)
    return out


def _three_levels():
    # sy per out.yi, a third Func per sy.x: both inside tmp's loop out.xo
    tmp, sy, _, v = _conv()
    x, y = v["x"], v["y"]
    t2 = ph.Func("t2")
    t2[x, y] = tmp[x, y] * 2
    sy2 = ph.Func("sy2")
    sy2[x, y] = sy[x, y] + t2[x, y + 2]
    out2 = ph.Func("out2")
    out2[x, y] = sy2[x, y] - 2 * tmp[x, y + 2]
    out2.tile(x, y, v["xo"], v["yo"], v["xi"], v["yi"], 16, 8)
    tmp.compute_at(out2, v["xo"])
    sy.compute_at(out2, v["yi"])
    sy2.compute_at(out2, v["yi"])
    t2.compute_at(sy2, x)
    return out2


_BUILT = {}


def _built(build):
    """One pipeline per schedule, realized at every size: the kernel takes the
    output size as an argument, so the sizes share one compile (and check that
    one kernel serves them all)."""
    if build not in _BUILT:
        _BUILT[build] = build()
    return _BUILT[build]


@pytest.mark.parametrize("build", [_issue_schedule, _store_outside, _parallel_outer,
                                   _vectorized_inner, _three_levels],
                         ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("sizes", [[96, 64], [93, 61], [7, 5]], ids=str)
def test_producer_at_outer_loop_serves_inner_consumers(build, sizes):
    check(_built(build), sizes, _numpy(sizes))


@pytest.mark.parametrize("levels", [("xi", "xo"), ("xi", "yo"), ("yi", "yo")])
def test_consumer_outside_the_producers_loop_is_refused(levels):
    tmp, sy, out, v = _tiled()
    tmp.compute_at(out, v[levels[0]])
    sy.compute_at(out, v[levels[1]])
    n = r"(\$\d+)?"                 # a name used earlier in the process gets a suffix
    with pytest.raises(ph.CompileError, match=rf"Func tmp{n} is computed at out{n}\.{levels[0]}, "
                                              rf"but sy{n} \(computed at out{n}\.{levels[1]}\) "
                                              rf"uses it outside that loop"):
        out.realize([32, 16])


def test_consumer_at_root_is_refused():
    tmp, sy, out, v = _tiled()
    tmp.compute_at(out, v["xo"])
    sy.compute_root()
    with pytest.raises(ph.CompileError, match="uses it outside that loop"):
        out.realize([32, 16])


# Stored at a loop of the Func its consumer is computed inside (Halide accepts
# it): the storage spans the consumer's loops, and computing per row of the
# consumer slides down it.
def _stored_at(store, parallel=None):
    """sy per out.xo; tmp per row of sy, stored at out.`store`."""
    tmp, sy, out, v = _tiled()
    if parallel:
        out.parallel(v[parallel])
    sy.compute_at(out, v["xo"])
    tmp.store_at(out, v[store]).compute_at(sy, v["y"])
    return out


def _stored_at_consumers_consumer():
    return _stored_at("xo")


def _stored_per_row_of_tiles():
    return _stored_at("yo")


@pytest.mark.parametrize("build", [_stored_at_consumers_consumer, _stored_per_row_of_tiles],
                         ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("sizes", [[96, 64], [93, 61], [7, 5]], ids=str)
def test_stored_at_a_loop_of_the_consumers_consumer(build, sizes):
    check(_built(build), sizes, _numpy(sizes))


@pytest.mark.parametrize("store, parallel, message", [
    ("yo", "xo", "would share the storage"),
    ("xi", None, "the store level must contain the compute level")])
def test_store_level_of_the_consumers_consumer_refusals(store, parallel, message):
    with pytest.raises(ph.CompileError, match=message):
        _stored_at(store, parallel).realize([32, 16])
