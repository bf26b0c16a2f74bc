"""A 256-bucket histogram of a uint8 image with the Func API, checked
against np.bincount."""
import numpy as np

import pyhalide as ph


def histogram(image: np.ndarray) -> ph.Func:
    inp = ph.Buffer(image, "image")
    i = ph.Var("i")
    r = ph.RDom([(0, image.shape[1]), (0, image.shape[0])], "r")
    hist = ph.Func("hist")
    hist[i] = 0
    hist[ph.cast(ph.Int(32), inp[r.x, r.y])] += 1
    return hist


def main():
    image = np.random.default_rng(1).integers(0, 256, (480, 640), dtype=np.uint8)
    hist = np.asarray(histogram(image).realize([256]))
    ok = np.array_equal(hist, np.bincount(image.ravel(), minlength=256))
    print(f"histogram of a 640x480 image: {hist.sum()} pixels counted, equals NumPy: {ok}")
    if not ok:
        raise SystemExit("histogram differs from NumPy")


if __name__ == "__main__":
    main()
