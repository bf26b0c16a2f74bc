"""A Func computed per tile of a tiled ShiftInwards consumer (suite 2's blur
and conv5x5 schedule): the test "the output holds at least one whole tile" is
made before the intermediate is sized, so in the copy for whole tiles the
intermediate has a constant size and a constant row stride (Halide's code,
whose tiles are never partial), and its loops have no shift-inward clamp
test. Outputs narrower or shorter than a tile take the general copy; every
result equals NumPy's."""
import re

import numpy as np
import pytest

import pyhalide as ph


def _blur(img, tile_x, tile_y, lanes):
    inp = ph.Buffer(img, "input")
    x, y, xi, yi = ph.Var("x"), ph.Var("y"), ph.Var("xi"), ph.Var("yi")
    bx, by = ph.Func("bx"), ph.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.tile(x, y, xi, yi, tile_x, tile_y).vectorize(xi, lanes).parallel(y)
    bx.compute_at(by, x).vectorize(x, lanes)
    return by


def _numpy(a):
    with np.errstate(over="ignore"):
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3
        return (bx[:-2] + bx[1:-1] + bx[2:]) // 3


def _allocations(text):
    return re.findall(r"allocate bx\[([^\]]*)\]", text)


def test_whole_tile_copy_allocates_a_constant_tile():
    img = np.zeros((70, 130), np.uint16)
    text = str(ph.Pipeline([_blur(img, 64, 8, 16)]).lower("final"))
    sizes = _allocations(text)
    # one copy per outcome of the two tile tests; the whole-tile one is 64 x 10
    assert "uint16 * 64 * 10" in sizes, sizes
    whole = text[text.index("allocate bx[uint16 * 64 * 10]"):]
    whole = whole[:whole.index("free bx")]
    assert "bx.b0.extent" not in whole and "bx.r0.extent" not in whole, whole
    # the row loop of the intermediate runs over a constant count of vectors
    assert re.search(r"for \(bx\.s0\.x\$1, 0, 4\)", whole), whole


@pytest.mark.parametrize("w,h", [(128, 64), (131, 45), (64, 8), (70, 5), (20, 30), (5, 3),
                                 (63, 7), (1, 1)])
def test_results_exact_for_whole_and_partial_tiles(w, h):
    img = np.random.default_rng(w * 1000 + h).integers(0, 2**16, (h + 2, w + 2),
                                                        dtype=np.uint16)
    out = np.empty((h, w), np.uint16)
    _blur(img, 64, 8, 16).realize(ph.Buffer(out))
    assert np.array_equal(out, _numpy(img))
