"""Schedule of examples/pipelines/histogram_equalization.py for target generic:
the histogram as per-row-block partial histograms (rfactor) merged in
parallel; the lookup parallel over rows and vectorized by 8 lanes."""
import pyhalide as ph


def equalize(p):
    out = p.funcs["out"]
    x, y = p.vars["out", "x"], p.vars["out", "y"]
    xo, xi = ph.Var("xo"), ph.Var("xi")
    out.split(x, xo, xi, 8).vectorize(xi).parallel(y)
    hist = p.funcs["hist"]
    ry = p.vars["hist", "y"]
    ryo, ryi = ph.RVar("ryo"), ph.RVar("ryi")
    u = ph.Var("u")
    hist.update(0).split(ry, ryo, ryi, 64)
    partial = hist.update(0).rfactor(ryo, u)
    partial.compute_root().update(0).parallel(u)
    hist.update(0).vectorize(hist.args()[0], 8)
