"""Schedule of examples/pipelines/blur.py for target x86-64-avx512: 256x32 tiles of
blur_y in parallel rows of tiles, vectorized by 32 uint16 lanes; blur_x
computed per tile."""
import pyhalide as ph


def blur(p):
    blur_y, blur_x = p.funcs["blur_y"], p.funcs["blur_x"]
    x, y = p.vars["blur_y", "x"], p.vars["blur_y", "y"]
    xo, yo, xi, yi = ph.Var("xo"), ph.Var("yo"), ph.Var("xi"), ph.Var("yi")
    blur_y.tile(x, y, xo, yo, xi, yi, 256, 32).vectorize(xi, 32).parallel(yo)
    blur_x.compute_at(blur_y, xo).vectorize(p.vars["blur_x", "x"], 32)
