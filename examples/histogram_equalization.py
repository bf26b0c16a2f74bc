"""Histogram equalization: histogram -> cumulative scan -> lookup, with the
Func API, checked against NumPy."""
import numpy as np

import pyhalide as ph


def equalize(image: np.ndarray):
    h, w = image.shape
    inp = ph.Buffer(image, "image")
    i, x, y = ph.Var("i"), ph.Var("x"), ph.Var("y")
    r = ph.RDom([(0, w), (0, h)], "r")
    hist = ph.Func("hist")
    hist[i] = 0
    hist[ph.cast(ph.Int(32), inp[r.x, r.y])] += 1
    cdf = ph.Func("cdf")
    s = ph.RDom([(1, 255)], "s")
    cdf[i] = hist[i]
    cdf[s.x] = cdf[s.x] + cdf[s.x - 1]
    out = ph.Func("equalized")
    level = cdf[ph.cast(ph.Int(32), inp[x, y])]
    out[x, y] = ph.cast(ph.UInt(8), (ph.cast(ph.Int(64), level) * 255) // (w * h))
    return out


def equalize_numpy(image: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(np.bincount(image.ravel(), minlength=256))
    return ((cdf[image].astype(np.int64) * 255) // image.size).astype(np.uint8)


def main():
    image = np.random.default_rng(2).normal(100, 20, (480, 640)).clip(0, 255).astype(np.uint8)
    h, w = image.shape
    out = np.asarray(equalize(image).realize([w, h]))
    ok = np.array_equal(out, equalize_numpy(image))
    print(f"histogram equalization of a {w}x{h} image: levels {image.min()}..{image.max()} -> "
          f"{out.min()}..{out.max()}, equals NumPy: {ok}")
    if not ok:
        raise SystemExit("histogram equalization differs from NumPy")


if __name__ == "__main__":
    main()
