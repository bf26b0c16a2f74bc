"""The rfactor schedules of the six reductions, the shapes of Halide's
test/performance/rfactor.cpp (and of examples/rfactor_benchmarks.py, the same
algorithms with the Func API), with the vector width of the target. Each
schedule function gets the pipeline view `p`: p.funcs / p.vars name Funcs
and loop variables by their Python names."""
import pyhalide as ph


def one_d(p, state: str, loop: str, chunk: int, lanes: int, vec_u=None):
    """Chunks of `chunk` iterations in parallel, each reduced `lanes` wide,
    the lanes then merged inside the chunk, the chunks merged at the end."""
    f = p.funcs[state]
    rxo, rxi, rxio, rxii = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("rxio"), ph.RVar("rxii")
    u, v = ph.Var("u"), ph.Var("v")
    f.update(0).split(p.vars[loop], rxo, rxi, chunk)
    intm = f.update(0).rfactor(rxo, u)
    intm.compute_root()
    if vec_u:
        intm.vectorize(u, vec_u)
    intm.update(0).parallel(u).split(rxi, rxio, rxii, lanes) \
        .rfactor(rxii, v).compute_at(intm, u).vectorize(v).update(0).vectorize(v)


def max_reduction(p, lanes):
    one_d(p, "m", "i", 4 * 8192, lanes)


def complex_mul(p, lanes):
    one_d(p, "x", "i", 2 * 8192, lanes, vec_u=lanes)


def dot(p, lanes):
    one_d(p, "s", "i", 4 * 8192, lanes)


def kitchen_sink(p, lanes):
    one_d(p, "s", "i", 8192, lanes)


def histogram2d(p, lanes):
    """Partial histograms over blocks of 16 rows, in parallel; the merge
    vectorized over the bins."""
    hist = p.funcs["hist"]
    x = hist.args()[0]
    u = ph.Var("u")
    ryo, ryi = ph.RVar("ryo"), ph.RVar("ryi")
    hist.update(0).split(p.vars["y"], ryo, ryi, 16).rfactor(ryo, u) \
        .compute_root().vectorize(x, lanes).update(0).parallel(u)
    hist.update(0).vectorize(x, lanes)


def argmin4d(p, lanes):
    """Partials over the outermost loop in parallel, each vectorized over 16
    positions of the innermost loop (the first occurrence is kept exactly)."""
    best = p.funcs["best"]
    u, v = ph.Var("u"), ph.Var("v")
    intm1 = best.update(0).rfactor(p.vars["i"], u)
    intm1.compute_root()
    intm1.update(0).parallel(u)
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    intm2 = intm1.update(0).split(p.vars["l"], rxo, rxi, 16).rfactor(rxi, v)
    intm2.compute_at(intm1, u)
    intm2.update(0).vectorize(v)
