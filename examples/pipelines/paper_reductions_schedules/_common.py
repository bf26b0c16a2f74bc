"""The rfactor schedules of the six reductions (the shapes of Halide's
test/performance/rfactor.cpp), parametrized by the vector width of the
target; the per-target files pick the widths. Each schedule function gets
the pipeline view `p` (p.funcs / p.vars by Python name)."""
import pyhalide as ph

CHUNK = 4 * 8192        # elements per parallel chunk


def _vectorized_partials(intm, inner, lanes, u):
    """Vectorize a chunk's reduction: a second rfactor over `lanes` lanes,
    computed inside each chunk and merged there."""
    iio, iii = ph.RVar("iio"), ph.RVar("iii")
    v = ph.Var("v")
    intm.update(0).split(inner, iio, iii, lanes)
    lanes_f = intm.update(0).rfactor(iii, v)
    lanes_f.compute_at(intm, u).vectorize(v)
    lanes_f.update(0).vectorize(v)
    return lanes_f


def flat_reduction(p, state: str, loop: str, lanes: int):
    """A 1-D reduction: split into chunks, partial results per chunk in
    parallel, each chunk vectorized, partials merged serially."""
    f = p.funcs[state]
    r = p.vars[loop]
    ro, ri = ph.RVar("ro"), ph.RVar("ri")
    u = ph.Var("u")
    f.update(0).split(r, ro, ri, CHUNK)
    intm = f.update(0).rfactor(ro, u)
    intm.compute_root().update(0).parallel(u)
    _vectorized_partials(intm, ri, lanes, u)


def max_reduction(p, lanes):
    flat_reduction(p, "m", "i", lanes)


def complex_mul(p, lanes):
    flat_reduction(p, "x", "i", lanes)


def dot(p, lanes):
    flat_reduction(p, "s", "i", lanes)


def kitchen_sink(p, lanes):
    flat_reduction(p, "s", "i", lanes)


def histogram2d(p, lanes):
    hist = p.funcs["hist"]
    y = p.vars["y"]
    u = ph.Var("u")
    intm = hist.update(0).rfactor(y, u)          # one partial histogram per row
    intm.compute_root().update(0).parallel(u)
    intm.vectorize(intm.args()[0], lanes)
    hist.update(0).vectorize(hist.args()[0], lanes)


def argmin4d(p, lanes):
    best = p.funcs["best"]
    i = p.vars["i"]
    u = ph.Var("u")
    intm = best.update(0).rfactor(i, u)          # partials over the outermost loop
    intm.compute_root().update(0).parallel(u)
