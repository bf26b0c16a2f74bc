"""Two-stage 3x3 box blur on a uint16 image (Halide PLDI 2013), default
schedule, checked against NumPy.

    python examples/blur.py [width height]
"""
import sys
import time

import numpy as np

import pyhalide as ph


def blur(image: np.ndarray):
    """blur_y over the image shrunk by 2 in each dimension."""
    x, y = ph.Var("x"), ph.Var("y")
    inp = ph.Buffer(image, "input")
    blur_x, blur_y = ph.Func("blur_x"), ph.Func("blur_y")
    blur_x[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) // 3
    blur_y[x, y] = (blur_x[x, y] + blur_x[x, y + 1] + blur_x[x, y + 2]) // 3
    return blur_x, blur_y


def blur_numpy(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3
        return (bx[:-2] + bx[1:-1] + bx[2:]) // 3


def main(w=1536, h=1024):
    image = np.random.default_rng(0).integers(0, 2**16, (h, w), dtype=np.uint16)
    _, blur_y = blur(image)
    t0 = time.perf_counter()
    out = np.asarray(blur_y.realize([w - 2, h - 2]))
    t1 = time.perf_counter()
    ok = np.array_equal(out, blur_numpy(image))
    print(f"blur {w}x{h}: first call (with compile) {t1 - t0:.3f} s, equals NumPy: {ok}")
    if not ok:
        raise SystemExit("blur differs from NumPy")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
