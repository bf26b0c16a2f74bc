"""Schedule of examples/pipelines/conv5x5.py for every target: 128x32 tiles
of conv_y in parallel rows of tiles, vectorized by 16 float32 lanes (one
AVX-512 vector, two AVX2 ones); conv_x computed per tile (1-thread CPU at
4096^2 on AVX-512: 20.8 ms, suite 2's 256x32 by 8 lanes 24.3 ms)."""
import pyhalide as ph


def conv5x5(p):
    conv_y, conv_x = p.funcs["conv_y"], p.funcs["conv_x"]
    x, y = p.vars["conv_y", "x"], p.vars["conv_y", "y"]
    xo, yo, xi, yi = ph.Var("xo"), ph.Var("yo"), ph.Var("xi"), ph.Var("yi")
    conv_y.tile(x, y, xo, yo, xi, yi, 128, 32).vectorize(xi, 16).parallel(yo)
    conv_x.compute_at(conv_y, xo).vectorize(p.vars["conv_x", "x"], 16)
