"""Schedule of examples/pipelines/conv5x5.py for target x86-64-avx2: 256x32 tiles
of conv_y in parallel rows of tiles, vectorized by 8 float32 lanes; conv_x
computed per tile (suite 2's conv5x5 schedule)."""
import pyhalide as ph


def conv5x5(p):
    conv_y, conv_x = p.funcs["conv_y"], p.funcs["conv_x"]
    x, y = p.vars["conv_y", "x"], p.vars["conv_y", "y"]
    xo, yo, xi, yi = ph.Var("xo"), ph.Var("yo"), ph.Var("xi"), ph.Var("yi")
    conv_y.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 8).parallel(yo)
    conv_x.compute_at(conv_y, xo).vectorize(p.vars["conv_x", "x"], 8)
